// One pass over DWARF into the flat arrays of CDwarf.h: a reader of its own over the section
// bytes, on every core, with libdwarf as the reference for what it does not take; libelf
// (and libzstd) for ELF images and their compressed sections.

#include "CDwarf.h"

#include <libdwarf/dwarf.h>
#include <gelf.h>
#include <libdwarf/libdwarf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#include <zlib.h>
#include <zstd.h>

// libelf before 0.189 (Debian 12 ships 0.188) knows zlib only; zstd sections are inflated here.
#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2
#endif

struct cdw_object {
    Dwarf_Debug dbg;
    Dwarf_Obj_Access_Interface interface;
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

// MARK: - Releasing pages read for the last time

// Pages are released in steps of at least this many bytes (unless cdw_allow_page_release says).
#define RELEASE_STEP (1u << 20)

static uint64_t release_step(const cdw_object *o) {
    return o->release_step ? o->release_step : RELEASE_STEP;
}

// Releases the whole pages inside [from, to) (MADV_DONTNEED): private anonymous memory reads as
// zeros afterwards, a private file mapping whose pages were never written reads the file again.
// Only for memory nobody reads again but through such a mapping. Nothing off Linux.
static void release_pages(const void *from, const void *to) {
#ifdef __linux__
    uintptr_t page = (uintptr_t)getpagesize();
    uintptr_t start = ((uintptr_t)from + page - 1) & ~(page - 1);
    uintptr_t end = (uintptr_t)to & ~(page - 1);
    if (end > start) madvise((void *)start, end - start, MADV_DONTNEED);
#else
    (void)from;
    (void)to;
#endif
}

// Releases the pages of section bytes [from, to) that lie where cdw_allow_page_release allows,
// but for pages that share bytes with what libelf may write (`kept`, from range `k` on). They
// read the file again when touched (libdwarf, a unit read again): only memory, not answers, is
// at stake in what is released when.
static void release_section_bytes(const cdw_object *o, const uint8_t *from, const uint8_t *to,
                                  unsigned k) {
    uintptr_t low = (uintptr_t)o->release_base, high = low + o->release_size;
    uintptr_t a = (uintptr_t)from, b = (uintptr_t)to;
    if (!o->release_base || a >= high || b <= low) return;
    if (a < low) a = low;
    if (b > high) b = high;
    for (; k < 3; k++) {
        if (!o->image || o->kept[k][1] <= o->kept[k][0]) continue;
        uintptr_t kept_low = (uintptr_t)o->image + o->kept[k][0];
        uintptr_t kept_high = (uintptr_t)o->image + o->kept[k][1];
        if (kept_high <= a || kept_low >= b) continue;
        // Either side of the kept bytes; rounding inwards to pages leaves out any page they touch.
        if (kept_low > a) release_section_bytes(o, (const uint8_t *)a, (const uint8_t *)kept_low, k + 1);
        if (kept_high < b) release_section_bytes(o, (const uint8_t *)kept_high, (const uint8_t *)b, k + 1);
        return;
    }
    release_pages((const void *)a, (const void *)b);
}

// Every section's pages that may be released.
static void release_sections(const cdw_object *o) {
    if (!o->release_base) return;
    for (uint32_t i = 1; i < o->section_count; i++) {
        const cdw_section *s = &o->sections[i];
        if (s->data && s->size) release_section_bytes(o, s->data, s->data + s->size, 0);
    }
}

void cdw_allow_page_release(cdw_object *object, const void *base, size_t size, size_t step) {
    if (!object) return;
    object->release_base = base;
    object->release_size = base ? size : 0;
    object->release_step = step;
}

static void set_message(char *message, size_t size, const char *format, ...) {
    if (!message || size == 0) return;
    va_list args;
    va_start(args, format);
    vsnprintf(message, size, format, args);
    va_end(args);
}

// MARK: - Object access over a section list

static int access_section_info(void *object, Dwarf_Half index, Dwarf_Obj_Access_Section *out,
                               int *error) {
    cdw_object *o = object;
    (void)error;
    if (index >= o->section_count) return DW_DLV_NO_ENTRY;
    const cdw_section *s = &o->sections[index];
    memset(out, 0, sizeof(*out));
    out->addr = s->address;
    out->size = s->size;
    out->name = s->name;
    out->type = 1;  // SHT_PROGBITS: libdwarf only needs the sections to look loadable
    return DW_DLV_OK;
}

static Dwarf_Endianness access_byte_order(void *object) {
    return ((cdw_object *)object)->big_endian ? DW_OBJECT_MSB : DW_OBJECT_LSB;
}

static Dwarf_Small access_length_size(void *object) {
    (void)object;
    return 4;
}

static Dwarf_Small access_pointer_size(void *object) {
    return ((cdw_object *)object)->pointer_size;
}

static Dwarf_Unsigned access_section_count(void *object) {
    return ((cdw_object *)object)->section_count;
}

static int access_load_section(void *object, Dwarf_Half index, Dwarf_Small **data, int *error) {
    cdw_object *o = object;
    (void)error;
    if (index >= o->section_count) return DW_DLV_NO_ENTRY;
    *data = (Dwarf_Small *)o->sections[index].data;
    return DW_DLV_OK;
}

static const Dwarf_Obj_Access_Methods access_methods = {
    access_section_info, access_byte_order,    access_length_size,
    access_pointer_size, access_section_count, access_load_section,
    NULL,
};

static int finish_open(cdw_object *o, cdw_object **out, char *message, size_t message_size) {
    o->interface.object = o;
    o->interface.methods = &access_methods;
    Dwarf_Error error = NULL;
    dwarf_set_de_alloc_flag(0);
    int res = dwarf_object_init_b(&o->interface, NULL, NULL, DW_GROUPNUMBER_ANY, &o->dbg, &error);
    if (res == DW_DLV_NO_ENTRY) {
        set_message(message, message_size, "no DWARF debug information");
        cdw_close(o);
        return CDW_NO_DWARF;
    }
    if (res != DW_DLV_OK) {
        set_message(message, message_size, "%s", error ? dwarf_errmsg(error) : "libdwarf failed");
        if (error) dwarf_dealloc(NULL, error, DW_DLA_ERROR);
        cdw_close(o);
        return CDW_ERROR;
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
    if (o->dbg) {
        Dwarf_Error error = NULL;
        dwarf_object_finish(o->dbg, &error);
    }
    if (o->elf) elf_end(o->elf);
    for (uint32_t i = 0; i < o->spelled_count; i++) free(o->spelled_names[i]);
    free(o->spelled_names);
    for (uint32_t i = 0; i < o->inflated_count; i++) free(o->inflated[i]);
    free(o->inflated);
    free(o->sections);
    free(o);
}

// MARK: - What one thread reads

// The arrays one thread fills, laid out as `cdw_result`. With one thread they become the
// result; with more, every thread's arrays are copied into the result unit by unit, their
// indexes and string offsets rebased (see `lay_out` and `cdw_read_finish`).
struct interned {
    const char *text;
    uint64_t offset;
};

typedef struct sink {
    cdw_result r;
    uint64_t function_capacity, range_capacity, row_capacity, file_capacity, unit_capacity,
        directory_capacity, string_capacity;
    // Strings copied from DWARF sections, by their address there (stable until cdw_close):
    // a name met again in the same section is not copied again.
    struct interned *interned;
    uint64_t interned_capacity, interned_count;
    // The bytes of .debug_ranges / .debug_rnglists the current unit's range lists span.
    const uint8_t *lists_read[2];
} sink;

// Notes that the range list at [from, to) was read.
static void note_list_read(sink *s, const uint8_t *from, const uint8_t *to) {
    if (!s->lists_read[0] || from < s->lists_read[0]) s->lists_read[0] = from;
    if (to > s->lists_read[1]) s->lists_read[1] = to;
}

// Makes room for one more element of `array`, or returns `failure` from the caller.
#define GROW(s, array, count, capacity, failure)                                      \
    do {                                                                              \
        if ((s)->r.count == (s)->capacity) {                                          \
            uint64_t next = (s)->capacity ? (s)->capacity * 2 : 1024;                 \
            void *grown = realloc((s)->r.array, next * sizeof(*(s)->r.array));        \
            if (!grown) return (failure);                                             \
            (s)->r.array = grown;                                                     \
            (s)->capacity = next;                                                     \
        }                                                                             \
    } while (0)

// `call_file` of a function entry while units are read: the raw DW_AT_call_file value, or
// CALL_FILE_NONE; turned into an index into `files` once the unit's file list is known.
#define CALL_FILE_NONE UINT32_MAX

static int64_t add_string(sink *s, const char *text) {
    if (!text || !*text) return 0;
    size_t length = strlen(text) + 1;
    cdw_result *r = &s->r;
    if (r->strings_size + length > s->string_capacity) {
        uint64_t next = s->string_capacity ? s->string_capacity : 65536;
        while (next < r->strings_size + length) next *= 2;
        char *grown = realloc(r->strings, next);
        if (!grown) return -1;
        r->strings = grown;
        s->string_capacity = next;
    }
    uint64_t offset = r->strings_size;
    if (offset > UINT32_MAX) return -1;
    memcpy(r->strings + offset, text, length);
    r->strings_size += length;
    return (int64_t)offset;
}

static inline uint64_t pointer_hash(const char *p) {
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

// add_string for a string that lies in a DWARF section: copied once per sink.
static int64_t add_section_string(sink *s, const char *text) {
    if (!text || !*text) return 0;
    if ((s->interned_count + 1) * 2 > s->interned_capacity) {
        uint64_t capacity = s->interned_capacity ? s->interned_capacity * 2 : 4096;
        struct interned *table = calloc(capacity, sizeof(*table));
        if (!table) return add_string(s, text);
        for (uint64_t i = 0; i < s->interned_capacity; i++) {
            if (!s->interned[i].text) continue;
            uint64_t j = pointer_hash(s->interned[i].text) & (capacity - 1);
            while (table[j].text) j = (j + 1) & (capacity - 1);
            table[j] = s->interned[i];
        }
        free(s->interned);
        s->interned = table;
        s->interned_capacity = capacity;
    }
    uint64_t mask = s->interned_capacity - 1;
    uint64_t j = pointer_hash(text) & mask;
    while (s->interned[j].text) {
        if (s->interned[j].text == text) return (int64_t)s->interned[j].offset;
        j = (j + 1) & mask;
    }
    int64_t offset = add_string(s, text);
    if (offset > 0) {
        s->interned[j] = (struct interned){text, (uint64_t)offset};
        s->interned_count++;
    }
    return offset;
}

static int add_file(sink *s, uint32_t name, uint32_t directory, uint32_t unit) {
    GROW(s, files, file_count, file_capacity, -1);
    s->r.files[s->r.file_count++] = (cdw_file){name, directory, unit};
    return 0;
}

static int add_directory(sink *s, uint32_t string) {
    GROW(s, directories, directory_count, directory_capacity, -1);
    s->r.directories[s->r.directory_count++] = string;
    return 0;
}

static int add_unit(sink *s, cdw_unit unit) {
    GROW(s, units, unit_count, unit_capacity, -1);
    s->r.units[s->r.unit_count++] = unit;
    return 0;
}

static inline int add_range(sink *s, uint64_t low, uint64_t high) {
    if (high <= low) return 0;
    GROW(s, ranges, range_count, range_capacity, -1);
    s->r.ranges[s->r.range_count++] = (cdw_range){low, high};
    return 0;
}

static int grow_rows(sink *s) {
    GROW(s, rows, row_count, row_capacity, -1);
    return 0;
}

static int grow_functions(sink *s) {
    GROW(s, functions, function_count, function_capacity, -1);
    return 0;
}

static int sink_init(sink *s) {
    memset(s, 0, sizeof(*s));
    s->r.strings = malloc(65536);
    if (!s->r.strings) return -1;
    s->string_capacity = 65536;
    s->r.strings[0] = '\0';  // offset 0 is the empty string
    s->r.strings_size = 1;
    return add_file(s, 0, 0, CDW_NO_UNIT);  // file 0: no file
}

static void sink_free(sink *s) {
    cdw_result_free(&s->r);
    free(s->interned);
    s->interned = NULL;
}

// The arrays a task fills, in the order of task_result.start / .end.
enum { ARR_FUNCTIONS, ARR_RANGES, ARR_ROWS, ARR_FILES, ARR_UNITS, ARR_DIRECTORIES, ARR_COUNT };

static void sink_counts(const sink *s, uint64_t counts[ARR_COUNT]) {
    counts[ARR_FUNCTIONS] = s->r.function_count;
    counts[ARR_RANGES] = s->r.range_count;
    counts[ARR_ROWS] = s->r.row_count;
    counts[ARR_FILES] = s->r.file_count;
    counts[ARR_UNITS] = s->r.unit_count;
    counts[ARR_DIRECTORIES] = s->r.directory_count;
}

// Drops what a task added (its strings stay: unused, they cost only space).
static void sink_truncate(sink *s, const uint64_t counts[ARR_COUNT]) {
    s->r.function_count = counts[ARR_FUNCTIONS];
    s->r.range_count = counts[ARR_RANGES];
    s->r.row_count = counts[ARR_ROWS];
    s->r.file_count = counts[ARR_FILES];
    s->r.unit_count = counts[ARR_UNITS];
    s->r.directory_count = counts[ARR_DIRECTORIES];
}

// MARK: - Reading a unit through libdwarf
//
// The reference reader: every unit when the object is not plain (no .debug_info of its own,
// several sections of one name) or when asked for, and any unit the fast reader below does not
// take (a form or an encoding it does not know, damage). One Dwarf_Debug per thread.

typedef struct walker {
    Dwarf_Debug dbg;
    const cdw_object *object;
    sink *s;
    Dwarf_Unsigned unit_base;  // CU base address for DWARF 2-4 range lists
    uint16_t version;
    uint32_t unit_first_file;
    uint32_t unit_file_count;
} walker;

// dwarf_formudata of libdwarf 20210528 rejects DW_FORM_implicit_const (gcc's choice for
// DW_AT_call_file and friends in DWARF 5); dwarf_formsdata reads it.
static int read_unsigned(Dwarf_Attribute attribute, Dwarf_Unsigned *value, Dwarf_Error *error) {
    Dwarf_Half form = 0;
    if (dwarf_whatform(attribute, &form, error) != DW_DLV_OK) return DW_DLV_ERROR;
    if (form == DW_FORM_implicit_const) {
        Dwarf_Signed signed_value = 0;
        int res = dwarf_formsdata(attribute, &signed_value, error);
        if (res == DW_DLV_OK) *value = (Dwarf_Unsigned)signed_value;
        return res;
    }
    return dwarf_formudata(attribute, value, error);
}

static int read_ranges_attribute(walker *w, Dwarf_Die die, Dwarf_Attribute attribute,
                                 Dwarf_Error *error) {
    Dwarf_Half form = 0;
    if (dwarf_whatform(attribute, &form, error) != DW_DLV_OK) return DW_DLV_ERROR;
    if (w->version >= 5) {
        Dwarf_Unsigned value = 0;
        int res = form == DW_FORM_rnglistx ? dwarf_formudata(attribute, &value, error)
                                           : dwarf_global_formref(attribute, &value, error);
        if (res != DW_DLV_OK) return res;
        Dwarf_Rnglists_Head head = 0;
        Dwarf_Unsigned count = 0, global_offset = 0;
        res = dwarf_rnglists_get_rle_head(attribute, form, value, &head, &count, &global_offset,
                                          error);
        if (res != DW_DLV_OK) return res;
        for (Dwarf_Unsigned i = 0; i < count; i++) {
            unsigned length = 0, code = 0;
            Dwarf_Unsigned raw1 = 0, raw2 = 0, low = 0, high = 0;
            Dwarf_Bool unavailable = 0;
            res = dwarf_get_rnglists_entry_fields_a(head, i, &length, &code, &raw1, &raw2,
                                                    &unavailable, &low, &high, error);
            if (res != DW_DLV_OK) break;
            if (unavailable || code == DW_RLE_end_of_list || code == DW_RLE_base_address ||
                code == DW_RLE_base_addressx)
                continue;
            if (add_range(w->s, low, high) != 0) break;
        }
        dwarf_dealloc_rnglists_head(head);
        return res;
    }
    Dwarf_Off offset = 0, real_offset = 0;
    int res = dwarf_global_formref(attribute, &offset, error);
    if (res != DW_DLV_OK) return res;
    Dwarf_Ranges *ranges = NULL;
    Dwarf_Signed count = 0;
    Dwarf_Unsigned bytes = 0;
    res = dwarf_get_ranges_b(w->dbg, offset, die, &real_offset, &ranges, &count, &bytes, error);
    if (res != DW_DLV_OK) return res;
    Dwarf_Unsigned base = w->unit_base;
    for (Dwarf_Signed i = 0; i < count; i++) {
        if (ranges[i].dwr_type == DW_RANGES_ADDRESS_SELECTION) {
            base = ranges[i].dwr_addr2;
        } else if (ranges[i].dwr_type == DW_RANGES_ENTRY) {
            if (add_range(w->s, base + ranges[i].dwr_addr1, base + ranges[i].dwr_addr2) != 0)
                break;
        }
    }
    dwarf_ranges_dealloc(w->dbg, ranges, count);
    return DW_DLV_OK;
}

static int read_function(walker *w, Dwarf_Die die, Dwarf_Half tag, int32_t parent,
                         Dwarf_Error *error) {
    sink *s = w->s;
    if (grow_functions(s) != 0) return DW_DLV_ERROR;
    cdw_function f;
    memset(&f, 0, sizeof(f));
    f.origin = CDW_NO_REFERENCE;
    f.specification = CDW_NO_REFERENCE;
    f.parent = parent;
    f.tag = tag;
    f.call_file = CALL_FILE_NONE;
    f.first_range = (uint32_t)s->r.range_count;
    Dwarf_Off offset = 0;
    if (dwarf_dieoffset(die, &offset, error) != DW_DLV_OK) return DW_DLV_ERROR;
    f.offset = offset;

    Dwarf_Attribute *attributes = NULL;
    Dwarf_Signed count = 0;
    int res = dwarf_attrlist(die, &attributes, &count, error);
    if (res == DW_DLV_ERROR) return res;
    Dwarf_Addr low = 0, high = 0;
    int have_low = 0, have_high = 0, high_is_offset = 0;
    for (Dwarf_Signed i = 0; i < count && res != DW_DLV_ERROR; i++) {
        Dwarf_Attribute a = attributes[i];
        Dwarf_Half number = 0;
        if (dwarf_whatattr(a, &number, error) != DW_DLV_OK) {
            res = DW_DLV_ERROR;
            break;
        }
        char *text = NULL;
        Dwarf_Unsigned value = 0;
        Dwarf_Off reference = 0;
        switch (number) {
        case DW_AT_name:
        case DW_AT_linkage_name:
        case DW_AT_MIPS_linkage_name:
            if (dwarf_formstring(a, &text, error) == DW_DLV_OK) {
                int64_t string = add_string(s, text);
                if (string < 0) {
                    res = DW_DLV_ERROR;
                    break;
                }
                if (number == DW_AT_name) f.name = (uint32_t)string;
                else f.linkage_name = (uint32_t)string;
            } else {
                res = DW_DLV_ERROR;
            }
            break;
        case DW_AT_abstract_origin:
        case DW_AT_specification:
            if (dwarf_global_formref(a, &reference, error) == DW_DLV_OK) {
                if (number == DW_AT_abstract_origin) f.origin = reference;
                else f.specification = reference;
            } else {
                res = DW_DLV_ERROR;
            }
            break;
        case DW_AT_call_file:
            if (read_unsigned(a, &value, error) == DW_DLV_OK) {
                f.call_file = value < CALL_FILE_NONE ? (uint32_t)value : CALL_FILE_NONE;
            } else {
                res = DW_DLV_ERROR;
            }
            break;
        case DW_AT_call_line:
        case DW_AT_call_column:
            if (read_unsigned(a, &value, error) == DW_DLV_OK) {
                if (number == DW_AT_call_line) f.call_line = (uint32_t)value;
                else f.call_column = (uint32_t)value;
            } else {
                res = DW_DLV_ERROR;
            }
            break;
        case DW_AT_low_pc:
            if (dwarf_lowpc(die, &low, error) == DW_DLV_OK) have_low = 1;
            else res = DW_DLV_ERROR;
            break;
        case DW_AT_high_pc: {
            Dwarf_Half form = 0;
            enum Dwarf_Form_Class form_class = DW_FORM_CLASS_UNKNOWN;
            if (dwarf_highpc_b(die, &high, &form, &form_class, error) == DW_DLV_OK) {
                have_high = 1;
                high_is_offset = form_class == DW_FORM_CLASS_CONSTANT;
            } else {
                res = DW_DLV_ERROR;
            }
            break;
        }
        case DW_AT_ranges:
            if (read_ranges_attribute(w, die, a, error) == DW_DLV_ERROR) res = DW_DLV_ERROR;
            break;
        default:
            break;
        }
    }
    for (Dwarf_Signed i = 0; i < count; i++) dwarf_dealloc(w->dbg, attributes[i], DW_DLA_ATTR);
    if (attributes) dwarf_dealloc(w->dbg, attributes, DW_DLA_LIST);
    if (res == DW_DLV_ERROR) return res;
    if (have_low && have_high) {
        if (add_range(s, low, high_is_offset ? low + high : high) != 0) return DW_DLV_ERROR;
    }
    f.range_count = (uint32_t)(s->r.range_count - f.first_range);
    s->r.functions[s->r.function_count++] = f;
    return DW_DLV_OK;
}

// Tags whose children may hold subprograms or inlined subroutines.
static int may_hold_functions(uint64_t tag) {
    switch (tag) {
    case DW_TAG_compile_unit:
    case DW_TAG_partial_unit:
    case DW_TAG_namespace:
    case DW_TAG_module:
    case DW_TAG_class_type:
    case DW_TAG_structure_type:
    case DW_TAG_union_type:
    case DW_TAG_interface_type:
    case DW_TAG_subprogram:
    case DW_TAG_inlined_subroutine:
    case DW_TAG_lexical_block:
    case DW_TAG_try_block:
    case DW_TAG_catch_block:
        return 1;
    default:
        return 0;
    }
}

// Children deeper than this are not walked (malformed nesting).
#define MAX_DEPTH 256

static int walk_children(walker *w, Dwarf_Die parent_die, int32_t parent, unsigned depth,
                         Dwarf_Error *error) {
    if (depth > MAX_DEPTH) return DW_DLV_OK;
    Dwarf_Die child = NULL;
    int res = dwarf_child(parent_die, &child, error);
    if (res != DW_DLV_OK) return res == DW_DLV_NO_ENTRY ? DW_DLV_OK : res;
    while (child) {
        Dwarf_Half tag = 0;
        res = dwarf_tag(child, &tag, error);
        if (res != DW_DLV_OK) {
            dwarf_dealloc_die(child);
            return res;
        }
        int32_t enclosing = parent;
        if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
            res = read_function(w, child, tag, parent, error);
            if (res != DW_DLV_OK) {
                dwarf_dealloc_die(child);
                return res;
            }
            enclosing = (int32_t)(w->s->r.function_count - 1);
        }
        if (may_hold_functions(tag)) {
            res = walk_children(w, child, enclosing, depth + 1, error);
            if (res != DW_DLV_OK) {
                dwarf_dealloc_die(child);
                return res;
            }
        }
        Dwarf_Die sibling = NULL;
        res = dwarf_siblingof_b(w->dbg, child, 1, &sibling, error);
        dwarf_dealloc_die(child);
        if (res == DW_DLV_ERROR) return res;
        child = res == DW_DLV_OK ? sibling : NULL;
    }
    return DW_DLV_OK;
}

// MARK: - The DWARF 5 file register

// libdwarf 20210528 starts the file register of a DWARF 5 line program at 0, and puts it back
// to 0 after each DW_LNE_end_sequence (_dwarf_set_line_table_regs_default_values: "DWARF5 file
// base is zero"), where DWARF 5 (6.2.2, table 6.4) starts it at 1 as DWARF 2-4 do. The rows a
// sequence has before its first DW_LNS_set_file therefore come out in file 0 instead of file 1.
// gcc's file 0 is mostly a copy of file 1, which hides it, but not always (glibc's
// csu/libc-start.c: file 0 is the unit's source, file 1 libc_start_call_main.h); clang names
// file 0 only through an explicit DW_LNS_set_file 0. libdwarf does not say which rows kept the
// initial value, so the program is walked once more here, following the file register alone.
// (The fast reader below starts the register at 1 itself.)

typedef struct line_reader {
    const uint8_t *p, *end;
    int big_endian;
    int bad;
} line_reader;

static uint64_t line_fixed(line_reader *r, unsigned size) {
    if ((size_t)(r->end - r->p) < size) {
        r->bad = 1;
        return 0;
    }
    uint64_t value = 0;
    for (unsigned i = 0; i < size; i++) {
        unsigned shift = r->big_endian ? 8 * (size - 1 - i) : 8 * i;
        value |= (uint64_t)r->p[i] << shift;
    }
    r->p += size;
    return value;
}

static uint64_t line_uleb(line_reader *r) {
    uint64_t value = 0;
    unsigned shift = 0;
    for (;;) {
        if (r->p >= r->end) {
            r->bad = 1;
            return 0;
        }
        uint8_t byte = *r->p++;
        if (shift < 64) value |= (uint64_t)(byte & 0x7f) << shift;
        shift += 7;
        if (!(byte & 0x80)) return value;
    }
}

#define FILE_REGISTER_INITIAL (-1)

static const cdw_section *find_section(const cdw_object *o, const char *name) {
    for (uint32_t i = 1; i < o->section_count; i++) {
        if (o->sections[i].name && strcmp(o->sections[i].name, name) == 0) return &o->sections[i];
    }
    return NULL;
}

// The file register at each row of the line program at `offset` in .debug_line, in row order:
// FILE_REGISTER_INITIAL where it still holds its initial value. NULL (with *count 0) when the
// program cannot be walked; malloc'ed otherwise.
static int64_t *file_registers(const cdw_object *o, uint64_t offset, uint64_t *count) {
    *count = 0;
    const cdw_section *section = find_section(o, ".debug_line");
    if (!section || !section->data || offset >= section->size) return NULL;
    line_reader r = {section->data + offset, section->data + section->size, o->big_endian, 0};
    unsigned offset_size = 4;
    uint64_t length = line_fixed(&r, 4);
    if (length == 0xffffffff) {
        offset_size = 8;
        length = line_fixed(&r, 8);
    } else if (length >= 0xfffffff0) {
        return NULL;
    }
    if (r.bad || length > (uint64_t)(r.end - r.p)) return NULL;
    r.end = r.p + length;
    uint64_t version = line_fixed(&r, 2);
    if (version >= 5) line_fixed(&r, 2);  // address_size, segment_selector_size
    uint64_t header_length = line_fixed(&r, offset_size);
    if (r.bad || header_length > (uint64_t)(r.end - r.p)) return NULL;
    const uint8_t *program = r.p + header_length;
    line_fixed(&r, version >= 4 ? 5 : 4);  // minimum_instruction_length .. line_range
    unsigned opcode_base = (unsigned)line_fixed(&r, 1);
    const uint8_t *operand_counts = r.p;  // standard_opcode_lengths
    if (r.bad || opcode_base == 0 || program < r.p || (uint64_t)(program - r.p) < opcode_base - 1)
        return NULL;
    r.p = program;

    uint64_t capacity = 1024, rows = 0;
    int64_t *files = malloc(capacity * sizeof(int64_t));
    if (!files) return NULL;
    int64_t file = FILE_REGISTER_INITIAL;
    while (r.p < r.end && !r.bad) {
        unsigned opcode = *r.p++;
        int row = 0;
        if (opcode >= opcode_base) {
            row = 1;  // special opcode
        } else if (opcode == 0) {
            uint64_t size = line_uleb(&r);
            if (r.bad || size > (uint64_t)(r.end - r.p)) {
                r.bad = 1;
                break;
            }
            if (size > 0 && r.p[0] == DW_LNE_end_sequence) row = 2;
            r.p += size;
        } else if (opcode == DW_LNS_copy) {
            row = 1;
        } else if (opcode == DW_LNS_set_file) {
            file = (int64_t)(line_uleb(&r) & INT64_MAX);
        } else if (opcode == DW_LNS_fixed_advance_pc) {
            line_fixed(&r, 2);
        } else {
            for (unsigned i = 0; i < operand_counts[opcode - 1]; i++) line_uleb(&r);
        }
        if (!row || r.bad) continue;
        if (rows == capacity) {
            int64_t *grown = realloc(files, 2 * capacity * sizeof(int64_t));
            if (!grown) {
                r.bad = 1;
                break;
            }
            files = grown;
            capacity *= 2;
        }
        files[rows++] = file;
        if (row == 2) file = FILE_REGISTER_INITIAL;
    }
    if (r.bad) {
        free(files);
        return NULL;
    }
    *count = rows;
    return files;
}

// Gives rows whose file register kept its initial value file 1, as DWARF 5 says, when the walk
// above agrees with libdwarf on every other row (else the rows stay as libdwarf read them).
static void fix_initial_files(walker *w, Dwarf_Die unit_die, Dwarf_Unsigned *files,
                              Dwarf_Signed count) {
    Dwarf_Error error = NULL;
    Dwarf_Attribute attribute = NULL;
    if (dwarf_attr(unit_die, DW_AT_stmt_list, &attribute, &error) != DW_DLV_OK) {
        if (error) dwarf_dealloc(w->dbg, error, DW_DLA_ERROR);
        return;
    }
    Dwarf_Off offset = 0;
    int res = dwarf_global_formref(attribute, &offset, &error);
    dwarf_dealloc(w->dbg, attribute, DW_DLA_ATTR);
    if (res != DW_DLV_OK) {
        if (error) dwarf_dealloc(w->dbg, error, DW_DLA_ERROR);
        return;
    }
    uint64_t walked = 0;
    int64_t *registers = file_registers(w->object, offset, &walked);
    if (!registers) return;
    int agree = walked == (uint64_t)count;
    for (Dwarf_Signed i = 0; agree && i < count; i++) {
        agree = registers[i] == FILE_REGISTER_INITIAL ? files[i] == 0
                                                      : files[i] == (Dwarf_Unsigned)registers[i];
    }
    for (Dwarf_Signed i = 0; agree && i < count; i++) {
        if (registers[i] == FILE_REGISTER_INITIAL) files[i] = 1;
    }
    free(registers);
}

// MARK: - Line tables through libdwarf

static int read_lines(walker *w, Dwarf_Die unit_die, Dwarf_Line_Context context,
                      Dwarf_Unsigned line_version, Dwarf_Error *error) {
    Dwarf_Line *lines = NULL;
    Dwarf_Signed count = 0;
    int res = dwarf_srclines_from_linecontext(context, &lines, &count, error);
    if (res != DW_DLV_OK || count <= 0) return res;
    Dwarf_Unsigned *files = malloc((size_t)count * sizeof(Dwarf_Unsigned));
    if (!files) return DW_DLV_ERROR;
    sink *s = w->s;
    uint64_t first_row = s->r.row_count;
    for (Dwarf_Signed i = 0; i < count; i++) {
        cdw_row row;
        memset(&row, 0, sizeof(row));
        Dwarf_Addr address = 0;
        Dwarf_Unsigned number = 0, column = 0;
        Dwarf_Bool end = 0, prologue_end = 0, epilogue_begin = 0;
        Dwarf_Unsigned isa = 0, discriminator = 0;
        if (dwarf_lineaddr(lines[i], &address, error) != DW_DLV_OK ||
            dwarf_lineno(lines[i], &number, error) != DW_DLV_OK ||
            dwarf_line_srcfileno(lines[i], &files[i], error) != DW_DLV_OK ||
            dwarf_lineoff_b(lines[i], &column, error) != DW_DLV_OK ||
            dwarf_lineendsequence(lines[i], &end, error) != DW_DLV_OK ||
            dwarf_prologue_end_etc(lines[i], &prologue_end, &epilogue_begin, &isa, &discriminator,
                                   error) != DW_DLV_OK) {
            res = DW_DLV_ERROR;
            break;
        }
        // libdwarf 20210528 copies the epilogue_begin flag into end_sequence on rows made
        // by standard and special opcodes; a real DW_LNE_end_sequence row has no epilogue flag.
        if (epilogue_begin) end = 0;
        row.address = address;
        row.line = (uint32_t)number;
        row.column = (uint32_t)column;
        row.end_sequence = end ? 1 : 0;
        if (s->r.row_count == s->row_capacity && grow_rows(s) != 0) {
            res = DW_DLV_ERROR;
            break;
        }
        s->r.rows[s->r.row_count++] = row;
    }
    if (res == DW_DLV_OK) {
        if (line_version == 5) fix_initial_files(w, unit_die, files, count);
        for (Dwarf_Signed i = 0; i < count; i++) {
            s->r.rows[first_row + (uint64_t)i].file =
                files[i] < w->unit_file_count ? w->unit_first_file + (uint32_t)files[i] : 0;
        }
    }
    free(files);
    return res;
}

// Copies the unit's line-table file list into `files` so that `first_file + DW_AT_call_file`
// (and `+ row file number`) index it for any DWARF version, with what joining the names takes:
// the include directories and DW_AT_comp_dir. Nothing is joined here.
static int read_file_table(walker *w, Dwarf_Die unit_die, Dwarf_Line_Context context,
                           Dwarf_Unsigned line_version, Dwarf_Error *error) {
    sink *s = w->s;
    cdw_unit unit;
    memset(&unit, 0, sizeof(unit));
    unit.line_version = (uint32_t)line_version;
    Dwarf_Attribute attribute = NULL;
    int res = dwarf_attr(unit_die, DW_AT_comp_dir, &attribute, error);
    if (res == DW_DLV_ERROR) return res;
    if (res == DW_DLV_OK) {
        char *text = NULL;
        res = dwarf_formstring(attribute, &text, error);
        int64_t string = res == DW_DLV_OK ? add_string(s, text) : 0;
        dwarf_dealloc(w->dbg, attribute, DW_DLA_ATTR);
        if (res == DW_DLV_ERROR) return res;
        if (string < 0) return DW_DLV_ERROR;
        unit.comp_dir = (uint32_t)string;
    }

    // include_directories: DWARF 5 numbers them from 0 (0 is the compilation directory),
    // DWARF 2-4 from 1; libdwarf takes each version's own numbering.
    Dwarf_Signed directory_count = 0;
    if (dwarf_srclines_include_dir_count(context, &directory_count, error) != DW_DLV_OK)
        return DW_DLV_ERROR;
    Dwarf_Signed first_directory = line_version >= 5 ? 0 : 1;
    unit.first_directory = (uint32_t)s->r.directory_count;
    for (Dwarf_Signed i = first_directory; i < first_directory + directory_count; i++) {
        const char *name = NULL;
        res = dwarf_srclines_include_dir_data(context, i, &name, error);
        if (res == DW_DLV_ERROR) return res;
        int64_t string = res == DW_DLV_OK ? add_string(s, name) : 0;
        if (string < 0 || add_directory(s, (uint32_t)string) != 0) return DW_DLV_ERROR;
    }
    unit.directory_count = (uint32_t)(s->r.directory_count - unit.first_directory);
    uint32_t unit_index = (uint32_t)s->r.unit_count;
    if (add_unit(s, unit) != 0) return DW_DLV_ERROR;

    // File names: 1 through count in DWARF 2-4 (a placeholder stands for 0), 0 through
    // count - 1 in DWARF 5.
    Dwarf_Signed base = 0, count = 0, end = 0;
    if (dwarf_srclines_files_indexes(context, &base, &count, &end, error) != DW_DLV_OK)
        return DW_DLV_ERROR;
    for (Dwarf_Signed i = 0; i < base; i++) {
        if (add_file(s, 0, 0, unit_index) != 0) return DW_DLV_ERROR;
    }
    for (Dwarf_Signed i = base; i < end; i++) {
        const char *name = NULL;
        Dwarf_Unsigned directory = 0, modification_time = 0, length = 0;
        Dwarf_Form_Data16 *md5 = NULL;
        res = dwarf_srclines_files_data_b(context, i, &name, &directory, &modification_time,
                                          &length, &md5, error);
        if (res == DW_DLV_ERROR) return res;
        int64_t string = res == DW_DLV_OK ? add_string(s, name) : 0;
        if (string < 0) return DW_DLV_ERROR;
        uint32_t recorded = directory > UINT32_MAX ? UINT32_MAX : (uint32_t)directory;
        if (add_file(s, (uint32_t)string, recorded, unit_index) != 0) return DW_DLV_ERROR;
    }
    w->unit_file_count = (uint32_t)(s->r.file_count - w->unit_first_file);
    return DW_DLV_OK;
}

// The unit's file table and line rows.
static int libdwarf_unit_lines(walker *w, Dwarf_Die unit_die, Dwarf_Error *error) {
    w->unit_first_file = (uint32_t)w->s->r.file_count;
    w->unit_file_count = 0;
    Dwarf_Unsigned line_version = 0;
    Dwarf_Small table_count = 0;
    Dwarf_Line_Context context = 0;
    int res = dwarf_srclines_b(unit_die, &line_version, &table_count, &context, error);
    if (res != DW_DLV_OK) return res == DW_DLV_NO_ENTRY ? DW_DLV_OK : res;
    res = read_file_table(w, unit_die, context, line_version, error);
    if (res != DW_DLV_ERROR) res = read_lines(w, unit_die, context, line_version, error);
    dwarf_srclines_dealloc_b(context);
    return res == DW_DLV_ERROR ? res : DW_DLV_OK;
}

// The unit's function entries and their ranges.
static int libdwarf_unit_functions(walker *w, Dwarf_Die unit_die, uint16_t version,
                                   Dwarf_Error *error) {
    w->version = version;
    Dwarf_Addr base = 0;
    int res = dwarf_lowpc(unit_die, &base, error);
    if (res == DW_DLV_ERROR) {  // no usable base: range lists then hold absolute addresses
        dwarf_dealloc(w->dbg, *error, DW_DLA_ERROR);
        *error = NULL;
    }
    w->unit_base = res == DW_DLV_OK ? base : 0;
    return walk_children(w, unit_die, -1, 0, error);
}

// MARK: - The fast reader
//
// Reads .debug_info, .debug_line and the range lists straight from the section bytes:
// abbreviations decoded once per table, the attributes of DIEs that are not functions skipped
// by size (or by DW_AT_sibling with their children), nothing allocated per DIE or per row.
// What it does not know (an unknown form, a split-DWARF or supplementary-file form, an
// attribute in a form it does not expect, DW_LNE_define_file, VLIW line tables) makes it give
// the unit's task back to libdwarf, so the two readers differ only in speed. Damage (a value
// or an offset out of bounds, an unknown abbreviation code, a truncated unit) fails the task
// without libdwarf, which does not survive all of it (a damaged .debug_rnglists crashes
// libdwarf 20210528's dwarf_rnglists_get_rle_head).

// What the fast reader's functions return.
enum {
    FAST_OK = 0,
    FAST_UNSUPPORTED = 1,  // for libdwarf
    FAST_DAMAGED = 2,
    FAST_NO_MEMORY = -1,
};

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the fast DWARF reader assumes a little-endian host"
#endif

typedef struct span {
    const uint8_t *data;
    uint64_t size;
} span;

typedef struct dwarf_sections {
    span info, abbrev, str, line_str, str_offsets, addr, ranges, rnglists, line;
} dwarf_sections;

// Finds the sections the fast reader reads; 0 when they are all there at most once and
// .debug_info and .debug_abbrev are present.
static int find_dwarf_sections(const cdw_object *o, dwarf_sections *out) {
    static const char *const names[] = {
        ".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str", ".debug_str_offsets",
        ".debug_addr", ".debug_ranges", ".debug_rnglists", ".debug_line",
    };
    span *spans[] = {&out->info,        &out->abbrev, &out->str,
                     &out->line_str,    &out->str_offsets, &out->addr,
                     &out->ranges,      &out->rnglists, &out->line};
    memset(out, 0, sizeof(*out));
    for (unsigned k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
        for (uint32_t i = 1; i < o->section_count; i++) {
            const cdw_section *s = &o->sections[i];
            if (!s->name || strcmp(s->name, names[k]) != 0) continue;
            if (spans[k]->data) return -1;  // twice: COMDAT groups and the like, for libdwarf
            spans[k]->data = s->data;
            spans[k]->size = s->data ? s->size : 0;
        }
    }
    return out->info.data && out->abbrev.data ? 0 : -1;
}

typedef struct cursor {
    const uint8_t *p, *end;
    int big_endian;
    int bad;
} cursor;

static inline uint64_t get_fixed(cursor *c, unsigned size) {
    if ((size_t)(c->end - c->p) < size) {
        c->bad = 1;
        c->p = c->end;
        return 0;
    }
    uint64_t value = 0;
    if (!c->big_endian) {
        switch (size) {
        case 1: value = c->p[0]; break;
        case 2: { uint16_t v; memcpy(&v, c->p, 2); value = v; break; }
        case 4: { uint32_t v; memcpy(&v, c->p, 4); value = v; break; }
        case 8: memcpy(&value, c->p, 8); break;
        default:
            for (unsigned i = 0; i < size; i++) value |= (uint64_t)c->p[i] << (8 * i);
        }
    } else {
        for (unsigned i = 0; i < size; i++) value = (value << 8) | c->p[i];
    }
    c->p += size;
    return value;
}

static inline uint64_t get_uleb(cursor *c) {
    if (c->p < c->end && !(*c->p & 0x80)) return *c->p++;
    uint64_t value = 0;
    unsigned shift = 0;
    while (c->p < c->end) {
        uint8_t byte = *c->p++;
        if (shift < 64) value |= (uint64_t)(byte & 0x7f) << shift;
        shift += 7;
        if (!(byte & 0x80)) return value;
    }
    c->bad = 1;
    return 0;
}

static inline int64_t get_sleb(cursor *c) {
    uint64_t value = 0;
    unsigned shift = 0;
    uint8_t byte = 0;
    do {
        if (c->p >= c->end) {
            c->bad = 1;
            return 0;
        }
        byte = *c->p++;
        if (shift < 64) value |= (uint64_t)(byte & 0x7f) << shift;
        shift += 7;
    } while (byte & 0x80);
    if (shift < 64 && (byte & 0x40)) value |= ~(uint64_t)0 << shift;
    return (int64_t)value;
}

static inline void skip_bytes(cursor *c, uint64_t size) {
    if ((uint64_t)(c->end - c->p) < size) {
        c->bad = 1;
        c->p = c->end;
    } else {
        c->p += size;
    }
}

static inline void skip_leb(cursor *c) {
    while (c->p < c->end) {
        if (!(*c->p++ & 0x80)) return;
    }
    c->bad = 1;
}

static inline void skip_cstring(cursor *c) {
    const uint8_t *nul = memchr(c->p, 0, (size_t)(c->end - c->p));
    if (!nul) {
        c->bad = 1;
        c->p = c->end;
    } else {
        c->p = nul + 1;
    }
}

// A NUL-terminated string at `offset` in `s`, or NULL.
static inline const char *section_string(const span *s, uint64_t offset) {
    if (!s->data || offset >= s->size) return NULL;
    const char *text = (const char *)s->data + offset;
    // A section that ends with a NUL holds one after every offset.
    if (s->data[s->size - 1] == 0) return text;
    return memchr(text, 0, (size_t)(s->size - offset)) ? text : NULL;
}

// MARK: Units

typedef struct unit_header {
    uint64_t offset;         // of the unit header in .debug_info
    uint64_t end;            // one past the unit
    uint64_t die_offset;     // of the unit DIE
    uint64_t abbrev_offset;
    uint16_t version;
    uint8_t unit_type, address_size, offset_size;
} unit_header;

// The unit headers of .debug_info, in order. Stops at the first header it cannot read, with a
// message (CDW_PARTIAL); units before it are returned.
static int scan_units(const dwarf_sections *sections, int big_endian, unit_header **out,
                      uint32_t *out_count, char *message, size_t message_size) {
    *out = NULL;
    *out_count = 0;
    uint32_t count = 0, capacity = 0;
    unit_header *units = NULL;
    uint64_t offset = 0;
    const span *info = &sections->info;
    int status = CDW_OK;
    while (offset < info->size) {
        cursor c = {info->data + offset, info->data + info->size, big_endian, 0};
        unit_header h;
        memset(&h, 0, sizeof(h));
        h.offset = offset;
        uint64_t length = get_fixed(&c, 4);
        h.offset_size = 4;
        if (length == 0xffffffff) {
            h.offset_size = 8;
            length = get_fixed(&c, 8);
        } else if (length >= 0xfffffff0) {
            c.bad = 1;
        }
        const char *why = NULL;
        if (c.bad || length > (uint64_t)(c.end - c.p) || length < 2) {
            why = "unit length runs past .debug_info";
        } else {
            h.end = (uint64_t)(c.p - info->data) + length;
            c.end = c.p + length;
            h.version = (uint16_t)get_fixed(&c, 2);
            if (h.version < 2 || h.version > 5) {
                why = "unknown unit version";
            } else if (h.version >= 5) {
                h.unit_type = (uint8_t)get_fixed(&c, 1);
                h.address_size = (uint8_t)get_fixed(&c, 1);
                h.abbrev_offset = get_fixed(&c, h.offset_size);
                if (h.unit_type == DW_UT_skeleton || h.unit_type == DW_UT_split_compile) {
                    skip_bytes(&c, 8);  // dwo_id
                } else if (h.unit_type == DW_UT_type || h.unit_type == DW_UT_split_type) {
                    skip_bytes(&c, 8 + h.offset_size);  // type_signature, type_offset
                } else if (h.unit_type != DW_UT_compile && h.unit_type != DW_UT_partial) {
                    why = "unknown unit type";
                }
            } else {
                h.unit_type = DW_UT_compile;
                h.abbrev_offset = get_fixed(&c, h.offset_size);
                h.address_size = (uint8_t)get_fixed(&c, 1);
            }
            if (!why && c.bad) why = "unit header runs past the unit";
            if (!why && h.address_size != 2 && h.address_size != 4 && h.address_size != 8)
                why = "unusable address size";
            h.die_offset = (uint64_t)(c.p - info->data);
        }
        if (why) {
            // Zeros after the last unit are padding (some linkers align sections so).
            const uint8_t *rest = info->data + offset, *end = info->data + info->size;
            while (rest < end && *rest == 0) rest++;
            if (rest == end) break;
            set_message(message, message_size, "compile unit header at 0x%llx: %s",
                        (unsigned long long)offset, why);
            status = CDW_PARTIAL;
            break;
        }
        if (count == capacity) {
            uint32_t next = capacity ? capacity * 2 : 64;
            unit_header *grown = realloc(units, next * sizeof(*units));
            if (!grown) {
                free(units);
                set_message(message, message_size, "out of memory");
                return CDW_ERROR;
            }
            units = grown;
            capacity = next;
        }
        units[count++] = h;
        offset = h.end;
    }
    *out = units;
    *out_count = count;
    return status;
}

// MARK: Abbreviations

typedef struct attr_spec {
    uint32_t at;
    uint16_t form;
    int16_t size;  // of the value when fixed, else -1
    int64_t implicit_const;
} attr_spec;

enum { KIND_FUNCTION = 1, KIND_HOLDS_FUNCTIONS = 2 };

typedef struct abbrev {
    uint64_t code;
    uint64_t tag;
    uint32_t first_spec, spec_count;
    uint8_t children;
    uint8_t kind;
    uint16_t sibling_form;
    int32_t fixed_size;  // of all the attribute values when every one is fixed, else -1
    int32_t sibling_at;  // where the DW_AT_sibling value starts when the values before it are fixed, else -1
} abbrev;

typedef struct abbrev_table {
    int valid;
    uint64_t offset;
    uint16_t version;
    uint8_t address_size, offset_size;
    abbrev *abbrevs;
    uint32_t count, capacity;
    attr_spec *specs;
    uint32_t spec_count, spec_capacity;
    uint32_t *by_code;  // code -> index + 1, for codes below by_code_size
    uint32_t by_code_size, by_code_capacity;
} abbrev_table;

static void abbrev_table_free(abbrev_table *t) {
    free(t->abbrevs);
    free(t->specs);
    free(t->by_code);
    memset(t, 0, sizeof(*t));
}

// The size of a value of `form` when it does not depend on the value: -1 when it does, -2 for
// a form this reader does not know.
static int form_size(unsigned form, uint16_t version, uint8_t address_size, uint8_t offset_size) {
    switch (form) {
    case DW_FORM_addr: return address_size;
    case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
    case DW_FORM_addrx1:
        return 1;
    case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
        return 2;
    case DW_FORM_strx3: case DW_FORM_addrx3:
        return 3;
    case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4:
    case DW_FORM_ref_sup4:
        return 4;
    case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
        return 8;
    case DW_FORM_data16: return 16;
    case DW_FORM_strp: case DW_FORM_sec_offset: case DW_FORM_line_strp: case DW_FORM_strp_sup:
    case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
        return offset_size;
    case DW_FORM_ref_addr: return version <= 2 ? address_size : offset_size;
    case DW_FORM_flag_present: case DW_FORM_implicit_const: return 0;
    case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4: case DW_FORM_block:
    case DW_FORM_exprloc: case DW_FORM_string: case DW_FORM_sdata: case DW_FORM_udata:
    case DW_FORM_ref_udata: case DW_FORM_indirect: case DW_FORM_strx: case DW_FORM_addrx:
    case DW_FORM_loclistx: case DW_FORM_rnglistx: case DW_FORM_GNU_addr_index:
    case DW_FORM_GNU_str_index:
        return -1;
    default:
        return -2;
    }
}

static inline const abbrev *find_abbrev(const abbrev_table *t, uint64_t code) {
    if (code < t->by_code_size) {
        uint32_t i = t->by_code[code];
        return i ? &t->abbrevs[i - 1] : NULL;
    }
    for (uint32_t i = 0; i < t->count; i++) {
        if (t->abbrevs[i].code == code) return &t->abbrevs[i];
    }
    return NULL;
}

// Decodes the abbreviation table `h` uses into `t`, unless `t` holds it already.
static int load_abbrevs(abbrev_table *t, const dwarf_sections *sections, int big_endian,
                        const unit_header *h) {
    if (t->valid && t->offset == h->abbrev_offset && t->version == h->version &&
        t->address_size == h->address_size && t->offset_size == h->offset_size)
        return 0;
    t->valid = 0;
    t->count = 0;
    t->spec_count = 0;
    t->by_code_size = 0;
    if (h->abbrev_offset >= sections->abbrev.size) return FAST_DAMAGED;
    cursor c = {sections->abbrev.data + h->abbrev_offset,
                sections->abbrev.data + sections->abbrev.size, big_endian, 0};
    uint64_t max_code = 0;
    for (;;) {
        uint64_t code = get_uleb(&c);
        if (c.bad) return FAST_DAMAGED;
        if (code == 0) break;
        abbrev a;
        memset(&a, 0, sizeof(a));
        a.code = code;
        a.tag = get_uleb(&c);
        a.children = (uint8_t)get_fixed(&c, 1);
        if (a.tag == DW_TAG_subprogram || a.tag == DW_TAG_inlined_subroutine) a.kind |= KIND_FUNCTION;
        if (may_hold_functions(a.tag)) a.kind |= KIND_HOLDS_FUNCTIONS;
        a.first_spec = t->spec_count;
        a.sibling_at = -1;
        int64_t running = 0;  // offset of the next value while every value so far is fixed
        for (;;) {
            uint64_t at = get_uleb(&c), form = get_uleb(&c);
            if (c.bad) return FAST_DAMAGED;
            if (at == 0 && form == 0) break;
            attr_spec spec;
            memset(&spec, 0, sizeof(spec));
            if (at > UINT32_MAX || form > UINT16_MAX) return FAST_UNSUPPORTED;
            spec.at = (uint32_t)at;
            spec.form = (uint16_t)form;
            if (form == DW_FORM_implicit_const) spec.implicit_const = get_sleb(&c);
            int size = form_size((unsigned)form, h->version, h->address_size, h->offset_size);
            if (size == -2) return FAST_UNSUPPORTED;
            spec.size = (int16_t)size;
            if (at == DW_AT_sibling && running >= 0 && a.sibling_at < 0 && running < INT32_MAX) {
                a.sibling_at = (int32_t)running;
                a.sibling_form = (uint16_t)form;
            }
            if (running >= 0) running = size >= 0 ? running + size : -1;
            if (t->spec_count == t->spec_capacity) {
                uint32_t next = t->spec_capacity ? t->spec_capacity * 2 : 256;
                attr_spec *grown = realloc(t->specs, next * sizeof(*grown));
                if (!grown) return FAST_NO_MEMORY;
                t->specs = grown;
                t->spec_capacity = next;
            }
            t->specs[t->spec_count++] = spec;
            a.spec_count++;
        }
        a.fixed_size = running >= 0 && running < INT32_MAX ? (int32_t)running : -1;
        if (t->count == t->capacity) {
            uint32_t next = t->capacity ? t->capacity * 2 : 64;
            abbrev *grown = realloc(t->abbrevs, next * sizeof(*grown));
            if (!grown) return FAST_NO_MEMORY;
            t->abbrevs = grown;
            t->capacity = next;
        }
        t->abbrevs[t->count++] = a;
        if (code > max_code) max_code = code;
    }
    // Codes are small and dense in practice: index them directly (others are searched).
    uint64_t size = max_code < 65536 ? max_code + 1 : 65536;
    if (size > t->by_code_capacity) {
        uint32_t *grown = realloc(t->by_code, size * sizeof(uint32_t));
        if (!grown) return FAST_NO_MEMORY;
        t->by_code = grown;
        t->by_code_capacity = (uint32_t)size;
    }
    memset(t->by_code, 0, size * sizeof(uint32_t));
    // The first definition of a code wins, as in a linear search.
    for (uint32_t i = t->count; i-- > 0;) {
        if (t->abbrevs[i].code < size) t->by_code[t->abbrevs[i].code] = i + 1;
    }
    t->by_code_size = (uint32_t)size;
    t->offset = h->abbrev_offset;
    t->version = h->version;
    t->address_size = h->address_size;
    t->offset_size = h->offset_size;
    t->valid = 1;
    return FAST_OK;
}

// MARK: Attribute values

typedef struct unit_ctx {
    const dwarf_sections *sections;
    const unit_header *h;
    int big_endian;
    uint16_t version;
    uint8_t address_size, offset_size;
    uint64_t base;  // DW_AT_low_pc of the unit DIE, 0 without
    uint64_t str_offsets_base, addr_base, rnglists_base, stmt_list;
    uint8_t has_str_offsets_base, has_addr_base, has_rnglists_base, has_stmt_list;
    const char *comp_dir;
    uint8_t comp_dir_inline;  // DW_FORM_string: not worth interning
} unit_ctx;

typedef struct value {
    unsigned form;
    uint64_t u;
    const uint8_t *data;  // DW_FORM_string: the string
} value;

static inline void skip_value(cursor *c, unsigned form, const unit_ctx *u) {
    switch (form) {
    case DW_FORM_block1: skip_bytes(c, get_fixed(c, 1)); return;
    case DW_FORM_block2: skip_bytes(c, get_fixed(c, 2)); return;
    case DW_FORM_block4: skip_bytes(c, get_fixed(c, 4)); return;
    case DW_FORM_block: case DW_FORM_exprloc: skip_bytes(c, get_uleb(c)); return;
    case DW_FORM_string: skip_cstring(c); return;
    case DW_FORM_sdata: case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx:
    case DW_FORM_addrx: case DW_FORM_loclistx: case DW_FORM_rnglistx:
    case DW_FORM_GNU_addr_index: case DW_FORM_GNU_str_index:
        skip_leb(c);
        return;
    case DW_FORM_indirect: {
        uint64_t actual = get_uleb(c);
        if (actual == DW_FORM_indirect || actual == DW_FORM_implicit_const || actual > UINT16_MAX) {
            c->bad = 1;
            return;
        }
        skip_value(c, (unsigned)actual, u);
        return;
    }
    default: {
        int size = form_size(form, u->version, u->address_size, u->offset_size);
        if (size < 0) c->bad = 1;
        else skip_bytes(c, (uint64_t)size);
        return;
    }
    }
}

static inline void read_value(cursor *c, unsigned form, int64_t implicit_const,
                              const unit_ctx *u, value *v) {
    if (form == DW_FORM_indirect) {
        uint64_t actual = get_uleb(c);
        if (actual == DW_FORM_indirect || actual == DW_FORM_implicit_const || actual > UINT16_MAX) {
            c->bad = 1;
            return;
        }
        form = (unsigned)actual;
    }
    v->form = form;
    v->data = NULL;
    switch (form) {
    case DW_FORM_addr: v->u = get_fixed(c, u->address_size); return;
    case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
    case DW_FORM_addrx1:
        v->u = get_fixed(c, 1);
        return;
    case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
        v->u = get_fixed(c, 2);
        return;
    case DW_FORM_strx3: case DW_FORM_addrx3: v->u = get_fixed(c, 3); return;
    case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4:
    case DW_FORM_ref_sup4:
        v->u = get_fixed(c, 4);
        return;
    case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
        v->u = get_fixed(c, 8);
        return;
    case DW_FORM_strp: case DW_FORM_sec_offset: case DW_FORM_line_strp: case DW_FORM_strp_sup:
    case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
        v->u = get_fixed(c, u->offset_size);
        return;
    case DW_FORM_ref_addr:
        v->u = get_fixed(c, u->version <= 2 ? u->address_size : u->offset_size);
        return;
    case DW_FORM_flag_present: v->u = 1; return;
    case DW_FORM_implicit_const: v->u = (uint64_t)implicit_const; return;
    case DW_FORM_sdata: v->u = (uint64_t)get_sleb(c); return;
    case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx: case DW_FORM_addrx:
    case DW_FORM_loclistx: case DW_FORM_rnglistx: case DW_FORM_GNU_addr_index:
    case DW_FORM_GNU_str_index:
        v->u = get_uleb(c);
        return;
    case DW_FORM_string:
        v->data = c->p;
        skip_cstring(c);
        return;
    default:
        skip_value(c, form, u);  // blocks, data16: read as nothing
        v->u = 0;
        return;
    }
}

// The string a value names. FAST_UNSUPPORTED for forms this reader does not take.
static inline int value_string(const unit_ctx *u, const value *v, const char **out) {
    const dwarf_sections *s = u->sections;
    switch (v->form) {
    case DW_FORM_string: *out = (const char *)v->data; break;
    case DW_FORM_strp: *out = section_string(&s->str, v->u); break;
    case DW_FORM_line_strp: *out = section_string(&s->line_str, v->u); break;
    case DW_FORM_strx: case DW_FORM_strx1: case DW_FORM_strx2: case DW_FORM_strx3:
    case DW_FORM_strx4: {
        if (!u->has_str_offsets_base || !s->str_offsets.data) return FAST_UNSUPPORTED;
        uint64_t size = u->offset_size;
        if (v->u > (UINT64_MAX - u->str_offsets_base) / size) return FAST_DAMAGED;
        uint64_t at = u->str_offsets_base + v->u * size;
        if (at > s->str_offsets.size || s->str_offsets.size - at < size) return FAST_DAMAGED;
        cursor c = {s->str_offsets.data + at, s->str_offsets.data + s->str_offsets.size,
                    u->big_endian, 0};
        *out = section_string(&s->str, get_fixed(&c, (unsigned)size));
        break;
    }
    default:
        return FAST_UNSUPPORTED;
    }
    return *out ? FAST_OK : FAST_DAMAGED;
}

// Entry `index` of the unit's .debug_addr table.
static inline int indexed_address(const unit_ctx *u, uint64_t index, uint64_t *out) {
    const span *addr = &u->sections->addr;
    if (!u->has_addr_base || !addr->data) return FAST_UNSUPPORTED;
    uint64_t size = u->address_size;
    if (index > (UINT64_MAX - u->addr_base) / size) return FAST_DAMAGED;
    uint64_t at = u->addr_base + index * size;
    if (at > addr->size || addr->size - at < size) return FAST_DAMAGED;
    cursor c = {addr->data + at, addr->data + addr->size, u->big_endian, 0};
    *out = get_fixed(&c, (unsigned)size);
    return FAST_OK;
}

static inline int value_address(const unit_ctx *u, const value *v, uint64_t *out) {
    switch (v->form) {
    case DW_FORM_addr: *out = v->u; return FAST_OK;
    case DW_FORM_addrx: case DW_FORM_addrx1: case DW_FORM_addrx2: case DW_FORM_addrx3:
    case DW_FORM_addrx4:
        return indexed_address(u, v->u, out);
    default:
        return FAST_UNSUPPORTED;
    }
}

// A reference as a .debug_info offset.
static inline int value_reference(const unit_ctx *u, const value *v, uint64_t *out) {
    switch (v->form) {
    case DW_FORM_ref1: case DW_FORM_ref2: case DW_FORM_ref4: case DW_FORM_ref8:
    case DW_FORM_ref_udata:
        *out = u->h->offset + v->u;
        return FAST_OK;
    case DW_FORM_ref_addr:
        *out = v->u;
        return FAST_OK;
    default:
        return FAST_UNSUPPORTED;
    }
}

// A constant as libdwarf's dwarf_formudata (and dwarf_formsdata for implicit_const) reads it.
static inline int value_unsigned(const value *v, uint64_t *out) {
    switch (v->form) {
    case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8:
    case DW_FORM_udata: case DW_FORM_implicit_const:
        *out = v->u;
        return FAST_OK;
    default:
        return FAST_UNSUPPORTED;
    }
}

// A section offset (DW_AT_stmt_list, DW_AT_ranges before DWARF 5, the *_base attributes).
static inline int value_offset(const value *v, uint64_t *out) {
    switch (v->form) {
    case DW_FORM_sec_offset: case DW_FORM_data4: case DW_FORM_data8:
        *out = v->u;
        return FAST_OK;
    default:
        return FAST_UNSUPPORTED;
    }
}

// MARK: Unit DIEs

// Reads the unit DIE: the bases its other attributes need, the base address, the line table
// and the compilation directory. Leaves `c` after it and `*unit_abbrev` its abbreviation (NULL
// when the unit has no DIE).
static int read_unit_die(abbrev_table *abbrevs, const dwarf_sections *sections, int big_endian,
                         const unit_header *h, unit_ctx *u, cursor *c,
                         const abbrev **unit_abbrev) {
    memset(u, 0, sizeof(*u));
    u->sections = sections;
    u->h = h;
    u->big_endian = big_endian;
    u->version = h->version;
    u->address_size = h->address_size;
    u->offset_size = h->offset_size;
    *unit_abbrev = NULL;
    int res = load_abbrevs(abbrevs, sections, big_endian, h);
    if (res != 0) return res;
    *c = (cursor){sections->info.data + h->die_offset, sections->info.data + h->end, big_endian, 0};
    if (c->p >= c->end) return FAST_OK;
    uint64_t code = get_uleb(c);
    if (c->bad) return FAST_DAMAGED;
    if (code == 0) return FAST_OK;
    const abbrev *a = find_abbrev(abbrevs, code);
    if (!a) return FAST_DAMAGED;
    value low, comp_dir;
    int have_low = 0, have_comp_dir = 0;
    const attr_spec *specs = &abbrevs->specs[a->first_spec];
    for (uint32_t i = 0; i < a->spec_count; i++) {
        const attr_spec *spec = &specs[i];
        value v;
        switch (spec->at) {
        case DW_AT_low_pc:
            read_value(c, spec->form, spec->implicit_const, u, &low);
            have_low = 1;
            break;
        case DW_AT_comp_dir:
            read_value(c, spec->form, spec->implicit_const, u, &comp_dir);
            have_comp_dir = 1;
            break;
        case DW_AT_str_offsets_base:
            read_value(c, spec->form, spec->implicit_const, u, &v);
            if ((res = value_offset(&v, &u->str_offsets_base)) != FAST_OK) return res;
            u->has_str_offsets_base = 1;
            break;
        case DW_AT_addr_base:
            read_value(c, spec->form, spec->implicit_const, u, &v);
            if ((res = value_offset(&v, &u->addr_base)) != FAST_OK) return res;
            u->has_addr_base = 1;
            break;
        case DW_AT_rnglists_base:
            read_value(c, spec->form, spec->implicit_const, u, &v);
            if ((res = value_offset(&v, &u->rnglists_base)) != FAST_OK) return res;
            u->has_rnglists_base = 1;
            break;
        case DW_AT_stmt_list:
            read_value(c, spec->form, spec->implicit_const, u, &v);
            if ((res = value_offset(&v, &u->stmt_list)) != FAST_OK) return res;
            u->has_stmt_list = 1;
            break;
        case DW_AT_GNU_ranges_base:
        case DW_AT_GNU_addr_base:
            return FAST_UNSUPPORTED;  // split DWARF (GNU): libdwarf's
        default:
            if (spec->size >= 0) skip_bytes(c, (uint64_t)spec->size);
            else skip_value(c, spec->form, u);
            break;
        }
        if (c->bad) return FAST_DAMAGED;
    }
    if (have_low && (res = value_address(u, &low, &u->base)) != FAST_OK) return res;
    if (have_comp_dir) {
        if ((res = value_string(u, &comp_dir, &u->comp_dir)) != FAST_OK) return res;
        u->comp_dir_inline = comp_dir.form == DW_FORM_string;
    }
    *unit_abbrev = a;
    return FAST_OK;
}

// MARK: Functions

// Adds the ranges of a DW_AT_ranges value.
static int read_range_list(sink *s, const unit_ctx *u, const value *v) {
    const dwarf_sections *sections = u->sections;
    uint64_t offset = 0;
    if (u->version >= 5) {
        if (v->form == DW_FORM_rnglistx) {
            const span *lists = &sections->rnglists;
            if (!u->has_rnglists_base || !lists->data) return FAST_UNSUPPORTED;
            uint64_t size = u->offset_size;
            if (v->u > (UINT64_MAX - u->rnglists_base) / size) return FAST_DAMAGED;
            uint64_t at = u->rnglists_base + v->u * size;
            if (at > lists->size || lists->size - at < size) return FAST_DAMAGED;
            cursor c = {lists->data + at, lists->data + lists->size, u->big_endian, 0};
            offset = u->rnglists_base + get_fixed(&c, (unsigned)size);
        } else if (v->form == DW_FORM_sec_offset) {
            offset = v->u;
        } else {
            return FAST_UNSUPPORTED;
        }
        const span *lists = &sections->rnglists;
        if (!lists->data || offset >= lists->size) return FAST_DAMAGED;
        cursor c = {lists->data + offset, lists->data + lists->size, u->big_endian, 0};
        uint64_t base = u->base;
        for (;;) {
            unsigned kind = (unsigned)get_fixed(&c, 1);
            uint64_t low = 0, high = 0;
            int add = 1, res = FAST_OK;
            switch (kind) {
            case DW_RLE_end_of_list:
                if (c.bad) return FAST_DAMAGED;
                note_list_read(s, lists->data + offset, c.p);
                return FAST_OK;
            case DW_RLE_base_addressx:
                res = indexed_address(u, get_uleb(&c), &base);
                add = 0;
                break;
            case DW_RLE_startx_endx:
                res = indexed_address(u, get_uleb(&c), &low);
                if (res == FAST_OK) res = indexed_address(u, get_uleb(&c), &high);
                break;
            case DW_RLE_startx_length:
                res = indexed_address(u, get_uleb(&c), &low);
                high = low + get_uleb(&c);
                break;
            case DW_RLE_offset_pair:
                low = base + get_uleb(&c);
                high = base + get_uleb(&c);
                break;
            case DW_RLE_base_address:
                base = get_fixed(&c, u->address_size);
                add = 0;
                break;
            case DW_RLE_start_end:
                low = get_fixed(&c, u->address_size);
                high = get_fixed(&c, u->address_size);
                break;
            case DW_RLE_start_length:
                low = get_fixed(&c, u->address_size);
                high = low + get_uleb(&c);
                break;
            default:
                return FAST_DAMAGED;
            }
            if (res != FAST_OK) return res;
            if (c.bad) return FAST_DAMAGED;
            if (add && add_range(s, low, high) != 0) return FAST_NO_MEMORY;
        }
    }
    if (value_offset(v, &offset) != FAST_OK) return FAST_UNSUPPORTED;
    const span *ranges = &sections->ranges;
    if (!ranges->data || offset >= ranges->size) return FAST_DAMAGED;
    cursor c = {ranges->data + offset, ranges->data + ranges->size, u->big_endian, 0};
    uint64_t largest = u->address_size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * u->address_size)) - 1;
    uint64_t base = u->base;
    for (;;) {
        uint64_t first = get_fixed(&c, u->address_size), second = get_fixed(&c, u->address_size);
        if (c.bad) return FAST_DAMAGED;
        if (first == 0 && second == 0) {
            note_list_read(s, ranges->data + offset, c.p);
            return FAST_OK;
        }
        if (first == largest) {
            base = second;
        } else if (add_range(s, base + first, base + second) != 0) {
            return FAST_NO_MEMORY;
        }
    }
}

