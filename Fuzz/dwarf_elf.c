// libFuzzer target dwarf_elf: the input is an ELF image, opened with cdw_open_elf and read in
// full, on one thread and on two, as a debug file is.

#include "CDwarf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void read_all(cdw_object *object, uint32_t threads) {
    cdw_read_options options = {threads};
    cdw_result result;
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // cdw_open_elf may write section headers as libelf inflates: give it a copy of its own.
    void *image = malloc(size ? size : 1);
    if (!image) return 0;
    memcpy(image, data, size);
    for (uint32_t threads = 1; threads <= 2; threads++) {
        cdw_object *object = NULL;
        char message[512];
        if (cdw_open_elf(image, size, &object, message, sizeof(message)) == CDW_OK) {
            read_all(object, threads);
            cdw_close(object);
        }
    }
    free(image);
    return 0;
}
