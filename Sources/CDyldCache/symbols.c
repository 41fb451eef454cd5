// nlist entries, from an image's own symbol table or from the local-symbol table:
//
//     struct nlist_64 { u32 n_strx; u8 n_type; u8 n_sect; u16 n_desc; u64 n_value; }   16 bytes
//     struct nlist    { u32 n_strx; u8 n_type; u8 n_sect; u16 n_desc; u32 n_value; }   12 bytes
//
// Kept: symbols defined in a section (n_type & N_TYPE == N_SECT), not debugger entries
// (n_type & N_STAB), with a name inside the string pool. The names are not copied: each points
// into the cache's bytes.

#include "internal.h"

#include <stdlib.h>

void symbol_list_add(symbol_list *list, uint64_t address, const uint8_t *name, uint64_t length, uint8_t source,
                     uint8_t section) {
    if (list->failed || length == 0 || length > UINT32_MAX) return;
    if (list->count == list->capacity) {
        uint64_t capacity = list->capacity ? list->capacity * 2 : 256;
        dsc_symbol *grown = realloc(list->items, capacity * sizeof(dsc_symbol));
        if (!grown) {
            list->failed = 1;
            return;
        }
        list->items = grown;
        list->capacity = capacity;
    }
    dsc_symbol *symbol = &list->items[list->count++];
    symbol->address = address;
    symbol->name = name;
    symbol->name_length = (uint32_t)length;
    symbol->source = source;
    symbol->section = section;
    symbol->reserved = 0;
}

void nlists_read(symbol_list *list, span nlists, uint32_t nlist_size, uint64_t first, uint64_t count, span strings,
                 uint8_t source) {
    uint64_t available = nlists.size / nlist_size;
    if (first > available) return;
    if (count > available - first) count = available - first;
    for (uint64_t i = first; i < first + count; i++) {
        uint64_t at = i * nlist_size;
        uint32_t name = 0;
        uint8_t type = 0, section = 0;
        read_u32(nlists, at, &name);
        read_u8(nlists, at + 4, &type);
        read_u8(nlists, at + 5, &section);
        if ((type & 0xe0) != 0 || (type & 0x0e) != 0x0e || section == 0 || name >= strings.size) continue;
        uint64_t value = 0;
        if (nlist_size == 16) {
            read_u64(nlists, at + 8, &value);
        } else {
            uint32_t narrow = 0;
            read_u32(nlists, at + 8, &narrow);
            value = narrow;
        }
        symbol_list_add(list, value, strings.bytes + name, string_length(strings, name), source, section);
    }
}
