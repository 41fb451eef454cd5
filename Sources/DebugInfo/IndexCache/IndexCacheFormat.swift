#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// Receives each array of an index with its section kind (see ``SymbolIndex/Tables`` and
/// ``SymbolTable``): the writer copies it out, the reader points it into the mapped file.
protocol IndexSectionVisitor {
    mutating func visit<Element: BitwiseCopyable>(_ kind: UInt32, _ array: inout FlatArray<Element>)
}

/// What identifies the version of a debug file an index was built from, without reading it.
struct DebugFileStamp: Equatable, Sendable {
    var size: UInt64
    /// st_mtime in nanoseconds.
    var modified: Int64
    var inode: UInt64
    var device: UInt64

    /// The stamp of the file at `path` now; nil when it cannot be stat'ed.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(size: UInt64(info.st_size), modified: System.times(of: info).modified,
                  inode: UInt64(info.st_ino), device: UInt64(info.st_dev))
    }

    init(size: UInt64, modified: Int64, inode: UInt64, device: UInt64) {
        self.size = size
        self.modified = modified
        self.inode = inode
        self.device = device
    }
}

/// The file format of the index cache: one ``SymbolIndex`` (its DWARF tables and its symbol
/// table) per file, written in one pass and used in place through `mmap`.
///
/// Native byte order (a cache is shared only between machines of one byte order; another
/// order is refused). A header
/// of fixed fields, a section table, the identity strings and the block checksums, then the
/// data: the sections, each at a multiple of 16 bytes:
///
///     0    "SYMIDX\0\n"          magic
///     8    u32 version           (``version``; another version is refused)
///     12   u32 0x01020304        byte order as written
///     16   u64 file size         must be the file's length: a cut file is refused
///     24   u64 header size       fixed fields + section table + identity strings + checksums
///     32   u32 section count
///     36   u32 flags             1: Mach-O symbol names (leading underscore)
///                                2: keyed by content (``ContentKey``): the next four fields
///                                   hold the file size, 0, the content hash and 0
///     40   u64 debug file size, 48 i64 mtime (ns), 56 u64 inode, 64 u64 device
///     72   u64 slice offset, 80 u64 slice size
///     88   u32 identity strings' length, 92 u32 block count
///     96   u64 header checksum   of bytes [0, header size) with this field zero
///     104  section table, 24 bytes per section:
///              u32 kind, u32 element size, u64 offset, u64 count
///     ...  identity strings: identifier, architecture, DWARF problem, the debug file's path
///          when indexed (for `cache list` and `cache prune`; not checked), each NUL-terminated
///     ...  block checksums: u64 per block of ``IndexBlocks/size`` bytes of the data, which
///          starts at the header size rounded up to 16 (the last block may be shorter)
///
/// Opening a file checks, in constant time, before anything is used: magic, version, byte
/// order, the length, the header checksum (which covers the block checksums), the identity
/// (identifier, architecture, slice, and the debug file's size, mtime, inode and device — or,
/// keyed by content, its size and content hash),
/// the block count, every section's kind, element size, alignment and bounds, and that the
/// tables' lengths agree (``SymbolIndex/Tables/hasConsistentShape``). A file failing any of
/// these is not used.
///
/// The sections' contents are not read when a file is opened: a lookup touches only the
/// blocks it needs, so one address costs a few blocks of a 65 MB index, not all of it. Each
/// block is checked against its checksum the first time it is read (``IndexBlocks``); a
/// damaged one makes the index answer from its debug file instead, so a file damaged on
/// disk never changes an answer. Memory safety does not rest on the checksums: every lookup
/// checks each index it reads from one table before using it in another, so a damaged block
/// read before its check gives a bounded wrong result (thrown away), never a fault or a hang.
enum IndexCacheFormat {
    static let magic: [UInt8] = Array("SYMIDX\0\n".utf8)
    /// Raised whenever the layout or the meaning of a table changes.
    static let version: UInt32 = 13
    static let byteOrderMark: UInt32 = 0x0102_0304
    static let fixedHeaderSize = 104
    static let sectionEntrySize = 24
    static let sectionAlignment = 16
    static let maximumSections = 64
    static let stripsUnderscoreFlag: UInt32 = 1
    static let contentKeyedFlag: UInt32 = 2
    /// The most blocks a file may have: 2⁴⁶ bytes of tables, far beyond any bound of the store.
    static let maximumBlocks = 1 << 30

