// Legacy Rust names, spelled as Rust's own backtraces spell them.
//
// rustc's legacy mangling is an Itanium nested name of plain identifiers whose last identifier
// is a hash of the item's crate and type (`h` and 16 hex digits), with the characters an
// identifier cannot hold escaped: `$LT$` is `<`, `$u20$` a space, `..` is `::`. LLVM's Itanium
// demangler prints such a name as C++ (`_$LT$app..Shape$u20$as$u20$app..Area$GT$::area::h...`);
// Rust prints it decoded and without the hash (`<app::Shape as app::Area>::area`), and so is it
// printed here. The decoding follows the rustc-demangle crate's: an escape it does not know
// ends the decoding of that identifier, whose rest is printed as it is.

#include "internal.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr size_t hashLength = 17;  // "h" and 16 hex digits

bool isHexDigit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

bool isHash(const char *identifier, size_t length) {
    if (length != hashLength || identifier[0] != 'h') return false;
    for (size_t i = 1; i < length; i++) {
        if (!isHexDigit(identifier[i])) return false;
    }
    return true;
}

/// Reads one `<decimal length><bytes>` identifier at `*position`; false when there is none or
/// it runs past `length`.
bool readIdentifier(const char *name, size_t length, size_t *position, size_t *start, size_t *size) {
    size_t i = *position;
    if (i >= length || name[i] < '1' || name[i] > '9') return false;
    size_t value = 0;
    while (i < length && name[i] >= '0' && name[i] <= '9') {
        value = value * 10 + size_t(name[i] - '0');
        if (value > length) return false;
        i++;
    }
    if (value > length - i) return false;
    *start = i;
    *size = value;
    *position = i + value;
    return true;
}

void appendUTF8(std::string &out, unsigned long scalar) {
    if (scalar < 0x80) {
        out += char(scalar);
    } else if (scalar < 0x800) {
        out += char(0xc0 | (scalar >> 6));
        out += char(0x80 | (scalar & 0x3f));
    } else if (scalar < 0x10000) {
        out += char(0xe0 | (scalar >> 12));
        out += char(0x80 | ((scalar >> 6) & 0x3f));
        out += char(0x80 | (scalar & 0x3f));
    } else {
        out += char(0xf0 | (scalar >> 18));
        out += char(0x80 | ((scalar >> 12) & 0x3f));
        out += char(0x80 | ((scalar >> 6) & 0x3f));
        out += char(0x80 | (scalar & 0x3f));
    }
}

/// The character an escape's inside (`LT`, `u7b`) stands for, appended to `out`; false for an
/// escape rustc does not write, or a `$u..$` that is no printable Unicode scalar.
bool appendEscape(std::string &out, const char *escape, size_t length) {
    static const struct { const char *escape; char character; } named[] = {
        {"SP", '@'}, {"BP", '*'}, {"RF", '&'}, {"LT", '<'}, {"GT", '>'}, {"LP", '('}, {"RP", ')'}, {"C", ','},
    };
    for (const auto &entry : named) {
        if (strlen(entry.escape) == length && memcmp(entry.escape, escape, length) == 0) {
            out += entry.character;
            return true;
        }
    }
    if (length < 2 || length > 7 || escape[0] != 'u') return false;
    unsigned long scalar = 0;
    for (size_t i = 1; i < length; i++) {
        if (!isHexDigit(escape[i])) return false;
        scalar = scalar * 16 + unsigned(escape[i] <= '9' ? escape[i] - '0' : escape[i] - 'a' + 10);
    }
    bool isControl = scalar < 0x20 || (scalar >= 0x7f && scalar < 0xa0);
    if (isControl || scalar > 0x10ffff || (scalar >= 0xd800 && scalar < 0xe000)) return false;
    appendUTF8(out, scalar);
    return true;
}

void appendDecoded(std::string &out, const char *identifier, size_t length) {
    size_t i = 0;
    if (length >= 2 && identifier[0] == '_' && identifier[1] == '$') i = 1;
    while (i < length) {
        char c = identifier[i];
        if (c == '.') {
            bool pair = i + 1 < length && identifier[i + 1] == '.';
            out += pair ? "::" : ".";
            i += pair ? 2 : 1;
        } else if (c == '$') {
            const char *close = static_cast<const char *>(memchr(identifier + i + 1, '$', length - i - 1));
            if (close == nullptr || !appendEscape(out, identifier + i + 1, size_t(close - identifier) - i - 1)) break;
            i = size_t(close - identifier) + 1;
        } else {
            out += c;
            i++;
        }
    }
    out.append(identifier + i, length - i);
}

}  // namespace

namespace cdm {

bool isRustLegacy(const char *name, size_t length) {
    if (length < 3 || memcmp(name, "_ZN", 3) != 0) return false;
    size_t position = 3, start = 0, size = 0, identifiers = 0;
    while (position < length && name[position] != 'E') {
        if (!readIdentifier(name, length, &position, &start, &size)) return false;
        for (size_t i = start; i < start + size; i++) {
            if (name[i] <= ' ' || name[i] > '~') return false;
        }
        identifiers++;
    }
    if (identifiers < 2 || position >= length || !isHash(name + start, size)) return false;
    position++;  // 'E'
    return position == length || name[position] == '.';
}

char *demangleRustLegacy(const char *name, size_t length) {
    std::string out;
    size_t position = 3, start = 0, size = 0;
    bool first = true;
    while (readIdentifier(name, length, &position, &start, &size)) {
        if (name[position] == 'E') break;  // the hash, last before 'E'
        if (!first) out += "::";
        appendDecoded(out, name + start, size);
        first = false;
    }
    position++;
    if (position < length) {
        out += " (";
        out.append(name + position, length - position);
        out += ")";
    }
    return strdup(out.c_str());
}

}  // namespace cdm
