/// The central directory of a zip file: the list of its entries, each with where its bytes lie.
///
/// An APK is a zip (`lib/arm64-v8a/libfoo.so`), and so is an Android App Bundle
/// (`base/lib/arm64-v8a/libfoo.so`) and the `native-debug-symbols.zip` Gradle writes. Only
/// what finding a library needs is read, from the end of the file backwards:
///
///     [local header 1][data 1] ... [local header N][data N] [central directory] [end record]
///
///     end record (22 bytes + comment), the last thing in the file:
///       0  50 4b 05 06   signature            10  u16  entries in all
///       4  u16 disk number, u16 its CD's disk 12  u32  size of the central directory
///       8  u16 entries on this disk           16  u32  offset of the central directory
///                                             20  u16  comment length (the comment follows)
///     central directory header (46 bytes + name + extra + comment), one per entry:
///       0  50 4b 01 02   10 u16 method (0 stored, 8 deflated)   16 u32 CRC-32
///       8  u16 flags     20 u32 compressed size   24 u32 size   28 u16 name length
///       30 u16 extra length   32 u16 comment length   42 u32 offset of the local header
///     local header (30 bytes + name + extra), then the entry's data:
///       0  50 4b 03 04   26 u16 name length   28 u16 extra length
///
/// Everything the file says is checked against the bytes there before it is used: the end
/// record must lie in the file with its comment, the directory between the entries and the
/// end record, each header inside the directory, each entry's local header and data before
/// the directory, and no two entries may share bytes (as the "overlapping files" zip bombs
/// make them do: many entries that inflate one stream). Work and memory are in proportion to
/// the directory's size. ZIP64 archives (4 GiB or 65,535 entries and more), archives split
/// over disks and encrypted entries are refused with a reason, never guessed at.
struct ZipDirectory {
    /// One entry of the directory.
    struct Entry: Equatable {
        /// The name as stored (UTF-8 by convention; bytes that are not stay replaced).
        var name: String
        /// 0 stored, 8 deflated; others are not read.
        var method: UInt16
        var flags: UInt16
        var crc32: UInt32
        var compressedSize: Int
        var size: Int
        /// Where the local header starts.
        var headerOffset: Int
        /// Where the data starts, after the local header's name and extra field.
        var dataOffset: Int

        /// Whether the entry is encrypted (flag bit 0): its bytes cannot be read.
        var isEncrypted: Bool { flags & 1 != 0 }
        /// The bytes of the file the entry takes: its local header and its data.
        var extent: Range<Int> { headerOffset..<(dataOffset + compressedSize) }
    }

    /// Every entry, in the directory's order.
    var entries: [Entry]

    /// Why an archive cannot be read, in words (the caller names the file).
    struct Damage: Error, Equatable {
        var reason: String
    }

    static let localSignature: UInt32 = 0x0403_4b50
    static let centralSignature: UInt32 = 0x0201_4b50
    static let endSignature: UInt32 = 0x0605_4b50
    static let zip64LocatorSignature: UInt32 = 0x0706_4b50

    /// Whether `bytes` start as a zip with entries does: a local header's signature.
    static func isZip(_ bytes: UnsafeRawBufferPointer) -> Bool {
        ByteReader(bytes).u32(0) == localSignature
    }

