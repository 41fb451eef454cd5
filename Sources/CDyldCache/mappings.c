// The address map: every file's dyld_cache_mapping_info entries in one table, sorted by
// address, each checked to lie in its file and to overlap no other.
//
//     struct dyld_cache_mapping_info {   32 bytes, at the header's mappingOffset
//         u64 address;      unslid VM address
//         u64 size;
//         u64 fileOffset;   in this file
//         u32 maxProt, initProt;
//     };
//
// A VM address is read by finding the mapping that holds it (binary search) and taking the
// bytes of its file at fileOffset + (address - mapping.address). An image's code and its
// `__LINKEDIT` may lie in different files: addresses, not file offsets, join them.

#include "internal.h"

#include <stdlib.h>

int mappings_add(dsc_cache *cache, uint32_t file, const dsc_header *header, char *message, size_t message_size) {
    span bytes = cache->files[file];
    mapping *grown = realloc(cache->mappings, ((size_t)cache->mapping_count + header->mapping_count + 1) * sizeof(mapping));
    if (!grown) {
        say(message, message_size, "out of memory");
        return DSC_ERROR;
    }
    cache->mappings = grown;
    for (uint32_t i = 0; i < header->mapping_count; i++) {
        uint64_t at = (uint64_t)header->header_size + (uint64_t)i * 32;
        mapping m = {0, 0, 0, file};
        read_u64(bytes, at, &m.address);
        read_u64(bytes, at + 8, &m.size);
        read_u64(bytes, at + 16, &m.file_offset);
        if (!span_has(bytes, m.file_offset, m.size)) {
            say(message, message_size, "mapping %u (%llu bytes at file offset %llu) lies past the end of the file: cut short?",
                i, (unsigned long long)m.size, (unsigned long long)m.file_offset);
            return DSC_ERROR;
        }
        if (m.address + m.size < m.address) {
            say(message, message_size, "mapping %u runs past the end of the address space", i);
            return DSC_ERROR;
        }
        if (m.size == 0) continue;
        cache->mappings[cache->mapping_count++] = m;
    }
    return DSC_OK;
}

static int by_address(const void *a, const void *b) {
    const mapping *x = a, *y = b;
    return x->address < y->address ? -1 : x->address > y->address;
}

int mappings_finish(dsc_cache *cache, char *message, size_t message_size) {
    if (cache->mapping_count > 1) qsort(cache->mappings, cache->mapping_count, sizeof(mapping), by_address);
    for (uint32_t i = 1; i < cache->mapping_count; i++) {
        const mapping *before = &cache->mappings[i - 1], *m = &cache->mappings[i];
        if (before->address + before->size > m->address) {
            say(message, message_size, "mappings overlap at address 0x%llx", (unsigned long long)m->address);
            return DSC_ERROR;
        }
    }
    return DSC_OK;
}

// The mapping holding `address`, or NULL.
static const mapping *mapping_at(const dsc_cache *cache, uint64_t address) {
    uint32_t low = 0, high = cache->mapping_count;
    while (low < high) {
        uint32_t middle = low + (high - low) / 2;
        if (cache->mappings[middle].address <= address) low = middle + 1; else high = middle;
    }
    if (low == 0) return NULL;
    const mapping *m = &cache->mappings[low - 1];
    return address - m->address < m->size ? m : NULL;
}

span mapped_at(const dsc_cache *cache, uint64_t address) {
    const mapping *m = mapping_at(cache, address);
    span none = {NULL, 0};
    if (!m) return none;
    uint64_t into = address - m->address;
    return span_part(cache->files[m->file], m->file_offset + into, m->size - into);
}

span mapped_range(const dsc_cache *cache, uint64_t address, uint64_t length) {
    span all = mapped_at(cache, address);
    return span_part(all, 0, length);
}

int main_file_offset(const dsc_cache *cache, uint64_t address, uint64_t *out) {
    const mapping *m = mapping_at(cache, address);
    if (!m || m->file != 0) return 0;
    *out = m->file_offset + (address - m->address);
    return 1;
}
