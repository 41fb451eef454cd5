#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The function symbols of an object file (Mach-O nlist entries, ELF `.symtab` or
/// `.dynsym`), sorted by address, for addresses the DWARF does not cover.
///
/// Flat, like ``SymbolIndex``: per symbol a record of its address, its size and the offset of
/// its name in one string table; for ELF tables with local symbols, beside the records, the
/// offset of the STT_FILE name before each; and a ``Fence`` over the addresses, so the table
/// can be stored in and mapped from the index cache as it is. Names are decoded only for the
/// symbol a lookup finds:
///
///     strings   "\0main\0crash.c\0helper\0"     offset 0 is "no string"
///     records   0x1130-0x1148 name 1             "main"
///               0x1150-0x1170 name 14            "helper"
///     files     0, 6                             "helper" in "crash.c"
struct SymbolTable: Sendable {
    struct Symbol: Sendable {
        var address: UInt64
        /// One past the last byte (the ELF size, or the next symbol's address for Mach-O).
        var end: UInt64
        var name: String
        /// For ELF local symbols, the source file named by the preceding STT_FILE symbol.
        var file: String? = nil
    }

    /// One symbol in 16 bytes: `[address, end)` and the offset of its name in `strings` (0
    /// for none). An extent of 4 GiB or more, which no function has, is cut to 4 GiB less a
    /// byte; one that ends before it starts holds nothing.
    struct Record: BitwiseCopyable, Equatable {
        var address: UInt64
        private var size: UInt32
        var name: UInt32

        var end: UInt64 { address &+ UInt64(size) }

        init(address: UInt64, end: UInt64, name: UInt32) {
            self.address = address
            size = end > address ? UInt32(clamping: end - address) : 0
            self.name = name
        }
    }

    private(set) var records: FlatArray<Record>
    /// Per record, the offset in `strings` of the source file of an ELF local symbol (0 for
    /// none; an STT_FILE with an empty name has an offset of its own); empty when no record
    /// has one (always for Mach-O).
    private(set) var files: FlatArray<UInt32>
    private(set) var fence: FlatArray<UInt64>
    /// NUL-terminated strings; offset 0 is the empty string standing for none.
    private(set) var strings: FlatArray<UInt8>
    /// Mach-O symbol names carry a leading underscore that is not part of the C name.
    let stripsUnderscore: Bool

    var isEmpty: Bool { records.isEmpty }
    var count: Int { records.count }

    init(_ layout: ObjectLayout, of file: DebugFile, in mapped: MappedFile) {
        var builder = Builder()
        switch layout {
        case .machO(let slice):
            stripsUnderscore = true
            builder.readMachO(slice, file, mapped)
        case .elf(let image):
            stripsUnderscore = false
            builder.readELF(image, mapped)
        }
        (records, files, strings) = builder.finish(endingAtNextSymbol: stripsUnderscore)
        let records = self.records
        fence = Fence.make(count: records.count) { records[$0].address }
    }

    /// One symbol collected elsewhere (a dyld shared cache's image, ``DyldSharedCache``):
    /// `name` is an offset into the strings handed with it.
    struct Entry {
        var address: UInt64
        var end: UInt64
        var name: UInt32
    }

    /// A Mach-O table of `entries` whose names are in `strings` (offset 0 an empty string),
    /// sorted and cut at the next symbol as a file's own table is.
    init(machOEntries entries: [Entry], strings: [UInt8]) {
        var builder = Builder()
        builder.entries = entries.map { Builder.Entry(address: $0.address, end: $0.end, name: $0.name, file: 0) }
        builder.strings = strings
        stripsUnderscore = true
        (records, files, self.strings) = builder.finish(endingAtNextSymbol: true)
        let records = self.records
        fence = Fence.make(count: records.count) { records[$0].address }
    }

    /// An empty table, to be filled by ``visit(_:)`` (``IndexCache``).
    init(stripsUnderscore: Bool) {
        (records, files, fence, strings) = (FlatArray(), FlatArray(), FlatArray(), FlatArray([0]))
        self.stripsUnderscore = stripsUnderscore
    }

