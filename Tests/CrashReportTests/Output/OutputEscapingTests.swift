@testable import CrashReport
import TestSupport
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

    /// The word-at-a-time scan stops exactly where a byte-at-a-time one does: at every offset
    /// and length around the 8-byte words, with the bytes at the edges of printable ASCII.
    func testPrintableRunsEndWhereAByteScanEndsThem() {
        let edges: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x21, 0x41, 0x7E, 0x7F, 0x80, 0x9F, 0xC2, 0xFE, 0xFF]
        var generator = SplitMix64(seed: 0x0e5c)
        for length in 0...40 {
            for trial in 0..<60 {
                // Printable filler with one or two edge bytes planted (or none, trial 0).
                var bytes = (0..<length).map { _ in UInt8.random(in: 0x20...0x7E, using: &generator) }
                if length > 0 && trial > 0 {
                    for _ in 0..<(trial % 2 + 1) { bytes[Int.random(in: 0..<length, using: &generator)] = edges.randomElement(using: &generator)! }
                }
                bytes.withUnsafeBufferPointer { buffer in
                    for start in 0...length {
                        var end = start
                        while end < length && buffer[end] >= 0x20 && buffer[end] < 0x7F { end += 1 }
                        XCTAssertEqual(OutputEscaping.printableASCIIEnd(buffer, from: start), end, "\(bytes) from \(start)")
                    }
                    var out: [UInt8] = []
                    OutputEscaping.append(buffer, to: &out)
                    XCTAssertEqual(out, byteByByte(buffer), "\(bytes)")
                    XCTAssertEqual(OutputEscaping.needsEscaping(buffer), out != bytes, "\(bytes)")
                }
            }
        }
    }

    /// The escaping as the rules in `OutputEscaping`'s documentation state it, one byte at a time,
    /// UTF-8 decoded by the standard library's parser (not the one under test).
    private func byteByByte(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        func escape(_ byte: UInt8) {
            let digits = Array("0123456789abcdef".utf8)
            out += [UInt8(ascii: "\\"), UInt8(ascii: "x"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
        }
        while i < bytes.count {
            let byte = bytes[i]
            if byte >= 0x20 && byte < 0x7F {
                out.append(byte)
                i += 1
            } else if byte < 0x80 {
                escape(byte)
                i += 1
            } else {
                var parser = Unicode.UTF8.ForwardParser()
                var rest = bytes[i...].makeIterator()
                let length: Int
                switch parser.parseScalar(from: &rest) {
                case .valid(let scalar): length = scalar.count
                case .error, .emptyInput: length = 0
                }
                if length == 0 {
                    escape(byte)
                    i += 1
                } else if length == 2 && byte == 0xC2 && bytes[i + 1] < 0xA0 {
                    escape(bytes[i])
                    escape(bytes[i + 1])
                    i += 2
                } else {
                    out += bytes[i..<(i + length)]
                    i += length
                }
            }
        }
        return out
    }
}