// Reads a subprogram / inlined-subroutine DIE whose code `c` has passed.
static int read_function_fast(sink *s, const abbrev_table *abbrevs, const unit_ctx *u,
                              cursor *c, const abbrev *a, uint64_t offset, int32_t parent) {
    if (s->r.function_count == s->function_capacity && grow_functions(s) != 0)
        return FAST_NO_MEMORY;
    cdw_function f;
    memset(&f, 0, sizeof(f));
    f.offset = offset;
    f.origin = CDW_NO_REFERENCE;
    f.specification = CDW_NO_REFERENCE;
    f.parent = parent;
    f.tag = (uint32_t)a->tag;
    f.call_file = CALL_FILE_NONE;
    f.first_range = (uint32_t)s->r.range_count;
    uint64_t low = 0, high = 0;
    int have_low = 0, have_high = 0, high_is_offset = 0, res = FAST_OK;
    const attr_spec *specs = &abbrevs->specs[a->first_spec];
    for (uint32_t i = 0; i < a->spec_count; i++) {
        const attr_spec *spec = &specs[i];
        value v;
        uint64_t number = 0;
        switch (spec->at) {
        case DW_AT_name:
        case DW_AT_linkage_name:
        case DW_AT_MIPS_linkage_name: {
            read_value(c, spec->form, spec->implicit_const, u, &v);
            if (c->bad) return FAST_DAMAGED;
            const char *text = NULL;
            if ((res = value_string(u, &v, &text)) != FAST_OK) return res;
            int64_t string = v.form == DW_FORM_string ? add_string(s, text)
                                                      : add_section_string(s, text);
            if (string < 0) return FAST_NO_MEMORY;
            if (spec->at == DW_AT_name) f.name = (uint32_t)string;
            else f.linkage_name = (uint32_t)string;
            break;
        }
        case DW_AT_abstract_origin:
        case DW_AT_specification:
            read_value(c, spec->form, spec->implicit_const, u, &v);
            if (c->bad) return FAST_DAMAGED;
            if ((res = value_reference(u, &v, &number)) != FAST_OK) return res;
            if (spec->at == DW_AT_abstract_origin) f.origin = number;
            else f.specification = number;
            break;
        case DW_AT_call_file:
            read_value(c, spec->form, spec->implicit_const, u, &v);
            if (c->bad) return FAST_DAMAGED;
            if ((res = value_unsigned(&v, &number)) != FAST_OK) return res;
            f.call_file = number < CALL_FILE_NONE ? (uint32_t)number : CALL_FILE_NONE;
            break;
        case DW_AT_call_line:
        case DW_AT_call_column:
            read_value(c, spec->form, spec->implicit_const, u, &v);
            if (c->bad) return FAST_DAMAGED;
            if ((res = value_unsigned(&v, &number)) != FAST_OK) return res;
            if (spec->at == DW_AT_call_line) f.call_line = (uint32_t)number;
            else f.call_column = (uint32_t)number;
            break;
        case DW_AT_low_pc:
            read_value(c, spec->form, spec->implicit_const, u, &v);
            if (c->bad) return FAST_DAMAGED;
            if ((res = value_address(u, &v, &low)) != FAST_OK) return res;
            have_low = 1;
            break;
        case DW_AT_high_pc:
            read_value(c, spec->form, spec->implicit_const, u, &v);
            if (c->bad) return FAST_DAMAGED;
            if (value_unsigned(&v, &high) == FAST_OK) {
                high_is_offset = 1;
            } else if ((res = value_address(u, &v, &high)) == FAST_OK) {
                high_is_offset = 0;
            } else {
                return res;
            }
            have_high = 1;
            break;
        case DW_AT_ranges: {
            read_value(c, spec->form, spec->implicit_const, u, &v);
            if (c->bad) return FAST_DAMAGED;
            if ((res = read_range_list(s, u, &v)) != FAST_OK) return res;
            break;
        }
        default:
            if (spec->size >= 0) skip_bytes(c, (uint64_t)spec->size);
            else skip_value(c, spec->form, u);
            break;
        }
        if (c->bad) return FAST_DAMAGED;
    }
    if (have_low && have_high) {
        if (add_range(s, low, high_is_offset ? low + high : high) != 0) return FAST_NO_MEMORY;
    }
    f.range_count = (uint32_t)(s->r.range_count - f.first_range);
    s->r.functions[s->r.function_count++] = f;
    return FAST_OK;
}

