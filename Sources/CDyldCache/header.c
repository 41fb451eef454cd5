// The header of a cache file: its magic, its size (the offset of the first mapping, which
// says which of the later fields the file was written with), and where its tables are.
//
//     0    char magic[16]            "dyld_v1  arm64e\0"
//     16   u32 mappingOffset         = the header's size
//     20   u32 mappingCount          dyld_cache_mapping_info, 32 bytes each
//     24   u32 imagesOffsetOld, 28 u32 imagesCountOld      (before imagesOffset existed)
//     72   u64 localSymbolsOffset, 80 u64 localSymbolsSize (local symbols in this file)
//     88   u8  uuid[16]
//     136  u64 imagesTextOffset, 144 u64 imagesTextCount  (dyld_cache_image_text_info, 32 bytes)
//     216  u32 platform, 220 u32 formatVersion:8 dylibsExpectedOnDisk:1 simulator:1 ...
//     364  u32 osVersion
//     392  u32 subCacheArrayOffset, 396 u32 subCacheArrayCount
//     400  u8  symbolFileUUID[16]    (the `.symbols` file's UUID; zero when there is none)
//     448  u32 imagesOffset, 452 u32 imagesCount           (dyld_cache_image_info, 32 bytes)
//     456  u32 cacheSubType          (a header this long has suffixed sub-cache entries)
//
// A field is read only when the header is long enough to hold it, and every table it points
// to must lie in the file.

#include "internal.h"

enum {
    MAPPING_SIZE = 32,
    IMAGE_INFO_SIZE = 32,
    IMAGE_TEXT_SIZE = 32,
    SUBCACHE_V1_SIZE = 24,
    SUBCACHE_SIZE = 56,
};

// Whether the header (of `header_size` bytes) holds the field [offset, offset + length).
static int has_field(uint32_t header_size, uint32_t offset, uint32_t length) {
    return header_size >= offset + length;
}

// Whether a table of `count` entries of `stride` bytes at `offset` lies in the file.
static int table_fits(span file, uint64_t offset, uint64_t count, uint64_t stride) {
    return count <= file.size / stride && span_has(file, offset, count * stride);
}