    /// What an index file says it was built from.
    struct Identity: Equatable {
        var identifier: String
        var architecture: String
        var sliceOffset: UInt64
        var sliceSize: UInt64
        var stamp: DebugFileStamp
        /// Whether `stamp` is a ``ContentKey`` (file size and content hash), not the file's
        /// size, mtime, inode and device.
        var contentKeyed = false
        /// The debug file's path when it was indexed: said by `cache list`, never compared.
        var path = ""

        init(_ file: DebugFile, stamp: DebugFileStamp) {
            identifier = file.identifier ?? ""
            architecture = file.architecture?.name ?? ""
            sliceOffset = UInt64(file.sliceOffset)
            sliceSize = UInt64(file.sliceSize)
            self.stamp = stamp
            path = file.path
        }

        init(_ file: DebugFile, content: ContentKey) {
            self.init(file, stamp: content.stamp)
            contentKeyed = true
        }
    }

    // MARK: - Writing

    /// The bytes of the index file for `index`, as a header and the sections to follow it
    /// (each at its offset, zeros between).
    struct Layout {
        var header: [UInt8]
        var sections: [(offset: Int, bytes: UnsafeRawBufferPointer)]
        var fileSize: Int
    }

    private struct Collector: IndexSectionVisitor {
        var sections: [(kind: UInt32, elementSize: Int, count: Int, bytes: UnsafeRawBufferPointer)] = []
        mutating func visit<Element: BitwiseCopyable>(_ kind: UInt32, _ array: inout FlatArray<Element>) {
            sections.append((kind, MemoryLayout<Element>.stride, array.count, array.bytes))
        }
    }

    /// Lays out `index`. The byte buffers point into the index's own arrays: use them while
    /// `index` lives.
    static func layout(of index: SymbolIndex, identity: Identity) -> Layout {
        var collector = Collector()
        var tables = index.tables, symbols = index.symbols
        tables.visit(&collector)
        symbols.visit(&collector)
        var strings: [UInt8] = []
        for text in [identity.identifier, identity.architecture, index.problem ?? "", identity.path] {
            strings += text.utf8.filter { $0 != 0 }
            strings.append(0)
        }
        // The sections' places in the data, then the data's place after the header.
        var relative: [Int] = []
        var dataSize = 0
        for section in collector.sections {
            relative.append(dataSize)
            dataSize = aligned(dataSize + section.bytes.count)
        }
        dataSize = relative.last.map { $0 + collector.sections[collector.sections.count - 1].bytes.count } ?? 0
        let blockCount = (dataSize + IndexBlocks.size - 1) / IndexBlocks.size
        let headerSize = fixedHeaderSize + collector.sections.count * sectionEntrySize + strings.count + blockCount * 8
        let dataStart = aligned(headerSize)
        var placed: [(offset: Int, bytes: UnsafeRawBufferPointer)] = []
        var table: [UInt8] = []
        for (section, start) in zip(collector.sections, relative) {
            table.appendBytes(of: section.kind)
            table.appendBytes(of: UInt32(section.elementSize))
            table.appendBytes(of: UInt64(dataStart + start))
            table.appendBytes(of: UInt64(section.count))
            placed.append((dataStart + start, section.bytes))
        }
        let fileSize = dataStart + dataSize
        var header: [UInt8] = []
        header.reserveCapacity(headerSize)
        header += magic
        header.appendBytes(of: version)
        header.appendBytes(of: byteOrderMark)
        header.appendBytes(of: UInt64(fileSize))
        header.appendBytes(of: UInt64(headerSize))
        header.appendBytes(of: UInt32(collector.sections.count))
        header.appendBytes(of: (index.symbols.stripsUnderscore ? stripsUnderscoreFlag : 0)
                           | (identity.contentKeyed ? contentKeyedFlag : 0))
        let stamp = identity.stamp
        header.appendBytes(of: stamp.size)
        header.appendBytes(of: UInt64(bitPattern: stamp.modified))
        header.appendBytes(of: stamp.inode)
        header.appendBytes(of: stamp.device)
        header.appendBytes(of: identity.sliceOffset)
        header.appendBytes(of: identity.sliceSize)
        header.appendBytes(of: UInt32(strings.count))
        header.appendBytes(of: UInt32(blockCount))
        header.appendBytes(of: UInt64(0))  // the header checksum, below
        header += table
        header += strings
        for checksum in blockChecksums(of: placed.map { ($0.offset - dataStart, $0.bytes) }, dataSize: dataSize) {
            header.appendBytes(of: checksum)
        }
        let checksum = header.withUnsafeBytes { IndexChecksum.hash($0) }
        withUnsafeBytes(of: checksum) { header.replaceSubrange(96..<104, with: $0) }
        return Layout(header: header, sections: placed, fileSize: fileSize)
    }

