import DebugInfo

/// The forms in which one function's name is compared with another spelling of it: a report
/// and a debug file name the same function in many ways, and only a name that matches none of
/// them is taken as another function.
///
/// From a name, mangled or not:
/// - its symbol version is dropped (`memcpy@@GLIBC_2.14` → `memcpy`), and GCC's and LLVM's
///   clone suffixes (`foo.part.0`, `foo.isra.0`, `foo.cold`, `foo.constprop.0.isra.0`,
///   `foo.lto_priv.0`, `foo.llvm.1234`, and demangled, `foo(int) [clone .isra.0]`);
/// - a mangled name adds its demangled forms, full (`ns::foo(int)`, llvm-symbolizer's and the
///   sanitizers') and simplified (`outer(_:_:)`, the Swift runtime's);
/// - each form loses its blanks (demanglers differ in `> >`, `char const*`) and a Rust legacy
///   hash (`app::boom::h0123456789abcdef`), and adds its *base* (without its last parameter list
///   and what follows it: `ns::foo(int) const` → `ns::foo`) and its *leaf* (the base's last
///   component, template arguments left out: `ns::Box<int>::get` → `get`).
///
/// Two names agree when their forms or bases meet, or when the leaf of one is the whole of
/// the other, a name without qualifiers (`outer` and `d.outer(Swift.Int)`, `run` and
/// `ns::Foo::run()`): `raise` and `__GI_raise` do not (aliases are the symbol table's
/// business), `gsignal` and `set_binding_values.part.0` do not, `Foo::run()` and `Bar::run()`
/// do not (two leaves alike are two methods of two types), `foo` and `foo.part.0` do,
/// `ns::Ledger::post(int)` and `_ZN2ns6Ledger4postEi` do.
struct FunctionNameKeys {
    /// The comparable forms and their bases, each without blanks.
    private(set) var keys: Set<String> = []
    /// The leaves of the forms, which meet only a name without qualifiers.
    private(set) var leaves: Set<String> = []
    /// The keys without a qualifier (`::` or `.`).
    private var unqualified: Set<String> { keys.filter { !$0.contains(":") && !$0.contains(".") } }