    /// Hands every array with its section kind (its number in the cache format) to `visitor`.
    mutating func visit(_ visitor: inout some IndexSectionVisitor) {
        visitor.visit(32, &records)
        visitor.visit(33, &fence)
        visitor.visit(34, &strings)
        visitor.visit(35, &files)
    }

    /// Whether the fence fits the records, the files (when kept) are as many as the records,
    /// and `strings` ends in a NUL: all the lookups need, since they check each offset before
    /// reading the string at it.
    var hasConsistentShape: Bool {
        strings.last == 0 && strings.count <= Int(UInt32.max) && Fence.fits(fence, count: records.count)
            && (files.isEmpty || files.count == records.count)
    }

    /// Whether, beyond ``hasConsistentShape``, every name and file offset lies in `strings`,
    /// and the records are sorted as the fence says.
    var isWellFormed: Bool {
        guard hasConsistentShape else { return false }
        let limit = UInt32(strings.count)
        for (i, record) in records.enumerated() {
            guard record.name < limit, file(at: i) < limit, i == 0 || records[i - 1].address <= record.address,
                  i % Fence.stride != 0 || fence[i / Fence.stride] == record.address
            else { return false }
        }
        return true
    }

    /// Every symbol, names decoded (for tests and tools that list them).
    var symbols: [Symbol] { (0..<count).map(symbol(at:)) }

    subscript(position: Int) -> Record { records[position] }

    /// The offset in `strings` of the source file of the symbol at `position` (0 for none).
    func file(at position: Int) -> UInt32 { files.isEmpty ? 0 : files[position] }

    /// The position of the symbol whose extent holds `address`.
    func position(containing address: UInt64) -> Int? {
        let records = self.records
        let i = Fence.lastNotAbove(address, fence: fence, count: records.count) { records[$0].address }
        guard i >= 0, address < records[i].end else { return nil }
        return i
    }

    /// The symbol whose extent holds `address`.
    func lookup(_ address: UInt64) -> Symbol? {
        position(containing: address).map(symbol(at:))
    }

    private func symbol(at i: Int) -> Symbol {
        let record = records[i]
        return Symbol(address: record.address, end: record.end, name: string(record.name) ?? "", file: string(file(at: i)))
    }

    /// The string at `offset` of the table; nil for 0 or an offset outside it.
    func string(_ offset: UInt32) -> String? { strings.cString(at: offset) }

    /// The symbol name at `offset`, as C spells it (for Mach-O, without the leading underscore).
    func cName(_ offset: UInt32) -> String? {
        guard let name = string(offset) else { return nil }
        return stripsUnderscore && name.hasPrefix("_") ? String(name.dropFirst()) : name
    }

    /// The address of the symbol named `name` exactly as the table spells it (for Mach-O,
    /// without the leading underscore); nil when there is none. Compares bytes in place.
    func address(of name: String) -> UInt64? {
        var spelled = Array(name.utf8)
        if stripsUnderscore { spelled.insert(UInt8(ascii: "_"), at: 0) }
        spelled.append(0)
        // Compared in place, through the buffer: checked first, whole (a rare question).
        strings.verify(0..<strings.count)
        let table = strings.buffer
        return spelled.withUnsafeBufferPointer { wanted -> UInt64? in
            for record in records {
                let start = Int(record.name)
                guard start < table.count, table[start] == wanted[0], table.count - start >= wanted.count,
                      memcmp(table.baseAddress! + start, wanted.baseAddress!, wanted.count) == 0 else { continue }
                return record.address
            }
            return nil
        }
    }

    /// The C name (for Mach-O, without the leading underscore) of the symbol that starts
    /// exactly at `address`, whatever its size (signal trampolines such as `__restore_rt` are
    /// often sized 0).
    func name(startingAt address: UInt64) -> String? {
        let records = self.records
        let i = Fence.lastNotAbove(address, fence: fence, count: records.count) { records[$0].address }
        guard i >= 0, records[i].address == address else { return nil }
        return cName(records[i].name)
    }

