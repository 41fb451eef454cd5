@testable import CrashReport
import XCTest

final class OutputEscapingTests: XCTestCase {
    private func escaped(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        bytes.withUnsafeBufferPointer { OutputEscaping.append($0, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    func testControlCharactersAreWrittenAsHexEscapes() {
        XCTAssertEqual(OutputEscaping.escaped("a\u{1B}[31mb\nc\td\r\u{0}\u{7F}"), "a\\x1b[31mb\\x0ac\\x09d\\x0d\\x00\\x7f")
        XCTAssertEqual(OutputEscaping.escaped("csi\u{9B}2J nel\u{85}"), "csi\\xc2\\x9b2J nel\\xc2\\x85")
    }

    func testPrintableTextBackslashesAndOtherScalarsAreKept() {
        for text in ["C:\\src\\main.c", "naïve € 𝄞 \u{A0}", "\u{F7FF}\u{F700}raw", "", "plain"] {
            XCTAssertEqual(OutputEscaping.escaped(text), text)
            var out: [UInt8] = []
            OutputEscaping.append(text, to: &out)
            XCTAssertEqual(out, Array(text.utf8))
        }
    }

    func testBytesThatAreNotUTF8AreEscapedOneByOne() {
        XCTAssertEqual(escaped([0x61, 0xFF, 0x62]), "a\\xffb")
        XCTAssertEqual(escaped([0xC0, 0xAF]), "\\xc0\\xaf")  // overlong "/"
        XCTAssertEqual(escaped([0xED, 0xA0, 0x80]), "\\xed\\xa0\\x80")  // a surrogate
        XCTAssertEqual(escaped([0xF4, 0x90, 0x80, 0x80]), "\\xf4\\x90\\x80\\x80")  // above U+10FFFF
        XCTAssertEqual(escaped([0x61, 0xE2, 0x82]), "a\\xe2\\x82")  // cut short
        XCTAssertEqual(escaped([0xE2, 0x82, 0xAC]), "€")
    }

    func testNeedsEscapingAgreesWithAppend() {
        for bytes: [UInt8] in [[0x41], [0x1B], [0xC2, 0x9B], [0xC2, 0xA0], [0xFF], [0x5C]] {
            var out: [UInt8] = []
            let needs = bytes.withUnsafeBufferPointer { buffer -> Bool in
                OutputEscaping.append(buffer, to: &out)
                return OutputEscaping.needsEscaping(buffer)
            }
            XCTAssertEqual(needs, out != bytes, "\(bytes)")
        }
    }
}
