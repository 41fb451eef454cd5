// Units and their DIEs: unit headers, the unit DIE, and every subprogram and inlined
// subroutine with its ranges; DIEs of other kinds are passed by size or by DW_AT_sibling.

#define _GNU_SOURCE  // memrchr

#include "values.h"

#include <stdlib.h>
#include <string.h>

// Finds the sections the reader reads; 0 when they are all there at most once and .debug_info
// and .debug_abbrev are present, else -1 with a message (several sections of one name come with
// COMDAT groups in relocatable objects, which are not debug files).
CDW_INTERNAL int find_dwarf_sections(const cdw_object *o, dwarf_sections *out, char *message,
                                     size_t message_size) {
    static const char *const names[] = {
        ".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str", ".debug_str_offsets",
        ".debug_addr", ".debug_ranges", ".debug_rnglists", ".debug_line",
    };
    span *spans[] = {&out->info,        &out->abbrev, &out->str,
                     &out->line_str,    &out->str_offsets, &out->addr,
                     &out->ranges,      &out->rnglists, &out->line};
    memset(out, 0, sizeof(*out));
    for (unsigned k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
        for (uint32_t i = 1; i < o->section_count; i++) {
            const cdw_section *s = &o->sections[i];
            if (!s->name || strcmp(s->name, names[k]) != 0) continue;
            if (spans[k]->data) {
                set_message(message, message_size, "several %s sections", names[k]);
                return -1;
            }
            spans[k]->data = s->data;
            spans[k]->size = s->data ? s->size : 0;
            const uint8_t *nul = s->data && s->size ? memrchr(s->data, 0, (size_t)s->size) : NULL;
            spans[k]->terminated = nul ? (uint64_t)(nul - s->data) + 1 : 0;
        }
    }
    if (!out->info.data || !out->abbrev.data) {
        set_message(message, message_size, "no %s section", out->info.data ? ".debug_abbrev" : ".debug_info");
        return -1;
    }
    return 0;
}

// MARK: Unit headers

// The unit headers of .debug_info, in order. Stops at the first header it cannot read, with a
// message (CDW_PARTIAL); units before it are returned.
CDW_INTERNAL int scan_units(const dwarf_sections *sections, int big_endian, unit_header **out,
                      uint32_t *out_count, char *message, size_t message_size) {
    *out = NULL;
    *out_count = 0;
    uint32_t count = 0, capacity = 0;
    unit_header *units = NULL;
    uint64_t offset = 0;
    const span *info = &sections->info;
    int status = CDW_OK;
    while (offset < info->size) {
        cursor c = {info->data + offset, info->data + info->size, big_endian, 0};
        unit_header h;
        memset(&h, 0, sizeof(h));
        h.offset = offset;
        uint64_t length = get_fixed(&c, 4);
        h.offset_size = 4;
        if (length == 0xffffffff) {
            h.offset_size = 8;
            length = get_fixed(&c, 8);
        } else if (length >= 0xfffffff0) {
            c.bad = 1;
        }
        const char *why = NULL;
        if (c.bad || length > (uint64_t)(c.end - c.p) || length < 2) {
            why = "unit length runs past .debug_info";
        } else {
            h.end = (uint64_t)(c.p - info->data) + length;
            c.end = c.p + length;
            h.version = (uint16_t)get_fixed(&c, 2);
            if (h.version < 2 || h.version > 5) {
                why = "unknown unit version";
            } else if (h.version >= 5) {
                h.unit_type = (uint8_t)get_fixed(&c, 1);
                h.address_size = (uint8_t)get_fixed(&c, 1);
                h.abbrev_offset = get_fixed(&c, h.offset_size);
                if (h.unit_type == DW_UT_skeleton || h.unit_type == DW_UT_split_compile) {
                    skip_bytes(&c, 8);  // dwo_id
                } else if (h.unit_type == DW_UT_type || h.unit_type == DW_UT_split_type) {
                    skip_bytes(&c, 8 + h.offset_size);  // type_signature, type_offset
                } else if (h.unit_type != DW_UT_compile && h.unit_type != DW_UT_partial) {
                    why = "unknown unit type";
                }
            } else {
                h.unit_type = DW_UT_compile;
                h.abbrev_offset = get_fixed(&c, h.offset_size);
                h.address_size = (uint8_t)get_fixed(&c, 1);
            }
            if (!why && c.bad) why = "unit header runs past the unit";
            if (!why && h.address_size != 2 && h.address_size != 4 && h.address_size != 8)
                why = "unusable address size";
            h.die_offset = (uint64_t)(c.p - info->data);
        }
        if (why) {
            // Zeros after the last unit are padding (some linkers align sections so).
            const uint8_t *rest = info->data + offset, *end = info->data + info->size;
            while (rest < end && *rest == 0) rest++;
            if (rest == end) break;
            set_message(message, message_size, "compile unit header at 0x%llx: %s",
                        (unsigned long long)offset, why);
            status = CDW_PARTIAL;
            break;
        }
        if (count == capacity) {
            uint32_t next = capacity ? capacity * 2 : 64;
            unit_header *grown = realloc(units, next * sizeof(*units));
            if (!grown) {
                free(units);
                set_message(message, message_size, "out of memory");
                return CDW_ERROR;
            }
            units = grown;
            capacity = next;
        }
        units[count++] = h;
        offset = h.end;
    }
    *out = units;
    *out_count = count;
    return status;
}

