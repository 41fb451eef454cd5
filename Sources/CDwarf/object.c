// Objects: DWARF sections handed over by the caller, or found in an ELF image through libelf,
// which inflates zlib sections (zstd ones are inflated here).

#include "reader.h"

#include <gelf.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

// libelf before 0.189 (Debian 12 ships 0.188) knows zlib only; zstd sections are inflated here.
#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2
#endif

CDW_INTERNAL void set_message(char *message, size_t size, const char *format, ...) {
    if (!message || size == 0) return;
    va_list args;
    va_start(args, format);
    vsnprintf(message, size, format, args);
    va_end(args);
}


CDW_INTERNAL const cdw_section *find_section(const cdw_object *o, const char *name) {
    for (uint32_t i = 1; i < o->section_count; i++) {
        if (o->sections[i].name && strcmp(o->sections[i].name, name) == 0) return &o->sections[i];
    }
    return NULL;
}

// Hands `o` out when it has DWARF to read.
static int finish_open(cdw_object *o, cdw_object **out, char *message, size_t message_size) {
    const cdw_section *info = find_section(o, ".debug_info");
    if (!info || !info->data || info->size == 0) {
        set_message(message, message_size, "no DWARF debug information");
        cdw_close(o);
        return CDW_NO_DWARF;
    }
    *out = o;
    return CDW_OK;
}

int cdw_open_sections(const cdw_section *sections, uint32_t count, uint8_t pointer_size,
                      int big_endian, cdw_object **out, char *message, size_t message_size) {
    cdw_object *o = calloc(1, sizeof(*o));
    if (!o) return CDW_ERROR;
    o->sections = calloc(count + 1, sizeof(cdw_section));
    if (!o->sections) {
        free(o);
        return CDW_ERROR;
    }
    o->sections[0].name = "";
    memcpy(o->sections + 1, sections, count * sizeof(cdw_section));
    o->section_count = count + 1;
    o->pointer_size = pointer_size;
    o->big_endian = big_endian;
    return finish_open(o, out, message, message_size);
}

// Inflates a SHF_COMPRESSED section whose Chdr names zstd into a buffer `o` owns and
// describes it in `s`.
static int inflate_zstd(cdw_object *o, Elf_Scn *scn, const GElf_Chdr *chdr, const char *name,
                        cdw_section *s, char *message, size_t message_size) {
    Elf_Data *raw = elf_rawdata(scn, NULL);
    size_t header = gelf_getclass(o->elf) == ELFCLASS64 ? sizeof(Elf64_Chdr) : sizeof(Elf32_Chdr);
    if (!raw || !raw->d_buf || raw->d_size < header) {
        set_message(message, message_size, "cannot read zstd section %s: %s", name,
                    elf_errmsg(-1) ? elf_errmsg(-1) : "truncated");
        return CDW_ERROR;
    }
    // zstd inflates at most ~32768-fold (an RLE block: 4 bytes for 128 KiB): a larger ch_size
    // is damage, not a reason to allocate.
    size_t compressed = raw->d_size - header;
    if (chdr->ch_size == 0 || chdr->ch_size / 65536 > compressed) {
        set_message(message, message_size, "zstd section %s: implausible size %llu", name,
                    (unsigned long long)chdr->ch_size);
        return CDW_ERROR;
    }
    void **grown = realloc(o->inflated, (o->inflated_count + 1) * sizeof(void *));
    if (!grown) {
        set_message(message, message_size, "out of memory inflating %s", name);
        return CDW_ERROR;
    }
    o->inflated = grown;
    void *buffer = malloc(chdr->ch_size);
    if (!buffer) {
        set_message(message, message_size, "out of memory inflating %s (%llu bytes)", name,
                    (unsigned long long)chdr->ch_size);
        return CDW_ERROR;
    }
    o->inflated[o->inflated_count++] = buffer;
    size_t got = ZSTD_decompress(buffer, chdr->ch_size, (const char *)raw->d_buf + header,
                                 compressed);
    if (ZSTD_isError(got)) {
        set_message(message, message_size, "cannot inflate zstd section %s: %s", name,
                    ZSTD_getErrorName(got));
        return CDW_ERROR;
    }
    if (got != chdr->ch_size) {
        set_message(message, message_size,
                    "cannot inflate zstd section %s: %zu bytes, the header says %llu", name, got,
                    (unsigned long long)chdr->ch_size);
        return CDW_ERROR;
    }
    s->name = name;
    s->data = buffer;
    s->size = chdr->ch_size;
    return CDW_OK;
}

