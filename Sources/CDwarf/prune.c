// Function entries that can never be part of an answer, left out unit by unit.
//
// Most entries of a C++ program are declarations: every member function of every class a
// compile unit includes, in every unit that includes it (in cppcheck, 960,000 of 1,460,000
// entries, 61 MB of the pass's 143 MB). A lookup uses an entry with address ranges, the entries
// that enclose it (its place in the nesting), and the entries a used one names with
// DW_AT_abstract_origin or DW_AT_specification (their names): the entries with ranges and
// what they lead to, over and over. The others are dropped at the end of their unit's read,
// so that the pass never holds them.
//
// That is only safe when no entry of another unit can name one of this unit's: when every
// DW_AT_abstract_origin and DW_AT_specification of the object is a reference within its unit
// (DW_FORM_ref1/2/4/8/udata, and one past its unit is none: values.h). dsymutil's output and
// LTO builds name entries of other units (DW_FORM_ref_addr), dwz's those of a supplementary
// file: for those, nothing is dropped. Whether that holds is decided before the units are read,
// from the abbreviation tables, which say the form of every attribute: survey_units decodes
// every unit's table, and `names_other_units` looks at the forms of each.

#include "reader.h"

#include <stdlib.h>
#include <string.h>

// The forms of a reference within its unit: any other (DW_FORM_ref_addr, a supplementary
// file's, DW_FORM_indirect) may name an entry of another unit.
static inline int is_unit_reference(uint32_t form) {
    switch (form) {
    case DW_FORM_ref1:
    case DW_FORM_ref2:
    case DW_FORM_ref4:
    case DW_FORM_ref8:
    case DW_FORM_ref_udata:
        return 1;
    default:
        return 0;
    }
}

CDW_INTERNAL int names_other_units(const abbrev_table *t) {
    for (uint32_t i = 0; i < t->spec_count; i++) {
        uint32_t at = t->specs[i].at;
        if ((at == DW_AT_abstract_origin || at == DW_AT_specification) && !is_unit_reference(t->specs[i].form))
            return 1;
    }
    return 0;
}

// Room in the unit's scratch arrays for `count` entries.
static int reserve_scratch(sink *s, uint64_t count) {
    if (count <= s->prune_capacity) return FAST_OK;
    uint64_t next = s->prune_capacity ? s->prune_capacity : 1024;
    while (next < count) next *= 2;
    int32_t *stack = realloc(s->prune_stack, next * sizeof(int32_t));
    if (!stack) return FAST_NO_MEMORY;
    s->prune_stack = stack;
    int32_t *kept = realloc(s->prune_kept, next * sizeof(int32_t));
    if (!kept) return FAST_NO_MEMORY;
    s->prune_kept = kept;
    s->prune_capacity = next;
    return FAST_OK;
}

// The entry of `f[first..<count]` at .debug_info offset `offset`, or -1. The walk reads a
// unit's DIEs in order: their offsets rise with their index.
static int64_t entry_at(const cdw_function *f, uint64_t first, uint64_t count, uint64_t offset) {
    uint64_t low = first, high = count;
    while (low < high) {
        uint64_t middle = low + (high - low) / 2;
        if (f[middle].offset < offset) low = middle + 1;
        else high = middle;
    }
    return low < count && f[low].offset == offset ? (int64_t)low : -1;
}

enum { UNUSED = -1, USED = -2 };

CDW_INTERNAL int drop_unused_functions(sink *s, uint64_t first) {
    cdw_function *f = s->r.functions;
    uint64_t count = s->r.function_count;
    if (first >= count) return FAST_OK;
    uint64_t n = count - first;
    int res = reserve_scratch(s, n);
    if (res != FAST_OK) return res;
    int32_t *kept = s->prune_kept;  // UNUSED or USED, then the entry's new index
    int32_t *stack = s->prune_stack;  // entries used whose parent and references are to be followed
    uint64_t top = 0;
    for (uint64_t k = 0; k < n; k++) kept[k] = UNUSED;
    // Used: an entry with ranges, and what a used entry leads to (its parent, the entries its
    // DW_AT_abstract_origin and DW_AT_specification name), over and over. Each entry is
    // pushed once.
    for (uint64_t i = first; i < count; i++) {
        if (f[i].range_count == 0) continue;
        kept[i - first] = USED;
        stack[top++] = (int32_t)(i - first);
    }
    while (top > 0) {
        uint64_t i = first + (uint64_t)stack[--top];
        int64_t next[3] = {
            f[i].parent >= 0 && (uint64_t)f[i].parent >= first && (uint64_t)f[i].parent < i ? f[i].parent : -1,
            f[i].origin != CDW_NO_REFERENCE ? entry_at(f, first, count, f[i].origin) : -1,
            f[i].specification != CDW_NO_REFERENCE ? entry_at(f, first, count, f[i].specification) : -1,
        };
        for (int j = 0; j < 3; j++) {
            if (next[j] < 0 || kept[(uint64_t)next[j] - first] == USED) continue;
            kept[(uint64_t)next[j] - first] = USED;
            stack[top++] = (int32_t)((uint64_t)next[j] - first);
        }
    }
    // The names of the entries kept go into the string table now (read_function_fast left
    // them pending), those of the others never do.
    uint64_t to = first;
    for (uint64_t i = first; i < count; i++) {
        uint64_t k = i - first;
        if (kept[k] != USED) continue;
        cdw_function g = f[i];
        for (int j = 0; j < 2; j++) {
            const char *text = s->pending_names[2 * k + (uint64_t)j];
            int64_t string = s->pending_inline[2 * k + (uint64_t)j] ? add_string(s, text) : add_section_string(s, text);
            if (string < 0) return FAST_NO_MEMORY;
            if (j == 0) g.name = (uint32_t)string;
            else g.linkage_name = (uint32_t)string;
        }
        // A used entry's parent is used, and before it: renumbered already.
        if (g.parent >= 0 && (uint64_t)g.parent >= first && (uint64_t)g.parent < i)
            g.parent = kept[(uint64_t)g.parent - first];
        kept[k] = (int32_t)to;
        f[to++] = g;
    }
    s->r.function_count = to;
    return FAST_OK;
}