// MARK: Unit DIEs

// Reads a section offset of the unit DIE (a *_base attribute, DW_AT_stmt_list) into `*out` and
// notes that the unit has it.
static int read_unit_offset(cursor *c, const attr_spec *spec, const unit_ctx *u, uint64_t *out,
                            uint8_t *present) {
    value v;
    read_value(c, spec->form, spec->implicit_const, u, &v);
    int res = value_offset(&v, out);
    if (res == FAST_OK) *present = 1;
    return res;
}

// Reads the unit DIE: the bases its other attributes need, the base address, the line table
// and the compilation directory. Leaves `c` after it and `*unit_abbrev` its abbreviation (NULL
// when the unit has no DIE).
CDW_INTERNAL int read_unit_die(const abbrev_table *abbrevs, const dwarf_sections *sections,
                               int big_endian, const unit_header *h, unit_ctx *u, cursor *c,
                               const abbrev **unit_abbrev) {
    memset(u, 0, sizeof(*u));
    u->sections = sections;
    u->h = h;
    u->big_endian = big_endian;
    u->version = h->version;
    u->address_size = h->address_size;
    u->offset_size = h->offset_size;
    *unit_abbrev = NULL;
    int res = FAST_OK;
    *c = (cursor){sections->info.data + h->die_offset, sections->info.data + h->end, big_endian, 0};
    if (c->p >= c->end) return FAST_OK;
    uint64_t code = get_uleb(c);
    if (c->bad) return FAST_DAMAGED;
    if (code == 0) return FAST_OK;
    const abbrev *a = find_abbrev(abbrevs, code);
    if (!a) return FAST_DAMAGED;
    value low, comp_dir;
    int have_low = 0, have_comp_dir = 0;
    const attr_spec *specs = &abbrevs->specs[a->first_spec];
    for (uint32_t i = 0; i < a->spec_count; i++) {
        const attr_spec *spec = &specs[i];
        switch (spec->at) {
        case DW_AT_low_pc:
            read_value(c, spec->form, spec->implicit_const, u, &low);
            have_low = 1;
            break;
        case DW_AT_comp_dir:
            read_value(c, spec->form, spec->implicit_const, u, &comp_dir);
            have_comp_dir = 1;
            break;
        case DW_AT_str_offsets_base:
            res = read_unit_offset(c, spec, u, &u->str_offsets_base, &u->has_str_offsets_base);
            break;
        case DW_AT_addr_base:
        case DW_AT_GNU_addr_base:  // GNU split DWARF 4
            res = read_unit_offset(c, spec, u, &u->addr_base, &u->has_addr_base);
            break;
        case DW_AT_rnglists_base:
            res = read_unit_offset(c, spec, u, &u->rnglists_base, &u->has_rnglists_base);
            break;
        case DW_AT_stmt_list:
            res = read_unit_offset(c, spec, u, &u->stmt_list, &u->has_stmt_list);
            break;
        default:
            if (spec->size >= 0) skip_bytes(c, (uint64_t)spec->size);
            else skip_value(c, spec->form, u);
            break;
        }
        if (res != FAST_OK) return res;
        if (c->bad) return FAST_DAMAGED;
    }
    if (have_low && (res = value_address(u, &low, &u->base)) != FAST_OK) return res;
    if (have_comp_dir) {
        if ((res = value_string(u, &comp_dir, &u->comp_dir)) != FAST_OK) return res;
        u->comp_dir_inline = comp_dir.form == DW_FORM_string;
    }
    *unit_abbrev = a;
    return FAST_OK;
}