int cdw_open_elf(const void *image, size_t size, cdw_object **out, char *message,
                 size_t message_size) {
    elf_version(EV_CURRENT);
    Elf *elf = elf_memory((char *)image, size);
    if (!elf || elf_kind(elf) != ELF_K_ELF) {
        set_message(message, message_size, "not an ELF file: %s", elf_errmsg(-1));
        if (elf) elf_end(elf);
        return CDW_ERROR;
    }
    size_t shstrndx = 0, section_total = 0;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0 || elf_getshdrnum(elf, &section_total) != 0) {
        set_message(message, message_size, "unreadable ELF section headers: %s", elf_errmsg(-1));
        elf_end(elf);
        return CDW_ERROR;
    }
    cdw_object *o = calloc(1, sizeof(*o));
    cdw_section *sections = calloc(section_total + 1, sizeof(cdw_section));
    if (!o || !sections) {
        free(o);
        free(sections);
        elf_end(elf);
        return CDW_ERROR;
    }
    o->elf = elf;
    o->sections = sections;
    // What libelf may write in the image (section headers, as it inflates a section): never
    // released.
    o->image = image;
    GElf_Ehdr ehdr;
    if (gelf_getehdr(elf, &ehdr)) {
        uint64_t kept[3][2] = {
            {0, ehdr.e_ehsize},
            {ehdr.e_phoff, ehdr.e_phoff + (uint64_t)ehdr.e_phnum * ehdr.e_phentsize},
            {ehdr.e_shoff, ehdr.e_shoff + (uint64_t)section_total * ehdr.e_shentsize},
        };
        memcpy(o->kept, kept, sizeof(kept));
    } else {
        o->kept[0][1] = size;  // nothing released
    }
    sections[0].name = "";
    uint32_t count = 1;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr header;
        if (!gelf_getshdr(scn, &header) || header.sh_type == SHT_NOBITS) continue;
        const char *name = elf_strptr(elf, shstrndx, header.sh_name);
        if (!name) continue;
        int legacy = strncmp(name, ".zdebug_", 8) == 0;
        if (!legacy && strncmp(name, ".debug_", 7) != 0) continue;
        // Inflating is done by libelf, in its own buffers.
        if (legacy) {
            if (elf_compress_gnu(scn, 0, 0) < 0) continue;
            name += 2;  // ".zdebug_info" -> "debug_info", spelled below with its '.'
        } else if (header.sh_flags & SHF_COMPRESSED) {
            if (elf_compress(scn, 0, 0) < 0) {
                const char *why = elf_errmsg(-1);
                GElf_Chdr chdr;
                if (!gelf_getchdr(scn, &chdr) || chdr.ch_type != ELFCOMPRESS_ZSTD) {
                    set_message(message, message_size, "cannot inflate section %s: %s", name,
                                why ? why : "unknown error");
                    cdw_close(o);
                    return CDW_ERROR;
                }
                cdw_section *s = &sections[count];
                if (inflate_zstd(o, scn, &chdr, name, s, message, message_size) != CDW_OK) {
                    cdw_close(o);
                    return CDW_ERROR;
                }
                s->address = header.sh_addr;
                count++;
                continue;
            }
        }
        Elf_Data *data = elf_getdata(scn, NULL);
        if (!data || !data->d_buf) continue;
        if (legacy) {
            char **grown = realloc(o->spelled_names, (o->spelled_count + 1) * sizeof(char *));
            char *spelled = malloc(strlen(name) + 1);
            if (!grown || !spelled) {
                free(spelled);
                if (grown) o->spelled_names = grown;
                continue;
            }
            o->spelled_names = grown;
            o->spelled_names[o->spelled_count++] = spelled;
            spelled[0] = '.';
            strcpy(spelled + 1, name);
            name = spelled;
        }
        cdw_section *s = &sections[count++];
        s->name = name;
        s->data = data->d_buf;
        s->size = data->d_size;
        s->address = header.sh_addr;
    }
    o->section_count = count;
    o->pointer_size = gelf_getclass(elf) == ELFCLASS64 ? 8 : 4;
    const char *ident = elf_getident(elf, NULL);
    o->big_endian = ident && ident[EI_DATA] == ELFDATA2MSB;
    return finish_open(o, out, message, message_size);
}

void cdw_close(cdw_object *o) {
    if (!o) return;
    if (o->elf) elf_end(o->elf);
    for (uint32_t i = 0; i < o->spelled_count; i++) free(o->spelled_names[i]);
    free(o->spelled_names);
    for (uint32_t i = 0; i < o->inflated_count; i++) free(o->inflated[i]);
    free(o->inflated);
    free(o->sections);
    free(o);
}

const cdw_section *cdw_section_named(const cdw_object *object, const char *name) {
    if (!object || !name) return NULL;
    return find_section(object, name);
}

uint32_t cdw_crc32(uint32_t crc, const void *data, size_t size) {
    return (uint32_t)crc32_z(crc, data, size);
}
