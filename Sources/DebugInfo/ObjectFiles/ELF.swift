import Platform

/// ELF files as far as symbolication needs them.
///
/// The identity of an ELF image is its GNU build-id (an `NT_GNU_BUILD_ID` note, usually 20
/// bytes, printed as 40 hex digits); the base it was linked at is the vaddr of its first
/// `PT_LOAD` segment (0 for PIE executables and shared objects, 0x400000 for classic
/// executables). A separate debug file made by `objcopy --only-keep-debug` keeps both.
struct ELFImage: Sendable {
    struct Section: Sendable {
        var name: String
        var type: UInt32
        var flags: UInt64
        var address: UInt64
        var offset: UInt64
        var size: UInt64
        var link: UInt32
        var entrySize: UInt64
        /// The header places the section's bytes, or some of them, past the end of the file
        /// (`offset` and `size` are cut to what is there): a file cut short.
        var pastEnd = false
    }

    var architecture: Architecture?
    /// `e_type`: 1 relocatable, 2 executable, 3 shared object (or PIE).
    var fileType: UInt16
    var is64Bit: Bool
    var bigEndian: Bool
    /// Lowercase hex.
    var buildID: String?
    var firstLoadAddress: UInt64
    var sections: [Section]
    /// `.gnu_debuglink`: the separate debug file's name and CRC-32, if any.
    var debugLink: DebugFile.DebugLink?
    /// The header places the section headers past the end of the file (which was cut short):
    /// no section is known.
    var sectionHeadersPastEnd = false

    var hasDWARF: Bool {
        sections.contains { ($0.name == ".debug_info" || $0.name == ".zdebug_info") && $0.type != 8 }
    }

    /// Whether `.symtab` or `.dynsym` holds symbols (a stripped binary keeps `.dynsym`).
    var hasSymbolTable: Bool {
        sections.contains { ($0.type == 2 || $0.type == 11) && $0.size > $0.entrySize }
    }
}

enum ELF {
    static func isELF(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 16 && bytes[0] == 0x7f && bytes[1] == 0x45 && bytes[2] == 0x4c && bytes[3] == 0x46
    }

    /// Makes the pages of the ELF header and of the program and section header tables private
    /// copies (``MappedFile/makePrivate(_:_:)``) before ``parse(_:path:)`` reads them: each
    /// table's place is read from a header already copied, so what is checked there holds.
    static func pinHeaders(of file: MappedFile) {
        let bytes = file.bytes
        file.makePrivate(0, 64)
        guard isELF(bytes) else { return }
        let is64 = bytes[4] == 2
        let r = ByteReader(bytes, bigEndian: bytes[5] == 2)
        func word(_ offset: Int) -> UInt64? { is64 ? r.u64(offset) : r.u32(offset).map(UInt64.init) }
        func pin(_ offset: UInt64, _ count: UInt64, _ entrySize: UInt16) {
            guard offset < UInt64(bytes.count) else { return }
            file.makePrivate(Int(offset), Int(min(count * UInt64(entrySize), UInt64(bytes.count))))
        }
        guard let phoff = word(is64 ? 32 : 28), let shoff = word(is64 ? 40 : 32),
              let phentsize = r.u16(is64 ? 54 : 42), let phnum = r.u16(is64 ? 56 : 44),
              let shentsize = r.u16(is64 ? 58 : 46), let shnum = r.u16(is64 ? 60 : 48)
        else { return }
        pin(phoff, UInt64(phnum), phentsize)
        pin(shoff, 1, shentsize)  // section 0 holds the counts of extended numbering
        let extended = shoff < UInt64(bytes.count) && shnum == 0 ? word(Int(shoff) + (is64 ? 32 : 20)) : nil
        pin(shoff, min(extended ?? UInt64(shnum), ELF.maximumSections), shentsize)
    }

    /// More sections than any linker makes: a count above is damage.
    static let maximumSections: UInt64 = 1 << 20

