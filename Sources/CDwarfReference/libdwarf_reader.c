// libdwarf (20210528) reading every unit into a sink of the CDwarf reader: the independent
// reference the tests compare that reader with. Never linked into the shipped program.

#include "CDwarfReference.h"

#include "../CDwarf/sink.h"

#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>

#include <stdlib.h>
#include <string.h>

// MARK: - Object access over a section list

static int access_section_info(void *object, Dwarf_Half index, Dwarf_Obj_Access_Section *out,
                               int *error) {
    cdw_object *o = object;
    (void)error;
    if (index >= o->section_count) return DW_DLV_NO_ENTRY;
    const cdw_section *s = &o->sections[index];
    memset(out, 0, sizeof(*out));
    out->addr = s->address;
    out->size = s->size;
    out->name = s->name;
    out->type = 1;  // SHT_PROGBITS: libdwarf only needs the sections to look loadable
    return DW_DLV_OK;
}

static Dwarf_Endianness access_byte_order(void *object) {
    return ((cdw_object *)object)->big_endian ? DW_OBJECT_MSB : DW_OBJECT_LSB;
}

static Dwarf_Small access_length_size(void *object) {
    (void)object;
    return 4;
}

static Dwarf_Small access_pointer_size(void *object) {
    return ((cdw_object *)object)->pointer_size;
}

static Dwarf_Unsigned access_section_count(void *object) {
    return ((cdw_object *)object)->section_count;
}

static int access_load_section(void *object, Dwarf_Half index, Dwarf_Small **data, int *error) {
    cdw_object *o = object;
    (void)error;
    if (index >= o->section_count) return DW_DLV_NO_ENTRY;
    *data = (Dwarf_Small *)o->sections[index].data;
    return DW_DLV_OK;
}

static const Dwarf_Obj_Access_Methods access_methods = {
    access_section_info, access_byte_order,    access_length_size,
    access_pointer_size, access_section_count, access_load_section,
    NULL,
};

// MARK: - Reading a unit through libdwarf
//
// One walker per unit: what reading its DIEs needs.

typedef struct walker {
    Dwarf_Debug dbg;
    const cdw_object *object;
    sink *s;
    Dwarf_Unsigned unit_base;  // CU base address for DWARF 2-4 range lists
    uint16_t version;
    uint32_t unit_first_file;
    uint32_t unit_file_count;
} walker;

// dwarf_formudata of libdwarf 20210528 rejects DW_FORM_implicit_const (gcc's choice for
// DW_AT_call_file and friends in DWARF 5); dwarf_formsdata reads it.
static int read_unsigned(Dwarf_Attribute attribute, Dwarf_Unsigned *value, Dwarf_Error *error) {
    Dwarf_Half form = 0;
    if (dwarf_whatform(attribute, &form, error) != DW_DLV_OK) return DW_DLV_ERROR;
    if (form == DW_FORM_implicit_const) {
        Dwarf_Signed signed_value = 0;
        int res = dwarf_formsdata(attribute, &signed_value, error);
        if (res == DW_DLV_OK) *value = (Dwarf_Unsigned)signed_value;
        return res;
    }
    return dwarf_formudata(attribute, value, error);
}

