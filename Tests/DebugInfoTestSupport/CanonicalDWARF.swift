@testable import DebugInfo

// What the DWARF reader's tests share, those of DebugInfoTests (hand-made, hostile and damaged
// DWARF) and those of IntegrationTests (every fixture, corpus and glibc debug file, against
// libdwarf).

/// A RawDWARF with string offsets replaced by the strings (each thread keeps its own string
/// table, so offsets differ between readings that are otherwise the same).
public struct CanonicalDWARF: Equatable {
    public struct Function: Equatable {
        public var offset, origin, specification: UInt64
        public var name, linkageName: String
        public var parent: Int32
        public var callFile, callLine, callColumn, firstRange, rangeCount, tag: UInt32
    }
    public struct Row: Equatable {
        public var address: UInt64
        public var file, line, column, endSequence: UInt32
    }
    public var functions: [Function]
    public var ranges: [[UInt64]]
    public var rows: [Row]
    public var files: [String]
    public var problem: String?

    /// (Internal, as RawDWARF is: `@testable import DebugInfoTestSupport` to make one.)
    init(_ raw: RawDWARF) {
        let strings = raw.strings
        func string(_ offset: UInt32) -> String {
            guard offset != 0, Int(offset) < strings.count else { return offset == 0 ? "" : "<\(offset) out of bounds>" }
            let end = strings[Int(offset)...].firstIndex(of: 0) ?? strings.count
            return String(decoding: strings[Int(offset)..<end], as: UTF8.self)
        }
        functions = raw.functions.map {
            Function(offset: $0.offset, origin: $0.origin, specification: $0.specification, name: string($0.name),
                     linkageName: string($0.linkage_name), parent: $0.parent, callFile: $0.call_file,
                     callLine: $0.call_line, callColumn: $0.call_column, firstRange: $0.first_range,
                     rangeCount: $0.range_count, tag: $0.tag)
        }
        ranges = raw.ranges.map { [$0.low, $0.high] }
        rows = raw.rows.map { Row(address: $0.address, file: $0.file, line: $0.line, column: $0.column, endSequence: $0.end_sequence) }
        files = raw.files.map(string)
        problem = raw.problem
    }

    /// The first difference, or nil.
    public func difference(from other: CanonicalDWARF) -> String? {
        func first<T: Equatable>(_ name: String, _ a: [T], _ b: [T]) -> String? {
            if let i = a.indices.first(where: { $0 < b.count && a[$0] != b[$0] }) { return "\(name)[\(i)]: \(a[i]) vs \(b[i])" }
            return a.count == b.count ? nil : "\(name): \(a.count) vs \(b.count) entries"
        }
        return first("functions", functions, other.functions) ?? first("ranges", ranges, other.ranges)
            ?? first("rows", rows, other.rows) ?? first("files", files, other.files)
            ?? (problem == other.problem ? nil : "problem: \(problem ?? "none") vs \(other.problem ?? "none")")
    }
}
