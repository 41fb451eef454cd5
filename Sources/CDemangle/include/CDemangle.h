// CDemangle: readable names for the mangled names of C++, Rust and D, through LLVM's demangler
// library (libLLVMDemangle, Debian's llvm-19-dev), with the C++ ABI's __cxa_demangle as the
// fallback for Itanium names LLVM does not read.
//
// Names come from debug files strangers made. A Rust v0 name is measured before LLVM sees it
// (`cdm_rust_v0_bound`): its back-references can make a 200-byte name print 400 MB, which LLVM
// builds whole before it returns. Itanium names are bounded by the caller (the Swift
// `Demangler`, which measures their back-references the same way). Every result is refused
// past `output_limit` bytes.
//
// Rust names are spelled as Rust's own backtraces spell them: a legacy name
// (`_ZN4core3ptr13drop_in_place17h0123456789abcdefE`) loses its hash and has its `$LT$`-style
// escapes decoded (`core::ptr::drop_in_place`); a v0 name is printed as LLVM prints it
// (`core::ptr::drop_in_place::<app::State>`), which has no hash.

#ifndef CDEMANGLE_H
#define CDEMANGLE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The mangling schemes `cdm_demangle` reads.
typedef enum cdm_scheme {
    CDM_NOT_MANGLED = 0,
    /// Itanium C++ ABI (`_Z...`), which is also the shape of legacy Rust names.
    CDM_ITANIUM = 1,
    /// A legacy Rust name: an Itanium nested name of plain identifiers whose last one is the
    /// hash (`_ZN...17h<16 hex digits>E`), possibly followed by a `.suffix`.
    CDM_RUST_LEGACY = 2,
    /// Rust's v0 mangling (`_R...`).
    CDM_RUST_V0 = 3,
    /// D (`_D` and a digit).
    CDM_DLANG = 4,
} cdm_scheme;

/// The scheme the `length` bytes at `name` are mangled in, from their shape alone.
cdm_scheme cdm_scheme_of(const char *name, size_t length);

/// An upper bound on the length of what LLVM's Rust demangler prints for the v0 name `name`
/// (`length` bytes, starting with `_R`), found by walking its grammar once without printing:
/// every back-reference counts the bound of what it refers to. SIZE_MAX when the walk finds no
/// v0 name LLVM would print (a bad or unknown construct, a back-reference that is not earlier,
/// nesting deeper than LLVM goes).
uint64_t cdm_rust_v0_bound(const char *name, size_t length);

/// The readable form of the `length` bytes at `name` (no NUL needed), malloc'ed and
/// NUL-terminated, or NULL when the name is in no scheme above, cannot be demangled, is a v0
/// name whose `cdm_rust_v0_bound` exceeds `expansion_limit`, or reads longer than
/// `output_limit` bytes. The caller frees the result.
char *cdm_demangle(const char *name, size_t length, size_t expansion_limit, size_t output_limit);

/// LLVM's Rust demangler on `name` with no bound at all, for tests and fuzzing that compare
/// `cdm_rust_v0_bound` with what LLVM prints: only for names too short to expand far.
char *cdm_rust_v0_demangle_unbounded(const char *name, size_t length);

#ifdef __cplusplus
}
#endif

#endif
