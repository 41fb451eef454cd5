// CDyldCache: a reader of Apple's dyld shared caches, the files that hold every system
// library of an iOS, macOS or simulator release linked together.
//
// A cache is one main file and, since iOS 15 and macOS 12, sub-caches beside it: numbered
// files (`.1` ... in iOS 15, `.01` ... later) holding more of the address space, and a
// `.symbols` file holding the local (non-exported) symbols of every image. The reader is
// handed the bytes of each file (mapped by the caller, never copied) and reads, for each
// image: its path, its UUID, its `__TEXT` range, and its function symbols — from its symbol
// table in the shared `__LINKEDIT`, from the local-symbol table, and from its exports trie —
// with the function starts of LC_FUNCTION_STARTS. There are no file names or lines in a
// cache, and none are read.
//
// Every count and offset read from a file is checked against the bytes that remain before it
// is used; a damaged part is an error naming what is wrong, never a read out of bounds.
// Addresses are the cache's unslid VM addresses; a VM address is turned into bytes through
// the mappings of every file handed over. Little-endian only, as every cache is.

#ifndef CDYLDCACHE_H
#define CDYLDCACHE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Return codes.
enum {
    DSC_OK = 0,
    DSC_ERROR = -1,
};

/// Bytes of one file of the cache; `bytes` NULL for a file that is missing.
typedef struct dsc_file {
    const uint8_t *bytes;
    uint64_t size;
} dsc_file;

/// What the header of a cache file says (main file or sub-cache alike).
typedef struct dsc_header {
    /// "arm64e", "x86_64", ...: the magic less its "dyld_v1" and padding.
    char architecture[16];
    uint8_t uuid[16];
    /// The size of the header as written (the offset of the first mapping): which of the
    /// later fields the file has.
    uint32_t header_size;
    uint32_t mapping_count;
    /// Apple's platform number (1 macOS, 2 iOS, 3 tvOS, 4 watchOS, 7 iOS simulator, ...); 0 when absent.
    uint32_t platform;
    /// The OS version packed as xxxx.yy.zz (0x000F0200 is 15.2); 0 when the header has none.
    uint32_t os_version;
    /// 1 for a simulator's cache.
    uint32_t simulator;
    /// The image list, from `imagesOffset` where the header has it, else `imagesOffsetOld`.
    uint32_t image_count;
    uint32_t images_offset;
    /// Sub-cache entries and whether they carry a file suffix (`dyld_subcache_entry`) or
    /// not (`dyld_subcache_entry_v1`, named `.1`, `.2`, ...).
    uint32_t subcache_count;
    uint32_t subcache_suffixed;
    /// Whether the header names a separate file of local symbols (`symbolFileUUID` not zero).
    uint32_t has_symbol_file;
    uint8_t symbol_file_uuid[16];
    /// Where this file's own local-symbol table is (0 when it has none).
    uint64_t local_symbols_offset;
    uint64_t local_symbols_size;
    /// The address of the first mapping: the cache's base.
    uint64_t base_address;
    /// `imagesTextOffset` / `imagesTextCount` (0 when absent).
    uint64_t images_text_offset;
    uint64_t images_text_count;
} dsc_header;

/// Reads the header of a cache file. DSC_ERROR (and a message) when it is not one, or when
/// its header, mappings or tables lie past its end.
int dsc_read_header(const uint8_t *bytes, uint64_t size, dsc_header *out, char *message, size_t message_size);

/// One entry of the main file's sub-cache array.
typedef struct dsc_subcache {
    uint8_t uuid[16];
    /// The sub-cache's offset from the cache's base address.
    uint64_t vm_offset;
    /// The suffix of its file name after the main file's (".01", ".1", ".25.data").
    char suffix[33];
} dsc_subcache;

/// Entry `index` of the sub-cache array of the main file.
int dsc_read_subcache(const uint8_t *bytes, uint64_t size, uint32_t index, dsc_subcache *out, char *message,
                      size_t message_size);