CDW_INTERNAL int open_unit(abbrev_table *scratch, const dwarf_sections *sections, int big_endian,
                           const unit_header *h, const abbrev_table **abbrevs, unit_ctx *u,
                           cursor *c, const abbrev **unit_abbrev) {
    *unit_abbrev = NULL;
    *abbrevs = h->abbrevs;
    if (h->abbrev_status != FAST_OK) return h->abbrev_status;
    if (!h->abbrevs) {
        int res = load_abbrevs(scratch, sections, big_endian, h, UINT64_MAX);
        if (res != FAST_OK) return res;
        *abbrevs = scratch;
    }
    return read_unit_die(*abbrevs, sections, big_endian, h, u, c, unit_abbrev);
}


// MARK: Functions

// Room for the pending names of entry `k` of the unit (`sink.pending_names`), both unset.
static int reserve_pending(sink *s, uint64_t k) {
    if (2 * k + 2 > s->pending_capacity) {
        uint64_t next = s->pending_capacity ? s->pending_capacity : 2048;
        while (next < 2 * k + 2) next *= 2;
        const char **names = realloc(s->pending_names, next * sizeof(const char *));
        if (!names) return FAST_NO_MEMORY;
        s->pending_names = names;
        uint8_t *inline_ = realloc(s->pending_inline, next);
        if (!inline_) return FAST_NO_MEMORY;
        s->pending_inline = inline_;
        s->pending_capacity = next;
    }
    s->pending_names[2 * k] = s->pending_names[2 * k + 1] = NULL;
    s->pending_inline[2 * k] = s->pending_inline[2 * k + 1] = 0;
    return FAST_OK;
}

