/// Path arithmetic on strings, as `NSString`'s path methods do it, without Foundation.
public enum Path {
    /// `a` and `b` joined with one `/`; `b` alone when it is absolute or `a` is empty.
    public static func join(_ a: String, _ b: String) -> String {
        if a.isEmpty || b.hasPrefix("/") { return b }
        if b.isEmpty { return a }
        return a.hasSuffix("/") ? a + b : a + "/" + b
    }

    /// The last component: `c` for `/a/b/c` and `/a/b/c/`; `/` for `/`.
    public static func lastComponent(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        if trimmed == "/" { return "/" }
        if let slash = trimmed.lastIndex(of: "/") { return String(trimmed[trimmed.index(after: slash)...]) }
        return String(trimmed)
    }

    /// Everything before the last component: `/a/b` for `/a/b/c`, `/` for `/a`, `` for `a`.
    public static func deletingLastComponent(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        if slash == trimmed.startIndex { return "/" }
        return String(trimmed[..<slash])
    }

    /// The extension of the last component without its dot: `ips` for `a/b.ips`; empty when
    /// there is none (a leading dot does not start one).
    public static func pathExtension(_ path: String) -> String {
        let last = lastComponent(path)
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return "" }
        return String(last[last.index(after: dot)...])
    }
}

extension Path {
    /// `path` with empty and `.` components and a trailing slash removed (`./a//b/` is `a/b`);
    /// `..` is kept (resolving it needs the file system). For telling whether two spellings
    /// name one path.
    public static func normalized(_ path: String) -> String {
        let components = path.split(separator: "/").filter { $0 != "." }
        let joined = components.joined(separator: "/")
        if path.hasPrefix("/") { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }
}
