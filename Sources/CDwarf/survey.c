// What is known of every unit before the threads read them: the abbreviation tables several
// units use, decoded once here and shared, whether any function may name an entry of another
// unit (prune.c), and the unit that reads each line program.
//
// Both keep the work in proportion to the input whatever the units point at. A table several
// units use is decoded once, however the units alternate between tables; and the tables decoded
// may span twice .debug_abbrev at most, so that units pointing into the middle of one long
// table (each offset a table of its own) cannot make it be decoded once per unit. A line
// program several units name (DW_AT_stmt_list) is one table of rows: one unit reads it, and
// the others' DW_AT_call_file values name its files, as for llvm-symbolizer, which parses a
// line table once per offset. Done on one thread, in unit order, so that the result does not
// depend on the number of threads.

#include "values.h"

#include <stdlib.h>
#include <string.h>

typedef struct table_key {
    uint64_t offset;
    uint32_t layout;  // version, address size and offset size: what the decoded sizes depend on
    uint32_t unit;
} table_key;

static int table_order(const void *a, const void *b) {
    const table_key *x = a, *y = b;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    if (x->layout != y->layout) return x->layout < y->layout ? -1 : 1;
    return x->unit < y->unit ? -1 : x->unit > y->unit;
}

typedef struct line_key {
    uint64_t offset;
    uint32_t rank;  // 0 for units with code, 1 for type units (which have no DW_AT_comp_dir)
    uint32_t unit;
} line_key;

static int line_order(const void *a, const void *b) {
    const line_key *x = a, *y = b;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return x->unit < y->unit ? -1 : x->unit > y->unit;
}

typedef struct table_group {
    int32_t shared;  // index into rd->tables, -1 for a table one unit uses
    int8_t status;   // FAST_OK or why the table is unusable, once decoded
    uint8_t decoded;
} table_group;

// Finds each unit's abbreviation table (shared ones decoded into rd->tables) and line program
// owner. FAST_OK or FAST_NO_MEMORY.
CDW_INTERNAL int survey_units(reader *rd) {
    uint32_t n = rd->unit_count;
    if (n == 0) return FAST_OK;
    const dwarf_sections *sections = &rd->sections;
    int big_endian = rd->object->big_endian;
    table_key *keys = malloc(n * sizeof(*keys));
    uint32_t *group_of = malloc(n * sizeof(*group_of));
    table_group *groups = malloc(n * sizeof(*groups));
    line_key *lines = malloc(n * sizeof(*lines));
    int res = keys && group_of && groups && lines ? FAST_OK : FAST_NO_MEMORY;
    abbrev_table scratch;
    memset(&scratch, 0, sizeof(scratch));
    uint32_t group_count = 0, line_count = 0;
    if (res != FAST_OK) goto done;
    for (uint32_t u = 0; u < n; u++) {
        const unit_header *h = &rd->units[u];
        keys[u] = (table_key){h->abbrev_offset,
                              (uint32_t)h->version << 16 | (uint32_t)h->address_size << 8 |
                                  h->offset_size,
                              u};
    }
    qsort(keys, n, sizeof(*keys), table_order);
    uint32_t shared = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i + 1;
        while (j < n && keys[j].offset == keys[i].offset && keys[j].layout == keys[i].layout) j++;
        groups[group_count] = (table_group){j - i > 1 ? (int32_t)shared++ : -1, FAST_OK, 0};
        for (uint32_t k = i; k < j; k++) group_of[keys[k].unit] = group_count;
        group_count++;
        i = j;
    }
    if (shared) {
        rd->tables = calloc(shared, sizeof(abbrev_table));
        if (!rd->tables) {
            res = FAST_NO_MEMORY;
            goto done;
        }
        rd->table_count = shared;
    }
    uint64_t budget = 2 * sections->abbrev.size + 4096;
    for (uint32_t u = 0; u < n; u++) {
        unit_header *h = &rd->units[u];
        table_group *g = &groups[group_of[u]];
        abbrev_table *table = g->shared >= 0 ? &rd->tables[g->shared] : &scratch;
        if (!g->decoded) {
            g->status = (int8_t)load_abbrevs(table, sections, big_endian, h, budget);
            if (g->status == FAST_NO_MEMORY) {
                res = FAST_NO_MEMORY;
                goto done;
            }
            budget -= table->bytes < budget ? table->bytes : budget;
            g->decoded = 1;
            if (g->status == FAST_OK && names_other_units(table)) rd->references_leave_units = 1;
        }
        h->abbrev_status = g->status;
        h->abbrevs = g->shared >= 0 && g->status == FAST_OK ? table : NULL;
        h->line_owner = u;
        if (g->status != FAST_OK) continue;
        unit_ctx unit;
        cursor c;
        const abbrev *unit_abbrev = NULL;
        // A unit DIE that cannot be read is met again by the unit's tasks, which say so.
        if (read_unit_die(table, sections, big_endian, h, &unit, &c, &unit_abbrev) == FAST_OK &&
            unit_abbrev && unit.has_stmt_list) {
            int type = h->unit_type == DW_UT_type || h->unit_type == DW_UT_split_type;
            lines[line_count++] = (line_key){unit.stmt_list, (uint32_t)type, u};
        }
    }
    qsort(lines, line_count, sizeof(*lines), line_order);
    for (uint32_t i = 0; i < line_count;) {
        uint32_t j = i;
        while (j < line_count && lines[j].offset == lines[i].offset) {
            rd->units[lines[j].unit].line_owner = lines[i].unit;
            j++;
        }
        i = j;
    }
done:
    abbrev_table_free(&scratch);
    free(keys);
    free(group_of);
    free(groups);
    free(lines);
    return res;
}
