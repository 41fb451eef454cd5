@testable import CrashReport
import XCTest

/// Reports saved as UTF-16 are read as the text they are, and say so.
final class UTF16TextTests: XCTestCase {
    private static let report = "Process:             App [1234]\n"
        + "Code Type:           ARM-64 (Native)\n"
        + "Thread 0 Crashed:\n"
        + "0   App                           0x0000000104a3c5e0 0x104a30000 + 50656\n"
        + "\n"
        + "Binary Images:\n"
        + "0x104a30000 - 0x104a3ffff App arm64  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /App\n"

    private func utf16(_ text: String, bigEndian: Bool, bom: Bool) -> [UInt8] {
        var bytes: [UInt8] = bom ? (bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]) : []
        for unit in text.utf16 { bytes += bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        return bytes
    }

    func testEveryByteOrderWithAndWithoutAMarkParsesAsTheUTF8Report() throws {
        let original = try ReportParser.parse(Array(Self.report.utf8), path: "r.crash")
        XCTAssertEqual(original.warnings, [])
        for bigEndian in [false, true] {
            for bom in [false, true] {
                let name = "\(bigEndian ? "BE" : "LE")\(bom ? " with BOM" : "")"
                let report = try ReportParser.parse(utf16(Self.report, bigEndian: bigEndian, bom: bom), path: "r.crash")
                XCTAssertEqual(report.bytes, original.bytes, name)
                XCTAssertEqual(report.threads, original.threads, name)
                XCTAssertEqual(report.images, original.images, name)
                XCTAssertEqual(report.warnings, ["r.crash: read as UTF-16\(bigEndian ? "BE" : "LE"), written as UTF-8"], name)
            }
        }
    }

    func testSurrogatePairsDecodeAndUnpairedOnesAreReplacedAndCounted() {
        // "a😀b" then a lone high surrogate, a lone low surrogate, and a last odd byte.
        let units: [UInt16] = [0x61, 0xD83D, 0xDE00, 0x62, 0xD800, 0x63, 0xDC00, 0xE9]
        var bytes: [UInt8] = []
        for unit in units { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        bytes.append(0x41)
        let decoded = UTF16Text.decode(bytes, .littleEndian)
        XCTAssertEqual(String(decoding: decoded.utf8, as: UTF8.self), "a😀b\u{FFFD}c\u{FFFD}é\u{FFFD}")
        XCTAssertEqual(decoded.replaced, 3)
        XCTAssertEqual(UTF16Text.note(path: "p", encoding: .littleEndian, replaced: 3),
                       "p: read as UTF-16LE, written as UTF-8 (3 invalid UTF-16 code units replaced by U+FFFD)")
    }

    func testUTF8AndBinaryAreNotTakenForUTF16() {
        XCTAssertNil(UTF16Text.encoding(of: Array(Self.report.utf8)))
        XCTAssertNil(UTF16Text.encoding(of: [0xEF, 0xBB, 0xBF] + Array(Self.report.utf8)))
        XCTAssertNil(UTF16Text.encoding(of: Array("A\u{0}B\n".utf8)), "a stray NUL in UTF-8 text")
        XCTAssertNil(UTF16Text.encoding(of: [UInt8](repeating: 0, count: 4096)))
        var sparse = [UInt8](repeating: 0, count: 4096)
        for i in stride(from: 0, to: sparse.count, by: 4) { sparse[i] = 0x41 }
        XCTAssertNil(UTF16Text.encoding(of: sparse), "every other code unit NUL is binary, not text")
    }

    /// Without a mark, three quarters of the units must be ASCII: text just at that share is
    /// UTF-16, one unit less is not, in either order and for texts shorter and longer than
    /// the 64 KiB looked at (the others are CJK units, which hold no NUL byte).
    func testThreeQuartersOfASCIIUnitsIsTheEdge() {
        for units in [4, 7, 40, 1001, 40_000] {
            let sampled = min(units, 32_768)
            let needed = sampled - sampled / 4
            for ascii in [needed, needed - 1] {
                // The ASCII units first, the rest CJK; past the sample, anything.
                let text = (0..<units).map { k -> (UInt8, UInt8) in k < ascii ? (0x41, 0x00) : (0x2D, 0x4E) }
                let littleEndian = text.flatMap { [$0.0, $0.1] }, bigEndian = text.flatMap { [$0.1, $0.0] }
                let expected = ascii >= needed
                XCTAssertEqual(UTF16Text.encoding(of: littleEndian), expected ? .littleEndian : nil, "\(units) units, \(ascii) ASCII")
                XCTAssertEqual(UTF16Text.encoding(of: bigEndian), expected ? .bigEndian : nil, "\(units) units, \(ascii) ASCII")
            }
        }
    }

    /// A UTF-16 byte-order mark before text that is not UTF-16 does not make it UTF-16: the
    /// bytes are read as they are, and come back as they are.
    func testAMarkBeforeSingleByteTextIsNotUTF16() throws {
        for mark in [[0xFE, 0xFF], [0xFF, 0xFE], [0xFE, 0xFF, 0xFF, 0xFF]] as [[UInt8]] {
            let bytes = mark + Array(Self.report.utf8)
            XCTAssertNil(UTF16Text.encoding(of: bytes), "\(mark)")
            let report = try ReportParser.parse(bytes, path: "r.crash")
            XCTAssertEqual(report.bytes, bytes)
            XCTAssertEqual(report.warnings, [])
            XCTAssertEqual(report.threads.first?.frames.count, 1)
        }
        XCTAssertEqual(UTF16Text.encoding(of: [0xFE, 0xFF]), .bigEndian, "a mark alone is the empty text")
        XCTAssertEqual(UTF16Text.encoding(of: [0xFF, 0xFE, 0x41, 0x00]), .littleEndian)
        XCTAssertNil(UTF16Text.encoding(of: [0xFF, 0xFE, 0x00, 0x41]), "one unit, not ASCII in the mark's order")
    }

    func testAUTF8ByteOrderMarkStillWorks() throws {
        let report = try ReportParser.parse([0xEF, 0xBB, 0xBF] + Array(Self.report.utf8), path: "r.crash")
        XCTAssertEqual(report.header.first?.key, "Process")
        XCTAssertEqual(report.threads.first?.frames.count, 1)
        XCTAssertEqual(report.warnings, [])
    }

    func testUTF16BinaryIsStillNotAReport() {
        let controls = String(repeating: "\u{1}\u{2}\u{3}\u{4}", count: 100)
        XCTAssertThrowsError(try ReportParser.parse(utf16(controls, bigEndian: false, bom: true), path: "blob")) {
            XCTAssertEqual($0 as? ReportError, .notAReport("blob"))
        }
    }
}