// Passes the attributes of a DIE whose code `c` has passed.
static inline void skip_attributes(cursor *c, const abbrev_table *abbrevs, const abbrev *a,
                                   const unit_ctx *u) {
    if (a->fixed_size >= 0) {
        skip_bytes(c, (uint64_t)a->fixed_size);
        return;
    }
    const attr_spec *specs = &abbrevs->specs[a->first_spec];
    for (uint32_t i = 0; i < a->spec_count && !c->bad; i++) {
        if (specs[i].size >= 0) skip_bytes(c, (uint64_t)specs[i].size);
        else skip_value(c, specs[i].form, u);
    }
}

// Moves `c` (just past the code of a DIE with children that starts at `die`) to the DIE's
// next sibling through its DW_AT_sibling, when it has a usable one.
static inline int jump_to_sibling(cursor *c, const abbrev *a, const unit_ctx *u,
                                  const uint8_t *die) {
    if (a->sibling_at < 0) return 0;
    cursor at = {c->p + a->sibling_at, c->end, c->big_endian, 0};
    if (at.p > c->end) return 0;
    value v;
    read_value(&at, a->sibling_form, 0, u, &v);
    uint64_t target = 0;
    if (at.bad || value_reference(u, &v, &target) != 0) return 0;
    const uint8_t *info = u->sections->info.data;
    if (target > u->h->end || info + target <= die) return 0;
    c->p = info + target;
    return 1;
}

