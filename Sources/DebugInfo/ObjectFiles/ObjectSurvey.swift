import CDwarf
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one object file (or slice) holds for symbolication, read from its headers and the
/// headers of its DWARF units — not the DWARF itself, so that a folder of large dSYMs is
/// described in moments: the kind of file, the DWARF versions of its compile units and line
/// tables, the size of its symbol table, how its debug sections are compressed, and what is
/// damaged.
///
///     App.dSYM/Contents/Resources/DWARF/App   Mach-O dSYM arm64
///       .debug_info   3 units, version 4       (unit_length, then the 2-byte version)
///       .debug_line   3 tables, version 4
///       LC_SYMTAB     45 entries
///
/// A unit header is `unit_length` (4 bytes, or 0xffffffff and 8 bytes for 64-bit DWARF) and
/// the version (2 bytes); units follow each other to the end of the section. A length that
/// runs past the section, a unit too short to hold its version, or a reserved length value
/// stops the walk there: what is after it cannot be found.
public struct ObjectSurvey: Sendable, Equatable {
    /// The kind of object: `executable`, `dylib`, `bundle`, `dSYM`, `object` (relocatable),
    /// `shared object` (ELF ET_DYN: a library or a PIE program), `core`, or `other`.
    public var kind: String
    /// The distinct versions of the `.debug_info` units, ascending; empty without DWARF.
    public var dwarfVersions: [Int]
    /// How many `.debug_info` units were found.
    public var units: Int
    /// The distinct versions of the line tables (`.debug_line` units), ascending.
    public var lineTableVersions: [Int]
    /// How many line tables were found.
    public var lineTables: Int
    /// Entries of the symbol table the tool reads (Mach-O `LC_SYMTAB`; ELF `.symtab`, else
    /// `.dynsym`), as the table's header counts them.
    public var symbols: Int
    /// The function symbols of that table that lookups can use (defined, with an address).
    public var functionSymbols: Int
    /// How the debug sections are compressed: `zlib`, `zstd` (ELF `SHF_COMPRESSED`), `zlib
    /// (.zdebug)` (the legacy GNU form), or `unknown type N`; empty when none is.
    public var compression: [String]
    /// What is damaged, in words, first problem first: DWARF sections past the end of the
    /// file, a unit header that cannot be read.
    public var problems: [String]
    /// Whether no compile unit at all could be found although the file has DWARF sections.
    public var dwarfUnreadable: Bool

    /// Surveys `file` (one slice of the file at its path).
    public static func survey(_ file: DebugFile) throws -> ObjectSurvey {
        let mapped = try MappedFile.opening(file)
        return try mapped.reading {
            try survey(file, layout: try ObjectLayout(file, in: mapped), in: mapped)
        }
    }

    static func survey(_ file: DebugFile, layout: ObjectLayout, in mapped: MappedFile) throws -> ObjectSurvey {
        var result = ObjectSurvey(kind: kind(of: layout), dwarfVersions: [], units: 0, lineTableVersions: [], lineTables: 0,
                                  symbols: symbolCount(layout, mapped: mapped, slice: file.sliceOffset),
                                  functionSymbols: SymbolTable(layout, of: file, in: mapped).count,
                                  compression: compression(layout, mapped: mapped), problems: [], dwarfUnreadable: false)
        switch layout {
        case .machO(let slice):
            for section in slice.sections where section.segment == "__DWARF"
                && (section.offset > UInt64(file.sliceSize) || section.size > UInt64(file.sliceSize) - section.offset) {
                result.problems.append("\(section.name) lies past the end of the file (cut short?)")
            }
            if let table = slice.symbolTable,
               UInt64(table.offset) + UInt64(table.count) * (slice.is64Bit ? 16 : 12) > UInt64(file.sliceSize)
                || UInt64(table.stringsOffset) + UInt64(table.stringsSize) > UInt64(file.sliceSize) {
                result.problems.append("the symbol table lies past the end of the file (cut short?)")
            }
        case .elf(let image):
            if image.sectionHeadersPastEnd {
                result.problems.append("the section headers lie past the end of the file (cut short?)")
            }
            for section in image.sections where section.pastEnd && (section.name.hasPrefix(".debug_") || section.name.hasPrefix(".zdebug_")) {
                result.problems.append("\(section.name) lies past the end of the file (cut short?)")
            }
        }
        guard file.hasDWARF else { return result }
        do {
            try DWARFReader.withObject(file, layout: layout, in: mapped) { object in
                let info = unitHeaders(of: object, section: ".debug_info")
                result.dwarfVersions = info.versions
                result.units = info.count
                let lines = unitHeaders(of: object, section: ".debug_line")
                result.lineTableVersions = lines.versions
                result.lineTables = lines.count
                result.problems += [info.problem, lines.problem].compactMap { $0 }
                result.dwarfUnreadable = info.count == 0
            }
        } catch let error as DebugInfoError {
            result.problems.append(error.reason)
            result.dwarfUnreadable = true
        }
        return result
    }

