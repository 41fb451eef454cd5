// What one thread reads: the arrays of a cdw_result, grown as units are read. Shared by the
// readers of the CDwarf target and of the reference.

#ifndef CDWARF_SINK_H
#define CDWARF_SINK_H

#include "object.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

// The arrays one thread fills, laid out as `cdw_result`. With one thread they become the
// result; with more, every thread's arrays are copied into the result unit by unit, their
// indexes and string offsets rebased (see `lay_out` and `cdw_read_finish`).
struct interned {
    const char *text;
    uint64_t offset;
};

// The range-list entries some unit has read already, as a bit per byte of .debug_ranges (list
// 0) and .debug_rnglists (list 1), set at each entry's first byte; shared by every thread.
typedef struct list_marks {
    uint64_t size[2];
    _Atomic uint64_t *bits[2];  // NULL: every entry is counted against the unit's budget
} list_marks;

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
    // Range list entries read before that the current unit may still read again (see
    // fast_unit_functions), and which entries were read before.
    uint64_t list_entries_left;
    list_marks *marks;
    // The function enclosing each level of the DIE tree being walked (fast_unit_functions).
    int32_t *enclosing;
    uint64_t enclosing_capacity;
    // Whether rows at one address but the last are dropped as they are read (lines.c), and a
    // unit's unused function entries once it is read, with the room that takes (prune.c).
    int drop_unused_rows, drop_unused_functions;
    int32_t *prune_stack;
    int32_t *prune_kept;
    uint64_t prune_capacity;
    // While unused entries are dropped: the names of the unit's entries, not yet copied into
    // the string table (only those of the entries kept are): two per entry from the unit's
    // first (`unit_first_function`), the name and the linkage name, each a pointer into a
    // section, and whether it lies in .debug_info (DW_FORM_string, copied, not interned).
    const char **pending_names;
    uint8_t *pending_inline;
    uint64_t pending_capacity, unit_first_function;
} sink;

// `call_file` of a function entry while units are read: the raw DW_AT_call_file value, or
// CALL_FILE_NONE; turned into an index into `files` once the unit's file list is known.
#define CALL_FILE_NONE UINT32_MAX

// The entry of a function DIE at `offset` before its attributes are read: no names, references
// or call site, and ranges starting at the sink's next one.
static inline cdw_function new_function(const sink *s, uint64_t offset, int32_t parent,
                                        uint32_t tag) {
    cdw_function f;
    memset(&f, 0, sizeof(f));
    f.offset = offset;
    f.origin = CDW_NO_REFERENCE;
    f.specification = CDW_NO_REFERENCE;
    f.parent = parent;
    f.tag = tag;
    f.call_file = CALL_FILE_NONE;
    f.first_range = (uint32_t)s->r.range_count;
    return f;
}

// The arrays a task fills, in the order of task_result.start / .end.
// ARR_STRINGS counts bytes of the sink's string table (each thread keeps its own).
enum {
    ARR_FUNCTIONS, ARR_RANGES, ARR_ROWS, ARR_FILES, ARR_UNITS, ARR_DIRECTORIES, ARR_STRINGS,
    ARR_COUNT
};

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

// Counts the range list entry at offset `at` of list section `list` (0: .debug_ranges, 1:
// .debug_rnglists): the first read of an entry is paid for by its bytes; reading it again is
// counted against what the unit may read again. -1 once it may read no more.
static inline int count_list_entry(sink *s, unsigned list, uint64_t at) {
    const list_marks *m = s->marks;
    if (m && m->bits[list] && at < m->size[list]) {
        _Atomic uint64_t *word = &m->bits[list][at >> 6];
        uint64_t bit = (uint64_t)1 << (at & 63);
        if (!(atomic_load_explicit(word, memory_order_relaxed) & bit) &&
            !(atomic_fetch_or_explicit(word, bit, memory_order_relaxed) & bit))
            return 0;
    }
    if (s->list_entries_left == 0) return -1;
    s->list_entries_left--;
    return 0;
}

// Notes that the range list at [from, to) was read.
static inline void note_list_read(sink *s, const uint8_t *from, const uint8_t *to) {
    if (!s->lists_read[0] || from < s->lists_read[0]) s->lists_read[0] = from;
    if (to > s->lists_read[1]) s->lists_read[1] = to;
}


// Tags whose children may hold subprograms or inlined subroutines (abbrev.c).
CDW_INTERNAL int may_hold_functions(uint64_t tag);

#endif