// Passes the children of a DIE whose attributes `c` has passed, up to its next sibling.
static int skip_children(cursor *c, const abbrev_table *abbrevs, const unit_ctx *u) {
    uint64_t depth = 1;
    while (depth > 0 && c->p < c->end) {
        const uint8_t *die = c->p;
        uint64_t code = get_uleb(c);
        if (c->bad) return FAST_DAMAGED;
        if (code == 0) {
            depth--;
            continue;
        }
        const abbrev *a = find_abbrev(abbrevs, code);
        if (!a) return FAST_DAMAGED;
        if (a->children && jump_to_sibling(c, a, u, die)) continue;
        skip_attributes(c, abbrevs, a, u);
        if (c->bad) return FAST_DAMAGED;
        if (a->children) depth++;
    }
    return FAST_OK;
}

// Every subprogram and inlined subroutine of the unit, with their ranges, as walk_children
// finds them.
static int fast_unit_functions(sink *s, abbrev_table *abbrevs, const dwarf_sections *sections,
                               int big_endian, const unit_header *h) {
    unit_ctx u;
    cursor c;
    const abbrev *unit_abbrev = NULL;
    int res = read_unit_die(abbrevs, sections, big_endian, h, &u, &c, &unit_abbrev);
    if (res != 0 || !unit_abbrev || !unit_abbrev->children) return res;
    const uint8_t *info = sections->info.data;
    int32_t enclosing[MAX_DEPTH + 2];
    unsigned level = 0;  // of the siblings being read: 0 for the unit DIE's children
    enclosing[0] = -1;
    while (c.p < c.end) {
        const uint8_t *die = c.p;
        uint64_t code = get_uleb(&c);
        if (c.bad) return FAST_DAMAGED;
        if (code == 0) {
            if (level == 0) break;
            level--;
            continue;
        }
        const abbrev *a = find_abbrev(abbrevs, code);
        if (!a) return FAST_DAMAGED;
        int32_t inner = enclosing[level];
        int descend = a->children && (a->kind & KIND_HOLDS_FUNCTIONS) && level + 1 <= MAX_DEPTH;
        if (a->kind & KIND_FUNCTION) {
            res = read_function_fast(s, abbrevs, &u, &c, a, (uint64_t)(die - info), inner);
            if (res != 0) return res;
            inner = (int32_t)(s->r.function_count - 1);
        } else if (a->children && !descend && jump_to_sibling(&c, a, &u, die)) {
            continue;
        } else {
            skip_attributes(&c, abbrevs, a, &u);
            if (c.bad) return FAST_DAMAGED;
        }
        if (!a->children) continue;
        if (descend) {
            enclosing[++level] = inner;
        } else if ((res = skip_children(&c, abbrevs, &u)) != FAST_OK) {
            return res;
        }
    }
    return FAST_OK;
}

