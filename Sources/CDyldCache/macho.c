// The Mach-O header of one image inside the cache, at the image's address: its load commands
// name its UUID, its segments and sections, and where its tables are in the `__LINKEDIT` that
// every image of the cache (or of one sub-cache) shares.
//
// The load commands give file offsets (symoff, stroff, dataoff) as they would be in the
// image's own file; in the cache they are relative to the same place as `__LINKEDIT`'s
// fileoff, so a table at offset `off` is at the address
//
//     linkedit.vmaddr + (off - linkedit.fileoff)
//
// which the address map turns into bytes of whichever file holds them. For example, with
// `__LINKEDIT` at vmaddr 0x1e0000000, fileoff 0x60000000, an LC_SYMTAB symoff of 0x60001200
// is at 0x1e0001200.

#include "internal.h"

enum {
    LC_SEGMENT = 0x1,
    LC_SYMTAB = 0x2,
    LC_SEGMENT_64 = 0x19,
    LC_UUID = 0x1b,
    LC_DYLD_INFO = 0x22,
    LC_FUNCTION_STARTS = 0x26,
    LC_DYLD_INFO_ONLY = 0x80000022,
    LC_DYLD_EXPORTS_TRIE = 0x80000033,
};

// Records a segment's sections (numbered across segments from 1, as nlist's n_sect counts).
static void add_sections(image_layout *out, span command, int wide, uint32_t count) {
    uint64_t at = wide ? 72 : 56, size = wide ? 80 : 68;
    for (uint32_t i = 0; i < count && out->section_count < 255; i++, at += size) {
        uint64_t address = 0, length = 0;
        if (wide) {
            if (!read_u64(command, at + 32, &address) || !read_u64(command, at + 40, &length)) return;
        } else {
            uint32_t a = 0, l = 0;
            if (!read_u32(command, at + 32, &a) || !read_u32(command, at + 36, &l)) return;
            address = a;
            length = l;
        }
        uint64_t end = address + length < address ? UINT64_MAX : address + length;
        out->section_ranges[2 * out->section_count] = address;
        out->section_ranges[2 * out->section_count + 1] = end;
        out->section_count++;
    }
}

static void read_segment(image_layout *out, span command, int wide) {
    char name[17] = {0};
    if (!span_has(command, 8, 16)) return;
    memcpy(name, command.bytes + 8, 16);
    uint64_t address = 0, size = 0, file_offset = 0;
    uint32_t sections = 0;
    if (wide) {
        if (!read_u64(command, 24, &address) || !read_u64(command, 32, &size) || !read_u64(command, 40, &file_offset)
            || !read_u32(command, 64, &sections)) return;
    } else {
        uint32_t a = 0, s = 0, f = 0;
        if (!read_u32(command, 24, &a) || !read_u32(command, 28, &s) || !read_u32(command, 32, &f)
            || !read_u32(command, 48, &sections)) return;
        address = a, size = s, file_offset = f;
    }
    if (strcmp(name, "__TEXT") == 0 && !out->has_text) {
        out->has_text = 1;
        out->text_address = address;
        out->text_size = size;
    } else if (strcmp(name, "__LINKEDIT") == 0 && !out->has_linkedit) {
        out->has_linkedit = 1;
        out->linkedit_address = address;
        out->linkedit_file_offset = file_offset;
    }
    add_sections(out, command, wide, sections);
}

int macho_read(const dsc_cache *cache, uint64_t address, image_layout *out, char *message, size_t message_size) {
    memset(out, 0, sizeof(*out));
    span head = mapped_range(cache, address, 32);
    uint32_t magic = 0, ncmds = 0, sizeofcmds = 0;
    if (!read_u32(head, 0, &magic)) {
        say(message, message_size, "its Mach-O header at 0x%llx is in no file given (a sub-cache missing?)",
            (unsigned long long)address);
        return DSC_ERROR;
    }
    int wide = magic == 0xfeedfacf;
    if (!wide && magic != 0xfeedface) {
        say(message, message_size, "no Mach-O header at 0x%llx", (unsigned long long)address);
        return DSC_ERROR;
    }
    read_u32(head, 4, &out->cpu_type);
    read_u32(head, 8, &out->cpu_subtype);
    read_u32(head, 16, &ncmds);
    read_u32(head, 20, &sizeofcmds);
    uint64_t header_size = wide ? 32 : 28;
    span commands = span_part(mapped_at(cache, address), header_size, sizeofcmds);
    if (!commands.bytes && sizeofcmds) {
        say(message, message_size, "the load commands at 0x%llx run past their mapping", (unsigned long long)address);
        return DSC_ERROR;
    }
    uint64_t at = 0;
    for (uint32_t i = 0; i < ncmds; i++) {
        uint32_t cmd = 0, cmdsize = 0;
        if (!read_u32(commands, at, &cmd) || !read_u32(commands, at + 4, &cmdsize) || cmdsize < 8
            || !span_has(commands, at, cmdsize)) {
            say(message, message_size, "load command %u at 0x%llx is cut short or runs past sizeofcmds", i,
                (unsigned long long)address);
            return DSC_ERROR;
        }
        span command = span_part(commands, at, cmdsize);
        switch (cmd) {
        case LC_SEGMENT_64:
        case LC_SEGMENT:
            read_segment(out, command, cmd == LC_SEGMENT_64);
            break;
        case LC_UUID:
            if (span_has(command, 8, 16)) {
                memcpy(out->uuid, command.bytes + 8, 16);
                out->has_uuid = 1;
            }
            break;
        case LC_SYMTAB:
            out->has_symtab = read_u32(command, 8, &out->symbol_offset) && read_u32(command, 12, &out->symbol_count)
                && read_u32(command, 16, &out->strings_offset) && read_u32(command, 20, &out->strings_size);
            break;
        case LC_FUNCTION_STARTS:
            out->has_starts = read_u32(command, 8, &out->starts_offset) && read_u32(command, 12, &out->starts_size);
            break;
        case LC_DYLD_INFO:
        case LC_DYLD_INFO_ONLY:
            if (!out->has_exports) {
                out->has_exports = read_u32(command, 40, &out->exports_offset)
                    && read_u32(command, 44, &out->exports_size) && out->exports_size > 0;
            }
            break;
        case LC_DYLD_EXPORTS_TRIE:
            out->has_exports = read_u32(command, 8, &out->exports_offset) && read_u32(command, 12, &out->exports_size)
                && out->exports_size > 0;
            break;
        default:
            break;
        }
        at += cmdsize;
    }
    return DSC_OK;
}

span linkedit_part(const dsc_cache *cache, const image_layout *layout, uint32_t offset, uint32_t size) {
    span none = {NULL, 0};
    if (!layout->has_linkedit || offset < layout->linkedit_file_offset) return none;
    uint64_t address = layout->linkedit_address + (offset - layout->linkedit_file_offset);
    if (address < layout->linkedit_address) return none;
    return mapped_range(cache, address, size);
}
