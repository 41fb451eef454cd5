import DebugInfo
import Platform

/// A function's name as a crash signature spells it: what changes between builds of the same
/// code, or between two paths to the same function, taken out.
///
///     engine::fold<int, engine::Add>(int const*, unsigned long, int)   →  engine::fold
///     engine::Scheduler::total_weight() const::$_0::operator()(int) const
///                                                     →  engine::Scheduler::total_weight::$_0::operator()
///     generic specialization <Swift.Int> of Shapes.clamp<A where A: Swift.Comparable>(A, A, A) -> A
///                                                     →  Shapes.clamp
///     Shapes.Circle.radius.getter : Swift.Double      →  Shapes.Circle.radius.getter
///     parse_record.cold.1, parse_record [clone .cold]  →  parse_record
///     $s6Shapes6squareyS2dF (mangled: --no-demangle)  →  Shapes.square
///
/// - Parameter lists, return types and qualifiers (`const`, `&`, `noexcept`, `throws`, Swift's
///   `-> T` and ` : T`) go: overloads differ there, but one crash site is one function, and a
///   parameter type renamed would otherwise split a group.
/// - Template and generic arguments go: one template crashes alike for every argument, and
///   which specializations a build has depends on its optimizer.
/// - C++ ABI tags (`[abi:cxx11]`) go, and the standard library's abbreviations are spelled
///   out (`std::string` is `std::basic_string`): demanglers differ there.
/// - Clone and specialization markers go (`.cold`, `.constprop.0`, `.isra.0`, `.part.0`,
///   `.lto_priv.0`, `.llvm.NNN`, `[clone …]`, Swift's `generic specialization <…> of`,
///   `function signature specialization <…> of`, `specialized`, `merged`, `with unmangled
///   suffix`): they are the optimizer's copies of one source function.
/// - Mangled names are demangled first, so that a run with `--no-demangle` groups alike.
/// - Objective-C methods (`-[Class selector:]`) are kept as they are: the selector is the name.
public enum FunctionName {
    /// The normalized form of `name` (see the type's documentation).
    public static func normalized(_ name: String) -> String {
        // A C identifier is its own normal form; others are looked up in the names already met
        // (a batch of reports meets the same functions over and over).
        if !name.hasPrefix("_Z"), !name.hasPrefix("_T0"), name.utf8.allSatisfy(isIdentifierByte) { return name }
        guard name.utf8.count <= 512 else { return normalizing(name) }  // the cache holds short names only
        if let known = cache.value(for: name) { return known }
        let result = normalizing(name)
        cache.store(result, for: name)
        return result
    }