static int read_ranges_attribute(walker *w, Dwarf_Die die, Dwarf_Attribute attribute,
                                 Dwarf_Error *error) {
    Dwarf_Half form = 0;
    if (dwarf_whatform(attribute, &form, error) != DW_DLV_OK) return DW_DLV_ERROR;
    if (w->version >= 5) {
        Dwarf_Unsigned value = 0;
        int res = form == DW_FORM_rnglistx ? dwarf_formudata(attribute, &value, error)
                                           : dwarf_global_formref(attribute, &value, error);
        if (res != DW_DLV_OK) return res;
        Dwarf_Rnglists_Head head = 0;
        Dwarf_Unsigned count = 0, global_offset = 0;
        res = dwarf_rnglists_get_rle_head(attribute, form, value, &head, &count, &global_offset,
                                          error);
        if (res != DW_DLV_OK) return res;
        for (Dwarf_Unsigned i = 0; i < count; i++) {
            unsigned length = 0, code = 0;
            Dwarf_Unsigned raw1 = 0, raw2 = 0, low = 0, high = 0;
            Dwarf_Bool unavailable = 0;
            res = dwarf_get_rnglists_entry_fields_a(head, i, &length, &code, &raw1, &raw2,
                                                    &unavailable, &low, &high, error);
            if (res != DW_DLV_OK) break;
            if (unavailable || code == DW_RLE_end_of_list || code == DW_RLE_base_address ||
                code == DW_RLE_base_addressx)
                continue;
            if (add_range(w->s, low, high) != 0) break;
        }
        dwarf_dealloc_rnglists_head(head);
        return res;
    }
    Dwarf_Off offset = 0, real_offset = 0;
    int res = dwarf_global_formref(attribute, &offset, error);
    if (res != DW_DLV_OK) return res;
    Dwarf_Ranges *ranges = NULL;
    Dwarf_Signed count = 0;
    Dwarf_Unsigned bytes = 0;
    res = dwarf_get_ranges_b(w->dbg, offset, die, &real_offset, &ranges, &count, &bytes, error);
    if (res != DW_DLV_OK) return res;
    Dwarf_Unsigned base = w->unit_base;
    for (Dwarf_Signed i = 0; i < count; i++) {
        if (ranges[i].dwr_type == DW_RANGES_ADDRESS_SELECTION) {
            base = ranges[i].dwr_addr2;
        } else if (ranges[i].dwr_type == DW_RANGES_ENTRY) {
            if (add_range(w->s, base + ranges[i].dwr_addr1, base + ranges[i].dwr_addr2) != 0)
                break;
        }
    }
    dwarf_ranges_dealloc(w->dbg, ranges, count);
    return DW_DLV_OK;
}

static int read_function(walker *w, Dwarf_Die die, Dwarf_Half tag, int32_t parent,
                         Dwarf_Error *error) {
    sink *s = w->s;
    if (grow_functions(s) != 0) return DW_DLV_ERROR;
    Dwarf_Off offset = 0;
    if (dwarf_dieoffset(die, &offset, error) != DW_DLV_OK) return DW_DLV_ERROR;
    cdw_function f = new_function(s, offset, parent, tag);

    Dwarf_Attribute *attributes = NULL;
    Dwarf_Signed count = 0;
    int res = dwarf_attrlist(die, &attributes, &count, error);
    if (res == DW_DLV_ERROR) return res;
    Dwarf_Addr low = 0, high = 0;
    int have_low = 0, have_high = 0, high_is_offset = 0;
    for (Dwarf_Signed i = 0; i < count && res != DW_DLV_ERROR; i++) {
        Dwarf_Attribute a = attributes[i];
        Dwarf_Half number = 0;
        if (dwarf_whatattr(a, &number, error) != DW_DLV_OK) {
            res = DW_DLV_ERROR;
            break;
        }
        char *text = NULL;
        Dwarf_Unsigned value = 0;
        Dwarf_Off reference = 0;
        switch (number) {
        case DW_AT_name:
        case DW_AT_linkage_name:
        case DW_AT_MIPS_linkage_name:
            if (dwarf_formstring(a, &text, error) == DW_DLV_OK) {
                int64_t string = add_string(s, text);
                if (string < 0) {
                    res = DW_DLV_ERROR;
                    break;
                }
                if (number == DW_AT_name) f.name = (uint32_t)string;
                else f.linkage_name = (uint32_t)string;
            } else {
                res = DW_DLV_ERROR;
            }
            break;
        case DW_AT_abstract_origin:
        case DW_AT_specification:
            if (dwarf_global_formref(a, &reference, error) == DW_DLV_OK) {
                if (number == DW_AT_abstract_origin) f.origin = reference;
                else f.specification = reference;
            } else {
                res = DW_DLV_ERROR;
            }
            break;
        case DW_AT_call_file:
            if (read_unsigned(a, &value, error) == DW_DLV_OK) {
                f.call_file = value < CALL_FILE_NONE ? (uint32_t)value : CALL_FILE_NONE;
            } else {
                res = DW_DLV_ERROR;
            }
            break;
        case DW_AT_call_line:
        case DW_AT_call_column:
            if (read_unsigned(a, &value, error) == DW_DLV_OK) {
                if (number == DW_AT_call_line) f.call_line = (uint32_t)value;
                else f.call_column = (uint32_t)value;
            } else {
                res = DW_DLV_ERROR;
            }
            break;
        case DW_AT_low_pc:
            if (dwarf_lowpc(die, &low, error) == DW_DLV_OK) have_low = 1;
            else res = DW_DLV_ERROR;
            break;
        case DW_AT_high_pc: {
            Dwarf_Half form = 0;
            enum Dwarf_Form_Class form_class = DW_FORM_CLASS_UNKNOWN;
            if (dwarf_highpc_b(die, &high, &form, &form_class, error) == DW_DLV_OK) {
                have_high = 1;
                high_is_offset = form_class == DW_FORM_CLASS_CONSTANT;
            } else {
                res = DW_DLV_ERROR;
            }
            break;
        }
        case DW_AT_ranges:
            if (read_ranges_attribute(w, die, a, error) == DW_DLV_ERROR) res = DW_DLV_ERROR;
            break;
        default:
            break;
        }
    }
    for (Dwarf_Signed i = 0; i < count; i++) dwarf_dealloc(w->dbg, attributes[i], DW_DLA_ATTR);
    if (attributes) dwarf_dealloc(w->dbg, attributes, DW_DLA_LIST);
    if (res == DW_DLV_ERROR) return res;
    if (have_low && have_high) {
        if (add_range(s, low, high_is_offset ? low + high : high) != 0) return DW_DLV_ERROR;
    }
    f.range_count = (uint32_t)(s->r.range_count - f.first_range);
    s->r.functions[s->r.function_count++] = f;
    return DW_DLV_OK;
}



