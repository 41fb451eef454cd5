// libFuzzer target dyld_cache: the input is a dyld shared cache's main file, opened alone and
// then with itself as its `.symbols` file; every image is described and its symbols read, as
// `symbolicate index` reads a cache.

#include "CDyldCache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void read_all(const dsc_file *files, uint32_t count, const dsc_file *symbols) {
    dsc_cache *cache = NULL;
    char message[256];
    if (dsc_open(files, count, symbols, &cache, message, sizeof(message)) != DSC_OK) return;
    uint32_t images = dsc_image_count(cache);
    for (uint32_t i = 0; i < images && i < 4096; i++) {
        dsc_image image;
        if (dsc_image_info(cache, i, &image, message, sizeof(message)) == DSC_OK && image.path) {
            volatile uint8_t sink = image.path_length ? image.path[image.path_length - 1] : 0;
            (void)sink;
        }
        dsc_symbols symbols_read;
        if (dsc_read_symbols(cache, i, &symbols_read, message, sizeof(message)) == DSC_OK) {
            // Touch every name: each must lie in bytes the reader was handed.
            volatile uint8_t sink = 0;
            for (uint64_t s = 0; s < symbols_read.count; s++) {
                const dsc_symbol *symbol = &symbols_read.symbols[s];
                sink ^= symbol->name[0] ^ symbol->name[symbol->name_length - 1];
            }
            dsc_free_symbols(&symbols_read);
        }
    }
    dsc_close(cache);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // A copy of its own size, so that AddressSanitizer sees a read one byte past the end.
    uint8_t *bytes = malloc(size ? size : 1);
    if (!bytes) return 0;
    memcpy(bytes, data, size);
    dsc_header header;
    char message[256];
    if (dsc_read_header(bytes, size, &header, message, sizeof(message)) == DSC_OK) {
        for (uint32_t i = 0; i < header.subcache_count && i < 64; i++) {
            dsc_subcache subcache;
            dsc_read_subcache(bytes, size, i, &subcache, message, sizeof(message));
        }
    }
    dsc_file main = {bytes, size};
    read_all(&main, 1, NULL);
    read_all(&main, 1, &main);
    // The same bytes as the main file and as its first sub-cache.
    dsc_file both[2] = {{bytes, size}, {bytes, size}};
    read_all(both, 2, &main);
    free(bytes);
    return 0;
}