    /// The keys of `name`.
    init(_ name: String) {
        let bare = FunctionNameKeys.withoutCloneSuffixes(FunctionNameKeys.withoutVersion(name))
        var forms = [bare]
        let mangled = bare.withCString { Demangler.isMangled(UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self)) }
        if mangled {
            forms.append(Demangler.demangle(bare, style: .full))
            forms.append(Demangler.demangle(bare, style: .simplified))
        }
        for form in forms {
            let key = FunctionNameKeys.canonical(form)
            guard !key.isEmpty else { continue }
            keys.insert(key)
            if let base = FunctionNameKeys.base(of: key) {
                keys.insert(base)
                if let leaf = FunctionNameKeys.leaf(of: base) { leaves.insert(leaf) }
            } else if let leaf = FunctionNameKeys.leaf(of: key) {
                leaves.insert(leaf)
            }
        }
    }

    /// Whether the two names may be one function's.
    func agrees(with other: FunctionNameKeys) -> Bool {
        !keys.isDisjoint(with: other.keys) || !leaves.isDisjoint(with: other.unqualified)
            || !other.leaves.isDisjoint(with: unqualified)
    }

    /// Whether a report's name for a frame says nothing: empty, or a placeholder (`??`,
    /// `<null>`, `<unknown>`, `<redacted>`, ...), or an address.
    static func isPlaceholder(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first else { return true }
        if first == UInt8(ascii: "<") && bytes.last == UInt8(ascii: ">") { return true }
        if bytes.allSatisfy({ $0 == UInt8(ascii: "?") }) { return true }
        return bytes.count > 2 && first == UInt8(ascii: "0") && (bytes[1] | 0x20) == UInt8(ascii: "x")
    }

    /// `name` without `@VERSION` or `@@VERSION`.
    static func withoutVersion(_ name: String) -> String {
        let bytes = Array(name.utf8)
        guard let at = bytes.dropFirst().firstIndex(of: UInt8(ascii: "@")) else { return name }
        return String(decoding: bytes[..<at], as: UTF8.self)
    }

    /// The words of GCC's and LLVM's clone and partition suffixes (`.part.0`, `.cold`, ...).
    private static let cloneWords: Set<String> = [
        "part", "isra", "constprop", "cold", "lto_priv", "localalias", "llvm", "clone", "__uniq", "specialized",
    ]

    /// `name` without its trailing clone suffixes: `foo.constprop.0.isra.0` → `foo`.
    static func withoutCloneSuffixes(_ name: String) -> String {
        var bytes = Array(name.utf8)
        while let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot > 0 {
            let tail = String(decoding: bytes[(dot + 1)...], as: UTF8.self)
            if cloneWords.contains(tail) {
                bytes.removeSubrange(dot...)
                continue
            }
            guard !tail.isEmpty, tail.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }),
                  let previous = bytes[..<dot].lastIndex(of: UInt8(ascii: ".")), previous > 0,
                  cloneWords.contains(String(decoding: bytes[(previous + 1)..<dot], as: UTF8.self))
            else { break }
            bytes.removeSubrange(previous...)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A demangled form without its clone notes (` [clone .isra.0]`, LLVM's ` (.part.0)`),
    /// its Rust legacy hash, and its blanks.
    static func canonical(_ form: String) -> String {
        var bytes = Array(form.utf8)
        while true {
            if bytes.last == UInt8(ascii: "]"), let open = lastRange(of: " [clone ", in: bytes) {
                bytes.removeSubrange(open...)
            } else if bytes.last == UInt8(ascii: ")"), let open = lastRange(of: " (.", in: bytes),
                      !bytes[(open + 2)...].contains(UInt8(ascii: " ")) {
                bytes.removeSubrange(open...)
            } else {
                break
            }
        }
        // "::h" and 16 hexadecimal digits.
        if bytes.count > 19, bytes[bytes.count - 19] == UInt8(ascii: ":"), bytes[bytes.count - 18] == UInt8(ascii: ":"),
           bytes[bytes.count - 17] == UInt8(ascii: "h"),
           bytes[(bytes.count - 16)...].allSatisfy({ $0 &- UInt8(ascii: "0") < 10 || $0 &- UInt8(ascii: "a") < 6 }) {
            bytes.removeLast(19)
        }
        bytes.removeAll { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `key` without its last parenthesized group and what follows it (`ns::foo(int)const` →
    /// `ns::foo`, `d.outer(Swift.Int)->Swift.Int` → `d.outer`); nil when it has none, or
    /// nothing would be left.
    static func base(of key: String) -> String? {
        let bytes = Array(key.utf8)
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        var depth = 0
        var i = close
        while i >= 0 {
            if bytes[i] == UInt8(ascii: ")") { depth += 1 }
            if bytes[i] == UInt8(ascii: "(") {
                depth -= 1
                if depth == 0 { break }
            }
            i -= 1
        }
        guard i > 0 else { return nil }
        return String(decoding: bytes[..<i], as: UTF8.self)
    }

    /// The last `::` or `.` component of `base`, template arguments left out; nil when it is
    /// `base` itself, or an operator (whose `<` and `>` are not brackets).
    static func leaf(of base: String) -> String? {
        var bytes: [UInt8] = []
        guard lastRange(of: "operator", in: Array(base.utf8)) == nil else { return nil }
        var depth = 0
        for byte in base.utf8 {
            if byte == UInt8(ascii: "<") {
                depth += 1
            } else if byte == UInt8(ascii: ">") && depth > 0 {
                depth -= 1
            } else if depth == 0 {
                bytes.append(byte)
            }
        }
        var start = bytes.count
        while start > 0, bytes[start - 1] != UInt8(ascii: ":"), bytes[start - 1] != UInt8(ascii: ".") { start -= 1 }
        guard start > 0, start < bytes.count else { return nil }
        return String(decoding: bytes[start...], as: UTF8.self)
    }

    /// Where the last `literal` starts in `bytes`.
    private static func lastRange(of literal: String, in bytes: [UInt8]) -> Int? {
        let needle = Array(literal.utf8)
        guard bytes.count >= needle.count else { return nil }
        var i = bytes.count - needle.count
        while i >= 0 {
            if bytes[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i -= 1
        }
        return nil
    }
}
