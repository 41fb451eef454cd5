// What the files of the reader share: the object, the sections the reader reads, what one
// thread fills (a sink), unit headers, abbreviation tables, and the tasks threads run.
// Private to the CDwarf target; CDwarf.h is the public interface.

#ifndef CDWARF_READER_H
#define CDWARF_READER_H

#include "CDwarf.h"

#include <gelf.h>
#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

// Functions shared between the reader's files, never exported from a linked program.
#define CDW_INTERNAL __attribute__((visibility("hidden")))

// libelf before 0.189 (Debian 12 ships 0.188) knows zlib only; zstd sections are inflated here.
#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2
#endif

struct cdw_object {
    Dwarf_Debug dbg;
    Dwarf_Obj_Access_Interface interface;
    cdw_section *sections;  // index 0 is an empty placeholder, as in ELF
    uint32_t section_count;
    uint8_t pointer_size;
    int big_endian;
    Elf *elf;
    char **spelled_names;  // names made for legacy .zdebug_* sections
    uint32_t spelled_count;
    void **inflated;  // zstd sections inflated here rather than by libelf
    uint32_t inflated_count;
    // Where section pages may be released once read (cdw_allow_page_release): a private file
    // mapping, but for `kept`, the parts of an ELF image libelf may write (its headers).
    const uint8_t *release_base;
    uint64_t release_size;
    uint64_t release_step;  // bytes released at a time, 0 for RELEASE_STEP
    const uint8_t *image;  // the ELF image of cdw_open_elf
    uint64_t kept[3][2];   // offsets in `image`: ELF header, program and section header tables
};

// What the fast reader's functions return.
enum {
    FAST_OK = 0,
    FAST_UNSUPPORTED = 1,  // for libdwarf
    FAST_DAMAGED = 2,
    FAST_NO_MEMORY = -1,
};

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the fast DWARF reader assumes a little-endian host"
#endif

typedef struct span {
    const uint8_t *data;
    uint64_t size;
} span;

typedef struct dwarf_sections {
    span info, abbrev, str, line_str, str_offsets, addr, ranges, rnglists, line;
} dwarf_sections;

// The arrays one thread fills, laid out as `cdw_result`. With one thread they become the
// result; with more, every thread's arrays are copied into the result unit by unit, their
// indexes and string offsets rebased (see `lay_out` and `cdw_read_finish`).
struct interned {
    const char *text;
    uint64_t offset;
};

typedef struct sink {
    cdw_result r;
    uint64_t function_capacity, range_capacity, row_capacity, file_capacity, unit_capacity,
        directory_capacity, string_capacity;
    // Strings copied from DWARF sections, by their address there (stable until cdw_close):
    // a name met again in the same section is not copied again.
    struct interned *interned;
    uint64_t interned_capacity, interned_count;
    // The bytes of .debug_ranges / .debug_rnglists the current unit's range lists span.
    const uint8_t *lists_read[2];
} sink;

// `call_file` of a function entry while units are read: the raw DW_AT_call_file value, or
// CALL_FILE_NONE; turned into an index into `files` once the unit's file list is known.
#define CALL_FILE_NONE UINT32_MAX

// The arrays a task fills, in the order of task_result.start / .end.
enum { ARR_FUNCTIONS, ARR_RANGES, ARR_ROWS, ARR_FILES, ARR_UNITS, ARR_DIRECTORIES, ARR_COUNT };

typedef struct unit_header {
    uint64_t offset;         // of the unit header in .debug_info
    uint64_t end;            // one past the unit
    uint64_t die_offset;     // of the unit DIE
    uint64_t abbrev_offset;
    uint16_t version;
    uint8_t unit_type, address_size, offset_size;
} unit_header;

typedef struct attr_spec {
    uint32_t at;
    uint16_t form;
    int16_t size;  // of the value when fixed, else -1
    int64_t implicit_const;
} attr_spec;

enum { KIND_FUNCTION = 1, KIND_HOLDS_FUNCTIONS = 2 };

