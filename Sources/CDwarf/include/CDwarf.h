// CDwarf: one pass over DWARF, on every core.
//
// It opens DWARF held in memory (sections handed over by the caller, or an ELF image
// read through libelf, which also inflates compressed sections) and walks it once,
// filling flat arrays: one entry per subprogram / inlined-subroutine DIE, their
// address ranges, every line-table row, the per-unit file tables (names, directory
// indexes, include directories and DW_AT_comp_dir, unjoined) and a string table.
// Names, paths and policy are left to the Swift code above.
//
// Units are read by a reader of the shim's own over the section bytes, several at once on
// separate threads. A unit it cannot read (damage, an encoding it does not know) is skipped
// whole, and the read reports it (CDW_PARTIAL). No DWARF library is involved: libdwarf reads
// the same objects only in the tests, as the reference (CDwarfReference).
//
// Every function reports failure through a return code and a message buffer.

#ifndef CDWARF_H
#define CDWARF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Return codes.
enum {
    CDW_OK = 0,
    /// The object was read, but some compile units could not be: the message names the first.
    CDW_PARTIAL = 1,
    CDW_ERROR = -1,
    /// The object holds no DWARF at all.
    CDW_NO_DWARF = -2,
};

/// A section handed to `cdw_open_sections`. `name` uses ELF spelling (".debug_info");
/// `name` and `data` must stay valid until `cdw_close`.
typedef struct cdw_section {
    const char *name;
    const uint8_t *data;
    uint64_t size;
    uint64_t address;
} cdw_section;

/// DW_TAG values recorded in `cdw_function.tag`.
enum {
    CDW_TAG_SUBPROGRAM = 0x2e,
    CDW_TAG_INLINED_SUBROUTINE = 0x1d,
};

/// `cdw_function.origin` / `.specification` when the attribute is absent.
#define CDW_NO_REFERENCE UINT64_MAX

/// One subprogram or inlined-subroutine DIE, in DIE order (a parent precedes its children).
typedef struct cdw_function {
    uint64_t offset;         ///< global .debug_info offset of the DIE
    uint64_t origin;         ///< DW_AT_abstract_origin target offset, or CDW_NO_REFERENCE
    uint64_t specification;  ///< DW_AT_specification target offset, or CDW_NO_REFERENCE
    uint32_t name;           ///< DW_AT_name, string-table offset (0: absent)
    uint32_t linkage_name;   ///< DW_AT_linkage_name / DW_AT_MIPS_linkage_name (0: absent)
    int32_t parent;          ///< index of the nearest enclosing function entry, -1 for none
    uint32_t call_file;      ///< index into `files` (0: absent)
    uint32_t call_line;
    uint32_t call_column;
    uint32_t first_range;    ///< index into `ranges`
    uint32_t range_count;
    uint32_t tag;            ///< CDW_TAG_*
} cdw_function;

/// A half-open address range [low, high).
typedef struct cdw_range {
    uint64_t low;
    uint64_t high;
} cdw_range;

/// One line-table row. Rows keep the table's order; end-of-sequence rows close a sequence.
/// 20 bytes, aligned to 4: the address in two halves, the end-of-sequence flag in the top bit
/// of the column (read and written through the functions below). A large file has millions of
/// rows, which the pass holds at once: 24 bytes each would be 8 MB more for every 2 million.
typedef struct cdw_row {
    uint32_t address_low, address_high;
    uint32_t file;            ///< index into `files`
    uint32_t line;
    uint32_t column_and_end;  ///< the column (kept to 31 bits; llvm-symbolizer keeps 16), and the flag
} cdw_row;

#define CDW_ROW_END_SEQUENCE 0x80000000u

static inline uint64_t cdw_row_address(cdw_row row) { return (uint64_t)row.address_high << 32 | row.address_low; }

static inline void cdw_row_set_address(cdw_row *row, uint64_t address) {
    row->address_low = (uint32_t)address;
    row->address_high = (uint32_t)(address >> 32);
}

