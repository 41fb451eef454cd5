/// Writes small zip files for the tests, without zlib: a "deflated" entry is a raw deflate
/// stream of stored blocks (BTYPE 00), which any inflater reads. Each entry's fields can be
/// changed afterwards through the offsets it records, to make the archive lie.
struct ZipWriter {
    struct Written {
        var bytes: [UInt8]
        /// Per entry: where its local header and its central directory header start.
        var local: [Int]
        var central: [Int]
        var endRecord: Int

        mutating func put32(_ value: UInt32, at offset: Int) {
            for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
        }

        mutating func put16(_ value: UInt16, at offset: Int) {
            for i in 0..<2 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt16(i))) }
        }
    }

    var entries: [(name: String, data: [UInt8], deflate: Bool)] = []

    mutating func add(_ name: String, _ data: [UInt8], deflate: Bool = false) {
        entries.append((name, data, deflate))
    }

    /// A raw deflate stream of stored blocks holding `data`.
    static func storedBlocks(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var at = 0
        repeat {
            let count = min(65535, data.count - at)
            let final: UInt8 = at + count == data.count ? 1 : 0
            out.append(final)
            out += [UInt8(count & 0xff), UInt8(count >> 8), UInt8(~count & 0xff), UInt8((~count >> 8) & 0xff)]
            out += data[at..<(at + count)]
            at += count
        } while at < data.count
        return out
    }

    static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
        }
        return ~crc
    }

    func write() -> Written {
        var out = Written(bytes: [], local: [], central: [], endRecord: 0)
        func u16(_ v: Int) { out.bytes += [UInt8(v & 0xff), UInt8((v >> 8) & 0xff)] }
        func u32(_ v: UInt32) { for i in 0..<4 { out.bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) } }
        var records: [(name: [UInt8], method: Int, crc: UInt32, compressed: Int, size: Int, offset: Int)] = []
        for entry in entries {
            let name = Array(entry.name.utf8)
            let payload = entry.deflate ? ZipWriter.storedBlocks(entry.data) : entry.data
            let crc = ZipWriter.crc32(entry.data)
            out.local.append(out.bytes.count)
            records.append((name, entry.deflate ? 8 : 0, crc, payload.count, entry.data.count, out.bytes.count))
            u32(0x0403_4b50); u16(20); u16(0); u16(entry.deflate ? 8 : 0); u16(0); u16(0)
            u32(crc); u32(UInt32(payload.count)); u32(UInt32(entry.data.count)); u16(name.count); u16(0)
            out.bytes += name
            out.bytes += payload
        }
        let directory = out.bytes.count
        for record in records {
            out.central.append(out.bytes.count)
            u32(0x0201_4b50); u16(20); u16(20); u16(0); u16(record.method); u16(0); u16(0)
            u32(record.crc); u32(UInt32(record.compressed)); u32(UInt32(record.size))
            u16(record.name.count); u16(0); u16(0); u16(0); u16(0); u32(0); u32(UInt32(record.offset))
            out.bytes += record.name
        }
        out.endRecord = out.bytes.count
        u32(0x0605_4b50); u16(0); u16(0); u16(records.count); u16(records.count)
        u32(UInt32(out.endRecord - directory)); u32(UInt32(directory)); u16(0)
        return out
    }
}