// MARK: Line tables

typedef struct entry_format {
    uint64_t content;
    unsigned form;
} entry_format;

// Reads a DWARF 5 entry format list (directory_entry_format or file_name_entry_format).
static int read_entry_formats(cursor *c, entry_format formats[256], unsigned *count) {
    *count = (unsigned)get_fixed(c, 1);
    for (unsigned i = 0; i < *count; i++) {
        formats[i].content = get_uleb(c);
        uint64_t form = get_uleb(c);
        if (c->bad) return FAST_DAMAGED;
        if (form > UINT16_MAX || form == DW_FORM_indirect || form == DW_FORM_implicit_const ||
            form_size((unsigned)form, 5, 8, 8) == -2)
            return FAST_UNSUPPORTED;
        formats[i].form = (unsigned)form;
    }
    return c->bad ? FAST_DAMAGED : FAST_OK;
}

// The unit's line table: its file list (see read_file_table) and rows. `program_bytes` gets
// the bytes of .debug_line the unit's line program spans (its header included).
static int fast_unit_lines(sink *s, abbrev_table *abbrevs, const dwarf_sections *sections,
                           int big_endian, const unit_header *h, const uint8_t *program_bytes[2]) {
    unit_ctx u;
    cursor c;
    const abbrev *unit_abbrev = NULL;
    int res = read_unit_die(abbrevs, sections, big_endian, h, &u, &c, &unit_abbrev);
    if (res != 0 || !unit_abbrev || !u.has_stmt_list) return res;
    const span *line = &sections->line;
    if (!line->data || u.stmt_list >= line->size) return FAST_DAMAGED;
    c = (cursor){line->data + u.stmt_list, line->data + line->size, big_endian, 0};
    uint64_t length = get_fixed(&c, 4);
    unsigned offset_size = 4;
    if (length == 0xffffffff) {
        offset_size = 8;
        length = get_fixed(&c, 8);
    } else if (length >= 0xfffffff0) {
        return FAST_DAMAGED;
    }
    if (c.bad || length > (uint64_t)(c.end - c.p)) return FAST_DAMAGED;
    const uint8_t *end = c.p + length;
    program_bytes[0] = line->data + u.stmt_list;
    program_bytes[1] = end;
    c.end = end;
    uint16_t version = (uint16_t)get_fixed(&c, 2);
    if (version < 2 || version > 5) return FAST_UNSUPPORTED;
    if (version >= 5) {
        uint8_t address_size = (uint8_t)get_fixed(&c, 1);
        uint8_t selector_size = (uint8_t)get_fixed(&c, 1);
        if (address_size != h->address_size || selector_size != 0) return FAST_UNSUPPORTED;
    }
    uint64_t header_length = get_fixed(&c, offset_size);
    if (c.bad || header_length > (uint64_t)(end - c.p)) return FAST_DAMAGED;
    const uint8_t *program = c.p + header_length;
    c.end = program;
    unsigned minimum_length = (unsigned)get_fixed(&c, 1);
    unsigned maximum_operations = version >= 4 ? (unsigned)get_fixed(&c, 1) : 1;
    get_fixed(&c, 1);  // default_is_stmt
    int line_base = (int8_t)get_fixed(&c, 1);
    unsigned line_range = (unsigned)get_fixed(&c, 1);
    unsigned opcode_base = (unsigned)get_fixed(&c, 1);
    if (c.bad || line_range == 0 || opcode_base == 0) return FAST_DAMAGED;
    if (maximum_operations != 1) return FAST_UNSUPPORTED;
    const uint8_t *operand_counts = c.p;  // standard_opcode_lengths
    skip_bytes(&c, opcode_base - 1);
    if (c.bad) return FAST_DAMAGED;

    cdw_unit unit;
    memset(&unit, 0, sizeof(unit));
    unit.line_version = version;
    if (u.comp_dir) {
        int64_t string = u.comp_dir_inline ? add_string(s, u.comp_dir)
                                           : add_section_string(s, u.comp_dir);
        if (string < 0) return FAST_NO_MEMORY;
        unit.comp_dir = (uint32_t)string;
    }
    unit.first_directory = (uint32_t)s->r.directory_count;
    uint32_t unit_index = (uint32_t)s->r.unit_count;
    uint32_t first_file = (uint32_t)s->r.file_count;
    if (version < 5) {
        // include_directories, then file_names (entry 0 of the list is a placeholder).
        for (;;) {
            if (c.p >= c.end) return FAST_DAMAGED;
            if (*c.p == 0) {
                c.p++;
                break;
            }
            const char *name = (const char *)c.p;
            skip_cstring(&c);
            if (c.bad) return FAST_DAMAGED;
            int64_t string = add_section_string(s, name);
            if (string < 0 || add_directory(s, (uint32_t)string) != 0) return FAST_NO_MEMORY;
        }
        unit.directory_count = (uint32_t)(s->r.directory_count - unit.first_directory);
        if (add_unit(s, unit) != 0) return FAST_NO_MEMORY;
        for (;;) {
            if (c.p >= c.end) return FAST_DAMAGED;
            if (*c.p == 0) {
                c.p++;
                break;
            }
            // libdwarf numbers a list from 1 (a placeholder for 0) only when it has entries.
            if (s->r.file_count == first_file && add_file(s, 0, 0, unit_index) != 0)
                return FAST_NO_MEMORY;
            const char *name = (const char *)c.p;
            skip_cstring(&c);
            uint64_t directory = get_uleb(&c);
            skip_leb(&c);  // modification time
            skip_leb(&c);  // length
            if (c.bad) return FAST_DAMAGED;
            int64_t string = add_section_string(s, name);
            if (string < 0) return FAST_NO_MEMORY;
            uint32_t recorded = directory > UINT32_MAX ? UINT32_MAX : (uint32_t)directory;
            if (add_file(s, (uint32_t)string, recorded, unit_index) != 0) return FAST_NO_MEMORY;
        }
    } else {
        unit_ctx forms = u;  // values in the line table use its own offset size
        forms.offset_size = (uint8_t)offset_size;
        entry_format formats[256];
        unsigned format_count = 0;
        if ((res = read_entry_formats(&c, formats, &format_count)) != FAST_OK) return res;
        uint64_t directories = get_uleb(&c);
        if (c.bad) return FAST_DAMAGED;
        for (uint64_t i = 0; i < directories; i++) {
            const char *name = NULL;
            for (unsigned k = 0; k < format_count; k++) {
                value v;
                read_value(&c, formats[k].form, 0, &forms, &v);
                if (c.bad) return FAST_DAMAGED;
                if (formats[k].content == DW_LNCT_path &&
                    (res = value_string(&forms, &v, &name)) != FAST_OK)
                    return res;
            }
            int64_t string = add_section_string(s, name);
            if (string < 0 || add_directory(s, (uint32_t)string) != 0) return FAST_NO_MEMORY;
        }
        unit.directory_count = (uint32_t)(s->r.directory_count - unit.first_directory);
        if (add_unit(s, unit) != 0) return FAST_NO_MEMORY;
        if ((res = read_entry_formats(&c, formats, &format_count)) != FAST_OK) return res;
        uint64_t files = get_uleb(&c);
        if (c.bad) return FAST_DAMAGED;
        for (uint64_t i = 0; i < files; i++) {
            const char *name = NULL;
            uint64_t directory = 0;
            for (unsigned k = 0; k < format_count; k++) {
                value v;
                read_value(&c, formats[k].form, 0, &forms, &v);
                if (c.bad) return FAST_DAMAGED;
                if (formats[k].content == DW_LNCT_path) {
                    if ((res = value_string(&forms, &v, &name)) != FAST_OK) return res;
                } else if (formats[k].content == DW_LNCT_directory_index) {
                    if ((res = value_unsigned(&v, &directory)) != FAST_OK) return res;
                }
            }
            int64_t string = add_section_string(s, name);
            if (string < 0) return FAST_NO_MEMORY;
            uint32_t recorded = directory > UINT32_MAX ? UINT32_MAX : (uint32_t)directory;
            if (add_file(s, (uint32_t)string, recorded, unit_index) != 0) return FAST_NO_MEMORY;
        }
    }
    uint64_t file_count = s->r.file_count - first_file;

    // The line program. The file register starts at 1 in every version (DWARF 5 6.2.2).
    c.p = program;
    c.end = end;
    uint64_t address = 0, file = 1, line_number = 1, column = 0;
    while (c.p < c.end) {
        unsigned opcode = *c.p++;
        int row = 0;  // 1: a row, 2: the row ending a sequence
        if (opcode >= opcode_base) {
            unsigned adjusted = opcode - opcode_base;
            address += (uint64_t)minimum_length * (adjusted / line_range);
            line_number += (uint64_t)(int64_t)(line_base + (int)(adjusted % line_range));
            row = 1;
        } else if (opcode == 0) {
            uint64_t size = get_uleb(&c);
            if (c.bad || size == 0 || size > (uint64_t)(c.end - c.p)) return FAST_DAMAGED;
            const uint8_t *next = c.p + size;
            unsigned sub = *c.p++;
            if (sub == DW_LNE_end_sequence) {
                row = 2;
            } else if (sub == DW_LNE_set_address) {
                uint64_t width = size - 1;
                if (width != 1 && width != 2 && width != 4 && width != 8) return FAST_UNSUPPORTED;
                address = get_fixed(&c, (unsigned)width);
            } else if (sub == DW_LNE_define_file) {
                return FAST_UNSUPPORTED;
            }
            c.p = next;
        } else {
            switch (opcode) {
            case DW_LNS_copy: row = 1; break;
            case DW_LNS_advance_pc: address += (uint64_t)minimum_length * get_uleb(&c); break;
            case DW_LNS_advance_line: line_number += (uint64_t)get_sleb(&c); break;
            case DW_LNS_set_file: file = get_uleb(&c); break;
            case DW_LNS_set_column: column = get_uleb(&c); break;
            case DW_LNS_negate_stmt: case DW_LNS_set_basic_block:
            case DW_LNS_set_prologue_end: case DW_LNS_set_epilogue_begin:
                break;
            case DW_LNS_const_add_pc:
                address += (uint64_t)minimum_length * ((255 - opcode_base) / line_range);
                break;
            case DW_LNS_fixed_advance_pc: address += get_fixed(&c, 2); break;
            case DW_LNS_set_isa: skip_leb(&c); break;
            default:
                for (unsigned i = 0; i < operand_counts[opcode - 1]; i++) skip_leb(&c);
                break;
            }
        }
        if (c.bad) return FAST_DAMAGED;
        if (!row) continue;
        if (s->r.row_count == s->row_capacity && grow_rows(s) != 0) return FAST_NO_MEMORY;
        cdw_row *r = &s->r.rows[s->r.row_count++];
        r->address = address;
        r->file = file < file_count ? first_file + (uint32_t)file : 0;
        r->line = (uint32_t)line_number;
        r->column = (uint32_t)column;
        r->end_sequence = row == 2;
        if (row == 2) {
            address = 0;
            file = 1;
            line_number = 1;
            column = 0;
        }
    }
    return FAST_OK;
}