static inline uint32_t cdw_row_column(cdw_row row) { return row.column_and_end & ~CDW_ROW_END_SEQUENCE; }
static inline uint32_t cdw_row_ends_sequence(cdw_row row) { return row.column_and_end >> 31; }

/// Sets the column (its low 31 bits) and the end-of-sequence flag.
static inline void cdw_row_set_column(cdw_row *row, uint64_t column, int end_sequence) {
    row->column_and_end = ((uint32_t)column & ~CDW_ROW_END_SEQUENCE) | (end_sequence ? CDW_ROW_END_SEQUENCE : 0);
}

/// One entry of a unit's line-table file list, as the table records it: the name and the
/// directory index are not joined here (the caller joins them with the unit's directories
/// and compilation directory, as llvm-symbolizer does).
typedef struct cdw_file {
    uint32_t name;       ///< string-table offset of the recorded name (0: the DWARF 2-4 placeholder)
    uint32_t directory;  ///< the recorded directory index, in the table's own numbering
    uint32_t unit;       ///< index into `units` (CDW_NO_UNIT for the array's leading placeholder)
} cdw_file;

#define CDW_NO_UNIT UINT32_MAX

/// What joining the file names of one unit's line table takes.
typedef struct cdw_unit {
    uint32_t comp_dir;         ///< DW_AT_comp_dir, string-table offset (0: absent)
    uint32_t line_version;     ///< the line table's version: 2-4 number directories from 1, 5 from 0
    uint32_t first_directory;  ///< index into `directories`
    uint32_t directory_count;  ///< include_directories in table order (DWARF 5: entry 0 is the compilation directory)
} cdw_unit;

/// What one pass over the DWARF produces. Arrays are malloc'ed; free with `cdw_result_free`.
typedef struct cdw_result {
    cdw_function *functions; uint64_t function_count;
    cdw_range *ranges;       uint64_t range_count;
    cdw_row *rows;           uint64_t row_count;
    /// The file lists of the units' line tables, unit after unit, so that a unit's first entry
    /// plus a row's file number or a DW_AT_call_file value indexes it in any DWARF version:
    /// DWARF 2-4 lists start with a placeholder standing for file 0. Entry 0 of the array is a
    /// placeholder too (no file: an absent DW_AT_call_file, a file number out of range).
    cdw_file *files;         uint64_t file_count;
    /// One entry per unit with a line table.
    cdw_unit *units;         uint64_t unit_count;
    /// String-table offsets of the units' include directories (see `cdw_unit`).
    uint32_t *directories;   uint64_t directory_count;
    /// NUL-separated strings; offset 0 is the empty string.
    char *strings;           uint64_t strings_size;
} cdw_result;

typedef struct cdw_object cdw_object;

/// Opens DWARF from caller-owned sections (a Mach-O slice, say).
int cdw_open_sections(const cdw_section *sections, uint32_t count, uint8_t pointer_size,
                      int big_endian, cdw_object **out, char *message, size_t message_size);

/// Opens an ELF image held in memory; compressed debug sections
/// (SHF_COMPRESSED with zlib or zstd, and legacy .zdebug_*) are inflated, zstd ones by libzstd
/// into buffers freed by `cdw_close`. `image` must stay valid until `cdw_close`.
int cdw_open_elf(const void *image, size_t size, cdw_object **out,
                 char *message, size_t message_size);

/// Lets reads release the pages of the object's sections that lie in [base, base + size) once
/// they are read (madvise MADV_DONTNEED: .debug_info unit by unit behind the reading threads,
/// every section at the end of the read), so that a large debug file does not stay resident
/// while what was read from it is used. [base, base + size) must be a private mapping of a
/// file (MAP_PRIVATE) that nothing writes, but for the headers of an ELF image opened by
/// `cdw_open_elf` (libelf updates section headers as it inflates a section; pages they touch
/// are never released): a released page reads the file again when touched. Linux only.
/// `step`: the bytes released at a time, here and as `cdw_read_finish` copies (0: 1 MiB).
void cdw_allow_page_release(cdw_object *object, const void *base, size_t size, size_t step);

