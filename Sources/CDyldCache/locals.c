// The local-symbol table: the symbols the cache builder took out of every image's own symbol
// table (static functions, non-exported ones), kept in one place — in the main file of old
// caches, in the `.symbols` file since iOS 15 — at the header's localSymbolsOffset:
//
//     struct dyld_cache_local_symbols_info {        offsets from the start of this struct
//         u32 nlistOffset, nlistCount;              nlist_64 (16 bytes; nlist, 12, in 32-bit caches)
//         u32 stringsOffset, stringsSize;           the string pool of those entries
//         u32 entriesOffset, entriesCount;          one entry per image:
//     };
//     struct dyld_cache_local_symbols_entry    { u32 dylibOffset; u32 nlistStartIndex, nlistCount; }
//     struct dyld_cache_local_symbols_entry_64 { u64 dylibOffset; u32 nlistStartIndex, nlistCount; }
//
// A header long enough to hold symbolFileUUID (400 bytes or more) has 64-bit entries, whose
// dylibOffset is the image's address less the cache's base; older ones have 32-bit entries,
// whose dylibOffset is the file offset of the image's Mach-O header in the main file.
//
// Worked example: entry {dylibOffset 0x4000, start 120, count 3} of a new cache based at
// 0x180000000 gives the image at 0x180004000 the nlist entries 120, 121 and 122.

#include "internal.h"

#include <stdlib.h>

static int by_offset(const void *a, const void *b) {
    const local_entry *x = a, *y = b;
    return x->dylib_offset < y->dylib_offset ? -1 : x->dylib_offset > y->dylib_offset;
}

int locals_read(dsc_cache *cache, span file, const dsc_header *header, char *message, size_t message_size) {
    span info = span_part(file, header->local_symbols_offset, header->local_symbols_size);
    uint32_t nlist_offset, nlist_count, strings_offset, strings_size, entries_offset, entries_count;
    if (!read_u32(info, 0, &nlist_offset) || !read_u32(info, 4, &nlist_count) || !read_u32(info, 8, &strings_offset)
        || !read_u32(info, 12, &strings_size) || !read_u32(info, 16, &entries_offset)
        || !read_u32(info, 20, &entries_count)) {
        say(message, message_size, "its local-symbol table is cut short");
        return DSC_ERROR;
    }
    int wide = header->header_size >= 400;
    uint64_t entry_size = wide ? 16 : 12;
    if ((uint64_t)nlist_count > info.size / cache->nlist_size
        || !span_has(info, nlist_offset, (uint64_t)nlist_count * cache->nlist_size)) {
        say(message, message_size, "its %u local symbols lie past the end of their table", nlist_count);
        return DSC_ERROR;
    }
    if (!span_has(info, strings_offset, strings_size)) {
        say(message, message_size, "the strings of its local symbols lie past the end of their table");
        return DSC_ERROR;
    }
    if ((uint64_t)entries_count > info.size / entry_size || !span_has(info, entries_offset, entries_count * entry_size)) {
        say(message, message_size, "its %u local-symbol entries lie past the end of their table", entries_count);
        return DSC_ERROR;
    }
    local_entry *entries = malloc(((size_t)entries_count + 1) * sizeof(local_entry));
    if (!entries) {
        say(message, message_size, "out of memory");
        return DSC_ERROR;
    }
    for (uint32_t i = 0; i < entries_count; i++) {
        uint64_t at = entries_offset + i * entry_size;
        local_entry *e = &entries[i];
        if (wide) {
            read_u64(info, at, &e->dylib_offset);
            read_u32(info, at + 8, &e->start);
            read_u32(info, at + 12, &e->count);
        } else {
            uint32_t offset = 0;
            read_u32(info, at, &offset);
            e->dylib_offset = offset;
            read_u32(info, at + 4, &e->start);
            read_u32(info, at + 8, &e->count);
        }
    }
    qsort(entries, entries_count, sizeof(local_entry), by_offset);
    cache->local_nlists = span_part(info, nlist_offset, (uint64_t)nlist_count * cache->nlist_size);
    cache->local_nlist_count = nlist_count;
    cache->local_strings = span_part(info, strings_offset, strings_size);
    cache->local_entries = entries;
    cache->local_entry_count = entries_count;
    cache->locals_by_vm_offset = wide;
    cache->has_locals = 1;
    return DSC_OK;
}

const local_entry *locals_for_image(const dsc_cache *cache, uint64_t image_address) {
    if (!cache->has_locals) return NULL;
    uint64_t key;
    if (cache->locals_by_vm_offset) {
        if (image_address < cache->main.base_address) return NULL;
        key = image_address - cache->main.base_address;
    } else if (!main_file_offset(cache, image_address, &key)) {
        return NULL;
    }
    uint32_t low = 0, high = cache->local_entry_count;
    while (low < high) {
        uint32_t middle = low + (high - low) / 2;
        if (cache->local_entries[middle].dylib_offset < key) low = middle + 1; else high = middle;
    }
    if (low < cache->local_entry_count && cache->local_entries[low].dylib_offset == key) return &cache->local_entries[low];
    return NULL;
}
