import Platform

/// The report paths of `--reports-from FILE`: one per line, or NUL-separated when the list
/// holds a NUL byte (as `find -print0` writes it, for names with a newline in them). Paths
/// are bytes, kept as ``FileName`` strings; empty entries and a trailing `\r` (a list written
/// on Windows) are dropped. The list never passes through argv, so it has no length limit
/// but the one on reading (``System/defaultReadLimit``).
enum ReportList {
    /// The paths listed in `path` (`-`: standard input).
    static func read(_ path: String) throws(ReportList.Unreadable) -> [String] {
        do {
            return paths(in: path == "-" ? try System.readStandardInput() : try System.readFile(path))
        } catch {
            throw Unreadable(path: path, reason: "\(error)")
        }
    }

    /// A list that could not be read: one line naming it and why.
    struct Unreadable: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "--reports-from \(path == "-" ? "standard input" : path): cannot read: \(reason)" }
    }

    /// The paths in the list `bytes`.
    static func paths(in bytes: [UInt8]) -> [String] {
        let separator: UInt8 = bytes.contains(0) ? 0 : UInt8(ascii: "\n")
        return bytes.split(separator: separator, omittingEmptySubsequences: true).compactMap { entry in
            var entry = entry[...]
            if separator != 0, entry.last == UInt8(ascii: "\r") { entry = entry.dropLast() }
            return entry.isEmpty ? nil : FileName.decode(entry)
        }
    }
}
