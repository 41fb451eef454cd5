// Range lists: DWARF 5 .debug_rnglists and DWARF 2-4 .debug_ranges.

#include "values.h"

// Adds the ranges of a DW_AT_ranges value.
CDW_INTERNAL int read_range_list(sink *s, const unit_ctx *u, const value *v) {
    const dwarf_sections *sections = u->sections;
    uint64_t offset = 0;
    if (u->version >= 5) {
        if (v->form == DW_FORM_rnglistx) {
            const span *lists = &sections->rnglists;
            if (!u->has_rnglists_base || !lists->data) return FAST_UNSUPPORTED;
            uint64_t size = u->offset_size;
            if (v->u > (UINT64_MAX - u->rnglists_base) / size) return FAST_DAMAGED;
            uint64_t at = u->rnglists_base + v->u * size;
            if (at > lists->size || lists->size - at < size) return FAST_DAMAGED;
            cursor c = {lists->data + at, lists->data + lists->size, u->big_endian, 0};
            offset = u->rnglists_base + get_fixed(&c, (unsigned)size);
        } else if (v->form == DW_FORM_sec_offset) {
            offset = v->u;
        } else {
            return FAST_UNSUPPORTED;
        }
        const span *lists = &sections->rnglists;
        if (!lists->data || offset >= lists->size) return FAST_DAMAGED;
        cursor c = {lists->data + offset, lists->data + lists->size, u->big_endian, 0};
        uint64_t base = u->base;
        for (;;) {
            if (count_list_entry(s, 1, (uint64_t)(c.p - lists->data)) != 0) return FAST_DAMAGED;
            unsigned kind = (unsigned)get_fixed(&c, 1);
            uint64_t low = 0, high = 0;
            int add = 1, res = FAST_OK;
            switch (kind) {
            case DW_RLE_end_of_list:
                if (c.bad) return FAST_DAMAGED;
                note_list_read(s, lists->data + offset, c.p);
                return FAST_OK;
            case DW_RLE_base_addressx:
                res = indexed_address(u, get_uleb(&c), &base);
                add = 0;
                break;
            case DW_RLE_startx_endx:
                res = indexed_address(u, get_uleb(&c), &low);
                if (res == FAST_OK) res = indexed_address(u, get_uleb(&c), &high);
                break;
            case DW_RLE_startx_length:
                res = indexed_address(u, get_uleb(&c), &low);
                high = low + get_uleb(&c);
                break;
            case DW_RLE_offset_pair:
                low = base + get_uleb(&c);
                high = base + get_uleb(&c);
                break;
            case DW_RLE_base_address:
                base = get_fixed(&c, u->address_size);
                add = 0;
                break;
            case DW_RLE_start_end:
                low = get_fixed(&c, u->address_size);
                high = get_fixed(&c, u->address_size);
                break;
            case DW_RLE_start_length:
                low = get_fixed(&c, u->address_size);
                high = low + get_uleb(&c);
                break;
            default:
                return FAST_DAMAGED;
            }
            if (res != FAST_OK) return res;
            if (c.bad) return FAST_DAMAGED;
            if (add && add_range(s, low, high) != 0) return FAST_NO_MEMORY;
        }
    }
    if (value_offset(v, &offset) != FAST_OK) return FAST_UNSUPPORTED;
    const span *ranges = &sections->ranges;
    if (!ranges->data || offset >= ranges->size) return FAST_DAMAGED;
    cursor c = {ranges->data + offset, ranges->data + ranges->size, u->big_endian, 0};
    uint64_t largest = u->address_size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * u->address_size)) - 1;
    uint64_t base = u->base;
    for (;;) {
        if (count_list_entry(s, 0, (uint64_t)(c.p - ranges->data)) != 0) return FAST_DAMAGED;
        uint64_t first = get_fixed(&c, u->address_size), second = get_fixed(&c, u->address_size);
        if (c.bad) return FAST_DAMAGED;
        if (first == 0 && second == 0) {
            note_list_read(s, ranges->data + offset, c.p);
            return FAST_OK;
        }
        if (first == largest) {
            base = second;
        } else if (add_range(s, base + first, base + second) != 0) {
            return FAST_NO_MEMORY;
        }
    }
}
