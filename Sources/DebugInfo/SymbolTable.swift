/// The function symbols of an object file (Mach-O nlist entries, ELF `.symtab` or
/// `.dynsym`), sorted by address, for addresses the DWARF does not cover.
struct SymbolTable: Sendable {
    struct Symbol: Sendable {
        var address: UInt64
        /// One past the last byte (the ELF size, or the next symbol's address for Mach-O).
        var end: UInt64
        var name: String
        /// For ELF local symbols, the source file named by the preceding STT_FILE symbol.
        var file: String? = nil
    }

    private(set) var symbols: [Symbol] = []
    /// Mach-O symbol names carry a leading underscore that is not part of the C name.
    let stripsUnderscore: Bool

    var isEmpty: Bool { symbols.isEmpty }

    init(_ layout: ObjectLayout, of file: DebugFile, in mapped: MappedFile) {
        switch layout {
        case .machO(let slice):
            stripsUnderscore = true
            readMachO(slice, file, mapped)
        case .elf(let image):
            stripsUnderscore = false
            readELF(image, mapped)
        }
    }

    /// The symbol whose extent holds `address`.
    func lookup(_ address: UInt64) -> Symbol? {
        var low = 0, high = symbols.count
        while low < high {
            let mid = (low + high) / 2
            if symbols[mid].address <= address { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return nil }
        let symbol = symbols[low - 1]
        return address < symbol.end ? symbol : nil
    }

    /// The address of the symbol named `name` exactly as the table spells it (for Mach-O,
    /// without the leading underscore); nil when there is none.
    func address(of name: String) -> UInt64? {
        let spelled = stripsUnderscore ? "_" + name : name
        return symbols.first { $0.name == spelled }?.address
    }

    /// Sorted by address, then size, then table order (a stable sort, as llvm-symbolizer's).
    private static func sortedByAddressAndSize(_ symbols: [Symbol]) -> [Symbol] {
        symbols.enumerated().sorted { a, b in
            let (x, y) = (a.element, b.element)
            if x.address != y.address { return x.address < y.address }
            if x.end != y.end { return x.end < y.end }
            return a.offset < b.offset
        }.map(\.element)
    }

    /// Of several symbols at one address (sorted as above), the last: the largest, and of
    /// equally large ones the last in the table.
    private static func keepOnePerAddress(_ sorted: [Symbol]) -> [Symbol] {
        var kept: [Symbol] = []
        kept.reserveCapacity(sorted.count)
        for symbol in sorted {
            if let last = kept.last, last.address == symbol.address { kept[kept.count - 1] = symbol } else { kept.append(symbol) }
        }
        return kept
    }

    /// `__libc_start_main@GLIBC_2.2.5`, `memcpy@@GLIBC_2.14` → the name without the symbol
    /// version, as llvm-symbolizer and glibc's `backtrace_symbols` print it.
    static func withoutVersion(_ name: String) -> String {
        guard let at = name.utf8.firstIndex(of: UInt8(ascii: "@")), at != name.utf8.startIndex else { return name }
        return String(name[..<at])
    }

    /// Whether a symbol starts exactly at `address` and has one of `names`, whatever its size
    /// (signal trampolines such as `__restore_rt` are often sized 0).
    func hasSymbol(at address: UInt64, named names: Set<String>) -> Bool {
        var low = 0, high = symbols.count
        while low < high {
            let mid = (low + high) / 2
            if symbols[mid].address < address { low = mid + 1 } else { high = mid }
        }
        return low < symbols.count && symbols[low].address == address && names.contains(symbols[low].name)
    }

    /// ARM mapping symbols (`$a`, `$t`, `$d`, `$x`, ...) mark code and data, not functions.
    private static func isMappingSymbol(_ name: String) -> Bool {
        name.hasPrefix("$") && (name.count == 2 || name.dropFirst(2).hasPrefix("."))
    }

    private mutating func readMachO(_ slice: MachOSlice, _ file: DebugFile, _ mapped: MappedFile) {
        guard let table = slice.symbolTable,
              let bytes = ByteReader(mapped.bytes).slice(file.sliceOffset, file.sliceSize)
        else { return }
        let r = ByteReader(bytes)
        let entrySize = slice.is64Bit ? 16 : 12
        var found: [Symbol] = []
        for i in 0..<Int(table.count) {
            let at = Int(table.offset) + i * entrySize
            guard let nameOffset = r.u32(at), let type = r.u8(at + 4), let section = r.u8(at + 5) else { break }
            // Skip debugger (stab) entries; keep symbols defined in a section.
            guard type & 0xe0 == 0, type & 0x0e == 0x0e, section != 0 else { continue }
            guard let value = slice.is64Bit ? r.u64(at + 8) : r.u32(at + 8).map(UInt64.init),
                  nameOffset < table.stringsSize,
                  let name = r.cString(Int(table.stringsOffset) + Int(nameOffset)), !name.isEmpty
            else { continue }
            // Mach-O symbols have no size: each runs to the next symbol or the end of its section.
            let sectionEnd = Int(section) <= slice.sections.count
                ? slice.sections[Int(section) - 1].address + slice.sections[Int(section) - 1].size : UInt64.max
            found.append(Symbol(address: value, end: max(sectionEnd, value + 1), name: name))
        }
        found = SymbolTable.sortedByAddressAndSize(found)
        var next = UInt64.max
        for i in found.indices.reversed() {
            if i + 1 < found.count, found[i + 1].address != found[i].address { next = found[i + 1].address }
            found[i].end = min(found[i].end, max(next, found[i].address + 1))
        }
        symbols = SymbolTable.keepOnePerAddress(found)
    }

    private mutating func readELF(_ image: ELFImage, _ mapped: MappedFile) {
        let r = ByteReader(mapped.bytes, bigEndian: image.bigEndian)
        let tables = image.sections.filter { $0.type == 2 }  // SHT_SYMTAB
        let chosen = tables.isEmpty ? image.sections.filter { $0.type == 11 } : tables  // else SHT_DYNSYM
        var found: [Symbol] = []
        for table in chosen where Int(table.link) < image.sections.count {
            let names = image.sections[Int(table.link)]
            let entrySize = image.is64Bit ? 24 : 16
            guard table.size > 0, table.offset + table.size <= UInt64(mapped.bytes.count) else { continue }
            var file: String?
            for i in 0..<Int(table.size) / entrySize {
                let at = Int(table.offset) + i * entrySize
                let nameOffset = r.u32(at) ?? 0
                let info = r.u8(image.is64Bit ? at + 4 : at + 12) ?? 0
                let sectionIndex = r.u16(image.is64Bit ? at + 6 : at + 14) ?? 0
                var value = (image.is64Bit ? r.u64(at + 8) : r.u32(at + 4).map(UInt64.init)) ?? 0
                let size = (image.is64Bit ? r.u64(at + 16) : r.u32(at + 8).map(UInt64.init)) ?? 0
                // STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_GNU_IFUNC, defined in a section.
                let type = info & 0xf
                if type == 4 {  // STT_FILE
                    file = r.cString(Int(names.offset) + Int(nameOffset))
                    continue
                }
                guard [0, 1, 2, 10].contains(type), sectionIndex != 0, sectionIndex < 0xff00,
                      let versioned = r.cString(Int(names.offset) + Int(nameOffset)), !versioned.isEmpty,
                      !SymbolTable.isMappingSymbol(versioned)
                else { continue }
                let name = SymbolTable.withoutVersion(versioned)
                // A symbol without a size reaches up to the next one.
                // On 32-bit ARM bit 0 of a function's address marks Thumb code, not an address bit.
                if image.architecture?.family == .arm, type == 2 { value &= ~1 }
                let local = info >> 4 == 0
                found.append(Symbol(address: value, end: size == 0 ? UInt64.max : value + size, name: name,
                                    file: local ? file : nil))
            }
        }
        symbols = SymbolTable.keepOnePerAddress(SymbolTable.sortedByAddressAndSize(found))
    }
}
