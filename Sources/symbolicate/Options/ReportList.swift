import Platform
import Symbolication

/// The report paths of `--reports-from FILE`: one per line, or NUL-separated when the list
/// holds a NUL byte (as `find -print0` writes it, for names with a newline in them). Paths
/// are bytes, kept as ``FileName`` strings; empty entries and a trailing `\r` (a list written
/// on Windows) are dropped. The list never passes through argv, so it has no length limit
/// but the one on reading (``System/defaultReadLimit``).
enum ReportList {
    /// The reports named as arguments, then those the list `list` names (each a path: a
    /// listed `-` is the file of that name); standard input when there are none. nil, said
    /// on stderr, when the list cannot be read.
    static func inputs(_ reports: [String], list: String?, diagnostics: Diagnostics) -> [String]? {
        guard let list else { return reports.isEmpty ? ["-"] : reports }
        do {
            return reports + (try read(list)).map { $0 == "-" ? "./-" : $0 }
        } catch {
            diagnostics.warn("\(error)")
            return nil
        }
    }

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