// MARK: - Objects the fast reader does not take

// Every unit through libdwarf, found by libdwarf: for objects without a .debug_info and
// .debug_abbrev of their own or with several sections of one name (relocatable objects with
// COMDAT groups, split DWARF).
static int read_with_libdwarf_only(cdw_object *object, cdw_result *result, char *message,
                                   size_t message_size) {
    sink s;
    if (sink_init(&s) != 0) {
        sink_free(&s);
        set_message(message, message_size, "out of memory");
        return CDW_ERROR;
    }
    Dwarf_Debug dbg = NULL;
    Dwarf_Error error = NULL;
    int res = dwarf_object_init_b(&object->interface, NULL, NULL, DW_GROUPNUMBER_ANY, &dbg,
                                  &error);
    if (res != DW_DLV_OK) {
        sink_free(&s);
        set_message(message, message_size, "%s",
                    error ? dwarf_errmsg(error) : "libdwarf could not open the object");
        if (error) dwarf_dealloc(NULL, error, DW_DLA_ERROR);
        return res == DW_DLV_NO_ENTRY ? CDW_NO_DWARF : CDW_ERROR;
    }
    int failed = 0;
    for (;;) {
        error = NULL;
        Dwarf_Unsigned header_length = 0, abbrev_offset = 0, type_offset = 0, next = 0;
        Dwarf_Half version = 0, address_size = 0, length_size = 0, extension_size = 0,
                   header_type = 0;
        Dwarf_Sig8 signature;
        res = dwarf_next_cu_header_d(dbg, 1, &header_length, &version, &abbrev_offset,
                                     &address_size, &length_size, &extension_size, &signature,
                                     &type_offset, &next, &header_type, &error);
        if (res == DW_DLV_NO_ENTRY) break;
        const char *what = "compile unit header";
        Dwarf_Die unit_die = NULL;
        if (res == DW_DLV_OK) {
            what = "compile unit";
            res = dwarf_siblingof_b(dbg, NULL, 1, &unit_die, &error);
        }
        if (res == DW_DLV_OK) {
            walker w;
            memset(&w, 0, sizeof(w));
            w.dbg = dbg;
            w.object = object;
            w.s = &s;
            uint64_t first_file = s.r.file_count, first_function = s.r.function_count;
            res = libdwarf_unit_lines(&w, unit_die, &error);
            uint64_t file_count = s.r.file_count - first_file;
            if (res == DW_DLV_OK) res = libdwarf_unit_functions(&w, unit_die, version, &error);
            for (uint64_t i = first_function; i < s.r.function_count; i++) {
                uint32_t raw = s.r.functions[i].call_file;
                s.r.functions[i].call_file =
                    raw == CALL_FILE_NONE || raw >= file_count ? 0 : (uint32_t)(first_file + raw);
            }
            dwarf_dealloc_die(unit_die);
            what = "compile unit";
        }
        if (res == DW_DLV_ERROR) {
            if (!failed) {
                set_message(message, message_size, "%s: %s", what,
                            error ? dwarf_errmsg(error) : "libdwarf failed");
            }
            failed = 1;
            if (error) dwarf_dealloc(dbg, error, DW_DLA_ERROR);
            if (strcmp(what, "compile unit header") == 0) break;
        }
    }
    dwarf_object_finish(dbg, &error);
    *result = s.r;
    memset(&s.r, 0, sizeof(s.r));
    sink_free(&s);
    return failed ? CDW_PARTIAL : CDW_OK;
}


