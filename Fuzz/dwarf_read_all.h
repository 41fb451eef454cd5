// The read both DWARF fuzz targets make of an opened object: every unit, on `threads` threads,
// with the large arrays copied out as a caller of cdw_read_finish copies them. A read on one
// thread drops the rows and function entries no lookup uses (lines.c, prune.c), one on more
// keeps them, so that both ways are fuzzed.

#ifndef DWARF_READ_ALL_H
#define DWARF_READ_ALL_H

#include "CDwarf.h"

#include <stdint.h>
#include <stdlib.h>

static void read_all(cdw_object *object, uint32_t threads) {
    cdw_read_options options = {threads, threads > 1};
    cdw_result result = {0};
    cdw_reading *reading = NULL;
    char message[512];
    int status = cdw_read_start(object, &options, &result, &reading, message, sizeof(message));
    if (status == CDW_OK || status == CDW_PARTIAL) {
        cdw_function *functions = malloc((result.function_count ? result.function_count : 1) * sizeof(cdw_function));
        cdw_range *ranges = malloc((result.range_count ? result.range_count : 1) * sizeof(cdw_range));
        cdw_row *rows = malloc((result.row_count ? result.row_count : 1) * sizeof(cdw_row));
        cdw_read_finish(reading, functions, ranges, rows);
        free(functions);
        free(ranges);
        free(rows);
    }
    cdw_result_free(&result);
}

#endif
