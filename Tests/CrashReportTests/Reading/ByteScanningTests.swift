@testable import CrashReport
import TestSupport
import XCTest

final class ByteScanningTests: XCTestCase {
    private func lines(_ text: String) -> [Range<Int>] {
        Array(text.utf8).withUnsafeBufferPointer { $0.lineRanges() }
    }

    func testLineRanges() {
        XCTAssertEqual(lines(""), [])
        XCTAssertEqual(lines("\n"), [0..<1])
        XCTAssertEqual(lines("a"), [0..<1], "a last line without a newline")
        XCTAssertEqual(lines("ab\ncd\n"), [0..<3, 3..<6], "a final newline starts no line")
        XCTAssertEqual(lines("ab\r\n\ncd"), [0..<4, 4..<5, 5..<7], "\r stays in its line")
    }

    /// A line's text ends before its "\n" or "\r\n"; the last line may have neither, and a "\r"
    /// that ends no "\n" is text.
    /// The first occurrence of a literal within a range, against a plain scan of every start.
    func testFirstIndexOfALiteralIsThePlainScansAnswer() {
        let text = Array("ab \"crash\" x \"crash\"\"cr".utf8)
        text.withUnsafeBufferPointer { b in
            for lower in 0...b.count {
                for upper in lower...b.count {
                    let literal = "\"crash\""
                    let plain = (lower..<max(lower, upper - literal.utf8.count + 1)).first {
                        Array(b[$0..<$0 + literal.utf8.count]) == Array(literal.utf8)
                    }
                    XCTAssertEqual(b.firstIndex(of: "\"crash\"", in: lower..<upper), plain, "\(lower)..<\(upper)")
                }
            }
            XCTAssertNil(b.firstIndex(of: "x", in: 0..<b.count + 1), "a range past the bytes finds nothing")
        }
    }

    func testContentEndLeavesOutTheLineEnd() {
        func ends(_ text: String) -> [Int] {
            Array(text.utf8).withUnsafeBufferPointer { b in b.lineRanges().map { b.contentEnd($0) } }
        }
        XCTAssertEqual(ends("ab\ncd"), [2, 5])
        XCTAssertEqual(ends("ab\r\ncd\r\n"), [2, 6])
        XCTAssertEqual(ends("\n\r\n"), [0, 1], "an empty line, with either end")
        XCTAssertEqual(ends("a\rb\r"), [4], "a \r without a \n is text")
        XCTAssertEqual(ends("a \t\n"), [3], "blanks are text")
        Array("x\n".utf8).withUnsafeBufferPointer { b in
            XCTAssertEqual(b.contentEnd(1..<1), 1, "an empty range")
        }
    }

    /// A `0x` number is read whole or not at all: digits past 64 bits (leading zeros aside) or
    /// none make a token no address can be, never a number cut to fit; the oracle is Swift's
    /// own reading of the digits, over random lengths and digits.
    func testHexNumbersOfMoreThan64BitsOrNoDigitsAreUnreadable() {
        func read(_ text: String) -> (HexToken, Int)? {
            Array(text.utf8).withUnsafeBufferPointer { b in b.hexToken(at: 0, end: b.count).map { ($0.0, $0.next) } }
        }
        var generator = SplitMix64(seed: 64)
        let digits = Array("0123456789abcdefABCDEF")
        for _ in 0..<2000 {
            let zeros = String(repeating: "0", count: Int(generator.next() % 4))
            let count = Int(generator.next() % 22)
            let text = zeros + String((0..<count).map { _ in digits[Int(generator.next() % UInt64(digits.count))] })
            let token = "0x" + text
            let expected = UInt64(text, radix: 16)
            guard let (value, next) = read(token + " + 1") else { return XCTFail(token) }
            XCTAssertEqual(next, token.utf8.count, token)
            XCTAssertEqual(value, expected.map(HexToken.value) ?? .unreadable, token)
            let number = Array((token + " ").utf8).withUnsafeBufferPointer { $0.hexNumber(at: 0, end: $0.count)?.value }
            XCTAssertEqual(number, expected, token)
            let unreadable = Array(token.utf8).withUnsafeBufferPointer { $0.isUnreadableHexToken(0, $0.count) }
            XCTAssertEqual(unreadable, expected == nil, token)
        }
        for token in ["0x", "0X", "0x????????????????", "0x?"] {
            XCTAssertTrue(Array(token.utf8).withUnsafeBufferPointer { $0.isUnreadableHexToken(0, $0.count) }, token)
        }
        for token in ["0x10", "x10", "0x1g", "0x?1", "00x1", "10"] {
            XCTAssertFalse(Array(token.utf8).withUnsafeBufferPointer { $0.isUnreadableHexToken(0, $0.count) }, token)
        }
        XCTAssertNil(read("1x10"))
    }