    private static let cache = NormalizedNames()

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
    }

    /// The longest name normalized whole: bracket matching is quadratic in the worst case,
    /// and names come from files strangers made. Longer names are cut to this many bytes
    /// first (real names this long are template expansions, distinct well before the end).
    public static let maximumLength = 2048

    private static func normalizing(_ name: String) -> String {
        var text = name.utf8.count > maximumLength ? String(decoding: name.utf8.prefix(maximumLength), as: UTF8.self) : name
        if text.hasPrefix("_$s") || text.hasPrefix("$s") || text.hasPrefix("_Z") || text.hasPrefix("$S")
            || text.hasPrefix("_T0") {
            text = Demangler.demangle(text, style: .full)
        }
        text = trimmed(text)
        if text.hasPrefix("-[") || text.hasPrefix("+[") { return text }
        if let suffix = text.firstRange(of: " with unmangled suffix ") { text = String(text[..<suffix.lowerBound]) }
        text = withoutCloneSuffix(text)
        text = withoutSpecializationPrefixes(text)
        return expandingStandardAbbreviations(trimmed(String(decoding: stripped(Array(text.utf8)), as: UTF8.self)))
    }

    /// The C++ standard library's abbreviations, spelled out: demanglers differ on whether
    /// `Ss` is `std::string` or `std::basic_string<char, ...>`, and with the arguments gone
    /// both are `std::basic_string`.
    private static let standardAbbreviations: [(String, String)] = [
        ("std::string", "std::basic_string"), ("std::wstring", "std::basic_string"),
        ("std::iostream", "std::basic_iostream"), ("std::istream", "std::basic_istream"),
        ("std::ostream", "std::basic_ostream"),
    ]

    static func expandingStandardAbbreviations(_ name: String) -> String {
        guard name.contains("std::") else { return name }
        var bytes = Array(name.utf8)
        for (short, long) in standardAbbreviations {
            let pattern = Array(short.utf8)
            var i = 0
            while i + pattern.count <= bytes.count {
                let starts = i == 0 || !isNameByte(bytes[i - 1]) && bytes[i - 1] != UInt8(ascii: ":")
                let end = i + pattern.count
                if starts, bytes[i..<end].elementsEqual(pattern), end == bytes.count || !isNameByte(bytes[end]) {
                    bytes.replaceSubrange(i..<end, with: long.utf8)
                    i += long.utf8.count
                } else {
                    i += 1
                }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: Markers

    /// The suffixes compilers give the copies they make of a function (gcc, clang, LTO).
    private static let cloneWords: Set<Substring> = ["cold", "constprop", "isra", "part", "lto_priv", "llvm", "clone", "localalias"]

    /// `name` without a trailing run of clone markers (`.cold.1`, `.constprop.0.isra.0`):
    /// only when every dot-separated word from the first marker to the end is a marker or a
    /// number, so that a Swift name such as `Shapes.part.getter` is left alone.
    static func withoutCloneSuffix(_ name: String) -> String {
        var text = name
        while let bracket = text.firstRange(of: " [clone ") {
            guard let close = text[bracket.upperBound...].firstIndex(of: "]") else { break }
            text.removeSubrange(bracket.lowerBound...close)
        }
        let words = text.split(separator: ".", omittingEmptySubsequences: false)
        // The run of markers and numbers at the end, never the first word; it starts at a marker.
        var first = words.count
        while first > 1, cloneWords.contains(words[first - 1]) || words[first - 1].allSatisfy(\.isNumber) && !words[first - 1].isEmpty {
            first -= 1
        }
        while first < words.count, !cloneWords.contains(words[first]) { first += 1 }
        return first < words.count ? words[0..<first].joined(separator: ".") : text
    }

    /// Swift's specialization prefixes, each `<…>` of them included.
    private static let specializationPrefixes = [
        "generic specialization <", "function signature specialization <", "specialized ", "merged ",
    ]

    static func withoutSpecializationPrefixes(_ name: String) -> String {
        var bytes = Array(name.utf8)
        var changed = true
        while changed {
            changed = false
            for prefix in specializationPrefixes where bytes.starts(with: prefix.utf8) {
                var i = prefix.utf8.count
                if prefix.hasSuffix("<") {
                    i = skipBalanced(bytes, from: i - 1, open: UInt8(ascii: "<"), close: UInt8(ascii: ">"))
                    let of = Array(" of ".utf8)
                    guard bytes[i...].starts(with: of) else { return name }
                    i += of.count
                }
                bytes.removeFirst(i)
                changed = true
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: Arguments, parameters and types

    /// Removes template and generic arguments, parameter lists and what follows a parameter
    /// list up to the next scope (`const`, `-> T`), and Swift's ` : T` type annotations.
    private static func stripped(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        var afterOperator = false
        while i < bytes.count {
            let byte = bytes[i]
            if endsWithOperatorKeyword(out) {
                let token = operatorToken(bytes, at: i)
                if token > 0 {
                    out += bytes[i..<i + token]
                    i += token
                    afterOperator = true
                    continue
                }
            }
            if afterOperator, byte == UInt8(ascii: " "), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "<") {
                i += 1  // c++filt's `operator< <T>`: the space only keeps two tokens apart
                continue
            }
            let operatorEnded = afterOperator
            afterOperator = false
            switch byte {
            case UInt8(ascii: "<") where isNameByte(out.last) || operatorEnded:  // `operator>><T>`
                let end = skipBalanced(bytes, from: i, open: UInt8(ascii: "<"), close: UInt8(ascii: ">"))
                if end > i { i = end; continue }
            case UInt8(ascii: "(") where isNameByte(out.last) || out.last == UInt8(ascii: ">") || isClosureType(out) || operatorEnded:
                let end = skipBalanced(bytes, from: i, open: UInt8(ascii: "("), close: UInt8(ascii: ")"))
                if end > i {
                    if isClosureType(out) { out.removeLast() }  // the space before the type
                    i = skipQualifiers(bytes, from: end)
                    continue
                }
            case UInt8(ascii: "[") where bytes[i...].starts(with: "[abi:".utf8):
                // A C++ ABI tag (`name[abi:cxx11]`): which string a function returns, not which function.
                if let close = bytes[i...].firstIndex(of: UInt8(ascii: "]")) { i = close + 1; continue }
            case UInt8(ascii: " ") where bytes[i...].starts(with: " : ".utf8):
                // A Swift accessor's or conformance's type: up to the next ` in ` or the end.
                i = nextIn(bytes, from: i + 3) ?? bytes.count
                continue
            default:
                break
            }
            out.append(byte)
            i += 1
        }
        return out
    }

    /// Whether `byte` can end an identifier (a name a parameter list or arguments follow).
    private static func isNameByte(_ byte: UInt8?) -> Bool {
        guard let byte else { return false }
        return (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "$") || byte == UInt8(ascii: "}") || byte >= 0x80
    }

    /// Whether `out` ends with `closure #N ` (or `implicit closure #N `): Swift prints the
    /// closure's type there, `closure #1 (Swift.Int) -> Swift.Int in Shapes.main()`.
    private static func isClosureType(_ out: [UInt8]) -> Bool {
        guard out.last == UInt8(ascii: " ") else { return false }
        var j = out.count - 2
        var digits = 0
        while j >= 0, out[j] >= UInt8(ascii: "0"), out[j] <= UInt8(ascii: "9") {
            j -= 1
            digits += 1
        }
        guard digits > 0, j >= 0, out[j] == UInt8(ascii: "#") else { return false }
        return out[..<j].reversed().starts(with: " erusolc".utf8)
    }

    /// The index just past the bracket that closes the one at `start`; `start` when it is
    /// never closed. A `>` of `->` does not close an angle bracket.
    private static func skipBalanced(_ bytes: [UInt8], from start: Int, open: UInt8, close: UInt8) -> Int {
        var depth = 0
        var i = start
        while i < bytes.count {
            let byte = bytes[i]
            if byte == open {
                depth += 1
            } else if byte == close, !(close == UInt8(ascii: ">") && i > 0 && bytes[i - 1] == UInt8(ascii: "-")) {
                depth -= 1
                if depth == 0 { return i + 1 }
            }
            i += 1
        }
        return start
    }

    /// Past the qualifiers and return type after a parameter list: ` const`, ` &`, ` &&`,
    /// ` volatile`, ` noexcept`, ` throws`, ` rethrows`, ` async`, and ` -> T` up to the next
    /// ` in ` (a Swift closure's context) or the end.
    private static func skipQualifiers(_ bytes: [UInt8], from start: Int) -> Int {
        var i = start
        let qualifiers = [" const", " volatile", " &&", " &", " noexcept", " throws", " rethrows", " async"]
        var moved = true
        while moved {
            moved = false
            for qualifier in qualifiers where bytes[i...].starts(with: qualifier.utf8) {
                let end = i + qualifier.utf8.count
                if end == bytes.count || !isNameByte(bytes[end]) {
                    i = end
                    moved = true
                }
            }
            if bytes[i...].starts(with: " -> ".utf8) {
                return nextIn(bytes, from: i + 4) ?? bytes.count
            }
        }
        return i
    }

    /// The index of the next ` in ` outside brackets, from `start`.
    private static func nextIn(_ bytes: [UInt8], from start: Int) -> Int? {
        var depth = 0
        var i = start
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "<"): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ">") where i == 0 || bytes[i - 1] != UInt8(ascii: "-"): depth -= 1
            case UInt8(ascii: " ") where depth <= 0 && bytes[i...].starts(with: " in ".utf8): return i
            default: break
            }
            i += 1
        }
        return nil
    }

    private static func endsWithOperatorKeyword(_ out: [UInt8]) -> Bool {
        guard out.count >= 8, out.suffix(8).elementsEqual("operator".utf8) else { return false }
        return out.count == 8 || !isNameByte(out[out.count - 9])
    }

    /// The length of the C++ operator token at `i` (after `operator`): the longest of C++'s
    /// operators there (`<<=`, `->`, `()`), so that template arguments right after it are
    /// still arguments (LLVM spells `operator>><char>`, c++filt `operator>> <char>`); 0 when
    /// there is none.
    private static func operatorToken(_ bytes: [UInt8], at i: Int) -> Int {
        for token in operatorTokens where bytes[i...].starts(with: token) { return token.count }
        return 0
    }

    /// C++'s operator tokens, longest first.
    private static let operatorTokens: [[UInt8]] = [
        "<<=", ">>=", "<=>", "->*", "()", "[]", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--", "->",
        "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "<", ">", "=", "!", "+", "-", "*", "/", "%", "^", "&", "|", "~", ",",
    ].map { Array($0.utf8) }

    private static func trimmed(_ text: String) -> String {
        var scalars = Substring(text)
        while scalars.first == " " || scalars.first == "\t" { scalars.removeFirst() }
        while scalars.last == " " || scalars.last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}

/// The normalized names met so far, shared by the threads of a run; emptied when it holds
/// 8,192, so that it stays small whatever the run (at most 8,192 names of 512 bytes).
private final class NormalizedNames: @unchecked Sendable {
    private let lock = Lock()
    private var names: [String: String] = [:]

    func value(for name: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        return names[name]
    }

    func store(_ normalized: String, for name: String) {
        lock.lock()
        defer { lock.unlock() }
        if names.count >= 8192 { names.removeAll(keepingCapacity: true) }
        names[name] = normalized
    }
}
