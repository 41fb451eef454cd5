import Platform

/// Mach-O files, thin and universal, as far as symbolication needs them.
///
/// A universal ("fat") file starts with a big-endian table of slices:
///
///     cafebabe 00000002                      FAT_MAGIC, 2 slices
///     01000007 00000003 00004000 ...         x86_64 at offset 0x4000
///     0100000c 00000000 00010000 ...         arm64  at offset 0x10000
///
/// Each slice is a thin Mach-O: a header (`feedfacf` for 64-bit), then load commands. From
/// them we take `LC_UUID` (the identity a crash report names), the `__TEXT` segment's vmaddr
/// (the address the image was linked at), the sections of the `__DWARF` segment and
/// `LC_SYMTAB`.
struct MachOSlice: Sendable {
    /// One section of the slice; `offset` is relative to the start of the slice.
    struct Section: Sendable {
        var segment: String
        var name: String
        var offset: UInt64
        var size: UInt64
        var address: UInt64
    }

    var architecture: Architecture?
    /// 32 lowercase hex digits.
    var uuid: String?
    var textVMAddress: UInt64
    var is64Bit: Bool
    var fileType: UInt32
    /// Where the slice lies in its file.
    var offset: Int
    var size: Int
    var sections: [Section]
    var symbolTable: (offset: UInt32, count: UInt32, stringsOffset: UInt32, stringsSize: UInt32)?
}

enum MachO {
    static func isMachO(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let thin = ByteReader(bytes).u32(0), let fat = ByteReader(bytes, bigEndian: true).u32(0) else { return false }
        return thin == 0xfeed_face || thin == 0xfeed_facf || fat == 0xcafe_babe || fat == 0xcafe_babf
    }

    /// Makes the pages of the universal header, and of each slice's header and load commands,
    /// private copies (``MappedFile/makePrivate(_:_:)``) before ``slices(of:path:)`` reads
    /// them: each place is read from a header already copied, so what is checked there holds.
    static func pinHeaders(of file: MappedFile) {
        let bytes = file.bytes
        file.makePrivate(0, 32)
        guard let thinMagic = ByteReader(bytes).u32(0), let magic = ByteReader(bytes, bigEndian: true).u32(0) else { return }
        func pinSlice(at offset: Int) {
            file.makePrivate(offset, 32)
            guard let sizeOfCommands = ByteReader(bytes).u32(offset + 20) else { return }
            file.makePrivate(offset, 32 + Int(sizeOfCommands))
        }
        if thinMagic == 0xfeed_face || thinMagic == 0xfeed_facf { return pinSlice(at: 0) }
        guard magic == 0xcafe_babe || magic == 0xcafe_babf, let count = ByteReader(bytes, bigEndian: true).u32(4),
              count < maximumSlices
        else { return }
        let entrySize = magic == 0xcafe_babf ? 32 : 20
        file.makePrivate(8, Int(count) * entrySize)
        let big = ByteReader(bytes, bigEndian: true)
        for i in 0..<Int(count) {
            let entry = 8 + i * entrySize
            let offset = magic == 0xcafe_babf ? big.u64(entry + 8) : big.u32(entry + 8).map(UInt64.init)
            if let offset, offset < UInt64(bytes.count) { pinSlice(at: Int(offset)) }
        }
    }

    /// More slices than a universal file has (one per architecture).
    static let maximumSlices: UInt32 = 64

    /// The slices of a thin or universal file.
    static func slices(of bytes: UnsafeRawBufferPointer, path: String) throws -> [MachOSlice] {
        let big = ByteReader(bytes, bigEndian: true)
        guard let thinMagic = ByteReader(bytes).u32(0), let magic = big.u32(0) else {
            throw DebugInfoError.unknownFormat(path: path)
        }
        if thinMagic == 0xfeed_face || thinMagic == 0xfeed_facf {
            return [try slice(bytes, offset: 0, size: bytes.count, path: path)]
        }
        guard magic == 0xcafe_babe || magic == 0xcafe_babf else { throw DebugInfoError.unknownFormat(path: path) }
        let is64 = magic == 0xcafe_babf
        guard let count = big.u32(4), count > 0, count < maximumSlices else {
            throw DebugInfoError.malformed(path: path, reason: "bad universal header")
        }
        let entrySize = is64 ? 32 : 20
        var result: [MachOSlice] = []
        for i in 0..<Int(count) {
            let entry = 8 + i * entrySize
            let offset: UInt64?, size: UInt64?
            if is64 {
                offset = big.u64(entry + 8)
                size = big.u64(entry + 16)
            } else {
                offset = big.u32(entry + 8).map(UInt64.init)
                size = big.u32(entry + 12).map(UInt64.init)
            }
            guard let offset, let size, offset <= UInt64(bytes.count), size <= UInt64(bytes.count) - offset else {
                throw DebugInfoError.malformed(path: path, reason: "universal slice \(i) lies outside the file")
            }
            let sliceBytes = UnsafeRawBufferPointer(rebasing: bytes[Int(offset)..<Int(offset + size)])
            result.append(try slice(sliceBytes, offset: Int(offset), size: Int(size), path: path))
        }
        return result
    }