    /// The addresses, in order, at which symbols named one of `names` start (C names: for
    /// Mach-O, without the leading underscore): where ``name(startingAt:)`` finds one of them.
    /// One pass over the strings finds whether any ends in one of the names (a record's name
    /// may be the tail of another string); only then are the records read, which for most
    /// tables (the names are those of a C library's signal trampolines) is never.
    func starts(ofSymbolsNamed names: Set<String>) -> [UInt64] {
        let spelled = names.map { Array($0.utf8) }.filter { !$0.isEmpty }
        strings.verify(0..<strings.count)
        let table = strings.buffer
        guard let base = table.baseAddress else { return [] }
        var found = false
        var start = 0
        while start < table.count, !found {
            guard let nul = memchr(base + start, 0, table.count - start) else { break }
            let end = UnsafePointer<UInt8>(nul.assumingMemoryBound(to: UInt8.self)) - base
            for name in spelled where name.count <= end - start && table[end - 1] == name[name.count - 1]
                && memcmp(base + end - name.count, name, name.count) == 0 {
                found = true
                break
            }
            start = end + 1
        }
        guard found else { return [] }
        // The records whose C name is one of the names, compared in place (no String each).
        var starts: [UInt64] = []
        for record in records {
            guard var name = strings.verifiedCString(at: record.name) else { continue }
            if stripsUnderscore, name.pointee == UInt8(ascii: "_") { name += 1 }
            let length = strlen(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self))
            if spelled.contains(where: { $0.count == length && memcmp(name, $0, length) == 0 }) {
                starts.append(record.address)
            }
        }
        return starts
    }

    /// Every symbol of `file`'s ELF table, versions dropped, in table order, aliases included
    /// (the table built for lookups keeps one per address); none for a Mach-O file. Reads the file.
    static func aliases(in file: DebugFile) throws -> (entries: [Entry], strings: [UInt8]) {
        guard file.format == .elf else { return ([], [0]) }
        let mapped = try MappedFile.opening(file)
        return try mapped.reading {
            guard case .elf(let image) = try ObjectLayout(file, in: mapped) else { return ([], [0]) }
            var builder = Builder()
            builder.readELF(image, mapped)
            return (builder.entries.map { Entry(address: $0.address, end: $0.end, name: $0.name) }, builder.strings)
        }
    }

    /// Collects symbols from the object file's table and sorts them.
    private struct Builder {
        struct Entry {
            var address: UInt64
            var end: UInt64
            var name: UInt32
            var file: UInt32
            /// The place in the object file's table.
            var position: UInt32 = 0
        }

        var entries: [Entry] = []
        var strings: [UInt8] = [0]

        /// Adds the `length` bytes at `start` and a NUL; returns their offset.
        mutating func add(_ start: UnsafeRawPointer, _ length: Int) -> UInt32 {
            let offset = UInt32(truncatingIfNeeded: strings.count)
            strings.append(contentsOf: UnsafeRawBufferPointer(start: start, count: length))
            strings.append(0)
            return offset
        }

        /// Sorted by address, then end, then table order (as llvm-symbolizer sorts them); of
        /// several at one address the last, which is the largest, and of equally large ones the
        /// last in the table. Mach-O symbols, which have no size, are first cut at the next
        /// symbol's address.
        func finish(endingAtNextSymbol: Bool) -> (FlatArray<Record>, FlatArray<UInt32>, FlatArray<UInt8>) {
            var sorted = entries
            for i in sorted.indices { sorted[i].position = UInt32(truncatingIfNeeded: i) }
            sorted.sort { x, y in
                if x.address != y.address { return x.address < y.address }
                if x.end != y.end { return x.end < y.end }
                return x.position < y.position
            }
            if endingAtNextSymbol {
                var next = UInt64.max
                for i in sorted.indices.reversed() {
                    if i + 1 < sorted.count, sorted[i + 1].address != sorted[i].address { next = sorted[i + 1].address }
                    sorted[i].end = min(sorted[i].end, max(next, sorted[i].address &+ 1))
                }
            }
            var kept: [Entry] = []
            kept.reserveCapacity(sorted.count)
            for entry in sorted {
                if let last = kept.last, last.address == entry.address { kept[kept.count - 1] = entry } else { kept.append(entry) }
            }
            let files = kept.contains { $0.file != 0 } ? FlatArray(count: kept.count) { kept[$0].file } : FlatArray()
            return (FlatArray(count: kept.count) { Record(address: kept[$0].address, end: kept[$0].end, name: kept[$0].name) },
                    files, FlatArray(strings))
        }

        /// The length of the NUL-terminated string at `offset` of `bytes`, up to their end.
        static func length(in bytes: UnsafeRawBufferPointer, at offset: Int) -> Int {
            let start = bytes.baseAddress! + offset
            if let nul = memchr(start, 0, bytes.count - offset) { return UnsafeRawPointer(nul) - UnsafeRawPointer(start) }
            return bytes.count - offset
        }

        mutating func readMachO(_ slice: MachOSlice, _ file: DebugFile, _ mapped: MappedFile) {
            guard let table = slice.symbolTable,
                  let bytes = ByteReader(mapped.bytes).slice(file.sliceOffset, file.sliceSize)
            else { return }
            let r = ByteReader(bytes)
            let entrySize = slice.is64Bit ? 16 : 12
            for i in 0..<Int(table.count) {
                let at = Int(table.offset) + i * entrySize
                guard let nameOffset = r.u32(at), let type = r.u8(at + 4), let section = r.u8(at + 5) else { break }
                // Skip debugger (stab) entries; keep symbols defined in a section.
                guard type & 0xe0 == 0, type & 0x0e == 0x0e, section != 0 else { continue }
                let nameAt = Int(table.stringsOffset) + Int(nameOffset)
                guard let value = slice.is64Bit ? r.u64(at + 8) : r.u32(at + 8).map(UInt64.init),
                      nameOffset < table.stringsSize, nameAt < bytes.count
                else { continue }
                let length = Builder.length(in: bytes, at: nameAt)
                guard length > 0 else { continue }
                // Mach-O symbols have no size: each runs to the next symbol or the end of its section.
                var sectionEnd = UInt64.max
                if Int(section) <= slice.sections.count {
                    let (end, overflow) = slice.sections[Int(section) - 1].address
                        .addingReportingOverflow(slice.sections[Int(section) - 1].size)
                    if !overflow { sectionEnd = end }
                }
                let name = add(bytes.baseAddress! + nameAt, length)
                entries.append(Entry(address: value, end: max(sectionEnd, value &+ 1), name: name, file: 0))
            }
        }

        mutating func readELF(_ image: ELFImage, _ mapped: MappedFile) {
            let bytes = mapped.bytes
            let r = ByteReader(bytes, bigEndian: image.bigEndian)
            let tables = image.sections.filter { $0.type == 2 }  // SHT_SYMTAB
            let chosen = tables.isEmpty ? image.sections.filter { $0.type == 11 } : tables  // else SHT_DYNSYM
            let isARM = image.architecture?.family == .arm
            for table in chosen where Int(table.link) < image.sections.count {
                let names = image.sections[Int(table.link)]
                let entrySize = image.is64Bit ? 24 : 16
                guard table.size > 0, table.offset + table.size <= UInt64(bytes.count) else { continue }
                entries.reserveCapacity(entries.count + Int(table.size) / entrySize)
                var file: UInt32 = 0
                for i in 0..<Int(table.size) / entrySize {
                    let at = Int(table.offset) + i * entrySize
                    let nameOffset = r.u32(at) ?? 0
                    let info = r.u8(image.is64Bit ? at + 4 : at + 12) ?? 0
                    let sectionIndex = r.u16(image.is64Bit ? at + 6 : at + 14) ?? 0
                    let nameAt = Int(names.offset) + Int(nameOffset)
                    let type = info & 0xf
                    if type == 4 {  // STT_FILE
                        file = nameAt < bytes.count ? add(bytes.baseAddress! + nameAt, Builder.length(in: bytes, at: nameAt)) : 0
                        continue
                    }
                    // STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_GNU_IFUNC, defined in a section.
                    guard type == 0 || type == 1 || type == 2 || type == 10, sectionIndex != 0, sectionIndex < 0xff00,
                          nameAt < bytes.count else { continue }
                    let start = bytes.baseAddress! + nameAt
                    let length = Builder.length(in: bytes, at: nameAt)
                    guard length > 0, !Builder.isMappingSymbol(start, length) else { continue }
                    var value = (image.is64Bit ? r.u64(at + 8) : r.u32(at + 4).map(UInt64.init)) ?? 0
                    let size = (image.is64Bit ? r.u64(at + 16) : r.u32(at + 8).map(UInt64.init)) ?? 0
                    // On 32-bit ARM bit 0 of a function's address marks Thumb code, not an address bit.
                    if isARM, type == 2 { value &= ~1 }
                    let local = info >> 4 == 0
                    // A symbol without a size reaches up to the next one.
                    entries.append(Entry(address: value, end: size == 0 ? UInt64.max : value &+ size,
                                         name: add(start, Builder.versionlessLength(start, length)),
                                         file: local ? file : 0))
                }
            }
        }

        /// ARM mapping symbols (`$a`, `$t`, `$d`, `$x`, ...) mark code and data, not functions.
        static func isMappingSymbol(_ start: UnsafeRawPointer, _ length: Int) -> Bool {
            start.load(as: UInt8.self) == UInt8(ascii: "$")
                && (length == 2 || (length > 2 && start.load(fromByteOffset: 2, as: UInt8.self) == UInt8(ascii: ".")))
        }

        /// The length of a name without its symbol version: `__libc_start_main@GLIBC_2.2.5`,
        /// `memcpy@@GLIBC_2.14` are kept as `__libc_start_main` and `memcpy`, as
        /// llvm-symbolizer and glibc's `backtrace_symbols` print them.
        static func versionlessLength(_ start: UnsafeRawPointer, _ length: Int) -> Int {
            guard length > 1, let at = memchr(start + 1, Int32(UInt8(ascii: "@")), length - 1) else { return length }
            return UnsafeRawPointer(at) - start
        }
    }
}

