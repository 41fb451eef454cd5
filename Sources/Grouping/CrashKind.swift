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
        guard let text = exceptionType?.uppercased(), let first = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).first
        else { return nil }
        let classes: [(String, [String])] = [
            ("bad access", ["EXC_BAD_ACCESS", "SIGSEGV", "SIGBUS"]),
            ("trap", ["EXC_BREAKPOINT", "EXC_BAD_INSTRUCTION", "SIGTRAP", "SIGILL"]),
            ("arithmetic", ["EXC_ARITHMETIC", "SIGFPE"]),
            ("abort", ["SIGABRT"]),
            ("killed", ["SIGKILL"]),
            ("resource", ["EXC_RESOURCE"]),
            ("guard", ["EXC_GUARD"]),
        ]
        for (kind, names) in classes where names.contains(where: text.contains) { return kind }
        return String(first)
    }
}
