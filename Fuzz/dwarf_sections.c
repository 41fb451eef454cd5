// libFuzzer target dwarf_sections: the input is a set of DWARF sections handed to
// cdw_open_sections as the Mach-O path hands a slice's __DWARF sections, then read in full on
// one thread and on two. Layout (Fuzz/make_dwarf_seeds.py writes seeds in it):
//
//     byte 0        flags: bit 0 big-endian, bit 1 4-byte addresses
//     then records  1-byte section number (into `names`, modulo its length), 4-byte
//                   little-endian length (cut to what is left), that many bytes

#include "CDwarf.h"
#include "dwarf_read_all.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
    ".debug_info",   ".debug_abbrev", ".debug_line",        ".debug_str",
    ".debug_line_str", ".debug_ranges", ".debug_rnglists",  ".debug_addr",
    ".debug_str_offsets", ".debug_loclists", ".debug_loc",  ".debug_types",
    ".debug_aranges",
};
enum { NAME_COUNT = sizeof(names) / sizeof(names[0]), MAX_SECTIONS = 32 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    cdw_section sections[MAX_SECTIONS];
    uint32_t count = 0;
    size_t at = 1;
    while (at + 5 <= size && count < MAX_SECTIONS) {
        uint32_t length = (uint32_t)data[at + 1] | (uint32_t)data[at + 2] << 8 |
                          (uint32_t)data[at + 3] << 16 | (uint32_t)data[at + 4] << 24;
        at += 5;
        if (length > size - at) length = (uint32_t)(size - at);
        // Each section in a buffer of its own, so that a read past it is caught.
        uint8_t *copy = malloc(length ? length : 1);
        if (!copy) break;
        memcpy(copy, data + at, length);
        sections[count++] = (cdw_section){names[data[at - 5] % NAME_COUNT], copy, length, 0};
        at += length;
    }
    for (uint32_t threads = 1; threads <= 2; threads++) {
        cdw_object *object = NULL;
        char message[512];
        if (cdw_open_sections(sections, count, (data[0] & 2) ? 4 : 8, data[0] & 1, &object, message,
                              sizeof(message)) == CDW_OK) {
            read_all(object, threads);
            cdw_close(object);
        }
    }
    for (uint32_t i = 0; i < count; i++) free((void *)sections[i].data);
    return 0;
}