// Nesting deeper than this is not walked: the walk recurses, and the reference reads only the
// tests' files, whose deepest nesting is a few thousand levels.
#define REFERENCE_MAX_DEPTH 20000

static int walk_children(walker *w, Dwarf_Die parent_die, int32_t parent, unsigned depth,
                         Dwarf_Error *error) {
    if (depth > REFERENCE_MAX_DEPTH) return DW_DLV_OK;
    Dwarf_Die child = NULL;
    int res = dwarf_child(parent_die, &child, error);
    if (res != DW_DLV_OK) return res == DW_DLV_NO_ENTRY ? DW_DLV_OK : res;
    while (child) {
        Dwarf_Half tag = 0;
        res = dwarf_tag(child, &tag, error);
        if (res != DW_DLV_OK) {
            dwarf_dealloc_die(child);
            return res;
        }
        int32_t enclosing = parent;
        if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
            res = read_function(w, child, tag, parent, error);
            if (res != DW_DLV_OK) {
                dwarf_dealloc_die(child);
                return res;
            }
            enclosing = (int32_t)(w->s->r.function_count - 1);
        }
        if (may_hold_functions(tag)) {
            res = walk_children(w, child, enclosing, depth + 1, error);
            if (res != DW_DLV_OK) {
                dwarf_dealloc_die(child);
                return res;
            }
        }
        Dwarf_Die sibling = NULL;
        res = dwarf_siblingof_b(w->dbg, child, 1, &sibling, error);
        dwarf_dealloc_die(child);
        if (res == DW_DLV_ERROR) return res;
        child = res == DW_DLV_OK ? sibling : NULL;
    }
    return DW_DLV_OK;
}

// MARK: - The DWARF 5 file register

// libdwarf 20210528 starts the file register of a DWARF 5 line program at 0, and puts it back
// to 0 after each DW_LNE_end_sequence (_dwarf_set_line_table_regs_default_values: "DWARF5 file
// base is zero"), where DWARF 5 (6.2.2, table 6.4) starts it at 1 as DWARF 2-4 do. The rows a
// sequence has before its first DW_LNS_set_file therefore come out in file 0 instead of file 1.
// gcc's file 0 is mostly a copy of file 1, which hides it, but not always (glibc's
// csu/libc-start.c: file 0 is the unit's source, file 1 libc_start_call_main.h); clang names
// file 0 only through an explicit DW_LNS_set_file 0. libdwarf does not say which rows kept the
// initial value, so the program is walked once more here, following the file register alone.
// (The fast reader below starts the register at 1 itself.)

typedef struct line_reader {
    const uint8_t *p, *end;
    int big_endian;
    int bad;
} line_reader;

