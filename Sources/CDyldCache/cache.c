// Opening a cache (its files, their mappings, the local-symbol table) and reading its images.
//
// The main file's image list gives each image's address and path:
//
//     struct dyld_cache_image_info { u64 address; u64 modTime; u64 inode; u32 pathFileOffset; u32 pad; }
//
// and the image-text list (imagesTextOffset) its UUID and `__TEXT` size without reading its
// Mach-O header:
//
//     struct dyld_cache_image_text_info { u8 uuid[16]; u64 loadAddress; u32 textSegmentSize; u32 pathOffset; }
//
// The Mach-O header is read when it is mapped (its LC_UUID is the identity a report gives);
// the image-text entry stands in for it when its sub-cache is missing.

#include "internal.h"

#include <stdlib.h>

enum { PATH_LIMIT = 1024 };

static int is_32_bit(const char *architecture) {
    return strcmp(architecture, "arm64_32") == 0 || strncmp(architecture, "armv", 4) == 0
        || strcmp(architecture, "i386") == 0;
}

static void hex(const uint8_t uuid[16], char out[33]) {
    for (int i = 0; i < 16; i++) snprintf(out + 2 * i, 3, "%02x", uuid[i]);
}

int dsc_open(const dsc_file *files, uint32_t file_count, const dsc_file *symbols, dsc_cache **out, char *message,
             size_t message_size) {
    *out = NULL;
    if (file_count == 0 || !files[0].bytes) {
        say(message, message_size, "no main file");
        return DSC_ERROR;
    }
    dsc_cache *cache = calloc(1, sizeof(dsc_cache));
    if (cache) cache->files = calloc(file_count, sizeof(span));
    if (!cache || !cache->files) {
        free(cache);
        say(message, message_size, "out of memory");
        return DSC_ERROR;
    }
    cache->file_count = file_count;
    for (uint32_t i = 0; i < file_count; i++) cache->files[i] = (span){files[i].bytes, files[i].bytes ? files[i].size : 0};
    char reason[200];
    if (dsc_read_header(files[0].bytes, files[0].size, &cache->main, reason, sizeof(reason)) != DSC_OK) {
        say(message, message_size, "%s", reason);
        dsc_close(cache);
        return DSC_ERROR;
    }
    cache->nlist_size = is_32_bit(cache->main.architecture) ? 12 : 16;
    for (uint32_t i = 0; i < file_count; i++) {
        if (!files[i].bytes) continue;
        dsc_header header;
        dsc_subcache entry;
        if (i > 0 && dsc_read_subcache(files[0].bytes, files[0].size, i - 1, &entry, reason, sizeof(reason)) != DSC_OK) {
            say(message, message_size, "%s", reason);
            dsc_close(cache);
            return DSC_ERROR;
        }
        const char *which = i == 0 ? "the main file" : entry.suffix;
        if (dsc_read_header(files[i].bytes, files[i].size, &header, reason, sizeof(reason)) != DSC_OK) {
            say(message, message_size, "sub-cache %s: %s", which, reason);
            dsc_close(cache);
            return DSC_ERROR;
        }
        if (i > 0 && memcmp(header.uuid, entry.uuid, 16) != 0) {
            char found[33], wanted[33];
            hex(header.uuid, found);
            hex(entry.uuid, wanted);
            say(message, message_size, "sub-cache %s has UUID %s, not the %s the main file names (of another build?)",
                which, found, wanted);
            dsc_close(cache);
            return DSC_ERROR;
        }
        if (mappings_add(cache, i, &header, reason, sizeof(reason)) != DSC_OK) {
            say(message, message_size, "%s%s%s%s", i ? "sub-cache " : "", i ? which : "", i ? ": " : "", reason);
            dsc_close(cache);
            return DSC_ERROR;
        }
    }
    if (mappings_finish(cache, message, message_size) != DSC_OK) {
        dsc_close(cache);
        return DSC_ERROR;
    }
    if (symbols && symbols->bytes) {
        span file = {symbols->bytes, symbols->size};
        dsc_header header;
        if (dsc_read_header(symbols->bytes, symbols->size, &header, reason, sizeof(reason)) != DSC_OK) {
            say(message, message_size, "the .symbols file: %s", reason);
            dsc_close(cache);
            return DSC_ERROR;
        }
        if (cache->main.has_symbol_file && memcmp(header.uuid, cache->main.symbol_file_uuid, 16) != 0) {
            say(message, message_size, "the .symbols file is not the one the main file names (of another build?)");
            dsc_close(cache);
            return DSC_ERROR;
        }
        if (header.local_symbols_size && locals_read(cache, file, &header, reason, sizeof(reason)) != DSC_OK) {
            say(message, message_size, "the .symbols file: %s", reason);
            dsc_close(cache);
            return DSC_ERROR;
        }
    } else if (cache->main.local_symbols_size) {
        if (locals_read(cache, cache->files[0], &cache->main, message, message_size) != DSC_OK) {
            dsc_close(cache);
            return DSC_ERROR;
        }
    }
    cache->images = span_part(cache->files[0], cache->main.images_offset, (uint64_t)cache->main.image_count * 32);
    cache->images_text = span_part(cache->files[0], cache->main.images_text_offset, cache->main.images_text_count * 32);
    *out = cache;
    return DSC_OK;
}

