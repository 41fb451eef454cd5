// Functions the files of CDemangle share; not part of its C API.

#ifndef CDEMANGLE_INTERNAL_H
#define CDEMANGLE_INTERNAL_H

#include <stddef.h>

namespace cdm {

/// Whether the `length` bytes at `name` are a legacy Rust name: `_ZN`, length-prefixed ASCII
/// identifiers, the last `h` and 16 hex digits, `E`, and nothing after it but a `.suffix`.
bool isRustLegacy(const char *name, size_t length);

/// The readable form of a legacy Rust name (one `isRustLegacy` accepts): its identifiers joined
/// by `::` with their escapes decoded, without the hash, and a suffix as LLVM prints one
/// (` (.llvm.123)`). Malloc'ed; NULL only when memory runs out.
char *demangleRustLegacy(const char *name, size_t length);

}  // namespace cdm

#endif