static uint64_t line_fixed(line_reader *r, unsigned size) {
    if ((size_t)(r->end - r->p) < size) {
        r->bad = 1;
        return 0;
    }
    uint64_t value = 0;
    for (unsigned i = 0; i < size; i++) {
        unsigned shift = r->big_endian ? 8 * (size - 1 - i) : 8 * i;
        value |= (uint64_t)r->p[i] << shift;
    }
    r->p += size;
    return value;
}

static uint64_t line_uleb(line_reader *r) {
    uint64_t value = 0;
    unsigned shift = 0;
    for (;;) {
        if (r->p >= r->end) {
            r->bad = 1;
            return 0;
        }
        uint8_t byte = *r->p++;
        if (shift < 64) value |= (uint64_t)(byte & 0x7f) << shift;
        shift += 7;
        if (!(byte & 0x80)) return value;
    }
}

#define FILE_REGISTER_INITIAL (-1)

// The file register at each row of the line program at `offset` in .debug_line, in row order:
// FILE_REGISTER_INITIAL where it still holds its initial value. NULL (with *count 0) when the
// program cannot be walked; malloc'ed otherwise.
static int64_t *file_registers(const cdw_object *o, uint64_t offset, uint64_t *count) {
    *count = 0;
    const cdw_section *section = find_section(o, ".debug_line");
    if (!section || !section->data || offset >= section->size) return NULL;
    line_reader r = {section->data + offset, section->data + section->size, o->big_endian, 0};
    unsigned offset_size = 4;
    uint64_t length = line_fixed(&r, 4);
    if (length == 0xffffffff) {
        offset_size = 8;
        length = line_fixed(&r, 8);
    } else if (length >= 0xfffffff0) {
        return NULL;
    }
    if (r.bad || length > (uint64_t)(r.end - r.p)) return NULL;
    r.end = r.p + length;
    uint64_t version = line_fixed(&r, 2);
    if (version >= 5) line_fixed(&r, 2);  // address_size, segment_selector_size
    uint64_t header_length = line_fixed(&r, offset_size);
    if (r.bad || header_length > (uint64_t)(r.end - r.p)) return NULL;
    const uint8_t *program = r.p + header_length;
    line_fixed(&r, version >= 4 ? 5 : 4);  // minimum_instruction_length .. line_range
    unsigned opcode_base = (unsigned)line_fixed(&r, 1);
    const uint8_t *operand_counts = r.p;  // standard_opcode_lengths
    if (r.bad || opcode_base == 0 || program < r.p || (uint64_t)(program - r.p) < opcode_base - 1)
        return NULL;
    r.p = program;

    uint64_t capacity = 1024, rows = 0;
    int64_t *files = malloc(capacity * sizeof(int64_t));
    if (!files) return NULL;
    int64_t file = FILE_REGISTER_INITIAL;
    while (r.p < r.end && !r.bad) {
        unsigned opcode = *r.p++;
        int row = 0;
        if (opcode >= opcode_base) {
            row = 1;  // special opcode
        } else if (opcode == 0) {
            uint64_t size = line_uleb(&r);
            if (r.bad || size > (uint64_t)(r.end - r.p)) {
                r.bad = 1;
                break;
            }
            if (size > 0 && r.p[0] == DW_LNE_end_sequence) row = 2;
            r.p += size;
        } else if (opcode == DW_LNS_copy) {
            row = 1;
        } else if (opcode == DW_LNS_set_file) {
            file = (int64_t)(line_uleb(&r) & INT64_MAX);
        } else if (opcode == DW_LNS_fixed_advance_pc) {
            line_fixed(&r, 2);
        } else {
            for (unsigned i = 0; i < operand_counts[opcode - 1]; i++) line_uleb(&r);
        }
        if (!row || r.bad) continue;
        if (rows == capacity) {
            int64_t *grown = realloc(files, 2 * capacity * sizeof(int64_t));
            if (!grown) {
                r.bad = 1;
                break;
            }
            files = grown;
            capacity *= 2;
        }
        files[rows++] = file;
        if (row == 2) file = FILE_REGISTER_INITIAL;
    }
    if (r.bad) {
        free(files);
        return NULL;
    }
    *count = rows;
    return files;
}