void dsc_close(dsc_cache *cache) {
    if (!cache) return;
    free(cache->files);
    free(cache->mappings);
    free(cache->local_entries);
    free(cache);
}

uint32_t dsc_image_count(const dsc_cache *cache) { return cache->main.image_count; }
int dsc_has_local_symbols(const dsc_cache *cache) { return cache->has_locals; }
uint64_t dsc_local_symbol_count(const dsc_cache *cache) { return cache->local_nlist_count; }

// Entry `i` of the image-text list, when it describes the image at `address`.
static int text_entry_at(const dsc_cache *cache, uint64_t i, uint64_t address, dsc_image *out) {
    uint64_t load = 0;
    uint32_t size = 0;
    if (!read_u64(cache->images_text, i * 32 + 16, &load) || !read_u32(cache->images_text, i * 32 + 24, &size)
        || load != address)
        return 0;
    memcpy(out->uuid, cache->images_text.bytes + i * 32, 16);
    out->has_uuid = 1;
    out->text_address = load;
    out->text_size = size;
    return 1;
}

// The image-text entry of image `index` at `address`, when there is one: the list runs beside
// the image list, so entry `index` is looked at first, the others only when it is not that image.
static int text_entry(const dsc_cache *cache, uint32_t index, uint64_t address, dsc_image *out) {
    if (text_entry_at(cache, index, address, out)) return 1;
    uint64_t count = cache->images_text.size / 32;
    for (uint64_t i = 0; i < count; i++) {
        if (text_entry_at(cache, i, address, out)) return 1;
    }
    return 0;
}

// dsc_image_info, and the image's layout when its header could be read (`*layout_read`).
static int image_read(const dsc_cache *cache, uint32_t index, dsc_image *out, image_layout *layout,
                      int *layout_read, char *message, size_t message_size) {
    memset(out, 0, sizeof(*out));
    *layout_read = 0;
    uint32_t path_offset = 0;
    if (index >= cache->main.image_count || !read_u64(cache->images, (uint64_t)index * 32, &out->address)
        || !read_u32(cache->images, (uint64_t)index * 32 + 24, &path_offset)) {
        say(message, message_size, "no image %u", index);
        return DSC_ERROR;
    }
    span main = cache->files[0];
    uint64_t length = string_length(main, path_offset);
    if (length > PATH_LIMIT) length = PATH_LIMIT;
    if (path_offset < main.size) {
        out->path = main.bytes + path_offset;
        out->path_length = (uint32_t)length;
    }
    char reason[200];
    if (macho_read(cache, out->address, layout, reason, sizeof(reason)) == DSC_OK) {
        *layout_read = 1;
        out->header_mapped = 1;
        out->cpu_type = layout->cpu_type;
        out->cpu_subtype = layout->cpu_subtype;
        if (layout->has_uuid) {
            memcpy(out->uuid, layout->uuid, 16);
            out->has_uuid = 1;
        }
        out->text_address = layout->has_text ? layout->text_address : out->address;
        out->text_size = layout->text_size;
        if (!out->has_uuid) text_entry(cache, index, out->address, out);
        return DSC_OK;
    }
    if (text_entry(cache, index, out->address, out)) return DSC_OK;
    say(message, message_size, "image %u (%.*s): %s", index, (int)out->path_length, (const char *)out->path, reason);
    return DSC_ERROR;
}