    /// Random bytes, text with a few control bytes, every byte value at every place of a word:
    /// the lines a scan hands out one by one are `lineRanges()`, and it stops when asked.
    func testLinesOneByOneAreTheLineRanges() {
        var generator = SplitMix64(seed: 5)
        for round in 0..<300 {
            let count = Int(generator.next() % 300)
            let bytes = (0..<count).map { _ in round % 2 == 0 ? UInt8(truncatingIfNeeded: generator.next())
                                                            : generator.next() % 9 == 0 ? 0x0A : 0x41 }
            bytes.withUnsafeBufferPointer { b in
                var seen: [Range<Int>] = []
                b.forEachLine { seen.append($0); return true }
                let naive = Self.naiveLines(b)
                XCTAssertEqual(seen, naive)
                XCTAssertEqual(b.lineRanges(), naive)
                var first: [Range<Int>] = []
                b.forEachLine { first.append($0); return false }
                XCTAssertEqual(first, Array(naive.prefix(1)))
            }
        }
    }

    private static func naiveLines(_ b: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var lines: [Range<Int>] = [], start = 0
        for i in 0..<b.count where b[i] == 0x0A {
            lines.append(start..<(i + 1))
            start = i + 1
        }
        if start < b.count { lines.append(start..<b.count) }
        return lines
    }

    func testByteOrderMarkLength() {
        func length(_ bytes: [UInt8]) -> Int { bytes.withUnsafeBufferPointer { $0.byteOrderMarkLength } }
        XCTAssertEqual(length([0xEF, 0xBB, 0xBF, 0x41]), 3)
        XCTAssertEqual(length([0xEF, 0xBB, 0xBF]), 3)
        XCTAssertEqual(length([0xEF, 0xBB]), 0)
        XCTAssertEqual(length([0x41, 0xEF, 0xBB, 0xBF]), 0)
        XCTAssertEqual(length([]), 0)
    }

    /// Whether a literal occurs anywhere, against a plain scan of every start: over random
    /// bytes of a small alphabet (so that partial matches abound), at both ends, and in
    /// buffers shorter than the literal.
    func testContainsAgreesWithAPlainScan() {
        let literals: [StaticString] = ["pid: ", "*** *** *** ***", "p", "pp:"]
        var random = SplitMix64(seed: 0xC0_47A1)
        let alphabet = Array("pid: *x".utf8)
        for round in 0..<3000 {
            let count = Int(random.next() % 40)
            let bytes = (0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            for literal in literals {
                let wanted = Array(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
                let plain = bytes.count >= wanted.count
                    && (0...(bytes.count - wanted.count)).contains { Array(bytes[$0..<$0 + wanted.count]) == wanted }
                let found = bytes.withUnsafeBufferPointer { $0.contains(literal) }
                XCTAssertEqual(found, plain, "round \(round): \(literal) in \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            }
        }
        XCTAssertTrue(Array("x pid: ".utf8).withUnsafeBufferPointer { $0.contains("pid: ") }, "at the end")
        XCTAssertTrue(Array("pid: x".utf8).withUnsafeBufferPointer { $0.contains("pid: ") }, "at the start")
        XCTAssertFalse(Array("pid:".utf8).withUnsafeBufferPointer { $0.contains("pid: ") }, "shorter than the literal")
        XCTAssertFalse([UInt8]().withUnsafeBufferPointer { $0.contains("p") })
    }
}
