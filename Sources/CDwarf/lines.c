// Line tables: a unit's file list (see cdw_file, cdw_unit) and its rows.

#include "values.h"

#include <string.h>

typedef struct entry_format {
    uint64_t content;
    unsigned form;
} entry_format;

// Reads a DWARF 5 entry format list (directory_entry_format or file_name_entry_format).
// `minimum` gets the fewest bytes an entry in these formats takes, so that an entry count can be
// checked against the bytes left before any entry is read.
static int read_entry_formats(cursor *c, const unit_ctx *forms, entry_format formats[256],
                              unsigned *count, uint64_t *minimum) {
    *count = (unsigned)get_fixed(c, 1);
    *minimum = 0;
    for (unsigned i = 0; i < *count; i++) {
        formats[i].content = get_uleb(c);
        uint64_t form = get_uleb(c);
        if (c->bad) return FAST_DAMAGED;
        if (form > UINT16_MAX || form == DW_FORM_indirect || form == DW_FORM_implicit_const ||
            form_size((unsigned)form, 5, 8, 8) == -2)
            return FAST_UNSUPPORTED;
        formats[i].form = (unsigned)form;
        int size = form_size((unsigned)form, 5, forms->address_size, forms->offset_size);
        *minimum += size >= 0 ? (uint64_t)size : 1;  // a string, a block, a LEB128: a byte at least
    }
    return c->bad ? FAST_DAMAGED : FAST_OK;
}

// Whether `count` entries of at least `minimum` bytes each fit in what is left of the header.
// Entries of no bytes at all (no formats, or only flag_present) name nothing: only a count of 0
// is whole.
static inline int entries_fit(const cursor *c, uint64_t count, uint64_t minimum) {
    if (count == 0) return 1;
    return minimum > 0 && count <= (uint64_t)(c->end - c->p) / minimum;
}

// Moves the address and op_index registers `operations` operations on (DWARF 5 6.2.5.1): with
// one operation per instruction, op_index stays 0 and this is the usual address advance.
static inline void advance(uint64_t *address, uint64_t *op_index, uint64_t operations,
                           unsigned minimum_length, unsigned maximum_operations) {
    if (maximum_operations == 1) {
        *address += (uint64_t)minimum_length * operations;
        return;
    }
    uint64_t total = *op_index + operations;
    *address += (uint64_t)minimum_length * (total / maximum_operations);
    *op_index = total % maximum_operations;
}

// Adds the file a DW_LNE_define_file (DWARF 2-4) names to the unit's list, after the header's:
// the entry is laid out as a file_names entry of the header, `c` spans it.
static int define_file(sink *s, cursor *c, uint32_t first_file, uint32_t unit_index) {
    const char *name = (const char *)c->p;
    skip_cstring(c);
    uint64_t directory = get_uleb(c);
    skip_leb(c);  // modification time
    skip_leb(c);  // length
    if (c->bad) return FAST_DAMAGED;
    if (s->r.file_count == first_file && add_file(s, 0, 0, unit_index) != 0) return FAST_NO_MEMORY;
    int64_t string = add_section_string(s, name);
    if (string < 0) return FAST_NO_MEMORY;
    uint32_t recorded = directory > UINT32_MAX ? UINT32_MAX : (uint32_t)directory;
    return add_file(s, (uint32_t)string, recorded, unit_index) != 0 ? FAST_NO_MEMORY : FAST_OK;
}

