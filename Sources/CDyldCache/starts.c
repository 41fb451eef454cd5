// LC_FUNCTION_STARTS: the start of every function of the image, named or not, as ULEB128
// deltas, the first from the `__TEXT` vmaddr, ended by a 0:
//
//     __TEXT at 0x1a0000000, data 90 10 20 08 00  →  0x1a0000810, 0x1a0000830, 0x1a0000838
//
// These bound each symbol's extent: an address in a function without a name is not given
// the name of the function before it.

#include "internal.h"

#include <stdlib.h>

int starts_read(span data, uint64_t text_address, uint64_t **out, uint64_t *count) {
    *out = NULL;
    *count = 0;
    if (data.size == 0) return 1;
    // A ULEB128 takes one byte at least: no more starts than bytes.
    uint64_t *starts = malloc(data.size * sizeof(uint64_t));
    if (!starts) return 0;
    uint64_t offset = 0, address = text_address, n = 0;
    int complete = 0;
    while (offset < data.size) {
        uint64_t delta = 0;
        if (!read_uleb(data, &offset, &delta)) break;
        if (delta == 0) {
            complete = 1;
            break;
        }
        if (address + delta < address) break;
        address += delta;
        starts[n++] = address;
    }
    *out = starts;
    *count = n;
    // Real tables end with a 0 and padding; running off the end is damage, but the starts
    // read before it stand.
    return complete || offset == data.size;
}