// Gives rows whose file register kept its initial value file 1, as DWARF 5 says, when the walk
// above agrees with libdwarf on every other row (else the rows stay as libdwarf read them).
static void fix_initial_files(walker *w, Dwarf_Die unit_die, Dwarf_Unsigned *files,
                              Dwarf_Signed count) {
    Dwarf_Error error = NULL;
    Dwarf_Attribute attribute = NULL;
    if (dwarf_attr(unit_die, DW_AT_stmt_list, &attribute, &error) != DW_DLV_OK) {
        if (error) dwarf_dealloc(w->dbg, error, DW_DLA_ERROR);
        return;
    }
    Dwarf_Off offset = 0;
    int res = dwarf_global_formref(attribute, &offset, &error);
    dwarf_dealloc(w->dbg, attribute, DW_DLA_ATTR);
    if (res != DW_DLV_OK) {
        if (error) dwarf_dealloc(w->dbg, error, DW_DLA_ERROR);
        return;
    }
    uint64_t walked = 0;
    int64_t *registers = file_registers(w->object, offset, &walked);
    if (!registers) return;
    int agree = walked == (uint64_t)count;
    for (Dwarf_Signed i = 0; agree && i < count; i++) {
        agree = registers[i] == FILE_REGISTER_INITIAL ? files[i] == 0
                                                      : files[i] == (Dwarf_Unsigned)registers[i];
    }
    for (Dwarf_Signed i = 0; agree && i < count; i++) {
        if (registers[i] == FILE_REGISTER_INITIAL) files[i] = 1;
    }
    free(registers);
}

// MARK: - Line tables through libdwarf

static int read_lines(walker *w, Dwarf_Die unit_die, Dwarf_Line_Context context,
                      Dwarf_Unsigned line_version, Dwarf_Error *error) {
    Dwarf_Line *lines = NULL;
    Dwarf_Signed count = 0;
    int res = dwarf_srclines_from_linecontext(context, &lines, &count, error);
    if (res != DW_DLV_OK || count <= 0) return res;
    Dwarf_Unsigned *files = malloc((size_t)count * sizeof(Dwarf_Unsigned));
    if (!files) return DW_DLV_ERROR;
    sink *s = w->s;
    uint64_t first_row = s->r.row_count;
    for (Dwarf_Signed i = 0; i < count; i++) {
        cdw_row row;
        memset(&row, 0, sizeof(row));
        Dwarf_Addr address = 0;
        Dwarf_Unsigned number = 0, column = 0;
        Dwarf_Bool end = 0, prologue_end = 0, epilogue_begin = 0;
        Dwarf_Unsigned isa = 0, discriminator = 0;
        if (dwarf_lineaddr(lines[i], &address, error) != DW_DLV_OK ||
            dwarf_lineno(lines[i], &number, error) != DW_DLV_OK ||
            dwarf_line_srcfileno(lines[i], &files[i], error) != DW_DLV_OK ||
            dwarf_lineoff_b(lines[i], &column, error) != DW_DLV_OK ||
            dwarf_lineendsequence(lines[i], &end, error) != DW_DLV_OK ||
            dwarf_prologue_end_etc(lines[i], &prologue_end, &epilogue_begin, &isa, &discriminator,
                                   error) != DW_DLV_OK) {
            res = DW_DLV_ERROR;
            break;
        }
        // libdwarf 20210528 copies the epilogue_begin flag into end_sequence on rows made
        // by standard and special opcodes; a real DW_LNE_end_sequence row has no epilogue flag.
        if (epilogue_begin) end = 0;
        cdw_row_set_address(&row, address);
        row.line = (uint32_t)number;
        cdw_row_set_column(&row, column, end != 0);
        if (s->r.row_count == s->row_capacity && grow_rows(s) != 0) {
            res = DW_DLV_ERROR;
            break;
        }
        s->r.rows[s->r.row_count++] = row;
    }
    if (res == DW_DLV_OK) {
        if (line_version == 5) fix_initial_files(w, unit_die, files, count);
        for (Dwarf_Signed i = 0; i < count; i++) {
            s->r.rows[first_row + (uint64_t)i].file =
                files[i] < w->unit_file_count ? w->unit_first_file + (uint32_t)files[i] : 0;
        }
    }
    free(files);
    return res;
}

