// Raw deflate streams (zip entries) inflated into a buffer of a size known beforehand, for the
// debug files inside APKs and app bundles (Sources/DebugInfo/Archives).

#include "include/CDwarf.h"

#include <limits.h>
#include <string.h>
#include <zlib.h>

enum { piece = 64 * 1024, page = 4096 };

static int all_zero(const unsigned char *bytes, size_t size) {
    for (size_t i = 0; i < size; i++) {
        if (bytes[i]) return 0;
    }
    return 1;
}

cdw_inflate_status cdw_inflate_raw(const void *in, size_t in_size, void *out, size_t out_size, size_t *written) {
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (written) *written = 0;
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return CDW_INFLATE_DAMAGED;
    unsigned char staging[piece];
    const unsigned char *next = in;
    size_t left = in_size, done = 0;
    cdw_inflate_status status = CDW_INFLATE_TOO_SHORT;
    for (;;) {
        if (z.avail_in == 0 && left > 0) {
            z.next_in = (unsigned char *)next;
            z.avail_in = left > UINT_MAX ? UINT_MAX : (unsigned)left;
            next += z.avail_in;
            left -= z.avail_in;
        }
        z.next_out = staging;
        z.avail_out = piece;
        int result = inflate(&z, Z_NO_FLUSH);
        size_t made = piece - z.avail_out;
        if (made > out_size - done) {
            status = CDW_INFLATE_TOO_LONG;
            made = out_size - done;
        }
        // Page-sized pieces of zeros are left as the (zeroed) buffer already has them.
        for (size_t at = 0; at < made; at += page) {
            size_t size = made - at < page ? made - at : page;
            if (!all_zero(staging + at, size)) memcpy((unsigned char *)out + done + at, staging + at, size);
        }
        done += made;
        if (status == CDW_INFLATE_TOO_LONG) break;
        if (result == Z_STREAM_END) {
            status = done == out_size ? CDW_INFLATE_OK : CDW_INFLATE_TOO_SHORT;
            break;
        }
        if (result == Z_BUF_ERROR && z.avail_in == 0 && left == 0) break;  // input ran out
        if (result != Z_OK && result != Z_BUF_ERROR) {
            status = CDW_INFLATE_DAMAGED;
            break;
        }
        if (done == out_size) {
            // Full: anything more the stream gives is too much; its end is fine.
            unsigned char probe;
            z.next_out = &probe;
            z.avail_out = 1;
            if (z.avail_in == 0 && left > 0) {
                z.next_in = (unsigned char *)next;
                z.avail_in = left > UINT_MAX ? UINT_MAX : (unsigned)left;
                next += z.avail_in;
                left -= z.avail_in;
            }
            int last = inflate(&z, Z_NO_FLUSH);
            if (last == Z_STREAM_END && z.avail_out == 1) status = CDW_INFLATE_OK;
            else if (z.avail_out == 0) status = CDW_INFLATE_TOO_LONG;
            else status = last == Z_OK || last == Z_BUF_ERROR ? CDW_INFLATE_TOO_SHORT : CDW_INFLATE_DAMAGED;
            break;
        }
    }
    if (written) *written = done;
    inflateEnd(&z);
    return status;
}
