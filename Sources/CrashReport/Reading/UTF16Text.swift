#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reports saved as UTF-16, as Windows tools save text: told from their first bytes and turned
/// into UTF-8, which is what every parser reads.
///
/// A byte-order mark says the order (`FF FE` little-endian, `FE FF` big-endian). Crash reports
/// are mostly ASCII, and ASCII in UTF-16 has every other byte NUL — the odd ones little-endian,
/// the even ones big-endian: the text after the mark, or the whole text without one, must look
/// so. Bytes that only start like a mark (`FE FF` before single-byte text) are no UTF-16 text:
/// read as UTF-16 they would be other characters, written back other bytes.
enum UTF16Text {
    /// The byte order of UTF-16 text.
    enum Encoding: String, Sendable {
        case littleEndian = "UTF-16LE"
        case bigEndian = "UTF-16BE"
    }

    /// The text as UTF-8, and how many code units could not be decoded (unpaired surrogates,
    /// a last odd byte), each written as U+FFFD.
    struct Decoded {
        var utf8: [UInt8]
        var replaced: Int
    }

    /// How many leading bytes are looked at to tell UTF-16 without a byte-order mark.
    private static let sampleSize = 65536

    /// The encoding of `bytes` if they are UTF-16 text, nil otherwise.
    ///
    /// At least three quarters of the code units of the first 64 KiB (after a byte-order
    /// mark) must be ASCII characters other than NUL in one byte order — the mark's, when there
    /// is one — and at most one in 100 NUL: UTF-8 text (with a stray NUL byte or not), binary
    /// data with runs of zeros, and single-byte text after `FE FF` or `FF FE` are none of them.
    static func encoding(of bytes: [UInt8]) -> Encoding? {
        bytes.withUnsafeBufferPointer { encoding(of: $0) }
    }

    /// The same for bytes in a buffer: a block read, looked at without a copy.
    static func encoding(of b: UnsafeBufferPointer<UInt8>) -> Encoding? {
        guard b.count >= 2 else { return nil }
        if b[0] == 0xFF && b[1] == 0xFE { return looksLikeText(b, from: 2, .littleEndian) ? .littleEndian : nil }
        if b[0] == 0xFE && b[1] == 0xFF { return looksLikeText(b, from: 2, .bigEndian) ? .bigEndian : nil }
        // Each ASCII unit has a NUL byte of its own: with fewer NULs than three quarters of the
        // units, neither order can pass (what most input, UTF-8 text, shows at one memchr).
        let units = min(b.count, sampleSize) / 2
        guard hasNULs(b, in: 0..<(2 * units), atLeast: units - units / 4) else { return nil }
        if looksLikeText(b, from: 0, .littleEndian) { return .littleEndian }
        if looksLikeText(b, from: 0, .bigEndian) { return .bigEndian }
        return nil
    }

    /// Whether `b[range]` holds at least `count` NUL bytes.
    private static func hasNULs(_ b: UnsafeBufferPointer<UInt8>, in range: Range<Int>, atLeast count: Int) -> Bool {
        guard count > 0 else { return true }
        guard let base = b.baseAddress else { return false }
        var found = 0
        var i = range.lowerBound
        while i < range.upperBound, let hit = memchr(base + i, 0, range.upperBound - i) {
            found += 1
            if found >= count { return true }
            i = UnsafeRawPointer(hit) - UnsafeRawPointer(base) + 1
        }
        return false
    }

    /// Whether the code units from `start`, read in `order`, are text as `encoding(of:)`
    /// wants it. A mark with nothing after it is the empty text.
    private static func looksLikeText(_ b: UnsafeBufferPointer<UInt8>, from start: Int, _ order: Encoding) -> Bool {
        let units = (min(b.count, start + sampleSize) - start) / 2
        if units == 0 { return start > 0 }
        // Single-unit text after a mark is judged as any: ASCII or not.
        guard units >= 2 || start > 0 else { return false }
        let asciiIndex = order == .littleEndian ? 0 : 1  // the byte that is the character
        var ascii = 0
        var nuls = 0
        // The order is refused once more than a quarter of the units cannot be ASCII (text of
        // another kind shows it within its first few units).
        let misfits = units - units * 3 / 4 + 1
        for k in 0..<units {
            let character = b[start + 2 * k + asciiIndex]
            let high = b[start + 2 * k + 1 - asciiIndex]
            if high == 0 && character == 0 { nuls += 1 }
            if high == 0 && character < 0x80 { ascii += 1 }
            if k & 63 == 63, k + 1 - ascii > misfits { return false }
        }
        return nuls * 100 <= units && ascii * 4 >= units * 3
    }

    /// `bytes` decoded from `encoding` to UTF-8, without the byte-order mark.
    static func decode(_ bytes: [UInt8], _ encoding: Encoding) -> Decoded {
        bytes.withUnsafeBufferPointer { b in
            var utf8: [UInt8] = []
            // ASCII, the common case, halves; the rest grows as it needs.
            utf8.reserveCapacity(b.count / 2 + 16)
            var replaced = 0
            let bigEndian = encoding == .bigEndian
            @inline(__always) func unit(_ k: Int) -> UInt32 {
                bigEndian ? UInt32(b[k]) << 8 | UInt32(b[k + 1]) : UInt32(b[k + 1]) << 8 | UInt32(b[k])
            }
            var i = 0
            if b.count >= 2 && unit(0) == 0xFEFF { i = 2 }
            while i + 1 < b.count {
                let u = unit(i)
                i += 2
                if u < 0x80 {
                    utf8.append(UInt8(u))
                } else if u & 0xFC00 == 0xD800, i + 1 < b.count, unit(i) & 0xFC00 == 0xDC00 {
                    let scalar = 0x10000 + ((u & 0x3FF) << 10 | unit(i) & 0x3FF)
                    i += 2
                    append(scalar, to: &utf8)
                } else if u & 0xF800 == 0xD800 {
                    replaced += 1
                    append(0xFFFD, to: &utf8)
                } else {
                    append(u, to: &utf8)
                }
            }
            if i < b.count {
                replaced += 1
                append(0xFFFD, to: &utf8)
            }
            return Decoded(utf8: utf8, replaced: replaced)
        }
    }

    /// The one line that says a report was converted, naming the file.
    static func note(path: String, encoding: Encoding, replaced: Int) -> String {
        var line = "\(path): read as \(encoding.rawValue), written as UTF-8"
        if replaced > 0 {
            line += " (\(replaced) invalid UTF-16 code unit\(replaced == 1 ? "" : "s") replaced by U+FFFD)"
        }
        return line
    }

    /// Appends the UTF-8 encoding of `scalar` (not ASCII, not a surrogate, at most 0x10FFFF).
    @inline(__always)
    private static func append(_ scalar: UInt32, to utf8: inout [UInt8]) {
        if scalar < 0x800 {
            utf8.append(UInt8(0xC0 | scalar >> 6))
        } else if scalar < 0x10000 {
            utf8.append(UInt8(0xE0 | scalar >> 12))
            utf8.append(UInt8(0x80 | scalar >> 6 & 0x3F))
        } else {
            utf8.append(UInt8(0xF0 | scalar >> 18))
            utf8.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            utf8.append(UInt8(0x80 | scalar >> 6 & 0x3F))
        }
        utf8.append(UInt8(0x80 | scalar & 0x3F))
    }
}
