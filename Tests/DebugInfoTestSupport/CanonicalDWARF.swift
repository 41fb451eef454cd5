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
    ///
    /// `droppingUnused`: without the rows and function entries no lookup can use (see
    /// ``used(_:)`` and ``lastAtEachAddress(_:)``). The shim's reader leaves them out unit by
    /// unit (lines.c, prune.c), libdwarf's reading has them all: this is the rule applied to a
    /// whole reading at once, to compare the two.
    init(_ raw: RawDWARF, droppingUnused: Bool = false) {
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
        if droppingUnused { functions = Self.used(functions) }
        ranges = raw.ranges.map { [$0.low, $0.high] }
        rows = raw.rows.map { Row(address: $0.address, file: $0.file, line: $0.line, column: $0.column, endSequence: $0.end_sequence) }
        if droppingUnused { rows = Self.lastAtEachAddress(rows) }
        files = raw.files.map(string)
        problem = raw.problem
    }

    /// `functions` but for the entries no lookup can use, their parents renumbered: the entries
    /// kept are those with ranges and what they lead to, over and over (their parents, the
    /// entries their origins and specifications name).
    static func used(_ functions: [Function]) -> [Function] {
        var byOffset: [UInt64: Int] = [:]
        for (i, f) in functions.enumerated() { byOffset[f.offset] = i }
        var kept = functions.map { $0.rangeCount > 0 }
        var pending = functions.indices.filter { kept[$0] }
        while let i = pending.popLast() {
            let f = functions[i]
            let parent = f.parent >= 0 && Int(f.parent) < i ? Int(f.parent) : nil
            for next in [parent, byOffset[f.origin], byOffset[f.specification]] {
                guard let next, !kept[next] else { continue }
                kept[next] = true
                pending.append(next)
            }
        }
        var newIndex = [Int32](repeating: -1, count: functions.count)
        var result: [Function] = []
        for i in functions.indices where kept[i] {
            var f = functions[i]
            if f.parent >= 0, Int(f.parent) < i { f.parent = newIndex[Int(f.parent)] }
            newIndex[i] = Int32(result.count)
            result.append(f)
        }
        return result
    }

    /// `rows` but for each row followed by a row at its address that does not end a sequence:
    /// of rows at one address a lookup takes the last (``SymbolIndex/Tables``).
    static func lastAtEachAddress(_ rows: [Row]) -> [Row] {
        rows.indices.filter { i in
            i + 1 == rows.count || rows[i].endSequence != 0 || rows[i + 1].endSequence != 0
                || rows[i + 1].address != rows[i].address
        }.map { rows[$0] }
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
