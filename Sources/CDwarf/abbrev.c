// Abbreviation tables, decoded once per table and thread: what each abbreviation's DIEs hold
// and how many bytes their attribute values take.

#include "cursor.h"

#include <stdlib.h>
#include <string.h>

// Tags whose children may hold subprograms or inlined subroutines.
CDW_INTERNAL int may_hold_functions(uint64_t tag) {
    switch (tag) {
    case DW_TAG_compile_unit:
    case DW_TAG_partial_unit:
    case DW_TAG_namespace:
    case DW_TAG_module:
    case DW_TAG_class_type:
    case DW_TAG_structure_type:
    case DW_TAG_union_type:
    case DW_TAG_interface_type:
    case DW_TAG_subprogram:
    case DW_TAG_inlined_subroutine:
    case DW_TAG_lexical_block:
    case DW_TAG_try_block:
    case DW_TAG_catch_block:
        return 1;
    default:
        return 0;
    }
}

CDW_INTERNAL void abbrev_table_free(abbrev_table *t) {
    free(t->abbrevs);
    free(t->specs);
    free(t->by_code);
    memset(t, 0, sizeof(*t));
}

// The size of a value of `form` when it does not depend on the value: -1 when it does, -2 for
// a form this reader does not know.
CDW_INTERNAL int form_size(unsigned form, uint16_t version, uint8_t address_size, uint8_t offset_size) {
    switch (form) {
    case DW_FORM_addr: return address_size;
    case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
    case DW_FORM_addrx1:
        return 1;
    case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
        return 2;
    case DW_FORM_strx3: case DW_FORM_addrx3:
        return 3;
    case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4:
    case DW_FORM_ref_sup4:
        return 4;
    case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
        return 8;
    case DW_FORM_data16: return 16;
    case DW_FORM_strp: case DW_FORM_sec_offset: case DW_FORM_line_strp: case DW_FORM_strp_sup:
    case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
        return offset_size;
    case DW_FORM_ref_addr: return version <= 2 ? address_size : offset_size;
    case DW_FORM_flag_present: case DW_FORM_implicit_const: return 0;
    case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4: case DW_FORM_block:
    case DW_FORM_exprloc: case DW_FORM_string: case DW_FORM_sdata: case DW_FORM_udata:
    case DW_FORM_ref_udata: case DW_FORM_indirect: case DW_FORM_strx: case DW_FORM_addrx:
    case DW_FORM_loclistx: case DW_FORM_rnglistx: case DW_FORM_GNU_addr_index:
    case DW_FORM_GNU_str_index:
        return -1;
    default:
        return -2;
    }
}

// Decodes the abbreviation table `h` uses into `t`, unless `t` holds it already.
CDW_INTERNAL int load_abbrevs(abbrev_table *t, const dwarf_sections *sections, int big_endian,
                        const unit_header *h) {
    if (t->valid && t->offset == h->abbrev_offset && t->version == h->version &&
        t->address_size == h->address_size && t->offset_size == h->offset_size)
        return 0;
    t->valid = 0;
    t->count = 0;
    t->spec_count = 0;
    t->by_code_size = 0;
    if (h->abbrev_offset >= sections->abbrev.size) return FAST_DAMAGED;
    cursor c = {sections->abbrev.data + h->abbrev_offset,
                sections->abbrev.data + sections->abbrev.size, big_endian, 0};
    uint64_t max_code = 0;
    for (;;) {
        uint64_t code = get_uleb(&c);
        if (c.bad) return FAST_DAMAGED;
        if (code == 0) break;
        abbrev a;
        memset(&a, 0, sizeof(a));
        a.code = code;
        a.tag = get_uleb(&c);
        a.children = (uint8_t)get_fixed(&c, 1);
        if (a.tag == DW_TAG_subprogram || a.tag == DW_TAG_inlined_subroutine) a.kind |= KIND_FUNCTION;
        if (may_hold_functions(a.tag)) a.kind |= KIND_HOLDS_FUNCTIONS;
        a.first_spec = t->spec_count;
        a.sibling_at = -1;
        int64_t running = 0;  // offset of the next value while every value so far is fixed
        for (;;) {
            uint64_t at = get_uleb(&c), form = get_uleb(&c);
            if (c.bad) return FAST_DAMAGED;
            if (at == 0 && form == 0) break;
            attr_spec spec;
            memset(&spec, 0, sizeof(spec));
            if (at > UINT32_MAX || form > UINT16_MAX) return FAST_UNSUPPORTED;
            spec.at = (uint32_t)at;
            spec.form = (uint16_t)form;
            if (form == DW_FORM_implicit_const) spec.implicit_const = get_sleb(&c);
            int size = form_size((unsigned)form, h->version, h->address_size, h->offset_size);
            if (size == -2) return FAST_UNSUPPORTED;
            spec.size = (int16_t)size;
            if (at == DW_AT_sibling && running >= 0 && a.sibling_at < 0 && running < INT32_MAX) {
                a.sibling_at = (int32_t)running;
                a.sibling_form = (uint16_t)form;
            }
            if (running >= 0) running = size >= 0 ? running + size : -1;
            if (t->spec_count == t->spec_capacity) {
                uint32_t next = t->spec_capacity ? t->spec_capacity * 2 : 256;
                attr_spec *grown = realloc(t->specs, next * sizeof(*grown));
                if (!grown) return FAST_NO_MEMORY;
                t->specs = grown;
                t->spec_capacity = next;
            }
            t->specs[t->spec_count++] = spec;
            a.spec_count++;
        }
        a.fixed_size = running >= 0 && running < INT32_MAX ? (int32_t)running : -1;
        if (t->count == t->capacity) {
            uint32_t next = t->capacity ? t->capacity * 2 : 64;
            abbrev *grown = realloc(t->abbrevs, next * sizeof(*grown));
            if (!grown) return FAST_NO_MEMORY;
            t->abbrevs = grown;
            t->capacity = next;
        }
        t->abbrevs[t->count++] = a;
        if (code > max_code) max_code = code;
    }
    // Codes are small and dense in practice: index them directly (others are searched).
    uint64_t size = max_code < 65536 ? max_code + 1 : 65536;
    if (size > t->by_code_capacity) {
        uint32_t *grown = realloc(t->by_code, size * sizeof(uint32_t));
        if (!grown) return FAST_NO_MEMORY;
        t->by_code = grown;
        t->by_code_capacity = (uint32_t)size;
    }
    memset(t->by_code, 0, size * sizeof(uint32_t));
    // The first definition of a code wins, as in a linear search.
    for (uint32_t i = t->count; i-- > 0;) {
        if (t->abbrevs[i].code < size) t->by_code[t->abbrevs[i].code] = i + 1;
    }
    t->by_code_size = (uint32_t)size;
    t->offset = h->abbrev_offset;
    t->version = h->version;
    t->address_size = h->address_size;
    t->offset_size = h->offset_size;
    t->valid = 1;
    return FAST_OK;
}
