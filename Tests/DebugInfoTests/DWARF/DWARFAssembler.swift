import CDwarf
import CDwarfReference
@testable import DebugInfo
#if canImport(Glibc)
import Glibc
#endif

/// Small DWARF made here byte by byte, for the encodings and the damage that no compiler emits:
/// units of a compile-unit DIE (name, line table, compilation directory, address range) whose
/// children are subprograms, and DWARF 4 or 5 line tables around a given line program. Read
/// through `cdw_open_sections`, as a Mach-O file's sections are.
enum DWARFAssembler {
    struct Bytes {
        var data: [UInt8] = []
        mutating func u8(_ v: UInt8) { data.append(v) }
        mutating func u16(_ v: UInt16) { data += withUnsafeBytes(of: v.littleEndian, Array.init) }
        mutating func u32(_ v: UInt32) { data += withUnsafeBytes(of: v.littleEndian, Array.init) }
        mutating func u64(_ v: UInt64) { data += withUnsafeBytes(of: v.littleEndian, Array.init) }
        mutating func uleb(_ v: UInt64) {
            var v = v
            repeat {
                let byte = UInt8(v & 0x7f)
                v >>= 7
                data.append(v == 0 ? byte : byte | 0x80)
            } while v != 0
        }
        mutating func string(_ s: String) { data += Array(s.utf8) + [0] }
        mutating func bytes(_ b: [UInt8]) { data += b }
    }

    /// Abbreviation 1: a compile unit with children (name, stmt_list, comp_dir, low_pc,
    /// high_pc); 2: a subprogram without (name, low_pc, high_pc).
    static let abbrev: [UInt8] = {
        var b = Bytes()
        b.uleb(1); b.uleb(0x11); b.u8(1)
        for (at, form) in [(0x03, 0x08), (0x10, 0x17), (0x1b, 0x08), (0x11, 0x01), (0x12, 0x07)] {
            b.uleb(UInt64(at)); b.uleb(UInt64(form))
        }
        b.u8(0); b.u8(0)
        b.uleb(2); b.uleb(0x2e); b.u8(0)
        for (at, form) in [(0x03, 0x08), (0x11, 0x01), (0x12, 0x07)] { b.uleb(UInt64(at)); b.uleb(UInt64(form)) }
        b.u8(0); b.u8(0)
        b.u8(0)
        return b.data
    }()

    /// A DWARF 4 unit whose line table is at `lineOffset`; `functions` are (name, low, size);
    /// `tail` goes after the children, before the terminating 0 (a damaged DIE, say).
    static func unit(name: String, lineOffset: UInt32, functions: [(String, UInt64, UInt64)], tail: [UInt8] = [],
                     abbrevOffset: UInt32 = 0) -> [UInt8] {
        var body = Bytes()
        body.u16(4); body.u32(abbrevOffset); body.u8(8)
        body.uleb(1); body.string(name); body.u32(lineOffset); body.string("/src"); body.u64(0x1000); body.u64(0x1000)
        for (name, low, size) in functions {
            body.uleb(2); body.string(name); body.u64(low); body.u64(size)
        }
        body.bytes(tail)
        body.u8(0)
        var unit = Bytes()
        unit.u32(UInt32(body.data.count))
        unit.bytes(body.data)
        return unit.data
    }

    /// A DWARF 4 unit of `dies` (the unit DIE and what follows it) with its abbreviations at
    /// `abbrevOffset`: an 11-byte header, 8-byte addresses.
    static func unit(abbrevOffset: UInt32 = 0, _ dies: [UInt8]) -> [UInt8] {
        var unit = Bytes()
        unit.u32(UInt32(7 + dies.count)); unit.u16(4); unit.u32(abbrevOffset); unit.u8(8)
        unit.bytes(dies)
        return unit.data
    }

    /// An abbreviation: code, tag, children, then (attribute, form) pairs.
    static func abbreviation(_ code: UInt64, tag: UInt64, children: Bool, _ specs: [(UInt64, UInt64)]) -> [UInt8] {
        var b = Bytes()
        b.uleb(code); b.uleb(tag); b.u8(children ? 1 : 0)
        for (at, form) in specs { b.uleb(at); b.uleb(form) }
        b.u8(0); b.u8(0)
        return b.data
    }