    /// The checksum of every block of the data made of `sections` (at their offsets in it,
    /// zeros between), `dataSize` bytes.
    static func blockChecksums(of sections: [(offset: Int, bytes: UnsafeRawBufferPointer)], dataSize: Int) -> [UInt64] {
        var block = [UInt8](repeating: 0, count: IndexBlocks.size)
        return stride(from: 0, to: dataSize, by: IndexBlocks.size).map { start in
            let end = min(start + IndexBlocks.size, dataSize)
            return block.withUnsafeMutableBytes { buffer in
                buffer.initializeMemory(as: UInt8.self, repeating: 0)
                for section in sections where section.offset < end && section.offset + section.bytes.count > start {
                    let from = max(start, section.offset), to = min(end, section.offset + section.bytes.count)
                    UnsafeMutableRawBufferPointer(rebasing: buffer[(from - start)..<(to - start)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: section.bytes[(from - section.offset)..<(to - section.offset)]))
                }
                return IndexChecksum.hash(UnsafeRawBufferPointer(rebasing: buffer[0..<(end - start)]))
            }
        }
    }

    static func aligned(_ offset: Int) -> Int {
        (offset + sectionAlignment - 1) / sectionAlignment * sectionAlignment
    }

    // MARK: - Reading

    /// Why a file was not used.
    enum Rejection: Error, Equatable {
        /// No index file for the debug file.
        case absent
        /// Not an index file of this version and machine, or damaged.
        case damaged(String)
        /// An index of another version of the debug file (or of another file).
        case stale
    }

    private struct Placer: IndexSectionVisitor {
        let entries: [UInt32: (elementSize: Int, offset: Int, count: Int)]
        let base: UnsafeRawPointer
        let blocks: IndexBlocks
        var used = 0
        var failure: String?

        mutating func visit<Element: BitwiseCopyable>(_ kind: UInt32, _ array: inout FlatArray<Element>) {
            guard let entry = entries[kind] else {
                failure = failure ?? "no section \(kind)"
                return
            }
            guard entry.elementSize == MemoryLayout<Element>.stride, entry.offset % MemoryLayout<Element>.alignment == 0
            else {
                failure = failure ?? "section \(kind) holds elements of \(entry.elementSize) bytes"
                return
            }
            used += 1
            array = FlatArray(start: base + entry.offset, count: entry.count, blocks: blocks)
        }
    }

