/// The kind of a crash, from its exception type or signal: part of the signature, so that an
/// abort and a bad access in one function are two groups. Kinds are classes, not the exact
/// type, because one bug is reported several ways: a Swift trap is `EXC_BREAKPOINT (SIGTRAP)`
/// on arm64 and `EXC_BAD_INSTRUCTION (SIGILL)` on x86_64, and one bad pointer faults as
/// `SIGSEGV` or `SIGBUS` depending on where it points.
public enum CrashKind {
    /// The kind named by `exceptionType` (`EXC_BAD_ACCESS (SIGSEGV)`, `EXC_CRASH (SIGABRT)`,
    /// `SIGSEGV`, ...): `bad access`, `trap`, `abort`, `arithmetic`, `killed`, `resource`,
    /// `guard`, or the type's first word; nil when there is none.
    public static func of(exceptionType: String?) -> String? {
        guard let exceptionType else { return nil }
        // Bytes, upper-cased: this runs once per report.
        let text = exceptionType.utf8.map { $0 >= 0x61 && $0 <= 0x7a ? $0 - 0x20 : $0 }
        guard let start = text.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return nil }
        for (kind, names) in classes where names.contains(where: { contains(text, $0) }) { return kind }
        let end = text[start...].firstIndex(where: { $0 == 0x20 || $0 == 0x09 }) ?? text.endIndex
        return String(decoding: text[start..<end], as: UTF8.self)
    }

    private static let classes: [(String, [[UInt8]])] = [
        ("bad access", ["EXC_BAD_ACCESS", "SIGSEGV", "SIGBUS"]),
        ("trap", ["EXC_BREAKPOINT", "EXC_BAD_INSTRUCTION", "SIGTRAP", "SIGILL"]),
        ("arithmetic", ["EXC_ARITHMETIC", "SIGFPE"]),
        ("abort", ["SIGABRT"]),
        ("killed", ["SIGKILL"]),
        ("resource", ["EXC_RESOURCE"]),
        ("guard", ["EXC_GUARD"]),
    ].map { ($0.0, $0.1.map { Array($0.utf8) }) }

    private static func contains(_ text: [UInt8], _ word: [UInt8]) -> Bool {
        guard word.count <= text.count else { return false }
        for i in 0...(text.count - word.count) where text[i] == word[0] && text[i..<i + word.count].elementsEqual(word) {
            return true
        }
        return false
    }
}
