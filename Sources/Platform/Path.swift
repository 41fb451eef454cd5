/// Path arithmetic on strings, as `NSString`'s path methods do it, without Foundation.
public enum Path {
    /// `a` and `b` joined with one `/`; `b` alone when it is absolute or `a` is empty.
    public static func join(_ a: String, _ b: String) -> String {
        if a.isEmpty || b.hasPrefix("/") { return b }
        if b.isEmpty { return a }
        return a.hasSuffix("/") ? a + b : a + "/" + b
    }

    /// The last component: `c` for `/a/b/c` and `/a/b/c/`; `/` for `/`. Bytes are compared,
    /// not Characters (a path is bytes, and this runs once per frame of a report).
    public static func lastComponent(_ path: String) -> String {
        withBytes(path) { bytes in
            let end = trimmedEnd(bytes)
            if end == 1 && bytes.first == slash { return "/" }
            var start = end
            while start > 0 && bytes[start - 1] != slash { start -= 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
    }

    /// Everything before the last component: `/a/b` for `/a/b/c`, `/` for `/a`, `` for `a`.
    public static func deletingLastComponent(_ path: String) -> String {
        withBytes(path) { bytes in
            var cut = trimmedEnd(bytes)
            while cut > 0 && bytes[cut - 1] != slash { cut -= 1 }
            guard cut > 0 else { return "" }
            if cut == 1 { return "/" }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<(cut - 1)]), as: UTF8.self)
        }
    }

    private static let slash = UInt8(ascii: "/")

    /// The end of `bytes` less its trailing slashes, keeping one byte at least.
    private static func trimmedEnd(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var end = bytes.count
        while end > 1 && bytes[end - 1] == slash { end -= 1 }
        return end
    }

    private static func withBytes(_ path: String, _ body: (UnsafeBufferPointer<UInt8>) -> String) -> String {
        if let result = path.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = path
        copy.makeContiguousUTF8()
        return copy.utf8.withContiguousStorageIfAvailable(body) ?? ""
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
