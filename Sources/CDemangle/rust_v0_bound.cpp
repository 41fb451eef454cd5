// An upper bound on what LLVM's Rust demangler prints for a v0 name, found without printing.
//
// A v0 back-reference (`B<base-62 offset>_`) stands for the path, type or constant that starts
// at that earlier offset, and LLVM prints it again in full each time. One that points at a
// tuple made of two back-references to the tuple before it doubles the output: a name of 200
// bytes prints 400 MB, built whole before rustDemangle returns. This walk reads the name with
// LLVM's grammar (llvm/lib/Demangle/RustDemangle.cpp, release 19), printing nothing: each
// construct is bounded by `bytesOut` output bytes for each of its input bytes — more than
// any construct prints, the longest being a closure's `::{closure#<20 digits>}` for `NC0` —
// plus what its back-references print and what its binders (`G`) bring, each of
// which may print `'z<20 digits>, `. The bound of the entity an offset refers to is kept the
// first time it is found, so that an entity is walked where it stands and once more for each
// kind of reference to it (path, type, constant): the walk takes time in proportion to the
// name's length times its depth of nesting (at most 500), however the back-references nest.
//
// The walk refuses what LLVM refuses for the same reasons (an unknown construct, a
// back-reference that is not earlier, nesting past LLVM's limit of 500) and is no stricter
// anywhere else: a name it refuses is one LLVM cannot print.

#include "CDemangle.h"

#include <cstdint>
#include <vector>

namespace {

constexpr uint64_t bytesOut = 32;
constexpr uint64_t lifetimeOut = 24;
constexpr uint64_t saturated = UINT64_MAX / 4;
constexpr size_t maximumDepth = 500;  // LLVM's MaxRecursionLevel

uint64_t add(uint64_t a, uint64_t b) { return a > saturated - b ? saturated : a + b; }
uint64_t multiply(uint64_t a, uint64_t b) { return b != 0 && a > saturated / b ? saturated : a * b; }

bool isLower(char c) { return c >= 'a' && c <= 'z'; }
bool isUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isBasicType(char c) {
    switch (c) {
    case 'a': case 'b': case 'c': case 'd': case 'e': case 'f': case 'h': case 'i': case 'j': case 'l':
    case 'm': case 'n': case 'o': case 'p': case 's': case 't': case 'u': case 'v': case 'x': case 'y': case 'z':
        return true;
    default:
        return false;
    }
}

enum Kind { path = 0, type = 1, constant = 2 };

class Walk {
public:
    Walk(const char *input, size_t size) : input(input), size(size) {}

    /// The bound of the whole name after `_R` (without its `.suffix`), or nothing.
    bool run(uint64_t *bound) {
        uint64_t extra = walkPath();
        if (!failed && position != size) {
            // The instantiating crate: read, not printed.
            bool saved = printing;
            printing = false;
            walkPath();
            printing = saved;
        }
        if (failed || position != size) return false;
        *bound = add(multiply(size, bytesOut), extra);
        return true;
    }

private:
    const char *input;
    size_t size;
    size_t position = 0;
    size_t depth = 0;
    bool failed = false;
    bool printing = true;
    /// Per offset and kind: 0 unknown, `inProgress`, or the bound plus one.
    std::vector<uint64_t> bounds;
    static constexpr uint64_t inProgress = UINT64_MAX;

    char peek() const { return position < size ? input[position] : '\0'; }
    char next() {
        if (position >= size) {
            failed = true;
            return '\0';
        }
        return input[position++];
    }
    bool consume(char c) {
        if (position < size && input[position] == c) {
            position++;
            return true;
        }
        return false;
    }

    uint64_t base62() {
        if (consume('_')) return 0;
        uint64_t value = 0;
        for (;;) {
            char c = next();
            if (failed) return 0;
            if (c == '_') break;
            uint64_t digit;
            if (isDigit(c)) digit = uint64_t(c - '0');
            else if (isLower(c)) digit = 10 + uint64_t(c - 'a');
            else if (isUpper(c)) digit = 36 + uint64_t(c - 'A');
            else return fail();
            if (value > (UINT64_MAX - digit) / 62) return fail();
            value = value * 62 + digit;
        }
        if (value == UINT64_MAX) return fail();
        return value + 1;
    }

    void optionalBase62(char tag) {
        if (consume(tag)) {
            uint64_t value = base62();
            if (value == UINT64_MAX) fail();
        }
    }

    uint64_t decimal() {
        if (!isDigit(peek())) return fail();
        if (consume('0')) return 0;
        uint64_t value = 0;
        while (isDigit(peek())) {
            uint64_t digit = uint64_t(next() - '0');
            if (value > (UINT64_MAX - digit) / 10) return fail();
            value = value * 10 + digit;
        }
        return value;
    }

    void identifier() {
        consume('u');
        uint64_t bytes = decimal();
        consume('_');
        if (failed || bytes > size - position) {
            fail();
            return;
        }
        position += size_t(bytes);
    }

    uint64_t fail() {
        failed = true;
        return 0;
    }

    bool enter() {
        if (failed || depth >= maximumDepth) {
            failed = true;
            return false;
        }
        depth++;
        return true;
    }

