@testable import DebugInfo

/// The promises the fuzz target dwarf_tables checks (Fuzz/dwarf_tables.swift), shared with
/// the replay tests: the DWARF of a fuzzed set of sections, once the shim has read it, makes an
/// index's tables that are well formed, and the same made on threads as made in one.
enum TablesFuzzChecks {
    /// The section names an input's records choose from, as Fuzz/dwarf_sections.c has them.
    static let names = [".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_line_str",
                        ".debug_ranges", ".debug_rnglists", ".debug_addr", ".debug_str_offsets",
                        ".debug_loclists", ".debug_loc", ".debug_types", ".debug_aranges"]

    /// The sections of an input in dwarf_sections' layout: a flags byte (bit 0 big-endian,
    /// bit 1 4-byte addresses), then records of a section number, a 4-byte little-endian
    /// length (cut to what is left) and that many bytes; at most 32.
    static func sections(_ data: [UInt8]) -> (pointerSize: UInt8, bigEndian: Bool, sections: [(name: String, bytes: [UInt8])])? {
        guard let flags = data.first else { return nil }
        var sections: [(name: String, bytes: [UInt8])] = []
        var at = 1
        while at + 5 <= data.count && sections.count < 32 {
            let length = min(data[(at + 1)..<(at + 5)].reversed().reduce(0) { $0 << 8 | Int($1) }, data.count - at - 5)
            sections.append((names[Int(data[at]) % names.count], Array(data[(at + 5)..<(at + 5 + length)])))
            at += 5 + length
        }
        return (flags & 2 != 0 ? 4 : 8, flags & 1 != 0, sections)
    }

    /// What is broken of those promises for `data` (empty when none is; an input the shim
    /// refuses keeps them).
    static func tables(_ data: [UInt8]) -> [String] {
        guard let (pointerSize, bigEndian, sections) = sections(data) else { return [] }
        // Read twice, on one thread each: the same raw tables (and strings) both times.
        guard let one = read(sections, pointerSize: pointerSize, bigEndian: bigEndian),
              let two = read(sections, pointerSize: pointerSize, bigEndian: bigEndian) else { return [] }
        var broken: [String] = []
        var inOne = SymbolIndex.Tables(one, parallel: false)
        var onThreads = SymbolIndex.Tables(two, parallel: true)
        if !inOne.isWellFormed { broken.append("the tables made in one thread are not well formed") }
        if !onThreads.isWellFormed { broken.append("the tables made on threads are not well formed") }
        var a = SectionBytes(), b = SectionBytes()
        inOne.visit(&a)
        onThreads.visit(&b)
        if a.sections.map(\.kind) != b.sections.map(\.kind) {
            broken.append("the tables made on threads have other sections")
        }
        for (x, y) in zip(a.sections, b.sections) where x.bytes != y.bytes {
            broken.append("section \(x.kind) differs made on threads (\(y.bytes.count) against \(x.bytes.count) bytes)")
        }
        return broken
    }

    /// The shim's reading of `sections` on one thread; nil when it refuses them.
    private static func read(_ sections: [(name: String, bytes: [UInt8])], pointerSize: UInt8, bigEndian: Bool) -> RawDWARF? {
        try? SectionObject.withObject(sections, pointerSize: pointerSize, bigEndian: bigEndian) { object in
            try DWARFReader.collect(object, path: "<sections>", releasing: nil, options: .init(threads: 1))
        }
    }

    /// The bytes of every section of some tables, in order.
    private struct SectionBytes: IndexSectionVisitor {
        var sections: [(kind: UInt32, bytes: [UInt8])] = []

        mutating func visit<Element: BitwiseCopyable>(_ kind: UInt32, _ array: inout FlatArray<Element>) {
            sections.append((kind, Array(array.bytes)))
        }
    }
}
