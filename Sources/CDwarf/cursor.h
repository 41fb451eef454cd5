// The bounds-checked byte cursor every reader of section bytes goes through: a read past the
// end yields 0, leaves the cursor at the end and marks it bad, so that a caller checks once
// after a run of reads.

#ifndef CDWARF_CURSOR_H
#define CDWARF_CURSOR_H

#include "reader.h"

#include <string.h>

typedef struct cursor {
    const uint8_t *p, *end;
    int big_endian;
    int bad;
} cursor;

static inline uint64_t get_fixed(cursor *c, unsigned size) {
    if ((size_t)(c->end - c->p) < size) {
        c->bad = 1;
        c->p = c->end;
        return 0;
    }
    uint64_t value = 0;
    if (!c->big_endian) {
        switch (size) {
        case 1: value = c->p[0]; break;
        case 2: { uint16_t v; memcpy(&v, c->p, 2); value = v; break; }
        case 4: { uint32_t v; memcpy(&v, c->p, 4); value = v; break; }
        case 8: memcpy(&value, c->p, 8); break;
        default:
            for (unsigned i = 0; i < size; i++) value |= (uint64_t)c->p[i] << (8 * i);
        }
    } else {
        for (unsigned i = 0; i < size; i++) value = (value << 8) | c->p[i];
    }
    c->p += size;
    return value;
}

static inline uint64_t get_uleb(cursor *c) {
    if (c->p < c->end && !(*c->p & 0x80)) return *c->p++;
    uint64_t value = 0;
    unsigned shift = 0;
    while (c->p < c->end) {
        uint8_t byte = *c->p++;
        if (shift < 64) value |= (uint64_t)(byte & 0x7f) << shift;
        shift += 7;
        if (!(byte & 0x80)) return value;
    }
    c->bad = 1;
    return 0;
}

static inline int64_t get_sleb(cursor *c) {
    uint64_t value = 0;
    unsigned shift = 0;
    uint8_t byte = 0;
    do {
        if (c->p >= c->end) {
            c->bad = 1;
            return 0;
        }
        byte = *c->p++;
        if (shift < 64) value |= (uint64_t)(byte & 0x7f) << shift;
        shift += 7;
    } while (byte & 0x80);
    if (shift < 64 && (byte & 0x40)) value |= ~(uint64_t)0 << shift;
    return (int64_t)value;
}

static inline void skip_bytes(cursor *c, uint64_t size) {
    if ((uint64_t)(c->end - c->p) < size) {
        c->bad = 1;
        c->p = c->end;
    } else {
        c->p += size;
    }
}

static inline void skip_leb(cursor *c) {
    while (c->p < c->end) {
        if (!(*c->p++ & 0x80)) return;
    }
    c->bad = 1;
}

static inline void skip_cstring(cursor *c) {
    const uint8_t *nul = memchr(c->p, 0, (size_t)(c->end - c->p));
    if (!nul) {
        c->bad = 1;
        c->p = c->end;
    } else {
        c->p = nul + 1;
    }
}

// A NUL-terminated string at `offset` in `s`, or NULL: one that starts before the section's
// last NUL (found once, so that no lookup scans the section).
static inline const char *section_string(const span *s, uint64_t offset) {
    if (!s->data || offset >= s->terminated) return NULL;
    return (const char *)s->data + offset;
}

#endif