// Copies the unit's line-table file list into `files` so that `first_file + DW_AT_call_file`
// (and `+ row file number`) index it for any DWARF version, with what joining the names takes:
// the include directories and DW_AT_comp_dir. Nothing is joined here.
static int read_file_table(walker *w, Dwarf_Die unit_die, Dwarf_Line_Context context,
                           Dwarf_Unsigned line_version, Dwarf_Error *error) {
    sink *s = w->s;
    cdw_unit unit;
    memset(&unit, 0, sizeof(unit));
    unit.line_version = (uint32_t)line_version;
    Dwarf_Attribute attribute = NULL;
    int res = dwarf_attr(unit_die, DW_AT_comp_dir, &attribute, error);
    if (res == DW_DLV_ERROR) return res;
    if (res == DW_DLV_OK) {
        char *text = NULL;
        res = dwarf_formstring(attribute, &text, error);
        int64_t string = res == DW_DLV_OK ? add_string(s, text) : 0;
        dwarf_dealloc(w->dbg, attribute, DW_DLA_ATTR);
        if (res == DW_DLV_ERROR) return res;
        if (string < 0) return DW_DLV_ERROR;
        unit.comp_dir = (uint32_t)string;
    }

    // include_directories: DWARF 5 numbers them from 0 (0 is the compilation directory),
    // DWARF 2-4 from 1; libdwarf takes each version's own numbering.
    Dwarf_Signed directory_count = 0;
    if (dwarf_srclines_include_dir_count(context, &directory_count, error) != DW_DLV_OK)
        return DW_DLV_ERROR;
    Dwarf_Signed first_directory = line_version >= 5 ? 0 : 1;
    unit.first_directory = (uint32_t)s->r.directory_count;
    for (Dwarf_Signed i = first_directory; i < first_directory + directory_count; i++) {
        const char *name = NULL;
        res = dwarf_srclines_include_dir_data(context, i, &name, error);
        if (res == DW_DLV_ERROR) return res;
        int64_t string = res == DW_DLV_OK ? add_string(s, name) : 0;
        if (string < 0 || add_directory(s, (uint32_t)string) != 0) return DW_DLV_ERROR;
    }
    unit.directory_count = (uint32_t)(s->r.directory_count - unit.first_directory);
    uint32_t unit_index = (uint32_t)s->r.unit_count;
    if (add_unit(s, unit) != 0) return DW_DLV_ERROR;

    // File names: 1 through count in DWARF 2-4 (a placeholder stands for 0), 0 through
    // count - 1 in DWARF 5.
    Dwarf_Signed base = 0, count = 0, end = 0;
    if (dwarf_srclines_files_indexes(context, &base, &count, &end, error) != DW_DLV_OK)
        return DW_DLV_ERROR;
    for (Dwarf_Signed i = 0; i < base; i++) {
        if (add_file(s, 0, 0, unit_index) != 0) return DW_DLV_ERROR;
    }
    for (Dwarf_Signed i = base; i < end; i++) {
        const char *name = NULL;
        Dwarf_Unsigned directory = 0, modification_time = 0, length = 0;
        Dwarf_Form_Data16 *md5 = NULL;
        res = dwarf_srclines_files_data_b(context, i, &name, &directory, &modification_time,
                                          &length, &md5, error);
        if (res == DW_DLV_ERROR) return res;
        int64_t string = res == DW_DLV_OK ? add_string(s, name) : 0;
        if (string < 0) return DW_DLV_ERROR;
        uint32_t recorded = directory > UINT32_MAX ? UINT32_MAX : (uint32_t)directory;
        if (add_file(s, (uint32_t)string, recorded, unit_index) != 0) return DW_DLV_ERROR;
    }
    w->unit_file_count = (uint32_t)(s->r.file_count - w->unit_first_file);
    return DW_DLV_OK;
}

// The unit's file table and line rows.
static int libdwarf_unit_lines(walker *w, Dwarf_Die unit_die, Dwarf_Error *error) {
    w->unit_first_file = (uint32_t)w->s->r.file_count;
    w->unit_file_count = 0;
    Dwarf_Unsigned line_version = 0;
    Dwarf_Small table_count = 0;
    Dwarf_Line_Context context = 0;
    int res = dwarf_srclines_b(unit_die, &line_version, &table_count, &context, error);
    if (res != DW_DLV_OK) return res == DW_DLV_NO_ENTRY ? DW_DLV_OK : res;
    res = read_file_table(w, unit_die, context, line_version, error);
    if (res != DW_DLV_ERROR) res = read_lines(w, unit_die, context, line_version, error);
    dwarf_srclines_dealloc_b(context);
    return res == DW_DLV_ERROR ? res : DW_DLV_OK;
}