    /// The header fields every version shares after header_length: opcode_base 13.
    private static func commonHeader(_ b: inout Bytes) {
        b.u8(1); b.u8(1); b.u8(1); b.u8(UInt8(bitPattern: -5)); b.u8(14); b.u8(13)
        b.bytes([0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1])
    }

    /// A DWARF 4 line table: include directory "inc", `files` in it, then `program`.
    static func lineTable4(files: [String], program: [UInt8]) -> [UInt8] {
        var header = Bytes()
        commonHeader(&header)
        header.string("inc"); header.u8(0)
        for file in files { header.string(file); header.uleb(1); header.uleb(0); header.uleb(0) }
        header.u8(0)
        var body = Bytes()
        body.u16(4); body.u32(UInt32(header.data.count)); body.bytes(header.data); body.bytes(program)
        var table = Bytes()
        table.u32(UInt32(body.data.count)); table.bytes(body.data)
        return table.data
    }

    /// A DWARF 5 line table whose header is given from directory_entry_format_count on.
    static func lineTable5(entries: [UInt8], program: [UInt8]) -> [UInt8] {
        var header = Bytes()
        commonHeader(&header)
        header.bytes(entries)
        var body = Bytes()
        body.u16(5); body.u8(8); body.u8(0); body.u32(UInt32(header.data.count)); body.bytes(header.data); body.bytes(program)
        var table = Bytes()
        table.u32(UInt32(body.data.count)); table.bytes(body.data)
        return table.data
    }

    /// A line program: rows at 0x1000 (line 1) and 0x1004 (line 5) in file `file`, then the end.
    static func program(file: UInt64 = 1, before: [UInt8] = []) -> [UInt8] {
        var b = Bytes()
        b.bytes(before)
        b.u8(0); b.uleb(9); b.u8(2); b.u64(0x1000)
        b.u8(4); b.uleb(file)
        b.u8(1)
        b.u8(3); b.uleb(4); b.u8(2); b.uleb(4); b.u8(1)
        b.u8(2); b.uleb(8); b.u8(0); b.uleb(1); b.u8(1)
        return b.data
    }

    /// Opens `sections` as a shim object for `body`, which must not keep it (``SectionObject``).
    static func withObject<T>(_ sections: [(name: String, bytes: [UInt8])], pointerSize: UInt8 = 8,
                              bigEndian: Bool = false, _ body: (OpaquePointer) throws -> T) throws -> T {
        try SectionObject.withObject(sections, pointerSize: pointerSize, bigEndian: bigEndian, body)
    }

    /// Reads `sections` with the shim's reader (or libdwarf's, the reference).
    /// `keepUnused`: every row and function entry, as libdwarf's reading has them (the
    /// default); false: as the program reads, without those no lookup can use (lines.c, prune.c).
    static func read(_ sections: [(name: String, bytes: [UInt8])], threads: UInt32 = 1,
                     libdwarf: Bool = false, keepUnused: Bool = true) throws -> RawDWARF {
        try withObject(sections) { object in
            try read(object, threads: threads, libdwarf: libdwarf, keepUnused: keepUnused)
        }
    }

    private static func read(_ object: OpaquePointer, threads: UInt32, libdwarf: Bool,
                             keepUnused: Bool) throws -> RawDWARF {
        var message = [CChar](repeating: 0, count: 512)
        if !libdwarf {
            return try DWARFReader.collect(object, path: "<sections>", releasing: nil,
                                           options: .init(threads: threads, keepUnused: keepUnused))
        }
        var result = cdw_result()
        let read = cdwref_read(object, &result, &message, message.count)
        defer { cdw_result_free(&result) }
        guard read == CDW_OK || read == CDW_PARTIAL else {
            throw DebugInfoError.corruptDWARF(path: "<sections>", reason: String(cString: message))
        }
        return DWARFReader.raw(of: result, problem: read == CDW_PARTIAL ? String(cString: message) : nil)
    }
}