int dsc_image_info(const dsc_cache *cache, uint32_t index, dsc_image *out, char *message, size_t message_size) {
    image_layout layout;
    int layout_read;
    return image_read(cache, index, out, &layout, &layout_read, message, message_size);
}

int dsc_read_symbols(const dsc_cache *cache, uint32_t index, dsc_symbols *out, char *message, size_t message_size) {
    memset(out, 0, sizeof(*out));
    dsc_image image;
    image_layout layout;
    int layout_read;
    if (image_read(cache, index, &image, &layout, &layout_read, message, message_size) != DSC_OK) return DSC_ERROR;
    // Known by its image-text entry alone: read the header again for the reason it cannot be.
    if (!layout_read && macho_read(cache, image.address, &layout, message, message_size) != DSC_OK) return DSC_ERROR;
    symbol_list list = {NULL, 0, 0, 0};
    const char *problem = NULL;
    if (layout.has_symtab) {
        uint64_t bytes = (uint64_t)layout.symbol_count * cache->nlist_size;
        span nlists = bytes <= UINT32_MAX ? linkedit_part(cache, &layout, layout.symbol_offset, (uint32_t)bytes)
                                          : (span){NULL, 0};
        span strings = linkedit_part(cache, &layout, layout.strings_offset, layout.strings_size);
        if ((!nlists.bytes && layout.symbol_count) || (!strings.bytes && layout.strings_size)) {
            problem = "its symbol table lies outside the files given (a sub-cache missing, or damaged)";
        } else {
            nlists_read(&list, nlists, cache->nlist_size, 0, layout.symbol_count, strings, DSC_SYMBOL_TABLE);
        }
    }
    const local_entry *locals = locals_for_image(cache, image.address);
    if (locals) {
        if ((uint64_t)locals->start + locals->count > cache->local_nlist_count) {
            problem = "its local symbols run past the end of the local-symbol table";
        }
        nlists_read(&list, cache->local_nlists, cache->nlist_size, locals->start, locals->count, cache->local_strings,
                    DSC_SYMBOL_LOCAL);
    }
    if (layout.has_exports) {
        span trie = linkedit_part(cache, &layout, layout.exports_offset, layout.exports_size);
        if (!trie.bytes) {
            problem = "its exports trie lies outside the files given";
        } else {
            exports_read(&list, trie, image.address, &out->export_names, out->problem, sizeof(out->problem));
        }
    }
    if (layout.has_starts) {
        span data = linkedit_part(cache, &layout, layout.starts_offset, layout.starts_size);
        if (!data.bytes && layout.starts_size) {
            problem = "its function starts lie outside the files given";
        } else if (!starts_read(data, layout.has_text ? layout.text_address : image.address, &out->starts,
                                &out->start_count)) {
            problem = out->starts ? "its function starts are damaged; those read before the damage are kept"
                                  : "out of memory";
        }
    }
    if (list.failed) problem = "out of memory";
    if (problem && !out->problem[0]) say(out->problem, sizeof(out->problem), "%s", problem);
    out->symbols = list.items;
    out->count = list.count;
    out->section_count = layout.section_count;
    out->section_ranges = malloc((layout.section_count ? layout.section_count : 1) * 2 * sizeof(uint64_t));
    if (out->section_ranges) memcpy(out->section_ranges, layout.section_ranges, layout.section_count * 2 * sizeof(uint64_t));
    else out->section_count = 0;
    return DSC_OK;
}

void dsc_free_symbols(dsc_symbols *symbols) {
    free(symbols->symbols);
    free(symbols->starts);
    free(symbols->section_ranges);
    free(symbols->export_names);
    memset(symbols, 0, sizeof(*symbols));
}