// MARK: - Units, tasks and threads
//
// Each unit is two tasks: its line table (file list and rows) and its functions (and their
// ranges). Threads take tasks in unit order from a shared counter, each into its own sink and
// with its own libdwarf handle when it needs one; the results are put together in unit order
// at the end, so the result does not depend on the number of threads but for string offsets.

typedef struct task_result {
    int32_t thread;  // that ran it, -1 for none
    uint8_t failed;
    char *message;      // when failed
    uint64_t start[ARR_COUNT], end[ARR_COUNT];  // what it added to its thread's sink
    uint64_t base[ARR_COUNT];                   // where that goes in the result
} task_result;

struct reader;

typedef struct thread_ctx {
    struct reader *reader;
    uint32_t index;
    sink s;
    abbrev_table abbrevs;
    Dwarf_Debug dbg;  // opened on first need
    int dbg_failed;
    pthread_t thread;
    int started;
} thread_ctx;

typedef struct reader {
    const cdw_object *object;
    dwarf_sections sections;
    unit_header *units;
    uint32_t unit_count;
    task_result *lines, *functions;  // per unit
    uint32_t task_count;
    atomic_uint next_task;
    int use_libdwarf;
    int no_fallback;
    thread_ctx *threads;
    uint32_t thread_count;
    uint64_t *string_base;  // per thread
    // Releasing the .debug_info of units read (see unit_read), when the object allows it.
    atomic_uchar *tasks_done;  // per unit, 0 to 2
    pthread_mutex_t release_lock;
    uint32_t units_read;       // units 0 ..< units_read have both tasks done
    uint64_t info_released;    // .debug_info bytes before this offset are released
} reader;

static Dwarf_Debug thread_dbg(thread_ctx *t, char *message, size_t message_size) {
    if (t->dbg || t->dbg_failed) {
        if (!t->dbg) set_message(message, message_size, "libdwarf could not open the object");
        return t->dbg;
    }
    const cdw_object *o = t->reader->object;
    Dwarf_Error error = NULL;
    int res = dwarf_object_init_b((Dwarf_Obj_Access_Interface *)&o->interface, NULL, NULL,
                                  DW_GROUPNUMBER_ANY, &t->dbg, &error);
    if (res != DW_DLV_OK) {
        set_message(message, message_size, "%s",
                    error ? dwarf_errmsg(error) : "libdwarf could not open the object");
        if (error) dwarf_dealloc(NULL, error, DW_DLA_ERROR);
        t->dbg = NULL;
        t->dbg_failed = 1;
    }
    return t->dbg;
}

// Reads one task of a unit through libdwarf. 0, or -1 with a message.
static int libdwarf_task(thread_ctx *t, const unit_header *h, int functions, char *message,
                         size_t message_size) {
    Dwarf_Debug dbg = thread_dbg(t, message, message_size);
    if (!dbg) return -1;
    Dwarf_Error error = NULL;
    Dwarf_Die unit_die = NULL;
    int res = dwarf_offdie_b(dbg, h->die_offset, 1, &unit_die, &error);
    if (res == DW_DLV_OK) {
        walker w;
        memset(&w, 0, sizeof(w));
        w.dbg = dbg;
        w.object = t->reader->object;
        w.s = &t->s;
        res = functions ? libdwarf_unit_functions(&w, unit_die, h->version, &error)
                        : libdwarf_unit_lines(&w, unit_die, &error);
        dwarf_dealloc_die(unit_die);
    } else if (res == DW_DLV_NO_ENTRY) {
        res = DW_DLV_OK;
    }
    if (res == DW_DLV_ERROR) {
        set_message(message, message_size, "compile unit at 0x%llx: %s",
                    (unsigned long long)h->offset, error ? dwarf_errmsg(error) : "libdwarf failed");
        if (error) dwarf_dealloc(dbg, error, DW_DLA_ERROR);
        return -1;
    }
    return 0;
}

static void run_task(thread_ctx *t, uint32_t k) {
    reader *rd = t->reader;
    uint32_t unit = k / 2;
    int functions = k % 2;
    const unit_header *h = &rd->units[unit];
    task_result *result = functions ? &rd->functions[unit] : &rd->lines[unit];
    result->thread = (int32_t)t->index;
    sink_counts(&t->s, result->start);
    char message[512];
    message[0] = '\0';
    int failed = 0;
    int res = FAST_UNSUPPORTED;  // libdwarf's, unless the fast reader takes it
    const uint8_t *line_read[2] = {NULL, NULL};
    t->s.lists_read[0] = t->s.lists_read[1] = NULL;
    if (!rd->use_libdwarf) {
        res = functions ? fast_unit_functions(&t->s, &t->abbrevs, &rd->sections,
                                              rd->object->big_endian, h)
                        : fast_unit_lines(&t->s, &t->abbrevs, &rd->sections,
                                          rd->object->big_endian, h, line_read);
        // A line program is read once: its pages go now (those it shares with the programs
        // either side stay; they go with the section at the end).
        if (res == FAST_OK && !functions && line_read[0])
            release_section_bytes(rd->object, line_read[0], line_read[1], 0);
        // So are a unit's range lists, mostly side by side (what lies between, if anything,
        // is read from the file again when another unit needs it).
        if (res == FAST_OK && functions && t->s.lists_read[0])
            release_section_bytes(rd->object, t->s.lists_read[0], t->s.lists_read[1], 0);
        if (res == FAST_NO_MEMORY) {
            set_message(message, sizeof(message), "compile unit at 0x%llx: out of memory",
                        (unsigned long long)h->offset);
            failed = 1;
        } else if (res == FAST_DAMAGED) {
            set_message(message, sizeof(message), "compile unit at 0x%llx: damaged %s",
                        (unsigned long long)h->offset, functions ? "DIEs" : "line table");
            failed = 1;
        } else if (res == FAST_UNSUPPORTED) {
            sink_truncate(&t->s, result->start);
            if (rd->no_fallback) {
                set_message(message, sizeof(message),
                            "compile unit at 0x%llx: the fast reader cannot read its %s",
                            (unsigned long long)h->offset, functions ? "DIEs" : "line table");
                failed = 1;
            } else {
            }
        }
    }
    if (res == FAST_UNSUPPORTED && !failed)
        failed = libdwarf_task(t, h, functions, message, sizeof(message)) != 0;
    if (failed) {
        result->failed = 1;
        result->message = strdup(message);
    }
    sink_counts(&t->s, result->end);
}

// One task of `unit` is done: once every unit before some point is read (threads take tasks
// in unit order, so that point follows them closely), the .debug_info pages before it are
// released. The pages another unit still needs (a reference into an earlier unit, libdwarf)
// are read from the file again.
static void unit_read(reader *rd, uint32_t unit) {
    atomic_fetch_add_explicit(&rd->tasks_done[unit], 1, memory_order_release);
    if (pthread_mutex_trylock(&rd->release_lock) != 0) return;  // another thread is at it
    uint32_t u = rd->units_read;
    while (u < rd->unit_count && atomic_load_explicit(&rd->tasks_done[u], memory_order_acquire) == 2)
        u++;
    rd->units_read = u;
    uint64_t end = u < rd->unit_count ? rd->units[u].offset : rd->sections.info.size;
    if (end >= rd->info_released + release_step(rd->object)) {
        const uint8_t *info = rd->sections.info.data;
        release_section_bytes(rd->object, info + rd->info_released, info + end, 0);
        // The page holding `end` is partly unread: the next release starts there.
        uintptr_t page = (uintptr_t)getpagesize();
        uintptr_t next = ((uintptr_t)(info + end)) & ~(page - 1);
        rd->info_released = next > (uintptr_t)info ? (uint64_t)(next - (uintptr_t)info) : 0;
    }
    pthread_mutex_unlock(&rd->release_lock);
}

static void *thread_main(void *argument) {
    thread_ctx *t = argument;
    reader *rd = t->reader;
    for (;;) {
        uint32_t k = atomic_fetch_add(&rd->next_task, 1);
        if (k >= rd->task_count) break;
        run_task(t, k);
        if (rd->tasks_done) unit_read(rd, k / 2);
    }
    return NULL;
}

// MARK: Putting the threads' arrays together

struct cdw_reading {
    // Read by several threads: their sinks, copied into the caller's arrays task by task.
    reader *rd;
    cdw_function *functions;
    cdw_range *ranges;
    cdw_row *rows;
    // Read in one piece (one thread, or libdwarf alone): the arrays themselves.
    cdw_result whole;
    uint64_t release_step;
};

static inline uint32_t rebase_string(const reader *rd, uint32_t thread, uint32_t offset) {
    return offset ? (uint32_t)(offset + rd->string_base[thread]) : 0;
}

// The result index of the file a function's raw DW_AT_call_file names, given where its unit's
// file list went (base) and its length.
static inline uint32_t call_file_index(uint32_t raw, uint64_t base, uint64_t count) {
    return raw == CALL_FILE_NONE || raw >= count ? 0 : (uint32_t)(base + raw);
}

// Where the pages of an array copied front to back have been released up to.
typedef struct released {
    const uint8_t *base;  // of the array
    uintptr_t up_to;      // address
    uint64_t step;
} released;

static released released_start(const void *base, uint64_t step) {
    uintptr_t page = (uintptr_t)getpagesize();
    // The page the array starts in may hold the allocator's bookkeeping: never released.
    return (released){base, ((uintptr_t)base + page - 1) & ~(page - 1), step};
}

// The array's first `bytes` have been copied and are read no more: their pages go, a step at a
// time, so that the copy and what it copies are not both whole at once.
static void release_copied(released *r, uint64_t bytes) {
    if (!r->base) return;
    uintptr_t end = (uintptr_t)r->base + bytes;
    if (end < r->up_to + r->step) return;
    release_pages((const void *)r->up_to, (const void *)end);
    uintptr_t page = (uintptr_t)getpagesize();
    r->up_to = end & ~(page - 1);
}

// memcpy, releasing the pages of `from` (a malloc'ed block freed afterwards) behind it.
static void copy_releasing(void *to, const void *from, uint64_t bytes, uint64_t step_size) {
    released r = released_start(from, step_size);
    for (uint64_t done = 0; done < bytes;) {
        uint64_t step = bytes - done < step_size ? bytes - done : step_size;
        memcpy((uint8_t *)to + done, (const uint8_t *)from + done, step);
        done += step;
        release_copied(&r, done);
    }
}

// Copies a thread's functions, ranges and rows into the caller's arrays, releasing and then
// freeing the thread's own as it goes (nothing reads them after).
static void copy_large_arrays(thread_ctx *t, const cdw_reading *reading) {
    const reader *rd = t->reader;
    const cdw_result *in = &t->s.r;
    uint32_t me = t->index;
    uint64_t step = release_step(rd->object);
    released functions_released = released_start(in->functions, step);
    released ranges_released = released_start(in->ranges, step);
    released rows_released = released_start(in->rows, step);
    for (uint32_t u = 0; u < rd->unit_count; u++) {
        const task_result *fr = &rd->functions[u], *lr = &rd->lines[u];
        if (fr->thread == (int32_t)me && reading->functions) {
            uint64_t file_base = lr->base[ARR_FILES];
            uint64_t file_count = lr->thread >= 0 ? lr->end[ARR_FILES] - lr->start[ARR_FILES] : 0;
            cdw_function *out = reading->functions + fr->base[ARR_FUNCTIONS];
            for (uint64_t i = fr->start[ARR_FUNCTIONS]; i < fr->end[ARR_FUNCTIONS]; i++) {
                cdw_function f = in->functions[i];
                if (f.parent >= 0)
                    f.parent = (int32_t)((uint64_t)f.parent - fr->start[ARR_FUNCTIONS] +
                                         fr->base[ARR_FUNCTIONS]);
                f.first_range =
                    (uint32_t)(f.first_range - fr->start[ARR_RANGES] + fr->base[ARR_RANGES]);
                f.name = rebase_string(rd, me, f.name);
                f.linkage_name = rebase_string(rd, me, f.linkage_name);
                f.call_file = call_file_index(f.call_file, file_base, file_count);
                *out++ = f;
            }
        }
        uint64_t range_count = fr->end[ARR_RANGES] - fr->start[ARR_RANGES];
        if (fr->thread == (int32_t)me && reading->ranges && range_count > 0) {
            memcpy(reading->ranges + fr->base[ARR_RANGES], in->ranges + fr->start[ARR_RANGES],
                   range_count * sizeof(cdw_range));
        }
        if (lr->thread == (int32_t)me && reading->rows) {
            cdw_row *out = reading->rows + lr->base[ARR_ROWS];
            for (uint64_t i = lr->start[ARR_ROWS]; i < lr->end[ARR_ROWS]; i++) {
                cdw_row row = in->rows[i];
                if (row.file)
                    row.file = (uint32_t)(row.file - lr->start[ARR_FILES] + lr->base[ARR_FILES]);
                *out++ = row;
            }
        }
        // A thread's tasks come in unit order, so its arrays are copied front to back.
        if (fr->thread == (int32_t)me) {
            release_copied(&functions_released, fr->end[ARR_FUNCTIONS] * sizeof(cdw_function));
            release_copied(&ranges_released, fr->end[ARR_RANGES] * sizeof(cdw_range));
        }
        if (lr->thread == (int32_t)me) release_copied(&rows_released, lr->end[ARR_ROWS] * sizeof(cdw_row));
    }
    free(t->s.r.functions);
    free(t->s.r.ranges);
    free(t->s.r.rows);
    t->s.r.functions = NULL;
    t->s.r.ranges = NULL;
    t->s.r.rows = NULL;
}

