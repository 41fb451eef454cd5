@testable import CrashReport
import XCTest

final class ByteSpliceTests: XCTestCase {
    /// What the splice writes for `edits` (range, replacement) over `text`, and whether each
    /// edit was made; with `flush`, what was handed on followed by what the buffer still holds.
    private func splice(_ text: String, _ edits: [(Range<Int>, String)], threshold: Int? = nil)
        -> (output: String, made: [Bool], pieces: [[UInt8]]) {
        final class Pieces { var list: [[UInt8]] = [] }
        let pieces = Pieces()
        let flush = threshold.map { OutputFlush(threshold: $0) { pieces.list.append(Array($0)) } }
        var out: [UInt8] = []
        var made: [Bool] = []
        Array(text.utf8).withUnsafeBufferPointer { b in
            var splice = ByteSplice(b, flush: flush)
            for (range, replacement) in edits {
                made.append(splice.replace(range, with: Array(replacement.utf8), in: &out))
            }
            splice.finish(in: &out)
            XCTAssertEqual(splice.cursor, b.count)
        }
        let output = pieces.list.joined() + out
        return (String(decoding: output, as: UTF8.self), made, pieces.list)
    }

    func testNoEditsLeaveTheBytesAsTheyAre() {
        for text in ["", "one line", "a\nb\r\nc", String(repeating: "x", count: 1000)] {
            XCTAssertEqual(splice(text, []).output, text)
            XCTAssertEqual(splice(text, [], threshold: 16).output, text)
        }
    }

    func testEditsInOrderReplaceTheirRanges() {
        let result = splice("0123456789", [(1..<3, "ab"), (3..<3, "+"), (5..<9, ""), (10..<10, "!")])
        XCTAssertEqual(result.output, "0ab+349!")
        XCTAssertEqual(result.made, [true, true, true, true])
    }

    func testAnEditThatStartsBeforeTheCursorIsSkipped() {
        let result = splice("0123456789", [(2..<6, "X"), (4..<8, "Y"), (5..<5, "Z"), (6..<7, "W")])
        XCTAssertEqual(result.output, "01XW789")
        XCTAssertEqual(result.made, [true, false, false, true])
    }

    func testAnEditPastTheEndIsSkipped() {
        let result = splice("0123", [(2..<5, "X"), (5..<5, "Y"), (1..<2, "Z")])
        XCTAssertEqual(result.output, "0Z23")
        XCTAssertEqual(result.made, [false, false, true])
    }

    func testEmptyBytes() {
        XCTAssertEqual(splice("", [(0..<0, "new")]).output, "new")
        XCTAssertEqual(splice("", [(0..<1, "new")]).made, [false])
    }

    func testTheReplacementIsWrittenByTheClosureOnlyForAnEditMade() {
        var out: [UInt8] = []
        var calls = 0
        Array("abcdef".utf8).withUnsafeBufferPointer { b in
            var splice = ByteSplice(b, flush: nil)
            XCTAssertTrue(splice.accepts(0..<6))
            splice.replace(1..<4, in: &out) { out in
                calls += 1
                out.append(contentsOf: "[bcd]".utf8)
            }
            XCTAssertEqual(splice.cursor, 4)
            XCTAssertFalse(splice.accepts(3..<5))
            let made = splice.replace(3..<5, in: &out) { _ in calls += 1 }
            XCTAssertFalse(made)
            XCTAssertEqual(splice.cursor, 4)
            splice.finish(in: &out)
        }
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "a[bcd]ef")
        XCTAssertEqual(calls, 1)
    }

    /// With a flush, a long run of kept bytes goes out in one piece, as it is in the input, and
    /// the output is the same as without.
    func testWithAFlushLongRunsGoOutWhole() {
        let text = String(repeating: "a", count: 100) + "OLD" + String(repeating: "b", count: 100)
        let edits = [(100..<103, "NEW")]
        let plain = splice(text, edits)
        let flushed = splice(text, edits, threshold: 64)
        XCTAssertEqual(flushed.output, plain.output)
        XCTAssertEqual(flushed.output, String(repeating: "a", count: 100) + "NEW" + String(repeating: "b", count: 100))
        XCTAssertTrue(flushed.pieces.contains(Array(repeating: UInt8(ascii: "a"), count: 100)), "\(flushed.pieces)")
        XCTAssertTrue(flushed.pieces.contains(Array(repeating: UInt8(ascii: "b"), count: 100)), "\(flushed.pieces)")
    }
}