// The unit's function entries and their ranges.
static int libdwarf_unit_functions(walker *w, Dwarf_Die unit_die, uint16_t version,
                                   Dwarf_Error *error) {
    w->version = version;
    Dwarf_Addr base = 0;
    int res = dwarf_lowpc(unit_die, &base, error);
    if (res == DW_DLV_ERROR) {  // no usable base: range lists then hold absolute addresses
        dwarf_dealloc(w->dbg, *error, DW_DLA_ERROR);
        *error = NULL;
    }
    w->unit_base = res == DW_DLV_OK ? base : 0;
    return walk_children(w, unit_die, -1, 0, error);
}


// MARK: - Every unit

// Per unit: its line program's offset, and where its line table's file list went.
typedef struct unit_lines {
    Dwarf_Off offset;
    int has_lines, type_unit;
    uint32_t owner;  // the unit that reads the line program, which several units may name
    uint64_t first_file, file_count, first_function, end_function;
} unit_lines;

// The units' line program offsets, in unit order; *count units. NULL when out of memory.
// Walks the units on a libdwarf instance of its own, which the read's walk does not share.
static unit_lines *line_programs(cdw_object *object, uint32_t *count) {
    Dwarf_Debug dbg = NULL;
    Dwarf_Error error = NULL;
    Dwarf_Obj_Access_Interface interface = {object, &access_methods};
    *count = 0;
    if (dwarf_object_init_b(&interface, NULL, NULL, DW_GROUPNUMBER_ANY, &dbg, &error) != DW_DLV_OK) {
        if (error) dwarf_dealloc(NULL, error, DW_DLA_ERROR);
        return calloc(1, sizeof(unit_lines));
    }
    uint32_t capacity = 64;
    unit_lines *units = calloc(capacity, sizeof(*units));
    for (;;) {
        error = NULL;
        Dwarf_Unsigned header_length = 0, abbrev_offset = 0, type_offset = 0, next = 0;
        Dwarf_Half version = 0, address_size = 0, length_size = 0, extension_size = 0,
                   header_type = 0;
        Dwarf_Sig8 signature;
        int res = dwarf_next_cu_header_d(dbg, 1, &header_length, &version, &abbrev_offset,
                                         &address_size, &length_size, &extension_size,
                                         &signature, &type_offset, &next, &header_type, &error);
        if (res != DW_DLV_OK) {
            if (error) dwarf_dealloc(dbg, error, DW_DLA_ERROR);
            break;
        }
        if (!units) break;
        if (*count == capacity) {
            capacity *= 2;
            unit_lines *grown = realloc(units, capacity * sizeof(*units));
            if (!grown) {
                free(units);
                units = NULL;
                continue;
            }
            units = grown;
        }
        unit_lines *u = &units[*count];
        memset(u, 0, sizeof(*u));
        u->owner = (*count)++;
        u->type_unit = header_type == DW_UT_type || header_type == DW_UT_split_type;
        Dwarf_Die die = NULL;
        Dwarf_Attribute attribute = NULL;
        if (dwarf_siblingof_b(dbg, NULL, 1, &die, &error) != DW_DLV_OK) {
            if (error) dwarf_dealloc(dbg, error, DW_DLA_ERROR);
            continue;
        }
        if (dwarf_attr(die, DW_AT_stmt_list, &attribute, &error) == DW_DLV_OK) {
            u->has_lines = dwarf_global_formref(attribute, &u->offset, &error) == DW_DLV_OK;
            dwarf_dealloc(dbg, attribute, DW_DLA_ATTR);
        }
        if (error) dwarf_dealloc(dbg, error, DW_DLA_ERROR);
        dwarf_dealloc_die(die);
    }
    // A line program several units name is read once: by the first unit with code that names
    // it (type units have no compilation directory), else by the first.
    for (uint32_t i = 0; units && i < *count; i++) {
        if (!units[i].has_lines) continue;
        int64_t best = -1;
        for (uint32_t j = 0; j < *count; j++) {
            if (!units[j].has_lines || units[j].offset != units[i].offset) continue;
            if (best < 0 || (units[best].type_unit && !units[j].type_unit)) best = j;
        }
        units[i].owner = (uint32_t)best;
    }
    dwarf_object_finish(dbg, &error);
    return units;
}