typedef struct dsc_cache dsc_cache;

/// Opens a cache: `files[0]` is the main file, `files[1 + i]` the file of sub-cache entry `i`
/// (bytes NULL when missing), `symbols` the `.symbols` file (NULL or bytes NULL when there is
/// none). Checks every file's header and mappings (inside the file, not overlapping one
/// another in the address space) and the local-symbol table. The bytes must stay valid until
/// `dsc_close`.
int dsc_open(const dsc_file *files, uint32_t file_count, const dsc_file *symbols, dsc_cache **out, char *message,
             size_t message_size);
void dsc_close(dsc_cache *cache);

uint32_t dsc_image_count(const dsc_cache *cache);
/// Whether the cache has a local-symbol table (its own or the `.symbols` file's).
int dsc_has_local_symbols(const dsc_cache *cache);
/// Local-symbol entries and nlist entries in that table.
uint64_t dsc_local_symbol_count(const dsc_cache *cache);

/// One image of the cache, as its entry and its Mach-O header say.
typedef struct dsc_image {
    /// The path, in the main file (not NUL-terminated).
    const uint8_t *path;
    uint32_t path_length;
    /// Whether `uuid` was found (LC_UUID, else the image-text entry).
    uint32_t has_uuid;
    uint8_t uuid[16];
    /// The address of its Mach-O header.
    uint64_t address;
    /// `__TEXT`: its vmaddr and size.
    uint64_t text_address;
    uint64_t text_size;
    /// The Mach-O header's cputype and cpusubtype (0 when it could not be read).
    uint32_t cpu_type;
    uint32_t cpu_subtype;
    /// Whether its Mach-O header lies in the files handed over (not in a missing sub-cache).
    uint32_t header_mapped;
} dsc_image;

/// Image `index`: its path and address from the image list, and its UUID and `__TEXT` from
/// its Mach-O header — or, when the header is not mapped (a sub-cache is missing), from the
/// image-text entry at its address.
int dsc_image_info(const dsc_cache *cache, uint32_t index, dsc_image *out, char *message, size_t message_size);

/// Where a symbol came from.
enum {
    DSC_SYMBOL_TABLE = 0,
    DSC_SYMBOL_LOCAL = 1,
    DSC_SYMBOL_EXPORT = 2,
};

/// One function symbol: an address and a name pointing into the cache's bytes.
typedef struct dsc_symbol {
    uint64_t address;
    const uint8_t *name;
    uint32_t name_length;
    /// DSC_SYMBOL_TABLE, DSC_SYMBOL_LOCAL or DSC_SYMBOL_EXPORT.
    uint8_t source;
    /// The nlist's section number (1-based); 0 for exports.
    uint8_t section;
    uint16_t reserved;
} dsc_symbol;

/// The symbols and function starts of one image. Arrays allocated by the reader; freed by
/// `dsc_free_symbols`.
typedef struct dsc_symbols {
    dsc_symbol *symbols;
    uint64_t count;
    /// LC_FUNCTION_STARTS as addresses, ascending.
    uint64_t *starts;
    uint64_t start_count;
    /// The image's sections' [address, end) by section number - 1, for symbol extents.
    uint64_t *section_ranges;
    uint32_t section_count;
    /// The names of exports, which are built from the trie's edges (freed with the rest).
    void *export_names;
    /// What could not be read (a table past the end, a missing sub-cache): the rest is kept.
    char problem[200];
} dsc_symbols;

/// Reads the symbols of image `index`: its nlist entries defined in a section (stabs
/// skipped), its local symbols, its exports, its function starts. DSC_ERROR only when the
/// image's header cannot be read; a damaged table costs that table, named in `problem`.
int dsc_read_symbols(const dsc_cache *cache, uint32_t index, dsc_symbols *out, char *message, size_t message_size);
void dsc_free_symbols(dsc_symbols *symbols);

#ifdef __cplusplus
}
#endif

#endif