    static func parse(_ bytes: UnsafeRawBufferPointer, path: String) throws -> ELFImage {
        guard isELF(bytes) else { throw DebugInfoError.unknownFormat(path: path) }
        let is64 = bytes[4] == 2
        let bigEndian = bytes[5] == 2
        let r = ByteReader(bytes, bigEndian: bigEndian)
        func word(_ offset: Int) -> UInt64? { is64 ? r.u64(offset) : r.u32(offset).map(UInt64.init) }
        // File offsets and sizes as read are untrusted: an offset past the end is the end, and
        // a size reaches no further than the end, so that arithmetic on them cannot overflow
        // and reads past the end find nothing.
        let fileSize = UInt64(bytes.count)
        func place(_ offset: UInt64, _ size: UInt64) -> (offset: UInt64, size: UInt64) {
            let offset = min(offset, fileSize)
            return (offset, min(size, fileSize - offset))
        }
        guard let fileType = r.u16(16), let machine = r.u16(18),
              let phoff = word(is64 ? 32 : 28), let shoff = word(is64 ? 40 : 32),
              let phentsize = r.u16(is64 ? 54 : 42), let phnum = r.u16(is64 ? 56 : 44),
              let shentsize = r.u16(is64 ? 58 : 46), var shnum = r.u16(is64 ? 60 : 48).map(Int.init),
              var shstrndx = r.u16(is64 ? 62 : 50).map(Int.init)
        else { throw DebugInfoError.malformed(path: path, reason: "truncated ELF header") }

        var image = ELFImage(architecture: Architecture(elfMachine: machine, is64Bit: is64), fileType: fileType, is64Bit: is64,
                             bigEndian: bigEndian, buildID: nil, firstLoadAddress: 0, sections: [], debugLink: nil)
        var notes: [(offset: UInt64, size: UInt64)] = []
        var sawLoad = false
        // Program headers that do not fit are not read: the build-id is also in a section.
        let programHeaders = Int(phentsize) >= (is64 ? 56 : 32) && phoff < fileSize
            ? min(Int(phnum), Int((fileSize - phoff) / UInt64(phentsize))) : 0
        for i in 0..<programHeaders {
            let at = Int(phoff) + i * Int(phentsize)
            guard let type = r.u32(at) else { break }
            if type == 1, !sawLoad {
                sawLoad = true
                image.firstLoadAddress = word(is64 ? at + 16 : at + 8) ?? 0
            }
            if type == 4, let offset = word(is64 ? at + 8 : at + 4), let size = word(is64 ? at + 32 : at + 16) {
                notes.append(place(offset, size))
            }
        }

        image.sectionHeadersPastEnd = shoff >= fileSize && shnum > 0
        if shoff > 0, shoff < fileSize {
            guard Int(shentsize) >= (is64 ? 64 : 40) else {
                throw DebugInfoError.malformed(path: path, reason: "section headers of \(shentsize) bytes")
            }
            // Extended numbering: counts live in section 0.
            if shnum == 0, let extended = word(Int(shoff) + (is64 ? 32 : 20)) {
                guard extended < ELF.maximumSections else { throw DebugInfoError.malformed(path: path, reason: "too many sections") }
                shnum = Int(extended)
            }
            if shstrndx == 0xffff, let extended = r.u32(Int(shoff) + (is64 ? 40 : 24)) { shstrndx = Int(extended) }
            guard UInt64(shnum) * UInt64(shentsize) <= fileSize - shoff else {
                throw DebugInfoError.malformed(path: path, reason: "\(shnum) section headers do not fit in the file")
            }
            var raw: [(name: UInt32, section: ELFImage.Section)] = []
            for i in 0..<shnum {
                let at = Int(shoff) + i * Int(shentsize)
                guard let name = r.u32(at), let type = r.u32(at + 4),
                      let flags = word(at + 8), let address = word(is64 ? at + 16 : at + 12),
                      let offset = word(is64 ? at + 24 : at + 16), let size = word(is64 ? at + 32 : at + 20),
                      let link = r.u32(is64 ? at + 40 : at + 24), let entrySize = word(is64 ? at + 56 : at + 36)
                else { throw DebugInfoError.malformed(path: path, reason: "truncated section headers") }
                // SHT_NOBITS sections take no room in the file: their size stays as recorded.
                let placed = type == 8 ? (offset: min(offset, fileSize), size: size) : place(offset, size)
                raw.append((name, .init(name: "", type: type, flags: flags, address: address, offset: placed.offset,
                                        size: placed.size, link: link, entrySize: entrySize,
                                        pastEnd: type != 8 && placed.size != size)))
            }
            let names = shstrndx < raw.count ? raw[shstrndx].section : nil
            for (nameOffset, var section) in raw {
                if let names { section.name = r.cString(Int(names.offset) + Int(nameOffset)) ?? "" }
                image.sections.append(section)
                if section.type == 7 { notes.append((section.offset, section.size)) }  // SHT_NOTE
                if section.name == ".gnu_debuglink" { image.debugLink = debugLink(r, section) }
            }
        }
        for note in notes where image.buildID == nil {
            image.buildID = buildID(r, notes: note)
        }
        return image
    }

    /// `.gnu_debuglink` holds the file name, NUL-terminated and padded to 4 bytes, then the
    /// CRC-32 of the whole debug file in the target's byte order.
    private static func debugLink(_ r: ByteReader, _ section: ELFImage.Section) -> DebugFile.DebugLink? {
        guard section.type != 8, section.size >= 8, section.size < 1 << 16,
              let name = r.cString(Int(section.offset), limit: Int(section.size)), !name.isEmpty, !name.contains("/"),
              let crc = r.u32(Int(section.offset) + (name.utf8.count + 4) & ~3),
              (name.utf8.count + 4) & ~3 + 4 <= Int(section.size)
        else { return nil }
        return DebugFile.DebugLink(name: name, crc: crc)
    }

    private static func buildID(_ r: ByteReader, notes: (offset: UInt64, size: UInt64)) -> String? {
        var at = Int(notes.offset)
        let end = Int(notes.offset + notes.size)
        while at + 12 <= end {
            guard let nameSize = r.u32(at), let descSize = r.u32(at + 4), let type = r.u32(at + 8) else { return nil }
            let nameAt = at + 12
            let descAt = nameAt + (Int(nameSize) + 3) & ~3
            if type == 3, nameSize == 4, r.cString(nameAt, limit: 4) == "GNU", let desc = r.slice(descAt, Int(descSize)) {
                return ImageIdentity(buildIDBytes: desc).hex
            }
            at = descAt + (Int(descSize) + 3) & ~3
        }
        return nil
    }
}