    /// The versions and count of the units of `name` in an open object, and the problem that
    /// stopped the walk, if one did.
    private static func unitHeaders(of object: OpaquePointer, section name: String) -> (versions: [Int], count: Int, problem: String?) {
        guard let section = cdw_section_named(object, name), let data = section.pointee.data, section.pointee.size > 0 else {
            return ([], 0, nil)
        }
        let bytes = UnsafeRawBufferPointer(start: data, count: Int(section.pointee.size))
        return unitHeaders(in: bytes, name: name)
    }

    /// The versions and count of the unit headers in `bytes` (a `.debug_info` or `.debug_line`
    /// section), and why the walk stopped early, if it did.
    static func unitHeaders(in bytes: UnsafeRawBufferPointer, name: String) -> (versions: [Int], count: Int, problem: String?) {
        let r = ByteReader(bytes)
        var versions: Set<Int> = []
        var count = 0
        var offset = 0
        while offset < bytes.count {
            guard let length32 = r.u32(offset) else {
                return (versions.sorted(), count, "\(name): a unit header cut short at 0x\(String(offset, radix: 16))")
            }
            var length = UInt64(length32), headerSize = 4
            if length32 == 0xffff_ffff {
                guard let length64 = r.u64(offset + 4) else {
                    return (versions.sorted(), count, "\(name): a unit header cut short at 0x\(String(offset, radix: 16))")
                }
                length = length64
                headerSize = 12
            } else if length32 >= 0xffff_fff0 {
                return (versions.sorted(), count, "\(name): a reserved unit length at 0x\(String(offset, radix: 16))")
            }
            let rest = UInt64(bytes.count - offset - headerSize)
            guard length >= 2, length <= rest, let version = r.u16(offset + headerSize) else {
                let what = length < 2 ? "too short to hold its version" : "runs past the end of the section"
                return (versions.sorted(), count, "\(name): the unit at 0x\(String(offset, radix: 16)) \(what)")
            }
            versions.insert(Int(version))
            count += 1
            offset += headerSize + Int(length)
        }
        return (versions.sorted(), count, nil)
    }

    private static func kind(of layout: ObjectLayout) -> String {
        switch layout {
        case .machO(let slice):
            switch slice.fileType {
            case 1: return "object"
            case 2: return "executable"
            case 6: return "dylib"
            case 8: return "bundle"
            case 10: return "dSYM"
            default: return "other"
            }
        case .elf(let image):
            switch image.fileType {
            case 1: return "object"
            case 2: return "executable"
            case 3: return "shared object"
            case 4: return "core"
            default: return "other"
            }
        }
    }

    private static func symbolCount(_ layout: ObjectLayout, mapped: MappedFile, slice: Int) -> Int {
        switch layout {
        case .machO(let macho):
            return Int(macho.symbolTable?.count ?? 0)
        case .elf(let image):
            let tables = image.sections.filter { $0.type == 2 }
            let chosen = tables.isEmpty ? image.sections.filter { $0.type == 11 } : tables
            return chosen.reduce(0) { total, table in
                total + (table.entrySize > 0 ? Int(table.size / table.entrySize) : 0)
            }
        }
    }

    private static func compression(_ layout: ObjectLayout, mapped: MappedFile) -> [String] {
        guard case .elf(let image) = layout else { return [] }
        var kinds: Set<String> = []
        let r = ByteReader(mapped.bytes, bigEndian: image.bigEndian)
        for section in image.sections where section.name.hasPrefix(".debug_") || section.name.hasPrefix(".zdebug_") {
            if section.flags & 0x800 != 0 {  // SHF_COMPRESSED: an Elf_Chdr, its type first
                switch r.u32(Int(section.offset)) {
                case 1?: kinds.insert("zlib")
                case 2?: kinds.insert("zstd")
                case let other?: kinds.insert("unknown type \(other)")
                case nil: kinds.insert("unknown type")
                }
            } else if section.name.hasPrefix(".zdebug_") {
                kinds.insert("zlib (.zdebug)")
            }
        }
        return kinds.sorted()
    }
}
