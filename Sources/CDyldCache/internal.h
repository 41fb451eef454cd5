// Shared by the reader's files: bounded little-endian reads, the address map, the cache.

#ifndef CDYLDCACHE_INTERNAL_H
#define CDYLDCACHE_INTERNAL_H

#include "CDyldCache.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// A run of bytes and its length. Every read below checks that the bytes it reads lie inside.
typedef struct span {
    const uint8_t *bytes;
    uint64_t size;
} span;

// Whether [offset, offset + length) lies in `s` (without overflowing).
static inline int span_has(span s, uint64_t offset, uint64_t length) {
    return offset <= s.size && length <= s.size - offset;
}

static inline int read_u8(span s, uint64_t offset, uint8_t *out) {
    if (!span_has(s, offset, 1)) return 0;
    *out = s.bytes[offset];
    return 1;
}

static inline int read_u16(span s, uint64_t offset, uint16_t *out) {
    if (!span_has(s, offset, 2)) return 0;
    memcpy(out, s.bytes + offset, 2);
    return 1;
}

static inline int read_u32(span s, uint64_t offset, uint32_t *out) {
    if (!span_has(s, offset, 4)) return 0;
    memcpy(out, s.bytes + offset, 4);
    return 1;
}

static inline int read_u64(span s, uint64_t offset, uint64_t *out) {
    if (!span_has(s, offset, 8)) return 0;
    memcpy(out, s.bytes + offset, 8);
    return 1;
}

// The part [offset, offset + length) of `s`, or an empty span when it does not fit.
static inline span span_part(span s, uint64_t offset, uint64_t length) {
    span part = {NULL, 0};
    if (span_has(s, offset, length)) {
        part.bytes = s.bytes + offset;
        part.size = length;
    }
    return part;
}

// Reads a ULEB128 at *offset, advancing it; 0 when it runs past the end or past 64 bits.
static inline int read_uleb(span s, uint64_t *offset, uint64_t *out) {
    uint64_t value = 0;
    unsigned shift = 0;
    while (*offset < s.size) {
        uint8_t byte = s.bytes[(*offset)++];
        if (shift >= 64 || (shift == 63 && (byte & 0x7e))) return 0;
        value |= (uint64_t)(byte & 0x7f) << shift;
        shift += 7;
        if (!(byte & 0x80)) {
            *out = value;
            return 1;
        }
    }
    return 0;
}

// The length of the NUL-terminated string at `offset`, up to the end of `s` at most.
static inline uint64_t string_length(span s, uint64_t offset) {
    if (offset >= s.size) return 0;
    const uint8_t *start = s.bytes + offset;
    const uint8_t *nul = memchr(start, 0, s.size - offset);
    return nul ? (uint64_t)(nul - start) : s.size - offset;
}

static inline void say(char *message, size_t size, const char *format, ...) {
    if (!message || size == 0) return;
    va_list args;
    va_start(args, format);
    vsnprintf(message, size, format, args);
    va_end(args);
}

// One mapping of one file: the addresses [address, address + size) are the file's bytes
// [file_offset, file_offset + size).
typedef struct mapping {
    uint64_t address;
    uint64_t size;
    uint64_t file_offset;
    uint32_t file;
} mapping;

// Local-symbol entry: the image it belongs to (by dylibOffset) and its nlist range.
typedef struct local_entry {
    uint64_t dylib_offset;
    uint32_t start;
    uint32_t count;
} local_entry;

struct dsc_cache {
    span *files;
    uint32_t file_count;
    dsc_header main;
    // Every file's mappings, sorted by address, none overlapping another.
    mapping *mappings;
    uint32_t mapping_count;
    // The local-symbol table: its nlist entries and string pool, and its entries sorted by
    // dylib_offset. `locals_by_vm_offset`: dylib_offset is a VM offset from the base (64-bit
    // entries), else a file offset in the main file.
    span local_nlists;
    uint32_t local_nlist_count;
    span local_strings;
    local_entry *local_entries;
    uint32_t local_entry_count;
    int locals_by_vm_offset;
    int has_locals;
    // 16 for 64-bit caches, 12 for 32-bit ones (arm64_32, armv7k, i386).
    uint32_t nlist_size;
    // The image list and the image-text list in the main file.
    span images;
    uint32_t image_stride;
    span images_text;
};

// mappings.c
int mappings_add(dsc_cache *cache, uint32_t file, const dsc_header *header, char *message, size_t message_size);
int mappings_finish(dsc_cache *cache, char *message, size_t message_size);
// The bytes from `address` up to the end of the mapping holding it (an empty span when no file
// handed over maps it).
span mapped_at(const dsc_cache *cache, uint64_t address);
// The bytes [address, address + length), when one mapping holds them all.
span mapped_range(const dsc_cache *cache, uint64_t address, uint64_t length);
// The file offset in the main file of `address`, when the main file maps it.
int main_file_offset(const dsc_cache *cache, uint64_t address, uint64_t *out);

// locals.c
int locals_read(dsc_cache *cache, span file, const dsc_header *header, char *message, size_t message_size);
const local_entry *locals_for_image(const dsc_cache *cache, uint64_t image_address);

// macho.c: the load commands of one image in the cache.
typedef struct image_layout {
    uint32_t cpu_type, cpu_subtype;
    int has_uuid;
    uint8_t uuid[16];
    int has_text;
    uint64_t text_address, text_size;
    int has_linkedit;
    uint64_t linkedit_address, linkedit_file_offset;
    int has_symtab;
    uint32_t symbol_offset, symbol_count, strings_offset, strings_size;
    int has_starts;
    uint32_t starts_offset, starts_size;
    int has_exports;
    uint32_t exports_offset, exports_size;
    uint32_t section_count;
    uint64_t section_ranges[2 * 255];
} image_layout;

int macho_read(const dsc_cache *cache, uint64_t address, image_layout *out, char *message, size_t message_size);
// The bytes of the `__LINKEDIT` part [offset, offset + size) (offsets as load commands give
// them, relative to the segment's file offset).
span linkedit_part(const dsc_cache *cache, const image_layout *layout, uint32_t offset, uint32_t size);

// symbols.c, exports.c, starts.c: appending to a growing array.
typedef struct symbol_list {
    dsc_symbol *items;
    uint64_t count, capacity;
    int failed;
} symbol_list;

void symbol_list_add(symbol_list *list, uint64_t address, const uint8_t *name, uint64_t length, uint8_t source,
                     uint8_t section);
// The nlist entries [first, first + count) of `nlists` whose names are in `strings`, defined in
// a section and not stabs.
void nlists_read(symbol_list *list, span nlists, uint32_t nlist_size, uint64_t first, uint64_t count, span strings,
                 uint8_t source);
// The exports trie's symbols with their addresses (offsets from `image_address`).
// `names_block` receives the block the names are in (freed with the symbols).
int exports_read(symbol_list *list, span trie, uint64_t image_address, void **names_block, char *problem,
                 size_t problem_size);
// LC_FUNCTION_STARTS as addresses from `text_address`.
int starts_read(span data, uint64_t text_address, uint64_t **out, uint64_t *count);

#endif