    /// The index held by `mapping` (the whole file) if it is an intact index of `file` as
    /// `identity` describes it now. Its tables are checked block by block as lookups read
    /// them; once one is found damaged, the index answers from what `rebuild` gives instead.
    static func read(_ mapping: IndexMapping, file: DebugFile, identity expected: Identity,
                     rebuild: @escaping @Sendable () -> SymbolIndex?) throws(Rejection) -> SymbolIndex {
        let bytes = mapping.bytes
        let r = ByteReader(bytes)
        guard bytes.count >= fixedHeaderSize, bytes.prefix(8).elementsEqual(magic) else { throw .damaged("not an index file") }
        guard r.u32(8) == version else { throw .damaged("format version \(r.u32(8) ?? 0), not \(version)") }
        guard r.u32(12) == byteOrderMark else { throw .damaged("another byte order") }
        guard let fileSize = r.u64(16), fileSize == UInt64(bytes.count) else { throw .damaged("cut short or extended") }
        guard let headerSize64 = r.u64(24), let sectionCount32 = r.u32(32), let stringsSize32 = r.u32(88),
              let blockCount32 = r.u32(92), sectionCount32 <= UInt32(maximumSections), blockCount32 <= maximumBlocks,
              headerSize64 == UInt64(fixedHeaderSize + Int(sectionCount32) * sectionEntrySize + Int(stringsSize32)
                                     + Int(blockCount32) * 8),
              headerSize64 <= fileSize
        else { throw .damaged("bad header size") }
        let headerSize = Int(headerSize64), sectionCount = Int(sectionCount32), blockCount = Int(blockCount32)
        var header = Array(bytes[0..<headerSize])
        for i in 96..<104 { header[i] = 0 }
        guard r.u64(96) == header.withUnsafeBytes({ IndexChecksum.hash($0) }) else { throw .damaged("header checksum") }
        let dataStart = aligned(headerSize)
        guard dataStart <= bytes.count,
              blockCount == (bytes.count - dataStart + IndexBlocks.size - 1) / IndexBlocks.size
        else { throw .damaged("\(blockCount) block checksums for \(bytes.count - min(dataStart, bytes.count)) bytes") }

        // Identity.
        let stringsStart = fixedHeaderSize + sectionCount * sectionEntrySize
        let stringsEnd = stringsStart + Int(stringsSize32)
        let strings = bytes[stringsStart..<stringsEnd].split(separator: 0, maxSplits: 4, omittingEmptySubsequences: false)
        guard strings.count == 5, strings[4].isEmpty else { throw .damaged("bad identity strings") }
        let text = strings.map { String(decoding: $0, as: UTF8.self) }
        let found = (identifier: text[0], architecture: text[1], sliceOffset: r.u64(72)!, sliceSize: r.u64(80)!,
                     stamp: DebugFileStamp(size: r.u64(40)!, modified: Int64(bitPattern: r.u64(48)!),
                                           inode: r.u64(56)!, device: r.u64(64)!))
        guard found.identifier == expected.identifier, found.architecture == expected.architecture,
              found.sliceOffset == expected.sliceOffset, found.sliceSize == expected.sliceSize,
              found.stamp == expected.stamp, (r.u32(36)! & contentKeyedFlag != 0) == expected.contentKeyed
        else { throw .stale }

        // Sections: in bounds, aligned, whole.
        var entries: [UInt32: (elementSize: Int, offset: Int, count: Int)] = [:]
        for s in 0..<sectionCount {
            let at = fixedHeaderSize + s * sectionEntrySize
            let kind = r.u32(at)!, elementSize = r.u32(at + 4)!, offset = r.u64(at + 8)!, count = r.u64(at + 16)!
            guard elementSize > 0, elementSize <= 64, offset % UInt64(sectionAlignment) == 0,
                  offset >= UInt64(dataStart), offset <= fileSize, count <= (fileSize - offset) / UInt64(elementSize),
                  entries[kind] == nil
            else { throw .damaged("section \(kind) out of bounds") }
            entries[kind] = (Int(elementSize), Int(offset), Int(count))
        }
        let blocks = IndexBlocks(mapping: mapping, dataOffset: dataStart, checksumsOffset: stringsEnd, count: blockCount)
        var placer = Placer(entries: entries, base: bytes.baseAddress!, blocks: blocks)
        var tables = SymbolIndex.Tables()
        var symbols = SymbolTable(stripsUnderscore: r.u32(36)! & stripsUnderscoreFlag != 0)
        tables.visit(&placer)
        symbols.visit(&placer)
        if let failure = placer.failure { throw .damaged(failure) }
        guard placer.used == sectionCount else { throw .damaged("unknown sections") }
        guard let index = SymbolIndex(file: file, problem: text[2].isEmpty ? nil : text[2], tables: tables, symbols: symbols,
                                      stored: StoredIndex(blocks: blocks, rebuild: rebuild))
        else { throw .damaged(blocks.isDamaged ? "block checksum" : "tables of different lengths") }
        guard !blocks.isDamaged else { throw .damaged("block checksum") }
        return index
    }
}

/// A fast 64-bit checksum of bytes (four multiply-rotate lanes over 8-byte words, as xxHash
/// and wyhash do it): every single changed bit changes it, and a damaged section goes
/// unnoticed with a chance of about 2⁻⁶⁴. Not a cryptographic hash.
enum IndexChecksum {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9

    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress else { return mix(prime3) }
        var a = prime1, b = prime2, c = prime3, d = prime1 ^ prime2
        var i = 0
        @inline(__always) func round(_ lane: UInt64, _ word: UInt64) -> UInt64 {
            ((lane ^ word) &* prime1).rotatedLeft(31)
        }
        while i + 32 <= count {
            a = round(a, base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            b = round(b, base.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self))
            c = round(c, base.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self))
            d = round(d, base.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self))
            i += 32
        }
        while i + 8 <= count {
            a = round(a, base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < count {
            tail |= UInt64(base.load(fromByteOffset: i, as: UInt8.self)) << shift
            shift += 8
            i += 1
        }
        b = round(b, tail)
        var h = UInt64(count) &* prime3
        h = mix(h ^ mix(a))
        h = mix(h ^ mix(b))
        h = mix(h ^ mix(c))
        return mix(h ^ mix(d))
    }

    /// A bijective finalizer (MurmurHash3's fmix64).
    private static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 33
        x &*= 0xff51_afd7_ed55_8ccd
        x ^= x >> 33
        x &*= 0xc4ce_b9fe_1a85_ec53
        x ^= x >> 33
        return x
    }
}

private extension UInt64 {
    func rotatedLeft(_ count: UInt64) -> UInt64 { (self << count) | (self >> (64 - count)) }
}

private extension Array where Element == UInt8 {
    mutating func appendBytes<T: FixedWidthInteger>(of value: T) {
        Swift.withUnsafeBytes(of: value) { self.append(contentsOf: $0) }
    }
}
