// An object: the DWARF sections a reader reads, however they were found (handed over, found in
// an ELF image and inflated). Shared by the readers of the CDwarf target and of the reference.

#ifndef CDWARF_OBJECT_H
#define CDWARF_OBJECT_H

#include "CDwarf.h"

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

// Functions shared between the reader's files, never exported from a linked program.
#define CDW_INTERNAL __attribute__((visibility("hidden")))

struct cdw_object {
    cdw_section *sections;  // index 0 is an empty placeholder, as in ELF
    uint32_t section_count;
    uint8_t pointer_size;
    int big_endian;
    Elf *elf;
    char **spelled_names;  // names made for legacy .zdebug_* sections
    uint32_t spelled_count;
    void **inflated;  // zstd sections inflated here rather than by libelf
    uint32_t inflated_count;
    // Where section pages may be released once read (cdw_allow_page_release): a private file
    // mapping, but for `kept`, the parts of an ELF image libelf may write (its headers).
    const uint8_t *release_base;
    uint64_t release_size;
    uint64_t release_step;  // bytes released at a time, 0 for RELEASE_STEP
    const uint8_t *image;  // the ELF image of cdw_open_elf
    uint64_t kept[3][2];   // offsets in `image`: ELF header, program and section header tables
};

CDW_INTERNAL void set_message(char *message, size_t size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

// The section named `name`, or NULL (the first, when there are several).
CDW_INTERNAL const cdw_section *find_section(const cdw_object *o, const char *name);

#endif
