@testable import CrashReport
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

    func testByteOrderMarkLength() {
        func length(_ bytes: [UInt8]) -> Int { bytes.withUnsafeBufferPointer { $0.byteOrderMarkLength } }
        XCTAssertEqual(length([0xEF, 0xBB, 0xBF, 0x41]), 3)
        XCTAssertEqual(length([0xEF, 0xBB, 0xBF]), 3)
        XCTAssertEqual(length([0xEF, 0xBB]), 0)
        XCTAssertEqual(length([0x41, 0xEF, 0xBB, 0xBF]), 0)
        XCTAssertEqual(length([]), 0)
    }
}
