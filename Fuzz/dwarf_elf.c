// libFuzzer target dwarf_elf: the input is an ELF image, opened with cdw_open_elf and read in
// full, on one thread and on two, as a debug file is.

#include "CDwarf.h"
#include "dwarf_read_all.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