// Reads a subprogram / inlined-subroutine DIE whose code `c` has passed.
static int read_function_fast(sink *s, const abbrev_table *abbrevs, const unit_ctx *u,
                              cursor *c, const abbrev *a, uint64_t offset, int32_t parent) {
    if (s->r.function_count == s->function_capacity && grow_functions(s) != 0)
        return FAST_NO_MEMORY;
    // While unused entries are to be dropped, names wait for the entry to be kept (prune.c).
    uint64_t pending = s->r.function_count - s->unit_first_function;
    if (s->drop_unused_functions && reserve_pending(s, pending) != FAST_OK) return FAST_NO_MEMORY;
    cdw_function f = new_function(s, offset, parent, (uint32_t)a->tag);
    uint64_t low = 0, high = 0;
    int have_low = 0, have_high = 0, high_is_offset = 0, res = FAST_OK;
    const attr_spec *specs = &abbrevs->specs[a->first_spec];
    for (uint32_t i = 0; i < a->spec_count; i++) {
        const attr_spec *spec = &specs[i];
        value v;
        uint64_t number = 0;
        switch (spec->at) {
        case DW_AT_name:
        case DW_AT_linkage_name:
        case DW_AT_MIPS_linkage_name: {
            read_value(c, spec->form, spec->implicit_const, u, &v);
            if (c->bad) return FAST_DAMAGED;
            const char *text = NULL;
            if ((res = value_string(u, &v, &text)) != FAST_OK) return res;
            if (s->drop_unused_functions) {
                uint64_t k = 2 * pending + (spec->at == DW_AT_name ? 0 : 1);
                s->pending_names[k] = text;
                s->pending_inline[k] = v.form == DW_FORM_string;
                break;
            }
            int64_t string = v.form == DW_FORM_string ? add_string(s, text)
                                                      : add_section_string(s, text);
            if (string < 0) return FAST_NO_MEMORY;
            if (spec->at == DW_AT_name) f.name = (uint32_t)string;
            else f.linkage_name = (uint32_t)string;
            break;
        }
        case DW_AT_abstract_origin:
        case DW_AT_specification:
            read_value(c, spec->form, spec->implicit_const, u, &v);
            if (c->bad) return FAST_DAMAGED;
            if ((res = value_reference(u, &v, &number)) != FAST_OK) return res;
            if (spec->at == DW_AT_abstract_origin) f.origin = number;
            else f.specification = number;
            break;
        case DW_AT_call_file:
            read_value(c, spec->form, spec->implicit_const, u, &v);
            if (c->bad) return FAST_DAMAGED;
            if ((res = value_unsigned(&v, &number)) != FAST_OK) return res;
            f.call_file = number < CALL_FILE_NONE ? (uint32_t)number : CALL_FILE_NONE;
            break;
        case DW_AT_call_line:
        case DW_AT_call_column:
            read_value(c, spec->form, spec->implicit_const, u, &v);
            if (c->bad) return FAST_DAMAGED;
            if ((res = value_unsigned(&v, &number)) != FAST_OK) return res;
            if (spec->at == DW_AT_call_line) f.call_line = (uint32_t)number;
            else f.call_column = (uint32_t)number;
            break;
        case DW_AT_low_pc:
            read_value(c, spec->form, spec->implicit_const, u, &v);
            if (c->bad) return FAST_DAMAGED;
            if ((res = value_address(u, &v, &low)) != FAST_OK) return res;
            have_low = 1;
            break;
        case DW_AT_high_pc:
            read_value(c, spec->form, spec->implicit_const, u, &v);
            if (c->bad) return FAST_DAMAGED;
            if (value_unsigned(&v, &high) == FAST_OK) {
                high_is_offset = 1;
            } else if ((res = value_address(u, &v, &high)) == FAST_OK) {
                high_is_offset = 0;
            } else {
                return res;
            }
            have_high = 1;
            break;
        case DW_AT_ranges: {
            read_value(c, spec->form, spec->implicit_const, u, &v);
            if (c->bad) return FAST_DAMAGED;
            if ((res = read_range_list(s, u, &v)) != FAST_OK) return res;
            break;
        }
        default:
            if (spec->size >= 0) skip_bytes(c, (uint64_t)spec->size);
            else skip_value(c, spec->form, u);
            break;
        }
        if (c->bad) return FAST_DAMAGED;
    }
    if (have_low && have_high) {
        if (add_range(s, low, high_is_offset ? low + high : high) != 0) return FAST_NO_MEMORY;
    }
    f.range_count = (uint32_t)(s->r.range_count - f.first_range);
    s->r.functions[s->r.function_count++] = f;
    return FAST_OK;
}

// Passes the attributes of a DIE whose code `c` has passed.
static inline void skip_attributes(cursor *c, const abbrev_table *abbrevs, const abbrev *a,
                                   const unit_ctx *u) {
    if (a->fixed_size >= 0) {
        skip_bytes(c, (uint64_t)a->fixed_size);
        return;
    }
    const attr_spec *specs = &abbrevs->specs[a->first_spec];
    for (uint32_t i = 0; i < a->spec_count && !c->bad; i++) {
        if (specs[i].size >= 0) skip_bytes(c, (uint64_t)specs[i].size);
        else skip_value(c, specs[i].form, u);
    }
}

// Moves `c` (just past the code of a DIE with children that starts at `die`) to the DIE's
// next sibling through its DW_AT_sibling, when it has a usable one.
static inline int jump_to_sibling(cursor *c, const abbrev *a, const unit_ctx *u,
                                  const uint8_t *die) {
    if (a->sibling_at < 0) return 0;
    cursor at = {c->p + a->sibling_at, c->end, c->big_endian, 0};
    if (at.p > c->end) return 0;
    value v;
    read_value(&at, a->sibling_form, 0, u, &v);
    uint64_t target = 0;
    if (at.bad || value_reference(u, &v, &target) != 0) return 0;
    const uint8_t *info = u->sections->info.data;
    if (target > u->h->end || info + target <= die) return 0;
    c->p = info + target;
    return 1;
}