    /// What a back-reference prints: the bound of the `kind` at its offset.
    uint64_t backref(Kind kind) {
        uint64_t offset = base62();
        size_t here = position;
        if (failed || offset >= here) return fail();
        if (!printing) return 0;
        if (bounds.empty()) bounds.assign(3 * (size + 1), 0);
        uint64_t &known = bounds[3 * size_t(offset) + kind];
        if (known == inProgress) return fail();  // it holds itself: LLVM recurses to its limit
        if (known != 0) return known - 1;
        known = inProgress;
        position = size_t(offset);
        uint64_t extra = kind == path ? walkPath() : kind == type ? walkType() : walkConstant();
        uint64_t bound = add(multiply(position - size_t(offset), bytesOut), extra);
        position = here;
        if (failed) return 0;
        bounds[3 * size_t(offset) + kind] = bound == saturated ? saturated : bound + 1;
        return bound;
    }

    uint64_t walkPath() {
        if (!enter()) return 0;
        uint64_t extra = 0;
        switch (next()) {
        case 'C':
            optionalBase62('s');
            identifier();
            break;
        case 'M':
            implPath();
            extra = walkType();
            break;
        case 'X':
            implPath();
            extra = walkType();
            extra = add(extra, walkPath());
            break;
        case 'Y':
            extra = walkType();
            extra = add(extra, walkPath());
            break;
        case 'N': {
            char ns = next();
            if (!isLower(ns) && !isUpper(ns)) {
                fail();
                break;
            }
            extra = walkPath();
            optionalBase62('s');
            identifier();
            break;
        }
        case 'I':
            extra = walkPath();
            while (!failed && !consume('E')) extra = add(extra, genericArg());
            break;
        case 'B':
            extra = backref(path);
            break;
        default:
            fail();
        }
        depth--;
        return extra;
    }

    void implPath() {
        bool saved = printing;
        printing = false;
        optionalBase62('s');
        walkPath();
        printing = saved;
    }

    uint64_t genericArg() {
        if (consume('L')) {
            base62();
            return 0;
        }
        if (consume('K')) return walkConstant();
        return walkType();
    }

    uint64_t walkType() {
        if (!enter()) return 0;
        uint64_t extra = 0;
        size_t start = position;
        char c = next();
        if (!isBasicType(c)) {
            switch (c) {
            case 'A':
                extra = walkType();
                extra = add(extra, walkConstant());
                break;
            case 'S': case 'P': case 'O':
                extra = walkType();
                break;
            case 'R': case 'Q':
                if (consume('L')) base62();
                extra = walkType();
                break;
            case 'F':
                extra = fnSig();
                break;
            case 'D':
                extra = dynBounds();
                if (consume('L')) base62();
                else fail();
                break;
            case 'B':
                extra = backref(type);
                break;
            case 'T':
                while (!failed && !consume('E')) extra = add(extra, walkType());
                break;
            default:
                position = start;
                extra = walkPath();
            }
        }
        depth--;
        return extra;
    }

    /// What a binder's `for<'a, 'b, ...> ` prints.
    uint64_t binder() {
        if (!consume('G')) return 0;
        uint64_t lifetimes = base62();
        if (failed || lifetimes == UINT64_MAX || lifetimes + 1 >= size) return fail();
        return multiply(lifetimes + 1, lifetimeOut);
    }

    uint64_t fnSig() {
        uint64_t extra = binder();
        consume('U');
        if (consume('K') && !consume('C')) identifier();
        while (!failed && !consume('E')) extra = add(extra, walkType());
        if (!consume('u')) extra = add(extra, walkType());
        return extra;
    }

    uint64_t dynBounds() {
        uint64_t extra = binder();
        while (!failed && !consume('E')) {
            extra = add(extra, walkPath());
            while (!failed && consume('p')) {
                identifier();
                extra = add(extra, walkType());
            }
        }
        return extra;
    }

    uint64_t walkConstant() {
        if (!enter()) return 0;
        uint64_t extra = 0;
        char c = next();
        if (c == 'B') {
            extra = backref(constant);
        } else if (c == 'p') {
            // the placeholder `_`
        } else if (isBasicType(c) && c != 'd' && c != 'e' && c != 'f' && c != 'u' && c != 'v' && c != 'z') {
            // An integer, bool or char: hex digits and '_'; a signed one may start with 'n'.
            consume('n');
            while (!failed && !consume('_')) {
                char digit = next();
                if (!isDigit(digit) && !(digit >= 'a' && digit <= 'f')) fail();
            }
        } else {
            fail();
        }
        depth--;
        return extra;
    }
};

}  // namespace

extern "C" uint64_t cdm_rust_v0_bound(const char *name, size_t length) {
    if (length < 2 || name[0] != '_' || name[1] != 'R') return UINT64_MAX;
    size_t end = 2;
    while (end < length && name[end] != '.') end++;
    uint64_t bound = 0;
    Walk walk(name + 2, end - 2);
    try {
        if (!walk.run(&bound)) return UINT64_MAX;
    } catch (...) {
        return UINT64_MAX;  // memory ran out
    }
    // The suffix is printed as " (.suffix)".
    return add(bound, multiply(length - end + 1, bytesOut));
}
