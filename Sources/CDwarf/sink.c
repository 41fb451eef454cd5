// What one thread reads: the arrays of a cdw_result, grown as units are read, and a table of
// the section strings already copied.

#include "reader.h"

#include <stdlib.h>
#include <string.h>


CDW_INTERNAL int64_t add_string(sink *s, const char *text) {
    if (!text || !*text) return 0;
    size_t length = strlen(text) + 1;
    cdw_result *r = &s->r;
    if (r->strings_size + length > s->string_capacity) {
        uint64_t next = s->string_capacity ? s->string_capacity : 65536;
        while (next < r->strings_size + length) next *= 2;
        char *grown = realloc(r->strings, next);
        if (!grown) return -1;
        r->strings = grown;
        s->string_capacity = next;
    }
    uint64_t offset = r->strings_size;
    if (offset > UINT32_MAX) return -1;
    memcpy(r->strings + offset, text, length);
    r->strings_size += length;
    return (int64_t)offset;
}

static inline uint64_t pointer_hash(const char *p) {
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

// add_string for a string that lies in a DWARF section: copied once per sink.
CDW_INTERNAL int64_t add_section_string(sink *s, const char *text) {
    if (!text || !*text) return 0;
    if ((s->interned_count + 1) * 2 > s->interned_capacity) {
        uint64_t capacity = s->interned_capacity ? s->interned_capacity * 2 : 4096;
        struct interned *table = calloc(capacity, sizeof(*table));
        if (!table) return add_string(s, text);
        for (uint64_t i = 0; i < s->interned_capacity; i++) {
            if (!s->interned[i].text) continue;
            uint64_t j = pointer_hash(s->interned[i].text) & (capacity - 1);
            while (table[j].text) j = (j + 1) & (capacity - 1);
            table[j] = s->interned[i];
        }
        free(s->interned);
        s->interned = table;
        s->interned_capacity = capacity;
    }
    uint64_t mask = s->interned_capacity - 1;
    uint64_t j = pointer_hash(text) & mask;
    while (s->interned[j].text) {
        if (s->interned[j].text == text) return (int64_t)s->interned[j].offset;
        j = (j + 1) & mask;
    }
    int64_t offset = add_string(s, text);
    if (offset > 0) {
        s->interned[j] = (struct interned){text, (uint64_t)offset};
        s->interned_count++;
    }
    return offset;
}

CDW_INTERNAL int add_file(sink *s, uint32_t name, uint32_t directory, uint32_t unit) {
    GROW(s, files, file_count, file_capacity, -1);
    s->r.files[s->r.file_count++] = (cdw_file){name, directory, unit};
    return 0;
}

CDW_INTERNAL int add_directory(sink *s, uint32_t string) {
    GROW(s, directories, directory_count, directory_capacity, -1);
    s->r.directories[s->r.directory_count++] = string;
    return 0;
}

CDW_INTERNAL int add_unit(sink *s, cdw_unit unit) {
    GROW(s, units, unit_count, unit_capacity, -1);
    s->r.units[s->r.unit_count++] = unit;
    return 0;
}

CDW_INTERNAL int grow_rows(sink *s) {
    GROW(s, rows, row_count, row_capacity, -1);
    return 0;
}

CDW_INTERNAL int grow_functions(sink *s) {
    GROW(s, functions, function_count, function_capacity, -1);
    return 0;
}

CDW_INTERNAL int sink_init(sink *s) {
    memset(s, 0, sizeof(*s));
    s->r.strings = malloc(65536);
    if (!s->r.strings) return -1;
    s->string_capacity = 65536;
    s->r.strings[0] = '\0';  // offset 0 is the empty string
    s->r.strings_size = 1;
    return add_file(s, 0, 0, CDW_NO_UNIT);  // file 0: no file
}

CDW_INTERNAL void sink_free(sink *s) {
    cdw_result_free(&s->r);
    free(s->interned);
    s->interned = NULL;
    free(s->enclosing);
    s->enclosing = NULL;
    s->enclosing_capacity = 0;
    free(s->prune_stack);
    free(s->prune_kept);
    s->prune_stack = NULL;
    s->prune_kept = NULL;
    s->prune_capacity = 0;
    free(s->pending_names);
    free(s->pending_inline);
    s->pending_names = NULL;
    s->pending_inline = NULL;
    s->pending_capacity = 0;
}

CDW_INTERNAL void sink_counts(const sink *s, uint64_t counts[ARR_COUNT]) {
    counts[ARR_FUNCTIONS] = s->r.function_count;
    counts[ARR_RANGES] = s->r.range_count;
    counts[ARR_ROWS] = s->r.row_count;
    counts[ARR_FILES] = s->r.file_count;
    counts[ARR_UNITS] = s->r.unit_count;
    counts[ARR_DIRECTORIES] = s->r.directory_count;
    counts[ARR_STRINGS] = s->r.strings_size;
}

// Drops what a task added but its strings: those stay interned, so that a string many failing
// units name is copied once, and go when the result's strings are put together
// (drop_unused_strings).
CDW_INTERNAL void sink_truncate(sink *s, const uint64_t counts[ARR_COUNT]) {
    s->r.function_count = counts[ARR_FUNCTIONS];
    s->r.range_count = counts[ARR_RANGES];
    s->r.row_count = counts[ARR_ROWS];
    s->r.file_count = counts[ARR_FILES];
    s->r.unit_count = counts[ARR_UNITS];
    s->r.directory_count = counts[ARR_DIRECTORIES];
}