int dsc_read_header(const uint8_t *bytes, uint64_t size, dsc_header *out, char *message, size_t message_size) {
    span file = {bytes, size};
    memset(out, 0, sizeof(*out));
    if (!bytes || size < 28 || memcmp(bytes, "dyld_v", 6) != 0) {
        say(message, message_size, "not a dyld shared cache (no dyld_v1 magic)");
        return DSC_ERROR;
    }
    // The architecture: what follows "dyld_vN" up to the padding's end.
    uint32_t at = 7, length = 0;
    while (at < 16 && bytes[at] == ' ') at++;
    while (at < 16 && bytes[at] != 0 && bytes[at] != ' ' && length < sizeof(out->architecture) - 1) {
        out->architecture[length++] = (char)bytes[at++];
    }
    uint32_t header_size = 0, mapping_count = 0;
    read_u32(file, 16, &header_size);
    read_u32(file, 20, &mapping_count);
    if (header_size < 24 || header_size > size) {
        say(message, message_size, "its header size (%u) lies past the end of the file (%llu bytes): cut short?",
            header_size, (unsigned long long)size);
        return DSC_ERROR;
    }
    if (!table_fits(file, header_size, mapping_count, MAPPING_SIZE)) {
        say(message, message_size, "its %u mappings lie past the end of the file (%llu bytes): cut short?", mapping_count,
            (unsigned long long)size);
        return DSC_ERROR;
    }
    out->header_size = header_size;
    out->mapping_count = mapping_count;
    if (mapping_count > 0) read_u64(file, header_size, &out->base_address);
    if (has_field(header_size, 88, 16)) memcpy(out->uuid, bytes + 88, 16);

    uint32_t images_offset = 0, images_count = 0;
    if (has_field(header_size, 448, 8)) {
        read_u32(file, 448, &images_offset);
        read_u32(file, 452, &images_count);
    }
    if (images_offset == 0 && images_count == 0 && has_field(header_size, 24, 8)) {
        read_u32(file, 24, &images_offset);
        read_u32(file, 28, &images_count);
    }
    if (!table_fits(file, images_offset, images_count, IMAGE_INFO_SIZE)) {
        say(message, message_size, "its image list (%u images at %u) lies past the end of the file: cut short?",
            images_count, images_offset);
        return DSC_ERROR;
    }
    out->image_count = images_count;
    out->images_offset = images_offset;

    if (has_field(header_size, 72, 16)) {
        read_u64(file, 72, &out->local_symbols_offset);
        read_u64(file, 80, &out->local_symbols_size);
        if (out->local_symbols_size && !span_has(file, out->local_symbols_offset, out->local_symbols_size)) {
            say(message, message_size, "its local symbols (%llu bytes at %llu) lie past the end of the file: cut short?",
                (unsigned long long)out->local_symbols_size, (unsigned long long)out->local_symbols_offset);
            return DSC_ERROR;
        }
    }
    if (has_field(header_size, 136, 16)) {
        read_u64(file, 136, &out->images_text_offset);
        read_u64(file, 144, &out->images_text_count);
        if (!table_fits(file, out->images_text_offset, out->images_text_count, IMAGE_TEXT_SIZE)) {
            out->images_text_offset = out->images_text_count = 0;  // only a fallback: passed over
        }
    }
    if (has_field(header_size, 216, 8)) {
        uint32_t flags = 0;
        read_u32(file, 216, &out->platform);
        read_u32(file, 220, &flags);
        out->simulator = (flags >> 9) & 1;
    }
    if (has_field(header_size, 364, 4)) read_u32(file, 364, &out->os_version);
    if (has_field(header_size, 392, 8)) {
        uint32_t offset = 0, count = 0;
        read_u32(file, 392, &offset);
        read_u32(file, 396, &count);
        out->subcache_suffixed = header_size > 456;
        if (!table_fits(file, offset, count, out->subcache_suffixed ? SUBCACHE_SIZE : SUBCACHE_V1_SIZE)) {
            say(message, message_size, "its sub-cache list (%u entries at %u) lies past the end of the file: cut short?",
                count, offset);
            return DSC_ERROR;
        }
        out->subcache_count = count;
    }
    if (has_field(header_size, 400, 16)) {
        memcpy(out->symbol_file_uuid, bytes + 400, 16);
        for (int i = 0; i < 16; i++) out->has_symbol_file |= out->symbol_file_uuid[i] != 0;
    }
    return DSC_OK;
}

int dsc_read_subcache(const uint8_t *bytes, uint64_t size, uint32_t index, dsc_subcache *out, char *message,
                      size_t message_size) {
    dsc_header header;
    if (dsc_read_header(bytes, size, &header, message, message_size) != DSC_OK) return DSC_ERROR;
    memset(out, 0, sizeof(*out));
    if (index >= header.subcache_count) {
        say(message, message_size, "no sub-cache entry %u", index);
        return DSC_ERROR;
    }
    span file = {bytes, size};
    uint32_t offset = 0;
    read_u32(file, 392, &offset);
    uint64_t at = (uint64_t)offset + (uint64_t)index * (header.subcache_suffixed ? SUBCACHE_SIZE : SUBCACHE_V1_SIZE);
    memcpy(out->uuid, bytes + at, 16);
    read_u64(file, at + 16, &out->vm_offset);
    if (header.subcache_suffixed) {
        // Up to its NUL, within its 32 bytes; only printable characters but '/' make a file name.
        for (int i = 0; i < 32 && bytes[at + 24 + i]; i++) {
            uint8_t c = bytes[at + 24 + i];
            if (c <= ' ' || c >= 0x7f || c == '/') {
                say(message, message_size, "sub-cache entry %u has a file suffix that is not a file name", index);
                return DSC_ERROR;
            }
            out->suffix[i] = (char)c;
        }
    } else {
        snprintf(out->suffix, sizeof(out->suffix), ".%u", index + 1);
    }
    return DSC_OK;
}
