// Attribute values: read by form, and taken as a string, an address, a reference, a constant
// or a section offset, each only from the forms that can hold it.

#ifndef CDWARF_VALUES_H
#define CDWARF_VALUES_H

#include "cursor.h"

typedef struct unit_ctx {
    const dwarf_sections *sections;
    const unit_header *h;
    int big_endian;
    uint16_t version;
    uint8_t address_size, offset_size;
    uint64_t base;  // DW_AT_low_pc of the unit DIE, 0 without
    uint64_t str_offsets_base, addr_base, rnglists_base, stmt_list;
    uint8_t has_str_offsets_base, has_addr_base, has_rnglists_base, has_stmt_list;
    const char *comp_dir;
    uint8_t comp_dir_inline;  // DW_FORM_string: not worth interning
} unit_ctx;

typedef struct value {
    unsigned form;
    uint64_t u;
    const uint8_t *data;  // DW_FORM_string: the string
} value;

static inline void skip_value(cursor *c, unsigned form, const unit_ctx *u) {
    switch (form) {
    case DW_FORM_block1: skip_bytes(c, get_fixed(c, 1)); return;
    case DW_FORM_block2: skip_bytes(c, get_fixed(c, 2)); return;
    case DW_FORM_block4: skip_bytes(c, get_fixed(c, 4)); return;
    case DW_FORM_block: case DW_FORM_exprloc: skip_bytes(c, get_uleb(c)); return;
    case DW_FORM_string: skip_cstring(c); return;
    case DW_FORM_sdata: case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx:
    case DW_FORM_addrx: case DW_FORM_loclistx: case DW_FORM_rnglistx:
    case DW_FORM_GNU_addr_index: case DW_FORM_GNU_str_index:
        skip_leb(c);
        return;
    case DW_FORM_indirect: {
        uint64_t actual = get_uleb(c);
        if (actual == DW_FORM_indirect || actual == DW_FORM_implicit_const || actual > UINT16_MAX) {
            c->bad = 1;
            return;
        }
        skip_value(c, (unsigned)actual, u);
        return;
    }
    default: {
        int size = form_size(form, u->version, u->address_size, u->offset_size);
        if (size < 0) c->bad = 1;
        else skip_bytes(c, (uint64_t)size);
        return;
    }
    }
}

static inline void read_value(cursor *c, unsigned form, int64_t implicit_const,
                              const unit_ctx *u, value *v) {
    if (form == DW_FORM_indirect) {
        uint64_t actual = get_uleb(c);
        if (actual == DW_FORM_indirect || actual == DW_FORM_implicit_const || actual > UINT16_MAX) {
            c->bad = 1;
            return;
        }
        form = (unsigned)actual;
    }
    v->form = form;
    v->data = NULL;
    switch (form) {
    case DW_FORM_addr: v->u = get_fixed(c, u->address_size); return;
    case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
    case DW_FORM_addrx1:
        v->u = get_fixed(c, 1);
        return;
    case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
        v->u = get_fixed(c, 2);
        return;
    case DW_FORM_strx3: case DW_FORM_addrx3: v->u = get_fixed(c, 3); return;
    case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4:
    case DW_FORM_ref_sup4:
        v->u = get_fixed(c, 4);
        return;
    case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
        v->u = get_fixed(c, 8);
        return;
    case DW_FORM_strp: case DW_FORM_sec_offset: case DW_FORM_line_strp: case DW_FORM_strp_sup:
    case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
        v->u = get_fixed(c, u->offset_size);
        return;
    case DW_FORM_ref_addr:
        v->u = get_fixed(c, u->version <= 2 ? u->address_size : u->offset_size);
        return;
    case DW_FORM_flag_present: v->u = 1; return;
    case DW_FORM_implicit_const: v->u = (uint64_t)implicit_const; return;
    case DW_FORM_sdata: v->u = (uint64_t)get_sleb(c); return;
    case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx: case DW_FORM_addrx:
    case DW_FORM_loclistx: case DW_FORM_rnglistx: case DW_FORM_GNU_addr_index:
    case DW_FORM_GNU_str_index:
        v->u = get_uleb(c);
        return;
    case DW_FORM_string:
        v->data = c->p;
        skip_cstring(c);
        return;
    default:
        skip_value(c, form, u);  // blocks, data16: read as nothing
        v->u = 0;
        return;
    }
}