    /// Reads the directory of the zip in `bytes`; throws ``Damage`` saying what does not fit.
    init(_ bytes: UnsafeRawBufferPointer) throws {
        let r = ByteReader(bytes)
        let end = try ZipDirectory.endRecord(r)
        guard r.u16(end + 4) == 0, r.u16(end + 6) == 0 else {
            throw Damage(reason: "an archive split over several disks")
        }
        guard let onDisk = r.u16(end + 8), let total = r.u16(end + 10), let size = r.u32(end + 12),
              let offset = r.u32(end + 16)
        else { throw Damage(reason: "the end record is cut short") }
        if total == 0xffff || size == 0xffff_ffff || offset == 0xffff_ffff
            || (end >= 20 && r.u32(end - 20) == ZipDirectory.zip64LocatorSignature) {
            throw Damage(reason: "a ZIP64 archive, which is not read")
        }
        guard onDisk == total else { throw Damage(reason: "the end record counts \(onDisk) entries here and \(total) in all") }
        let directory = Int(offset), directorySize = Int(size)
        guard directory <= end, directorySize <= end - directory else {
            throw Damage(reason: "the central directory (\(directorySize) bytes at \(directory)) does not lie before its end record at \(end)")
        }
        guard Int(total) <= directorySize / 46 else {
            throw Damage(reason: "\(total) entries cannot fit in a central directory of \(directorySize) bytes")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(Int(total))
        var at = directory
        let directoryEnd = directory + directorySize
        for index in 0..<Int(total) {
            entries.append(try ZipDirectory.entry(r, at: &at, index: index, directoryEnd: directoryEnd, dataEnd: directory))
        }
        try ZipDirectory.checkNoOverlap(entries)
        self.entries = entries
    }

    /// The offset of the end record: the last signature of one within the 65,557 bytes a
    /// record and the longest comment take, whose comment ends the file.
    private static func endRecord(_ r: ByteReader) throws -> Int {
        guard r.count >= 22 else { throw Damage(reason: "too short to be a zip (\(r.count) bytes)") }
        var at = r.count - 22
        let lowest = max(0, r.count - 22 - 0xffff)
        while at >= lowest {
            if r.u32(at) == endSignature, let comment = r.u16(at + 20), Int(comment) == r.count - at - 22 {
                return at
            }
            at -= 1
        }
        throw Damage(reason: "no end of central directory record (cut short?)")
    }

    /// The directory header at `at`, which moves past it; its local header is checked too.
    private static func entry(_ r: ByteReader, at: inout Int, index: Int, directoryEnd: Int, dataEnd: Int) throws -> Entry {
        guard directoryEnd - at >= 46, r.u32(at) == centralSignature,
              let flags = r.u16(at + 8), let method = r.u16(at + 10), let crc = r.u32(at + 16),
              let compressed = r.u32(at + 20), let size = r.u32(at + 24), let nameLength = r.u16(at + 28),
              let extraLength = r.u16(at + 30), let commentLength = r.u16(at + 32), let local = r.u32(at + 42)
        else { throw Damage(reason: "entry \(index) of the central directory is damaged or cut short") }
        let headerSize = 46 + Int(nameLength) + Int(extraLength) + Int(commentLength)
        guard headerSize <= directoryEnd - at, let nameBytes = r.slice(at + 46, Int(nameLength)) else {
            throw Damage(reason: "entry \(index) of the central directory runs past its end")
        }
        let name = String(decoding: nameBytes, as: UTF8.self)
        if compressed == 0xffff_ffff || size == 0xffff_ffff || local == 0xffff_ffff {
            throw Damage(reason: "\(name): ZIP64 sizes, which are not read")
        }
        let headerOffset = Int(local)
        guard headerOffset <= dataEnd - 30, r.u32(headerOffset) == localSignature,
              let localName = r.u16(headerOffset + 26), let localExtra = r.u16(headerOffset + 28)
        else { throw Damage(reason: "\(name): no local header at \(headerOffset)") }
        let dataOffset = headerOffset + 30 + Int(localName) + Int(localExtra)
        guard dataOffset <= dataEnd, Int(compressed) <= dataEnd - dataOffset else {
            throw Damage(reason: "\(name): its \(compressed) bytes at \(dataOffset) run past the entries' end at \(dataEnd)")
        }
        if method == 0, compressed != size {
            throw Damage(reason: "\(name): stored, yet \(compressed) bytes are said to be \(size)")
        }
        at += headerSize
        return Entry(name: name, method: method, flags: flags, crc32: crc, compressedSize: Int(compressed),
                     size: Int(size), headerOffset: headerOffset, dataOffset: dataOffset)
    }

    /// No two entries may share bytes of the file.
    private static func checkNoOverlap(_ entries: [Entry]) throws {
        let sorted = entries.sorted { $0.headerOffset < $1.headerOffset }
        for (first, second) in zip(sorted, sorted.dropFirst()) where first.extent.upperBound > second.headerOffset {
            throw Damage(reason: "entries \(first.name) and \(second.name) overlap (a zip bomb?)")
        }
    }
}
