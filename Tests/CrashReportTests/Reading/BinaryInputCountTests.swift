@testable import CrashReport
import TestSupport
import XCTest

/// The count of bytes of no text that decides whether input is refused (``BinaryInput`` and
/// `ClassicReportParser.checkText`) reads eight bytes at a time where it can; it must agree
/// with a plain byte-by-byte count on any bytes, or text would be refused and binary data read.
final class BinaryInputCountTests: XCTestCase {
    /// The count one byte at a time: controls other than whitespace and ESC, DEL, NULs, and
    /// bytes of no valid UTF-8 sequence (Foundation-free: the sequences are validated by
    /// decoding each candidate alone).
    private static func naiveCount(_ bytes: [UInt8], whole: Bool) -> BinaryInput.ByteCounts {
        var counts = BinaryInput.ByteCounts()
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte < 0x80 {
                if byte == 0 {
                    counts.nuls += 1
                } else if byte == 0x7F || (byte < 0x20 && !(0x09...0x0D).contains(byte) && byte != 0x1B) {
                    counts.controls += 1
                }
                i += 1
                continue
            }
            let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            if length > 1, i + length > bytes.count, !whole {
                // Cut by the end of the block: not counted when some ending makes it valid
                // (the smallest continuation bytes its lead allows).
                var completed = Array(bytes[i...])
                while completed.count < length {
                    completed.append(completed.count == 1 && byte == 0xE0 ? 0xA0 : completed.count == 1 && byte == 0xF0 ? 0x90 : 0x80)
                }
                if String(validating: completed, as: UTF8.self) != nil { break }
            }
            if length > 1, i + length <= bytes.count, String(validating: bytes[i..<i + length], as: UTF8.self) != nil {
                i += length
            } else {
                counts.undecodable += 1
                i += 1
            }
        }
        return counts
    }

    func testTheCountAgreesWithAByteByByteCount() {
        var generator = SplitMix64(seed: 11)
        let pieces: [[UInt8]] = [Array("Thread 0 Crashed:\n0   App  0x104a34204 main + 8\n".utf8), Array("é€😀".utf8),
                                 [0], [0x1B], [0x7F], [0xFF], [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0x09, 0x0D, 0x0A]]
        for round in 0..<2000 {
            var bytes: [UInt8] = []
            let parts = Int(generator.next() % 40)
            for _ in 0..<parts {
                if round % 3 == 0 {
                    bytes.append(UInt8(truncatingIfNeeded: generator.next()))
                } else {
                    bytes += pieces[Int(generator.next() % UInt64(pieces.count))]
                }
            }
            for whole in [false, true] {
                let fast = bytes.withUnsafeBufferPointer { BinaryInput.ByteCounts($0, whole: whole) }
                XCTAssertEqual(fast, Self.naiveCount(bytes, whole: whole), "\(bytes) whole: \(whole)")
            }
        }
    }

    /// Every byte value at every place of a word of printable text is seen.
    func testEveryByteIsSeenAtEveryPlaceOfAWord() {
        for value in 0...255 {
            for place in 0..<16 {
                var bytes = [UInt8](repeating: 0x41, count: 16)
                bytes[place] = UInt8(value)
                let fast = bytes.withUnsafeBufferPointer { BinaryInput.ByteCounts($0, whole: true) }
                XCTAssertEqual(fast, Self.naiveCount(bytes, whole: true), "0x\(String(value, radix: 16)) at \(place)")
            }
        }
    }
}