typedef struct abbrev {
    uint64_t code;
    uint64_t tag;
    uint32_t first_spec, spec_count;
    uint8_t children;
    uint8_t kind;
    uint16_t sibling_form;
    int32_t fixed_size;  // of all the attribute values when every one is fixed, else -1
    int32_t sibling_at;  // where the DW_AT_sibling value starts when the values before it are fixed, else -1
} abbrev;

typedef struct abbrev_table {
    int valid;
    uint64_t offset;
    uint16_t version;
    uint8_t address_size, offset_size;
    abbrev *abbrevs;
    uint32_t count, capacity;
    attr_spec *specs;
    uint32_t spec_count, spec_capacity;
    uint32_t *by_code;  // code -> index + 1, for codes below by_code_size
    uint32_t by_code_size, by_code_capacity;
} abbrev_table;

typedef struct task_result {
    int32_t thread;  // that ran it, -1 for none
    uint8_t failed;
    char *message;      // when failed
    uint64_t start[ARR_COUNT], end[ARR_COUNT];  // what it added to its thread's sink
    uint64_t base[ARR_COUNT];                   // where that goes in the result
} task_result;

struct reader;

typedef struct thread_ctx {
    struct reader *reader;
    uint32_t index;
    sink s;
    abbrev_table abbrevs;
    Dwarf_Debug dbg;  // opened on first need
    int dbg_failed;
    pthread_t thread;
    int started;
} thread_ctx;

typedef struct reader {
    const cdw_object *object;
    dwarf_sections sections;
    unit_header *units;
    uint32_t unit_count;
    task_result *lines, *functions;  // per unit
    uint32_t task_count;
    atomic_uint next_task;
    int use_libdwarf;
    int no_fallback;
    thread_ctx *threads;
    uint32_t thread_count;
    uint64_t *string_base;  // per thread
    // Releasing the .debug_info of units read (see unit_read), when the object allows it.
    atomic_uchar *tasks_done;  // per unit, 0 to 2
    pthread_mutex_t release_lock;
    uint32_t units_read;       // units 0 ..< units_read have both tasks done
    uint64_t info_released;    // .debug_info bytes before this offset are released
} reader;

struct cdw_reading {
    // Read by several threads: their sinks, copied into the caller's arrays task by task.
    reader *rd;
    cdw_function *functions;
    cdw_range *ranges;
    cdw_row *rows;
    // Read in one piece (one thread, or libdwarf alone): the arrays themselves.
    cdw_result whole;
    uint64_t release_step;
};

// MARK: - Functions shared between files