typedef struct copy_job {
    thread_ctx *t;
    const cdw_reading *reading;
} copy_job;

static void *copy_main(void *argument) {
    copy_job *job = argument;
    copy_large_arrays(job->t, job->reading);
    return NULL;
}

// Copies a thread's file lists, units, directories and strings into the result.
static void copy_small_arrays(thread_ctx *t, cdw_result *out) {
    const reader *rd = t->reader;
    const cdw_result *in = &t->s.r;
    uint32_t me = t->index;
    memcpy(out->strings + rd->string_base[me], in->strings, in->strings_size);
    for (uint32_t u = 0; u < rd->unit_count; u++) {
        const task_result *lr = &rd->lines[u];
        if (lr->thread != (int32_t)me) continue;
        for (uint64_t i = lr->start[ARR_FILES]; i < lr->end[ARR_FILES]; i++) {
            cdw_file file = in->files[i];
            file.name = rebase_string(rd, me, file.name);
            if (file.unit != CDW_NO_UNIT)
                file.unit = (uint32_t)(file.unit - lr->start[ARR_UNITS] + lr->base[ARR_UNITS]);
            out->files[lr->base[ARR_FILES] + (i - lr->start[ARR_FILES])] = file;
        }
        for (uint64_t i = lr->start[ARR_UNITS]; i < lr->end[ARR_UNITS]; i++) {
            cdw_unit unit = in->units[i];
            unit.comp_dir = rebase_string(rd, me, unit.comp_dir);
            unit.first_directory = (uint32_t)(unit.first_directory - lr->start[ARR_DIRECTORIES] +
                                              lr->base[ARR_DIRECTORIES]);
            out->units[lr->base[ARR_UNITS] + (i - lr->start[ARR_UNITS])] = unit;
        }
        for (uint64_t i = lr->start[ARR_DIRECTORIES]; i < lr->end[ARR_DIRECTORIES]; i++) {
            out->directories[lr->base[ARR_DIRECTORIES] + (i - lr->start[ARR_DIRECTORIES])] =
                rebase_string(rd, me, in->directories[i]);
        }
    }
}

// Where every task's arrays go in the result; the result's small arrays, filled, and the
// lengths of its large ones. 0, or -1.
static int lay_out(reader *rd, cdw_result *out) {
    uint64_t total[ARR_COUNT] = {0};
    total[ARR_FILES] = 1;  // file 0: no file
    for (uint32_t u = 0; u < rd->unit_count; u++) {
        task_result *tasks[2] = {&rd->lines[u], &rd->functions[u]};
        for (int k = 0; k < 2; k++) {
            for (int a = 0; a < ARR_COUNT; a++) {
                tasks[k]->base[a] = total[a];
                if (tasks[k]->thread >= 0) total[a] += tasks[k]->end[a] - tasks[k]->start[a];
            }
        }
    }
    uint64_t strings = 0;
    for (uint32_t i = 0; i < rd->thread_count; i++) {
        rd->string_base[i] = strings;
        strings += rd->threads[i].s.r.strings_size;
    }
    if (strings > UINT32_MAX || total[ARR_FILES] > UINT32_MAX || total[ARR_RANGES] > UINT32_MAX ||
        total[ARR_FUNCTIONS] > INT32_MAX)
        return -1;
    memset(out, 0, sizeof(*out));
    out->function_count = total[ARR_FUNCTIONS];
    out->range_count = total[ARR_RANGES];
    out->row_count = total[ARR_ROWS];
#define ALLOCATE(array, count, n)                                                          \
    do {                                                                                   \
        out->count = (n);                                                                  \
        out->array = malloc((out->count ? out->count : 1) * sizeof(*out->array));          \
        if (!out->array) return -1;                                                        \
    } while (0)
    ALLOCATE(files, file_count, total[ARR_FILES]);
    ALLOCATE(units, unit_count, total[ARR_UNITS]);
    ALLOCATE(directories, directory_count, total[ARR_DIRECTORIES]);
    ALLOCATE(strings, strings_size, strings);
#undef ALLOCATE
    out->files[0] = (cdw_file){0, 0, CDW_NO_UNIT};
    for (uint32_t i = 0; i < rd->thread_count; i++) {
        // The thread's small arrays are copied: freed, so that the copies do not add up.
        cdw_result *r = &rd->threads[i].s.r;
        copy_small_arrays(&rd->threads[i], out);
        free(r->files);
        free(r->units);
        free(r->directories);
        free(r->strings);
        r->files = NULL;
        r->units = NULL;
        r->directories = NULL;
        r->strings = NULL;
    }
    return 0;
}

// With one thread: the sink is the result once call_file values are resolved.
static void finish_in_place(reader *rd) {
    cdw_result *r = &rd->threads[0].s.r;
    for (uint32_t u = 0; u < rd->unit_count; u++) {
        const task_result *fr = &rd->functions[u], *lr = &rd->lines[u];
        if (fr->thread < 0) continue;
        uint64_t file_base = lr->start[ARR_FILES];
        uint64_t file_count = lr->thread >= 0 ? lr->end[ARR_FILES] - lr->start[ARR_FILES] : 0;
        for (uint64_t i = fr->start[ARR_FUNCTIONS]; i < fr->end[ARR_FUNCTIONS]; i++) {
            r->functions[i].call_file = call_file_index(r->functions[i].call_file, file_base,
                                                        file_count);
        }
    }
}

static uint32_t default_thread_count(void) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online < 1) online = 1;
    return online > 8 ? 8 : (uint32_t)online;
}

static void free_reader(reader *rd) {
    for (uint32_t u = 0; rd->lines && u < rd->unit_count; u++) free(rd->lines[u].message);
    for (uint32_t u = 0; rd->functions && u < rd->unit_count; u++) free(rd->functions[u].message);
    for (uint32_t i = 0; rd->threads && i < rd->thread_count; i++) {
        sink_free(&rd->threads[i].s);
        abbrev_table_free(&rd->threads[i].abbrevs);
        if (rd->threads[i].dbg) {
            Dwarf_Error error = NULL;
            dwarf_object_finish(rd->threads[i].dbg, &error);
        }
    }
    free(rd->threads);
    free(rd->string_base);
    free(rd->tasks_done);
    pthread_mutex_destroy(&rd->release_lock);
    free(rd->lines);
    free(rd->functions);
    free(rd->units);
    free(rd);
}

// Hands the large arrays of a one-piece result to the reading.
static cdw_reading *one_piece(cdw_result *result, const cdw_object *object) {
    cdw_reading *reading = calloc(1, sizeof(*reading));
    if (!reading) return NULL;
    reading->release_step = release_step(object);
    reading->whole.functions = result->functions;
    reading->whole.function_count = result->function_count;
    reading->whole.ranges = result->ranges;
    reading->whole.range_count = result->range_count;
    reading->whole.rows = result->rows;
    reading->whole.row_count = result->row_count;
    result->functions = NULL;
    result->ranges = NULL;
    result->rows = NULL;
    return reading;
}

int cdw_read_start(cdw_object *object, const cdw_read_options *options, cdw_result *result,
                   cdw_reading **out, char *message, size_t message_size) {
    cdw_read_options defaults;
    memset(&defaults, 0, sizeof(defaults));
    if (!options) options = &defaults;
    memset(result, 0, sizeof(*result));
    *out = NULL;
    reader *rd = calloc(1, sizeof(*rd));
    if (!rd) {
        set_message(message, message_size, "out of memory");
        return CDW_ERROR;
    }
    pthread_mutex_init(&rd->release_lock, NULL);
    rd->object = object;
    rd->use_libdwarf = options->reader == CDW_READER_LIBDWARF;
    rd->no_fallback = options->no_fallback != 0;
    if (find_dwarf_sections(object, &rd->sections) != 0) {
        // Not a plain object: libdwarf finds its units.
        free_reader(rd);
        int status = read_with_libdwarf_only(object, result, message, message_size);
        release_sections(object);
        if (status != CDW_OK && status != CDW_PARTIAL) return status;
        if (!(*out = one_piece(result, object))) {
            cdw_result_free(result);
            set_message(message, message_size, "out of memory");
            return CDW_ERROR;
        }
        return status;
    }
    char header_message[512];
    header_message[0] = '\0';
    int header_status = scan_units(&rd->sections, object->big_endian, &rd->units,
                                   &rd->unit_count, header_message, sizeof(header_message));
    if (header_status == CDW_ERROR) {
        set_message(message, message_size, "%s", header_message);
        free_reader(rd);
        return CDW_ERROR;
    }
    rd->task_count = rd->unit_count * 2;
    rd->lines = calloc(rd->unit_count ? rd->unit_count : 1, sizeof(task_result));
    rd->functions = calloc(rd->unit_count ? rd->unit_count : 1, sizeof(task_result));
    if (object->release_base)
        rd->tasks_done = calloc(rd->unit_count ? rd->unit_count : 1, sizeof(atomic_uchar));
    uint32_t threads = options->threads ? options->threads : default_thread_count();
    // Small objects are not worth a thread.
    if (!options->threads && rd->sections.info.size + rd->sections.line.size < (1u << 20))
        threads = 1;
    if (threads > rd->task_count) threads = rd->task_count ? rd->task_count : 1;
    if (threads > 64) threads = 64;
    rd->thread_count = threads;
    rd->threads = calloc(threads, sizeof(thread_ctx));
    rd->string_base = calloc(threads, sizeof(uint64_t));
    int ready = rd->lines && rd->functions && rd->threads && rd->string_base &&
                (rd->tasks_done || !object->release_base);
    for (uint32_t u = 0; ready && u < rd->unit_count; u++)
        rd->lines[u].thread = rd->functions[u].thread = -1;
    for (uint32_t i = 0; ready && i < threads; i++) {
        rd->threads[i].reader = rd;
        rd->threads[i].index = i;
        ready = sink_init(&rd->threads[i].s) == 0;
    }
    if (!ready) {
        set_message(message, message_size, "out of memory");
        free_reader(rd);
        return CDW_ERROR;
    }
    atomic_init(&rd->next_task, 0);
    // Read: every thread takes tasks until none is left (a thread that does not start leaves
    // its share to the others).
    for (uint32_t i = 1; i < threads; i++) {
        rd->threads[i].started =
            pthread_create(&rd->threads[i].thread, NULL, thread_main, &rd->threads[i]) == 0;
    }
    thread_main(&rd->threads[0]);
    for (uint32_t i = 1; i < threads; i++) {
        if (rd->threads[i].started) pthread_join(rd->threads[i].thread, NULL);
    }
    // What only reading needs goes now: libdwarf's handles, abbreviations, interned strings.
    for (uint32_t i = 0; i < threads; i++) {
        thread_ctx *t = &rd->threads[i];
        if (t->dbg) {
            Dwarf_Error error = NULL;
            dwarf_object_finish(t->dbg, &error);
            t->dbg = NULL;
        }
        abbrev_table_free(&t->abbrevs);
        free(t->s.interned);
        t->s.interned = NULL;
        t->s.interned_capacity = t->s.interned_count = 0;
    }
    release_sections(object);

    int status = header_status;
    const char *first = header_status != CDW_OK ? header_message : NULL;
    for (uint32_t u = 0; u < rd->unit_count; u++) {
        task_result *tasks[2] = {&rd->lines[u], &rd->functions[u]};
        for (int k = 0; k < 2; k++) {
            if (!tasks[k]->failed) continue;
            if (status == CDW_OK || first == header_message) {
                first = tasks[k]->message ? tasks[k]->message : "out of memory";
            }
            status = CDW_PARTIAL;
        }
    }
    if (first) set_message(message, message_size, "%s", first);

    cdw_reading *reading = NULL;
    if (threads == 1) {
        finish_in_place(rd);
        *result = rd->threads[0].s.r;
        memset(&rd->threads[0].s.r, 0, sizeof(cdw_result));
        free_reader(rd);
        reading = one_piece(result, object);
    } else if (lay_out(rd, result) == 0) {
        reading = calloc(1, sizeof(*reading));
        if (reading) reading->rd = rd;
    }
    if (!reading) {
        if (rd && threads > 1) free_reader(rd);
        cdw_result_free(result);
        set_message(message, message_size, "out of memory");
        return CDW_ERROR;
    }
    *out = reading;
    return status;
}

void cdw_read_finish(cdw_reading *reading, cdw_function *functions, cdw_range *ranges,
                     cdw_row *rows) {
    if (!reading) return;
    reader *rd = reading->rd;
    if (rd) {
        if (functions || ranges || rows) {
            // Each thread copies what it read (an array of no elements may come as NULL).
            reading->functions = functions;
            reading->ranges = ranges;
            reading->rows = rows;
            copy_job *jobs = calloc(rd->thread_count, sizeof(copy_job));
            for (uint32_t i = 0; i < rd->thread_count; i++) {
                rd->threads[i].started = 0;
                if (!jobs) continue;
                jobs[i] = (copy_job){&rd->threads[i], reading};
                if (i > 0) {
                    rd->threads[i].started =
                        pthread_create(&rd->threads[i].thread, NULL, copy_main, &jobs[i]) == 0;
                }
            }
            for (uint32_t i = 0; i < rd->thread_count; i++) {
                if (!rd->threads[i].started) copy_large_arrays(&rd->threads[i], reading);
            }
            for (uint32_t i = 1; i < rd->thread_count; i++) {
                if (rd->threads[i].started) pthread_join(rd->threads[i].thread, NULL);
            }
            free(jobs);
        }
        free_reader(rd);
    } else {
        cdw_result *whole = &reading->whole;
        if (functions && whole->function_count)
            copy_releasing(functions, whole->functions, whole->function_count * sizeof(cdw_function),
                           reading->release_step);
        if (ranges && whole->range_count)
            copy_releasing(ranges, whole->ranges, whole->range_count * sizeof(cdw_range),
                           reading->release_step);
        if (rows && whole->row_count)
            copy_releasing(rows, whole->rows, whole->row_count * sizeof(cdw_row), reading->release_step);
        cdw_result_free(whole);
    }
    free(reading);
}

void cdw_result_free(cdw_result *r) {
    if (!r) return;
    free(r->functions);
    free(r->ranges);
    free(r->rows);
    free(r->files);
    free(r->units);
    free(r->directories);
    free(r->strings);
    memset(r, 0, sizeof(*r));
}

uint32_t cdw_crc32(uint32_t crc, const void *data, size_t size) {
    return (uint32_t)crc32_z(crc, data, size);
}

extern char *__cxa_demangle(const char *mangled, char *buffer, size_t *length, int *status);

char *cdw_demangle_cxx(const char *mangled) {
    int status = 0;
    char *out = __cxa_demangle(mangled, NULL, NULL, &status);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}