    private static func slice(_ bytes: UnsafeRawBufferPointer, offset: Int, size: Int, path: String) throws -> MachOSlice {
        let r = ByteReader(bytes)
        guard let magic = r.u32(0), magic == 0xfeed_face || magic == 0xfeed_facf,
              let cpuType = r.u32(4), let cpuSubtype = r.u32(8), let fileType = r.u32(12),
              let commandCount = r.u32(16)
        else { throw DebugInfoError.malformed(path: path, reason: "truncated Mach-O header") }
        let is64 = magic == 0xfeed_facf
        var slice = MachOSlice(
            architecture: Architecture(cpuType: Int32(bitPattern: cpuType), cpuSubtype: Int32(bitPattern: cpuSubtype)),
            uuid: nil, textVMAddress: 0, is64Bit: is64, fileType: fileType,
            offset: offset, size: size, sections: [], symbolTable: nil)
        var cursor = is64 ? 32 : 28
        for _ in 0..<commandCount {
            guard let command = r.u32(cursor), let commandSize = r.u32(cursor + 4), commandSize >= 8,
                  cursor + Int(commandSize) <= bytes.count
            else { throw DebugInfoError.malformed(path: path, reason: "truncated load commands") }
            switch command {
            case 0x1b:  // LC_UUID
                if let raw = r.slice(cursor + 8, 16) {
                    slice.uuid = ImageIdentity(uuidBytes: raw).hex
                }
            case 0x19, 0x1:  // LC_SEGMENT_64, LC_SEGMENT
                readSegment(r, at: cursor, size: Int(commandSize), is64: command == 0x19, into: &slice)
            case 0x2:  // LC_SYMTAB
                if let symoff = r.u32(cursor + 8), let nsyms = r.u32(cursor + 12),
                   let stroff = r.u32(cursor + 16), let strsize = r.u32(cursor + 20) {
                    slice.symbolTable = (symoff, nsyms, stroff, strsize)
                }
            default:
                break
            }
            cursor += Int(commandSize)
        }
        return slice
    }

    /// Reads the segment command of `size` bytes at `cursor`: its sections must lie inside it.
    private static func readSegment(_ r: ByteReader, at cursor: Int, size: Int, is64: Bool, into slice: inout MachOSlice) {
        guard let segment = r.cString(cursor + 8, limit: 16) else { return }
        let vmaddr = is64 ? r.u64(cursor + 24) : r.u32(cursor + 24).map(UInt64.init)
        if segment == "__TEXT", let vmaddr { slice.textVMAddress = vmaddr }
        let sectionCountOffset = is64 ? cursor + 64 : cursor + 48
        var sectionCursor = is64 ? cursor + 72 : cursor + 56
        let sectionSize = is64 ? 80 : 68
        // No more sections than the command holds: past its end are other commands.
        guard let sectionCount = r.u32(sectionCountOffset) else { return }
        for _ in 0..<min(Int(sectionCount), max(0, (cursor + size - sectionCursor) / sectionSize)) {
            guard let name = r.cString(sectionCursor, limit: 16),
                  let segmentName = r.cString(sectionCursor + 16, limit: 16) else { return }
            let address = is64 ? r.u64(sectionCursor + 32) : r.u32(sectionCursor + 32).map(UInt64.init)
            let size = is64 ? r.u64(sectionCursor + 40) : r.u32(sectionCursor + 36).map(UInt64.init)
            let offset = r.u32(is64 ? sectionCursor + 48 : sectionCursor + 40)
            if let address, let size, let offset {
                slice.sections.append(.init(segment: segmentName, name: name, offset: UInt64(offset), size: size, address: address))
            }
            sectionCursor += sectionSize
        }
    }
}