// The string a value names. FAST_UNSUPPORTED for forms this reader does not take.
static inline int value_string(const unit_ctx *u, const value *v, const char **out) {
    const dwarf_sections *s = u->sections;
    switch (v->form) {
    case DW_FORM_string: *out = (const char *)v->data; break;
    case DW_FORM_strp: *out = section_string(&s->str, v->u); break;
    case DW_FORM_line_strp: *out = section_string(&s->line_str, v->u); break;
    case DW_FORM_GNU_strp_alt:
        // In the supplementary file of dwz (.gnu_debugaltlink), which is not read: no string.
        *out = NULL;
        return FAST_OK;
    case DW_FORM_strx: case DW_FORM_strx1: case DW_FORM_strx2: case DW_FORM_strx3:
    case DW_FORM_strx4: case DW_FORM_GNU_str_index: {
        // GNU split DWARF 4 has no DW_AT_str_offsets_base: its table starts the section.
        int gnu = v->form == DW_FORM_GNU_str_index;
        if ((!u->has_str_offsets_base && !gnu) || !s->str_offsets.data) return FAST_DAMAGED;
        uint64_t base = u->has_str_offsets_base ? u->str_offsets_base : 0;
        uint64_t size = u->offset_size;
        if (v->u > (UINT64_MAX - base) / size) return FAST_DAMAGED;
        uint64_t at = base + v->u * size;
        if (at > s->str_offsets.size || s->str_offsets.size - at < size) return FAST_DAMAGED;
        cursor c = {s->str_offsets.data + at, s->str_offsets.data + s->str_offsets.size,
                    u->big_endian, 0};
        *out = section_string(&s->str, get_fixed(&c, (unsigned)size));
        break;
    }
    default:
        return FAST_UNSUPPORTED;
    }
    return *out ? FAST_OK : FAST_DAMAGED;
}

// Entry `index` of the unit's .debug_addr table.
static inline int indexed_address(const unit_ctx *u, uint64_t index, uint64_t *out) {
    const span *addr = &u->sections->addr;
    if (!u->has_addr_base || !addr->data) return FAST_UNSUPPORTED;
    uint64_t size = u->address_size;
    if (index > (UINT64_MAX - u->addr_base) / size) return FAST_DAMAGED;
    uint64_t at = u->addr_base + index * size;
    if (at > addr->size || addr->size - at < size) return FAST_DAMAGED;
    cursor c = {addr->data + at, addr->data + addr->size, u->big_endian, 0};
    *out = get_fixed(&c, (unsigned)size);
    return FAST_OK;
}

static inline int value_address(const unit_ctx *u, const value *v, uint64_t *out) {
    switch (v->form) {
    case DW_FORM_addr: *out = v->u; return FAST_OK;
    case DW_FORM_addrx: case DW_FORM_addrx1: case DW_FORM_addrx2: case DW_FORM_addrx3:
    case DW_FORM_addrx4: case DW_FORM_GNU_addr_index:
        return indexed_address(u, v->u, out);
    default:
        return FAST_UNSUPPORTED;
    }
}

// A reference as a .debug_info offset.
static inline int value_reference(const unit_ctx *u, const value *v, uint64_t *out) {
    switch (v->form) {
    case DW_FORM_ref1: case DW_FORM_ref2: case DW_FORM_ref4: case DW_FORM_ref8:
    case DW_FORM_ref_udata:
        // An offset within the unit; one past the unit's end names none of its DIEs and is no
        // reference (llvm-symbolizer follows none either). So a unit's entries are named only
        // by entries of units whose references may leave them (prune.c).
        *out = v->u <= u->h->end - u->h->offset ? u->h->offset + v->u : CDW_NO_REFERENCE;
        return FAST_OK;
    case DW_FORM_ref_addr:
        *out = v->u;
        return FAST_OK;
    case DW_FORM_GNU_ref_alt:  // into dwz's supplementary file, which is not read
        *out = CDW_NO_REFERENCE;
        return FAST_OK;
    default:
        return FAST_UNSUPPORTED;
    }
}

// A constant as libdwarf's dwarf_formudata (and dwarf_formsdata for implicit_const) reads it.
static inline int value_unsigned(const value *v, uint64_t *out) {
    switch (v->form) {
    case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8:
    case DW_FORM_udata: case DW_FORM_implicit_const:
        *out = v->u;
        return FAST_OK;
    default:
        return FAST_UNSUPPORTED;
    }
}

// A section offset (DW_AT_stmt_list, DW_AT_ranges before DWARF 5, the *_base attributes).
static inline int value_offset(const value *v, uint64_t *out) {
    switch (v->form) {
    case DW_FORM_sec_offset: case DW_FORM_data4: case DW_FORM_data8:
        *out = v->u;
        return FAST_OK;
    default:
        return FAST_UNSUPPORTED;
    }
}

// Reads the unit DIE (units.c).
CDW_INTERNAL int read_unit_die(const abbrev_table *abbrevs, const dwarf_sections *sections,
                               int big_endian, const unit_header *h, unit_ctx *u, cursor *c,
                               const abbrev **unit_abbrev);

// Reads the unit DIE of unit `h` as read_unit_die does, with the unit's abbreviation table (the
// shared one, or decoded into `scratch`), left in `*abbrevs`.
CDW_INTERNAL int open_unit(abbrev_table *scratch, const dwarf_sections *sections, int big_endian,
                           const unit_header *h, const abbrev_table **abbrevs, unit_ctx *u,
                           cursor *c, const abbrev **unit_abbrev);

// Adds the ranges of a DW_AT_ranges value (ranges.c).
CDW_INTERNAL int read_range_list(sink *s, const unit_ctx *u, const value *v);

#endif