/// Every function symbol of an ELF file's symbol table, aliases included (`raise`, `gsignal`,
/// `__GI_raise`), of which a ``SymbolIndex`` keeps one per address: what names an address may
/// go by, for checking the names a report gives. Read from the file once, then asked any
/// number of times; names are decoded only for the symbols an answer holds. A Mach-O file has
/// none.
public final class SymbolAliases: Sendable {
    private let entries: [SymbolTable.Entry]
    /// NUL-terminated names; offset 0 is the empty string.
    private let strings: FlatArray<UInt8>

    /// The symbols of `file`'s table. Reads the file.
    public init(_ file: DebugFile) throws {
        let (entries, strings) = try SymbolTable.aliases(in: file)
        self.entries = entries
        self.strings = FlatArray(strings)
    }

    /// For each of `addresses` (file addresses), the name and start of every symbol whose
    /// extent holds it (a symbol without a size, its own address only), in table order.
    public func symbols(holding addresses: [UInt64]) -> [[(name: String, start: UInt64)]] {
        var found = [[(name: String, start: UInt64)]](repeating: [], count: addresses.count)
        guard !addresses.isEmpty else { return found }
        let order = addresses.indices.sorted { addresses[$0] < addresses[$1] }
        for entry in entries {
            // The first of the sorted addresses at or above the symbol's start, then those below its end.
            var low = 0, high = order.count
            while low < high {
                let middle = (low + high) / 2
                if addresses[order[middle]] < entry.address { low = middle + 1 } else { high = middle }
            }
            // A symbol without a size has an end of UInt64.max.
            let end = entry.end == .max ? entry.address &+ 1 : entry.end
            var k = low
            while k < order.count, addresses[order[k]] < end {
                found[order[k]].append((strings.cString(at: entry.name) ?? "", entry.address))
                k += 1
            }
        }
        return found
    }
}

extension DebugFile {
    /// For each of `addresses` (file addresses), the name and start of every function symbol of
    /// this ELF file's symbol table whose extent holds it, aliases included: what names an
    /// address may go by (``SymbolAliases``, which a caller asking more than once keeps).
    /// Reads the file; a Mach-O file gives none.
    public func symbols(holding addresses: [UInt64]) throws -> [[(name: String, start: UInt64)]] {
        try SymbolAliases(self).symbols(holding: addresses)
    }
}