int cdwref_read(cdw_object *object, cdw_result *result, char *message, size_t message_size) {
    memset(result, 0, sizeof(*result));
    sink s;
    if (sink_init(&s) != 0) {
        sink_free(&s);
        set_message(message, message_size, "out of memory");
        return CDW_ERROR;
    }
    Dwarf_Debug dbg = NULL;
    Dwarf_Error error = NULL;
    Dwarf_Obj_Access_Interface interface = {object, &access_methods};
    dwarf_set_de_alloc_flag(0);
    int res = dwarf_object_init_b(&interface, NULL, NULL, DW_GROUPNUMBER_ANY, &dbg, &error);
    if (res != DW_DLV_OK) {
        sink_free(&s);
        set_message(message, message_size, "%s",
                    error ? dwarf_errmsg(error) : "libdwarf could not open the object");
        if (error) dwarf_dealloc(NULL, error, DW_DLA_ERROR);
        return res == DW_DLV_NO_ENTRY ? CDW_NO_DWARF : CDW_ERROR;
    }
    int failed = 0;
    uint32_t unit_count = 0, unit = 0;
    unit_lines *units = line_programs(object, &unit_count);
    if (!units) {
        dwarf_object_finish(dbg, &error);
        sink_free(&s);
        set_message(message, message_size, "out of memory");
        return CDW_ERROR;
    }
    for (;; unit++) {
        error = NULL;
        Dwarf_Unsigned header_length = 0, abbrev_offset = 0, type_offset = 0, next = 0;
        Dwarf_Half version = 0, address_size = 0, length_size = 0, extension_size = 0,
                   header_type = 0;
        Dwarf_Sig8 signature;
        res = dwarf_next_cu_header_d(dbg, 1, &header_length, &version, &abbrev_offset,
                                     &address_size, &length_size, &extension_size, &signature,
                                     &type_offset, &next, &header_type, &error);
        if (res == DW_DLV_NO_ENTRY) break;
        const char *what = "compile unit header";
        Dwarf_Die unit_die = NULL;
        if (res == DW_DLV_OK) {
            what = "compile unit";
            res = dwarf_siblingof_b(dbg, NULL, 1, &unit_die, &error);
        }
        if (res == DW_DLV_OK) {
            walker w;
            memset(&w, 0, sizeof(w));
            w.dbg = dbg;
            w.object = object;
            w.s = &s;
            unit_lines *lines = unit < unit_count ? &units[unit] : NULL;
            uint64_t first_file = s.r.file_count, first_function = s.r.function_count;
            if (!lines || lines->owner == unit) res = libdwarf_unit_lines(&w, unit_die, &error);
            uint64_t file_count = s.r.file_count - first_file;
            if (res == DW_DLV_OK) res = libdwarf_unit_functions(&w, unit_die, version, &error);
            if (lines) {
                *lines = (unit_lines){lines->offset, lines->has_lines, lines->type_unit,
                                      lines->owner, first_file, file_count, first_function,
                                      s.r.function_count};
            }
            dwarf_dealloc_die(unit_die);
            what = "compile unit";
        }
        if (res == DW_DLV_ERROR) {
            if (!failed) {
                set_message(message, message_size, "%s: %s", what,
                            error ? dwarf_errmsg(error) : "libdwarf failed");
            }
            failed = 1;
            if (error) dwarf_dealloc(dbg, error, DW_DLA_ERROR);
            if (strcmp(what, "compile unit header") == 0) break;
        }
    }
    // DW_AT_call_file values name files of the list of the unit that read the line program.
    for (uint32_t u = 0; u < unit_count && u < unit; u++) {
        const unit_lines *owner = &units[units[u].owner];
        for (uint64_t i = units[u].first_function; i < units[u].end_function; i++) {
            uint32_t raw = s.r.functions[i].call_file;
            s.r.functions[i].call_file = raw == CALL_FILE_NONE || raw >= owner->file_count
                                             ? 0
                                             : (uint32_t)(owner->first_file + raw);
        }
    }
    free(units);
    dwarf_object_finish(dbg, &error);
    *result = s.r;
    memset(&s.r, 0, sizeof(s.r));
    sink_free(&s);
    return failed ? CDW_PARTIAL : CDW_OK;
}
