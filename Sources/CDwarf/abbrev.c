// Abbreviation tables, decoded once per table and thread: what each abbreviation's DIEs hold
// and how many bytes their attribute values take.

#include "cursor.h"

#include <stdlib.h>
#include <string.h>

// Tags whose children may hold subprograms or inlined subroutines. Rust declares the methods
// of a field-less enum inside its DW_TAG_enumeration_type.
CDW_INTERNAL int may_hold_functions(uint64_t tag) {
    switch (tag) {
    case DW_TAG_compile_unit:
    case DW_TAG_partial_unit:
    case DW_TAG_namespace:
    case DW_TAG_module:
    case DW_TAG_class_type:
    case DW_TAG_enumeration_type:
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
    free(t->sorted);
    memset(t, 0, sizeof(*t));
}

// The attributes a reader of unit DIEs or of functions takes (see read_unit_die and
// read_function_fast), as a bit each; 0 for the others, which are only passed.
static uint32_t attribute_read(uint64_t at) {
    static const uint32_t read[] = {
        DW_AT_name, DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_abstract_origin,
        DW_AT_specification, DW_AT_call_file, DW_AT_call_line, DW_AT_call_column, DW_AT_low_pc,
        DW_AT_high_pc, DW_AT_ranges, DW_AT_comp_dir, DW_AT_str_offsets_base, DW_AT_addr_base,
        DW_AT_GNU_addr_base, DW_AT_rnglists_base, DW_AT_stmt_list,
    };
    for (uint32_t i = 0; i < sizeof(read) / sizeof(read[0]); i++) {
        if (read[i] == at) return 1u << i;
    }
    return 0;
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

static int add_spec(abbrev_table *t, attr_spec spec) {
    if (t->spec_count == t->spec_capacity) {
        uint32_t next = t->spec_capacity ? t->spec_capacity * 2 : 256;
        attr_spec *grown = realloc(t->specs, next * sizeof(*grown));
        if (!grown) return FAST_NO_MEMORY;
        t->specs = grown;
        t->spec_capacity = next;
    }
    t->specs[t->spec_count++] = spec;
    return FAST_OK;
}

static int by_code_order(const void *a, const void *b) {
    const abbrev_code *x = a, *y = b;
    if (x->code != y->code) return x->code < y->code ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;  // the first definition first: it wins
}

// Indexes the abbreviations by code: small codes directly, in an array no longer than a few
// times the abbreviation count (codes are small and dense in practice, but a code may be any
// number); the others sorted, for a binary search.
static int index_codes(abbrev_table *t, uint64_t max_code) {
    uint64_t direct = (uint64_t)t->count * 4 + 16;
    uint64_t size = max_code < direct ? max_code + 1 : direct;
    if (size > t->by_code_capacity) {
        uint32_t *grown = realloc(t->by_code, size * sizeof(uint32_t));
        if (!grown) return FAST_NO_MEMORY;
        t->by_code = grown;
        t->by_code_capacity = (uint32_t)size;
    }
    memset(t->by_code, 0, size * sizeof(uint32_t));
    t->sorted_count = 0;
    for (uint32_t i = t->count; i-- > 0;) {
        if (t->abbrevs[i].code < size) t->by_code[t->abbrevs[i].code] = i + 1;
        else t->sorted_count++;
    }
    t->by_code_size = (uint32_t)size;
    if (t->sorted_count == 0) return FAST_OK;
    if (t->sorted_count > t->sorted_capacity) {
        abbrev_code *grown = realloc(t->sorted, t->sorted_count * sizeof(abbrev_code));
        if (!grown) return FAST_NO_MEMORY;
        t->sorted = grown;
        t->sorted_capacity = t->sorted_count;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->count; i++) {
        if (t->abbrevs[i].code >= size) t->sorted[n++] = (abbrev_code){t->abbrevs[i].code, i};
    }
    qsort(t->sorted, n, sizeof(abbrev_code), by_code_order);
    return FAST_OK;
}

CDW_INTERNAL const abbrev *find_sorted_abbrev(const abbrev_table *t, uint64_t code) {
    uint32_t low = 0, high = t->sorted_count;  // the first entry whose code is >= `code`
    while (low < high) {
        uint32_t middle = low + (high - low) / 2;
        if (t->sorted[middle].code < code) low = middle + 1;
        else high = middle;
    }
    if (low < t->sorted_count && t->sorted[low].code == code)
        return &t->abbrevs[t->sorted[low].index];
    return NULL;
}

// Decodes the abbreviation table `h` uses into `t`, unless `t` holds it already; `t->bytes`
// gets the bytes of .debug_abbrev it spans. A table longer than `budget` bytes is damaged.
//
// An abbreviation's attributes are kept as steps a reader takes: those read_unit_die and
// read_function_fast read, one each, and runs of others of fixed sizes, one step each (none
// when their size is 0), so that reading a DIE takes steps in proportion to its bytes whatever
// the abbreviation. An attribute read that takes no bytes is one step however often it comes,
// with its last value (DWARF allows any attribute once a DIE; some compilers repeat
// DW_AT_linkage_name, which takes bytes, and whose last value is the one kept).
CDW_INTERNAL int load_abbrevs(abbrev_table *t, const dwarf_sections *sections, int big_endian,
                              const unit_header *h, uint64_t budget) {
    if (t->valid && t->offset == h->abbrev_offset && t->version == h->version &&
        t->address_size == h->address_size && t->offset_size == h->offset_size)
        return 0;
    t->valid = 0;
    t->count = 0;
    t->spec_count = 0;
    t->by_code_size = 0;
    t->sorted_count = 0;
    t->bytes = 0;
    if (h->abbrev_offset >= sections->abbrev.size) return FAST_DAMAGED;
    const uint8_t *start = sections->abbrev.data + h->abbrev_offset;
    uint64_t left = sections->abbrev.size - h->abbrev_offset;
    cursor c = {start, start + (left < budget ? left : budget), big_endian, 0};
    uint64_t max_code = 0;
    for (;;) {
        uint64_t code = get_uleb(&c);
        t->bytes = (uint64_t)(c.p - start);
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
        uint32_t seen = 0;    // the attributes read so far that take no bytes (attribute_read)
        uint32_t zero_step[32];  // by attribute_read bit: the step of such an attribute
        int merging = 0;      // the last step passes attributes of fixed sizes
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
            uint32_t bit = attribute_read(at);
            // Of no bytes, the same attribute could come any number of times for a byte of DIE:
            // a repeat takes no step; its value replaces the one before, as the value of a
            // repeated attribute of some bytes does when it is read.
            if (size == 0 && (bit & seen)) {
                t->specs[zero_step[__builtin_ctz(bit)]] = spec;
                continue;
            }
            if (size == 0 && bit) {
                seen |= bit;
                zero_step[__builtin_ctz(bit)] = t->spec_count;  // the step added below
            }
            if (!bit && size >= 0) {
                if (merging && t->specs[t->spec_count - 1].size <= INT16_MAX - size) {
                    t->specs[t->spec_count - 1].size += (int16_t)size;
                    continue;
                }
                if (size == 0) continue;
                spec.at = 0;  // a run of attributes passed
                merging = 1;
            } else {
                merging = 0;
            }
            int res = add_spec(t, spec);
            if (res != FAST_OK) return res;
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
    int res = index_codes(t, max_code);
    if (res != FAST_OK) return res;
    t->offset = h->abbrev_offset;
    t->version = h->version;
    t->address_size = h->address_size;
    t->offset_size = h->offset_size;
    t->valid = 1;
    return FAST_OK;
}
