// The C API of CDemangle (see include/CDemangle.h): the scheme of a name from its first bytes,
// then LLVM's demangler for it, behind the bounds.

#include "CDemangle.h"
#include "internal.h"

#include <llvm/Demangle/Demangle.h>

#include <cxxabi.h>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace {

/// Itanium names through LLVM, and through the C++ runtime's demangler when LLVM cannot read
/// them (GNU extensions LLVM does not know).
char *demangleItanium(const char *name, size_t length) {
    if (char *out = llvm::itaniumDemangle(std::string_view(name, length))) return out;
    std::string terminated(name, length);
    if (terminated.size() != strlen(terminated.c_str())) return nullptr;  // a NUL inside
    int status = 0;
    char *out = abi::__cxa_demangle(terminated.c_str(), nullptr, nullptr, &status);
    if (status != 0) {
        free(out);
        return nullptr;
    }
    return out;
}

char *demangle(const char *name, size_t length, size_t expansionLimit) {
    switch (cdm_scheme_of(name, length)) {
    case CDM_ITANIUM:
        return demangleItanium(name, length);
    case CDM_RUST_LEGACY:
        return cdm::demangleRustLegacy(name, length);
    case CDM_RUST_V0:
        if (cdm_rust_v0_bound(name, length) > expansionLimit) return nullptr;
        return llvm::rustDemangle(std::string_view(name, length));
    case CDM_DLANG:
        return llvm::dlangDemangle(std::string_view(name, length));
    case CDM_NOT_MANGLED:
        break;
    }
    return nullptr;
}

}  // namespace

extern "C" cdm_scheme cdm_scheme_of(const char *name, size_t length) {
    if (length < 3 || name[0] != '_') return CDM_NOT_MANGLED;
    switch (name[1]) {
    case 'Z':
        return cdm::isRustLegacy(name, length) ? CDM_RUST_LEGACY : CDM_ITANIUM;
    case 'R':
        return CDM_RUST_V0;
    case 'D':
        return name[2] >= '0' && name[2] <= '9' ? CDM_DLANG : CDM_NOT_MANGLED;
    default:
        return CDM_NOT_MANGLED;
    }
}

extern "C" char *cdm_demangle(const char *name, size_t length, size_t expansion_limit, size_t output_limit) {
    char *out = nullptr;
    try {
        out = demangle(name, length, expansion_limit);
    } catch (...) {
        return nullptr;  // memory ran out in std::string
    }
    if (out != nullptr && strnlen(out, output_limit + 1) > output_limit) {
        free(out);
        return nullptr;
    }
    return out;
}

extern "C" char *cdm_rust_v0_demangle_unbounded(const char *name, size_t length) {
    return llvm::rustDemangle(std::string_view(name, length));
}