// The unit's line table: its file list (see cdw_file) and rows. `program_bytes` gets
// the bytes of .debug_line the unit's line program spans (its header included).
CDW_INTERNAL int fast_unit_lines(sink *s, abbrev_table *scratch, const dwarf_sections *sections,
                                 int big_endian, const unit_header *h,
                                 const uint8_t *program_bytes[2]) {
    unit_ctx u;
    cursor c;
    const abbrev *unit_abbrev;
    const abbrev_table *abbrevs;
    int res = open_unit(scratch, sections, big_endian, h, &abbrevs, &u, &c, &unit_abbrev);
    if (res != 0 || !unit_abbrev || !u.has_stmt_list) return res;
    const span *line = &sections->line;
    if (!line->data || u.stmt_list >= line->size) return FAST_DAMAGED;
    c = (cursor){line->data + u.stmt_list, line->data + line->size, big_endian, 0};
    uint64_t length = get_fixed(&c, 4);
    unsigned offset_size = 4;
    if (length == 0xffffffff) {
        offset_size = 8;
        length = get_fixed(&c, 8);
    } else if (length >= 0xfffffff0) {
        return FAST_DAMAGED;
    }
    if (c.bad || length > (uint64_t)(c.end - c.p)) return FAST_DAMAGED;
    const uint8_t *end = c.p + length;
    program_bytes[0] = line->data + u.stmt_list;
    program_bytes[1] = end;
    c.end = end;
    uint16_t version = (uint16_t)get_fixed(&c, 2);
    if (version < 2 || version > 5) return FAST_UNSUPPORTED;
    // address_size and segment_selector_size: DW_LNE_set_address says its own width.
    if (version >= 5) skip_bytes(&c, 2);
    uint64_t header_length = get_fixed(&c, offset_size);
    if (c.bad || header_length > (uint64_t)(end - c.p)) return FAST_DAMAGED;
    const uint8_t *program = c.p + header_length;
    c.end = program;
    unsigned minimum_length = (unsigned)get_fixed(&c, 1);
    unsigned maximum_operations = version >= 4 ? (unsigned)get_fixed(&c, 1) : 1;
    get_fixed(&c, 1);  // default_is_stmt
    int line_base = (int8_t)get_fixed(&c, 1);
    unsigned line_range = (unsigned)get_fixed(&c, 1);
    unsigned opcode_base = (unsigned)get_fixed(&c, 1);
    if (c.bad || line_range == 0 || opcode_base == 0) return FAST_DAMAGED;
    if (maximum_operations == 0) maximum_operations = 1;
    const uint8_t *operand_counts = c.p;  // standard_opcode_lengths
    skip_bytes(&c, opcode_base - 1);
    if (c.bad) return FAST_DAMAGED;

    cdw_unit unit;
    memset(&unit, 0, sizeof(unit));
    unit.line_version = version;
    if (u.comp_dir) {
        int64_t string = u.comp_dir_inline ? add_string(s, u.comp_dir)
                                           : add_section_string(s, u.comp_dir);
        if (string < 0) return FAST_NO_MEMORY;
        unit.comp_dir = (uint32_t)string;
    }
    unit.first_directory = (uint32_t)s->r.directory_count;
    uint32_t unit_index = (uint32_t)s->r.unit_count;
    uint32_t first_file = (uint32_t)s->r.file_count;
    if (version < 5) {
        // include_directories, then file_names (entry 0 of the list is a placeholder).
        for (;;) {
            if (c.p >= c.end) return FAST_DAMAGED;
            if (*c.p == 0) {
                c.p++;
                break;
            }
            const char *name = (const char *)c.p;
            skip_cstring(&c);
            if (c.bad) return FAST_DAMAGED;
            int64_t string = add_section_string(s, name);
            if (string < 0 || add_directory(s, (uint32_t)string) != 0) return FAST_NO_MEMORY;
        }
        unit.directory_count = (uint32_t)(s->r.directory_count - unit.first_directory);
        if (add_unit(s, unit) != 0) return FAST_NO_MEMORY;
        for (;;) {
            if (c.p >= c.end) return FAST_DAMAGED;
            if (*c.p == 0) {
                c.p++;
                break;
            }
            // libdwarf numbers a list from 1 (a placeholder for 0) only when it has entries.
            if (s->r.file_count == first_file && add_file(s, 0, 0, unit_index) != 0)
                return FAST_NO_MEMORY;
            const char *name = (const char *)c.p;
            skip_cstring(&c);
            uint64_t directory = get_uleb(&c);
            skip_leb(&c);  // modification time
            skip_leb(&c);  // length
            if (c.bad) return FAST_DAMAGED;
            int64_t string = add_section_string(s, name);
            if (string < 0) return FAST_NO_MEMORY;
            uint32_t recorded = directory > UINT32_MAX ? UINT32_MAX : (uint32_t)directory;
            if (add_file(s, (uint32_t)string, recorded, unit_index) != 0) return FAST_NO_MEMORY;
        }
    } else {
        unit_ctx forms = u;  // values in the line table use its own offset size
        forms.offset_size = (uint8_t)offset_size;
        entry_format formats[256];
        unsigned format_count = 0;
        uint64_t minimum = 0;
        if ((res = read_entry_formats(&c, &forms, formats, &format_count, &minimum)) != FAST_OK) return res;
        uint64_t directories = get_uleb(&c);
        if (c.bad || !entries_fit(&c, directories, minimum)) return FAST_DAMAGED;
        for (uint64_t i = 0; i < directories; i++) {
            const char *name = NULL;
            for (unsigned k = 0; k < format_count; k++) {
                value v;
                read_value(&c, formats[k].form, 0, &forms, &v);
                if (c.bad) return FAST_DAMAGED;
                if (formats[k].content == DW_LNCT_path &&
                    (res = value_string(&forms, &v, &name)) != FAST_OK)
                    return res;
            }
            int64_t string = add_section_string(s, name);
            if (string < 0 || add_directory(s, (uint32_t)string) != 0) return FAST_NO_MEMORY;
        }
        unit.directory_count = (uint32_t)(s->r.directory_count - unit.first_directory);
        if (add_unit(s, unit) != 0) return FAST_NO_MEMORY;
        if ((res = read_entry_formats(&c, &forms, formats, &format_count, &minimum)) != FAST_OK) return res;
        uint64_t files = get_uleb(&c);
        if (c.bad || !entries_fit(&c, files, minimum)) return FAST_DAMAGED;
        for (uint64_t i = 0; i < files; i++) {
            const char *name = NULL;
            uint64_t directory = 0;
            for (unsigned k = 0; k < format_count; k++) {
                value v;
                read_value(&c, formats[k].form, 0, &forms, &v);
                if (c.bad) return FAST_DAMAGED;
                if (formats[k].content == DW_LNCT_path) {
                    if ((res = value_string(&forms, &v, &name)) != FAST_OK) return res;
                } else if (formats[k].content == DW_LNCT_directory_index) {
                    if ((res = value_unsigned(&v, &directory)) != FAST_OK) return res;
                }
            }
            int64_t string = add_section_string(s, name);
            if (string < 0) return FAST_NO_MEMORY;
            uint32_t recorded = directory > UINT32_MAX ? UINT32_MAX : (uint32_t)directory;
            if (add_file(s, (uint32_t)string, recorded, unit_index) != 0) return FAST_NO_MEMORY;
        }
    }
    uint64_t file_count = s->r.file_count - first_file;

    // The line program. The file register starts at 1 in every version (DWARF 5 6.2.2).
    c.p = program;
    c.end = end;
    uint64_t address = 0, op_index = 0, file = 1, line_number = 1, column = 0;
    uint64_t sequence_start = s->r.row_count;  // of the sequence being read, in the sink
    while (c.p < c.end) {
        unsigned opcode = *c.p++;
        int row = 0;  // 1: a row, 2: the row ending a sequence
        if (opcode >= opcode_base) {
            unsigned adjusted = opcode - opcode_base;
            advance(&address, &op_index, adjusted / line_range, minimum_length, maximum_operations);
            line_number += (uint64_t)(int64_t)(line_base + (int)(adjusted % line_range));
            row = 1;
        } else if (opcode == 0) {
            uint64_t size = get_uleb(&c);
            if (c.bad || size == 0 || size > (uint64_t)(c.end - c.p)) return FAST_DAMAGED;
            const uint8_t *next = c.p + size;
            unsigned sub = *c.p++;
            if (sub == DW_LNE_end_sequence) {
                row = 2;
            } else if (sub == DW_LNE_set_address) {
                uint64_t width = size - 1;
                if (width != 1 && width != 2 && width != 4 && width != 8) return FAST_DAMAGED;
                address = get_fixed(&c, (unsigned)width);
                op_index = 0;
            } else if (sub == DW_LNE_define_file && version < 5) {
                cursor entry = {c.p, next, big_endian, 0};
                if ((res = define_file(s, &entry, first_file, unit_index)) != FAST_OK) return res;
                file_count = s->r.file_count - first_file;
            }
            c.p = next;
        } else {
            switch (opcode) {
            case DW_LNS_copy: row = 1; break;
            case DW_LNS_advance_pc:
                advance(&address, &op_index, get_uleb(&c), minimum_length, maximum_operations);
                break;
            case DW_LNS_advance_line: line_number += (uint64_t)get_sleb(&c); break;
            case DW_LNS_set_file: file = get_uleb(&c); break;
            case DW_LNS_set_column: column = get_uleb(&c); break;
            case DW_LNS_negate_stmt: case DW_LNS_set_basic_block:
            case DW_LNS_set_prologue_end: case DW_LNS_set_epilogue_begin:
                break;
            case DW_LNS_const_add_pc:
                advance(&address, &op_index, (255 - opcode_base) / line_range, minimum_length,
                        maximum_operations);
                break;
            case DW_LNS_fixed_advance_pc:
                address += get_fixed(&c, 2);
                op_index = 0;
                break;
            case DW_LNS_set_isa: skip_leb(&c); break;
            default:
                for (unsigned i = 0; i < operand_counts[opcode - 1]; i++) skip_leb(&c);
                break;
            }
        }
        if (c.bad) return FAST_DAMAGED;
        if (!row) continue;
        cdw_row *r;
        if (row == 1 && s->drop_unused_rows && s->r.row_count > sequence_start &&
            cdw_row_address(s->r.rows[s->r.row_count - 1]) == address) {
            // Of rows at one address a lookup takes the last (but for the end of a sequence,
            // which only says where it ends): this one takes the place of the one before.
            // gcc writes two rows of three so (cppcheck: 1.1 million of 1.6).
            r = &s->r.rows[s->r.row_count - 1];
        } else {
            if (s->r.row_count == s->row_capacity && grow_rows(s) != 0) return FAST_NO_MEMORY;
            r = &s->r.rows[s->r.row_count++];
        }
        cdw_row_set_address(r, address);
        r->file = file < file_count ? first_file + (uint32_t)file : 0;
        r->line = (uint32_t)line_number;
        cdw_row_set_column(r, column, row == 2);
        if (row == 2) {
            sequence_start = s->r.row_count;
            address = 0;
            op_index = 0;
            file = 1;
            line_number = 1;
            column = 0;
        }
    }
    return FAST_OK;
}