typedef struct cdw_read_options {
    /// Threads reading units at once: 0 for one per core (at most 8; one for small objects).
    uint32_t threads;
    /// Keep every function entry and every row. By default, the result leaves out what no
    /// lookup can use: of rows at one address, all but the last before the sequence's end
    /// (the row after says where that code is); and, when no function of the object names an
    /// entry of another unit, the function entries but those with address ranges and those
    /// they lead to, over and over: the entries enclosing them and those their
    /// DW_AT_abstract_origin and DW_AT_specification name (most of the others are the
    /// declarations of C++ member functions).
    uint32_t keep_unused;
} cdw_read_options;

/// A read whose functions, ranges and rows are still in the reading threads' hands.
typedef struct cdw_reading cdw_reading;

/// Reads every unit once, in two steps, so that the large arrays are copied once, straight
/// into arrays the caller owns (Swift arrays, say): fills `result` (zeroed by the caller) but
/// for `functions`, `ranges` and `rows`, which stay NULL while their counts are set. The
/// result is the same whatever the options (which may be NULL) but for string-table offsets
/// (each thread keeps its own table). On CDW_OK or CDW_PARTIAL, `*reading` must be handed to
/// `cdw_read_finish`.
int cdw_read_start(cdw_object *object, const cdw_read_options *options, cdw_result *result,
                   cdw_reading **reading, char *message, size_t message_size);

/// Copies the functions, ranges and rows of `reading` into arrays of the lengths
/// `cdw_read_start` gave (each thread copies its share), then frees `reading`. An array whose
/// length is 0 may be NULL; with all three NULL, only frees `reading`. What is copied is
/// released as the copy goes, so that both are not whole in memory at once.
void cdw_read_finish(cdw_reading *reading, cdw_function *functions, cdw_range *ranges,
                     cdw_row *rows);

void cdw_result_free(cdw_result *result);
void cdw_close(cdw_object *object);

/// The section of an open object named `name` (ELF spelling, ".debug_line"), inflated if it
/// was compressed; NULL when there is none. Valid until `cdw_close`. For describing an object
/// (its units' headers), not for reading it.
const cdw_section *cdw_section_named(const cdw_object *object, const char *name);

/// zlib's CRC-32 of `size` bytes, continuing from `crc` (0 to start): the checksum that
/// `.gnu_debuglink` records for a separate debug file.
uint32_t cdw_crc32(uint32_t crc, const void *data, size_t size);

/// What `cdw_inflate_raw` found.
typedef enum {
    /// The stream ended having written exactly `out_size` bytes.
    CDW_INFLATE_OK = 0,
    /// The stream holds more than `out_size` bytes: inflating stopped there.
    CDW_INFLATE_TOO_LONG = 1,
    /// The stream ended, or the input ran out, before `out_size` bytes.
    CDW_INFLATE_TOO_SHORT = 2,
    /// The bytes are not a raw deflate stream.
    CDW_INFLATE_DAMAGED = 3,
} cdw_inflate_status;

/// Inflates the raw deflate stream (no zlib or gzip header: a zip entry's data) of `in_size`
/// bytes at `in` into `out`, which must hold `out_size` zero bytes: at most `out_size` bytes
/// are ever written, and pieces that inflate to zeros are not written at all, so that an
/// anonymous mapping stays untouched (and takes no memory) where the stream gives zeros.
/// `*written`, when given, is how many bytes the stream gave before it stopped.
cdw_inflate_status cdw_inflate_raw(const void *in, size_t in_size, void *out, size_t out_size, size_t *written);

#ifdef __cplusplus
}
#endif

#endif