// Passes the children of a DIE whose attributes `c` has passed, up to its next sibling.
static int skip_children(cursor *c, const abbrev_table *abbrevs, const unit_ctx *u) {
    uint64_t depth = 1;
    while (depth > 0 && c->p < c->end) {
        const uint8_t *die = c->p;
        uint64_t code = get_uleb(c);
        if (c->bad) return FAST_DAMAGED;
        if (code == 0) {
            depth--;
            continue;
        }
        const abbrev *a = find_abbrev(abbrevs, code);
        if (!a) return FAST_DAMAGED;
        if (a->children && jump_to_sibling(c, a, u, die)) continue;
        skip_attributes(c, abbrevs, a, u);
        if (c->bad) return FAST_DAMAGED;
        if (a->children) depth++;
    }
    return FAST_OK;
}

// Makes room for level `level` of the DIE tree in `s->enclosing`. Levels are bounded by the
// unit's bytes (each takes a DIE of a byte or more), so the stack is too.
static int reserve_level(sink *s, uint64_t level) {
    if (level < s->enclosing_capacity) return FAST_OK;
    uint64_t next = s->enclosing_capacity ? s->enclosing_capacity * 2 : 64;  // levels come one at a time
    int32_t *grown = realloc(s->enclosing, next * sizeof(int32_t));
    if (!grown) return FAST_NO_MEMORY;
    s->enclosing = grown;
    s->enclosing_capacity = next;
    return FAST_OK;
}

// Every subprogram and inlined subroutine of the unit, with their ranges, as walk_children
// finds them, however deep they are nested.
CDW_INTERNAL int fast_unit_functions(sink *s, abbrev_table *scratch, const dwarf_sections *sections,
                                     int big_endian, const unit_header *h) {
    unit_ctx u;
    cursor c;
    const abbrev *unit_abbrev;
    const abbrev_table *abbrevs;
    int res = open_unit(scratch, sections, big_endian, h, &abbrevs, &u, &c, &unit_abbrev);
    if (res != 0 || !unit_abbrev || !unit_abbrev->children) return res;
    // A range list may be named by any number of DIEs, and read again for each. Its first read
    // costs nothing here: every entry is read once for the bytes it takes in the section
    // (count_list_entry). Entries read again are bounded by the unit's size: two per byte of
    // the unit, and a few more, is far more than any compiler's DIEs share (a list is named
    // by one DIE, at most by a function and a block of the same ranges).
    s->list_entries_left = 2 * (h->end - h->offset) + 32;
    s->unit_first_function = s->r.function_count;
    const uint8_t *info = sections->info.data;
    if ((res = reserve_level(s, 0)) != FAST_OK) return res;
    uint64_t level = 0;  // of the siblings being read: 0 for the unit DIE's children
    s->enclosing[0] = -1;
    while (c.p < c.end) {
        const uint8_t *die = c.p;
        uint64_t code = get_uleb(&c);
        if (c.bad) return FAST_DAMAGED;
        if (code == 0) {
            if (level == 0) break;
            level--;
            continue;
        }
        const abbrev *a = find_abbrev(abbrevs, code);
        if (!a) return FAST_DAMAGED;
        int32_t inner = s->enclosing[level];
        int descend = a->children && (a->kind & KIND_HOLDS_FUNCTIONS);
        if (a->kind & KIND_FUNCTION) {
            res = read_function_fast(s, abbrevs, &u, &c, a, (uint64_t)(die - info), inner);
            if (res != 0) return res;
            inner = (int32_t)(s->r.function_count - 1);
        } else if (a->children && !descend && jump_to_sibling(&c, a, &u, die)) {
            continue;
        } else {
            skip_attributes(&c, abbrevs, a, &u);
            if (c.bad) return FAST_DAMAGED;
        }
        if (!a->children) continue;
        if (descend) {
            if ((res = reserve_level(s, level + 1)) != FAST_OK) return res;
            s->enclosing[++level] = inner;
        } else if ((res = skip_children(&c, abbrevs, &u)) != FAST_OK) {
            return res;
        }
    }
    return FAST_OK;
}
