// What the files of the reader share: the object, the sections the reader reads, what one
// thread fills (a sink), unit headers, abbreviation tables, and the tasks threads run.
// Private to the CDwarf target; CDwarf.h is the public interface.

#ifndef CDWARF_READER_H
#define CDWARF_READER_H

#include "constants.h"
#include "object.h"
#include "sink.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>


// What the fast reader's functions return.
enum {
    FAST_OK = 0,
    FAST_UNSUPPORTED = 1,  // a form or an encoding this reader does not read
    FAST_DAMAGED = 2,
    FAST_NO_MEMORY = -1,
};

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the fast DWARF reader assumes a little-endian host"
#endif

typedef struct span {
    const uint8_t *data;
    uint64_t size;
    uint64_t terminated;  // bytes up to the last NUL, included: the offsets a string may start at
} span;

typedef struct dwarf_sections {
    span info, abbrev, str, line_str, str_offsets, addr, ranges, rnglists, line;
} dwarf_sections;


struct abbrev_table;

typedef struct unit_header {
    uint64_t offset;         // of the unit header in .debug_info
    uint64_t end;            // one past the unit
    uint64_t die_offset;     // of the unit DIE
    uint64_t abbrev_offset;
    uint16_t version;
    uint8_t unit_type, address_size, offset_size;
    // Found before the units are read (survey_units):
    int8_t abbrev_status;                // FAST_OK, or why its abbreviation table is unusable
    const struct abbrev_table *abbrevs;  // when several units use its table: decoded once, shared
    uint32_t line_owner;                 // the unit that reads its line program (see survey.c)
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

typedef struct abbrev_code {
    uint64_t code;
    uint32_t index;  // into abbrev_table.abbrevs
} abbrev_code;

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
    abbrev_code *sorted;  // the abbreviations of other codes, by code
    uint32_t sorted_count, sorted_capacity;
    uint64_t bytes;     // of .debug_abbrev the table spans
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
    pthread_t thread;
    int started;
} thread_ctx;

typedef struct reader {
    const cdw_object *object;
    dwarf_sections sections;
    unit_header *units;
    uint32_t unit_count;
    abbrev_table *tables;  // shared by several units (unit_header.abbrevs)
    uint32_t table_count;
    task_result *lines, *functions;  // per unit
    uint32_t task_count;
    atomic_uint next_task;
    thread_ctx *threads;
    uint32_t thread_count;
    uint64_t *string_base;  // per thread
    list_marks marks;       // range-list entries read so far, for every thread
    int units_dropped;      // some unit is skipped: its strings are to go (strings.c)
    // Some abbreviation table gives DW_AT_abstract_origin or DW_AT_specification a form that
    // may name an entry of another unit (survey_units): no function entry is dropped (prune.c).
    int references_leave_units;
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
    // Read in one piece (one thread): the arrays themselves.
    cdw_result whole;
    uint64_t release_step;
};

// MARK: - Functions shared between files


// Pages (pages.c).
CDW_INTERNAL uint64_t release_step(const cdw_object *o);
CDW_INTERNAL void release_pages(const void *from, const void *to);
CDW_INTERNAL void release_section_bytes(const cdw_object *o, const uint8_t *from,
                                        const uint8_t *to, unsigned k);
CDW_INTERNAL void release_sections(const cdw_object *o);


// Abbreviations (abbrev.c).
CDW_INTERNAL int form_size(unsigned form, uint16_t version, uint8_t address_size,
                           uint8_t offset_size);
CDW_INTERNAL void abbrev_table_free(abbrev_table *t);
CDW_INTERNAL int load_abbrevs(abbrev_table *t, const dwarf_sections *sections, int big_endian,
                              const unit_header *h, uint64_t budget);
CDW_INTERNAL const abbrev *find_sorted_abbrev(const abbrev_table *t, uint64_t code);

static inline const abbrev *find_abbrev(const abbrev_table *t, uint64_t code) {
    if (code < t->by_code_size) {
        uint32_t i = t->by_code[code];
        return i ? &t->abbrevs[i - 1] : NULL;
    }
    return find_sorted_abbrev(t, code);
}

// Every unit's abbreviation table and line program owner, before threads read them (survey.c).
CDW_INTERNAL int survey_units(reader *rd);

// Function entries no lookup can use, dropped unit by unit (prune.c): whether a decoded table
// gives a function's references a form that may leave its unit, and the dropping of the
// entries of a unit read from `first` on.
CDW_INTERNAL int names_other_units(const abbrev_table *t);
CDW_INTERNAL int drop_unused_functions(sink *s, uint64_t first);

// Units and DIEs (units.c), line tables (lines.c).
CDW_INTERNAL int find_dwarf_sections(const cdw_object *o, dwarf_sections *out, char *message,
                                     size_t message_size);
CDW_INTERNAL int scan_units(const dwarf_sections *sections, int big_endian, unit_header **out,
                            uint32_t *out_count, char *message, size_t message_size);
CDW_INTERNAL int fast_unit_functions(sink *s, abbrev_table *abbrevs,
                                     const dwarf_sections *sections, int big_endian,
                                     const unit_header *h);
CDW_INTERNAL int fast_unit_lines(sink *s, abbrev_table *abbrevs, const dwarf_sections *sections,
                                 int big_endian, const unit_header *h,
                                 const uint8_t *program_bytes[2]);

// Putting the threads' arrays together (merge.c).
CDW_INTERNAL uint32_t default_thread_count(void);
CDW_INTERNAL void free_reader(reader *rd);
CDW_INTERNAL int lay_out(reader *rd, cdw_result *out);
CDW_INTERNAL void finish_in_place(reader *rd);
CDW_INTERNAL cdw_reading *one_piece(cdw_result *result, const cdw_object *object);
CDW_INTERNAL void copy_large_arrays(thread_ctx *t, const cdw_reading *reading);
CDW_INTERNAL void copy_releasing(void *to, const void *from, uint64_t bytes, uint64_t step_size);

// Dropping the strings of skipped units (strings.c).
CDW_INTERNAL int drop_unused_strings(reader *rd);

#endif