CDW_INTERNAL void set_message(char *message, size_t size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

// Pages (pages.c).
CDW_INTERNAL uint64_t release_step(const cdw_object *o);
CDW_INTERNAL void release_pages(const void *from, const void *to);
CDW_INTERNAL void release_section_bytes(const cdw_object *o, const uint8_t *from,
                                        const uint8_t *to, unsigned k);
CDW_INTERNAL void release_sections(const cdw_object *o);

// What one thread reads (sink.c).
CDW_INTERNAL int64_t add_string(sink *s, const char *text);
CDW_INTERNAL int64_t add_section_string(sink *s, const char *text);
CDW_INTERNAL int add_file(sink *s, uint32_t name, uint32_t directory, uint32_t unit);
CDW_INTERNAL int add_directory(sink *s, uint32_t string);
CDW_INTERNAL int add_unit(sink *s, cdw_unit unit);
CDW_INTERNAL int grow_rows(sink *s);
CDW_INTERNAL int grow_functions(sink *s);
CDW_INTERNAL int sink_init(sink *s);
CDW_INTERNAL void sink_free(sink *s);
CDW_INTERNAL void sink_counts(const sink *s, uint64_t counts[ARR_COUNT]);
CDW_INTERNAL void sink_truncate(sink *s, const uint64_t counts[ARR_COUNT]);

// Makes room for one more element of `array`, or returns `failure` from the caller.
#define GROW(s, array, count, capacity, failure)                                      \
    do {                                                                              \
        if ((s)->r.count == (s)->capacity) {                                          \
            uint64_t next = (s)->capacity ? (s)->capacity * 2 : 1024;                 \
            void *grown = realloc((s)->r.array, next * sizeof(*(s)->r.array));        \
            if (!grown) return (failure);                                             \
            (s)->r.array = grown;                                                     \
            (s)->capacity = next;                                                     \
        }                                                                             \
    } while (0)

static inline int add_range(sink *s, uint64_t low, uint64_t high) {
    if (high <= low) return 0;
    GROW(s, ranges, range_count, range_capacity, -1);
    s->r.ranges[s->r.range_count++] = (cdw_range){low, high};
    return 0;
}

// Notes that the range list at [from, to) was read.
static inline void note_list_read(sink *s, const uint8_t *from, const uint8_t *to) {
    if (!s->lists_read[0] || from < s->lists_read[0]) s->lists_read[0] = from;
    if (to > s->lists_read[1]) s->lists_read[1] = to;
}

// Children deeper than this are not walked (malformed nesting).
#define MAX_DEPTH 256

// Abbreviations (abbrev.c).
CDW_INTERNAL int may_hold_functions(uint64_t tag);
CDW_INTERNAL int form_size(unsigned form, uint16_t version, uint8_t address_size,
                           uint8_t offset_size);
CDW_INTERNAL void abbrev_table_free(abbrev_table *t);
CDW_INTERNAL int load_abbrevs(abbrev_table *t, const dwarf_sections *sections, int big_endian,
                              const unit_header *h);

static inline const abbrev *find_abbrev(const abbrev_table *t, uint64_t code) {
    if (code < t->by_code_size) {
        uint32_t i = t->by_code[code];
        return i ? &t->abbrevs[i - 1] : NULL;
    }
    for (uint32_t i = 0; i < t->count; i++) {
        if (t->abbrevs[i].code == code) return &t->abbrevs[i];
    }
    return NULL;
}

// Units and DIEs (units.c), line tables (lines.c).
CDW_INTERNAL int find_dwarf_sections(const cdw_object *o, dwarf_sections *out);
CDW_INTERNAL int scan_units(const dwarf_sections *sections, int big_endian, unit_header **out,
                            uint32_t *out_count, char *message, size_t message_size);
CDW_INTERNAL int fast_unit_functions(sink *s, abbrev_table *abbrevs,
                                     const dwarf_sections *sections, int big_endian,
                                     const unit_header *h);
CDW_INTERNAL int fast_unit_lines(sink *s, abbrev_table *abbrevs, const dwarf_sections *sections,
                                 int big_endian, const unit_header *h,
                                 const uint8_t *program_bytes[2]);

// libdwarf (libdwarf_reader.c).
CDW_INTERNAL int libdwarf_open(cdw_object *o, char *message, size_t message_size);
CDW_INTERNAL void libdwarf_close(cdw_object *o);
CDW_INTERNAL int libdwarf_task(thread_ctx *t, const unit_header *h, int functions, char *message,
                               size_t message_size);
CDW_INTERNAL void libdwarf_thread_finish(thread_ctx *t);
CDW_INTERNAL int read_with_libdwarf_only(cdw_object *object, cdw_result *result, char *message,
                                         size_t message_size);

// Putting the threads' arrays together (merge.c).
CDW_INTERNAL uint32_t default_thread_count(void);
CDW_INTERNAL void free_reader(reader *rd);
CDW_INTERNAL int lay_out(reader *rd, cdw_result *out);
CDW_INTERNAL void finish_in_place(reader *rd);
CDW_INTERNAL cdw_reading *one_piece(cdw_result *result, const cdw_object *object);
CDW_INTERNAL void copy_large_arrays(thread_ctx *t, const cdw_reading *reading);
CDW_INTERNAL void copy_releasing(void *to, const void *from, uint64_t bytes, uint64_t step_size);

#endif
