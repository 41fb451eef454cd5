@testable import CrashReport
import XCTest

final class ClassicTextWriterTests: XCTestCase {
    private func writer(column: Int = 21, skipsEmpty: Bool = true, escapedKey: Bool = false) -> ClassicTextWriter {
        ClassicTextWriter(fieldStyle: .init(valueColumn: column, skipsEmptyValues: skipsEmpty, countsEscapedKey: escapedKey))
    }

    private func text(_ writer: ClassicTextWriter) -> String {
        String(decoding: writer.text, as: UTF8.self)
    }

    func testLinesAreEscapedAndCounted() {
        var w = writer()
        XCTAssertEqual(w.lineCount, 0)
        w.line("Thread 0 name:  a\u{1B}[2Jb\nc")
        w.line("")
        XCTAssertEqual(text(w), "Thread 0 name:  a\\x1b[2Jb\\x0ac\n\n")
        XCTAssertEqual(w.lineCount, 2)
        w.text.append(contentsOf: "raw".utf8)
        XCTAssertEqual(w.lineCount, 2, "a line is counted when it ends")
        w.endLine()
        XCTAssertEqual(w.lineCount, 3)
        XCTAssertEqual(text(w).split(separator: "\n", omittingEmptySubsequences: false).count - 1, w.lineCount)
    }

    func testFieldsArePaddedToTheValueColumn() {
        var w = writer()
        w.field("Process", "App [1234]")
        w.field("Exception Subtype is long", "KERN_INVALID_ADDRESS")
        XCTAssertEqual(text(w), "Process:" + String(repeating: " ", count: 13) + "App [1234]\n"
                       + "Exception Subtype is long: KERN_INVALID_ADDRESS\n")
        var wide = writer(column: 30, skipsEmpty: false)
        wide.field("os_version", "iPhone OS 15.0")
        XCTAssertEqual(text(wide), "os_version:" + String(repeating: " ", count: 19) + "iPhone OS 15.0\n")
    }

    func testMissingValuesAreSkippedAndEmptyOnesAsTheStyleSays() {
        var skipping = writer()
        skipping.field("Path", nil)
        skipping.field("Role", "")
        XCTAssertEqual(skipping.text, [])
        XCTAssertEqual(skipping.lineCount, 0)
        var keeping = writer(column: 10, skipsEmpty: false)
        keeping.field("Path", nil)
        keeping.field("Role", "")
        XCTAssertEqual(text(keeping), "Role:     \n")
        XCTAssertEqual(keeping.lineCount, 1)
    }

    func testControlCharactersInKeysAndValuesAreEscaped() {
        var w = writer(column: 12, skipsEmpty: false)
        w.field("k\u{7}", "v\tw\u{85}")
        // The key's width is counted as given (3 bytes with the colon), then escaped.
        XCTAssertEqual(text(w), "k\\x07:" + String(repeating: " ", count: 9) + "v\\x09w\\xc2\\x85\n")
        var escaped = writer(column: 12, skipsEmpty: false, escapedKey: true)
        escaped.field("k\u{7}", "v")
        // The key's width is counted as written (6 bytes).
        XCTAssertEqual(text(escaped), "k\\x07:" + String(repeating: " ", count: 6) + "v\n")
        var bytes = writer()
        bytes.fieldKey("Key")
        bytes.appendEscaped([0x61, 0xFF, 0x0A])
        bytes.endLine()
        XCTAssertEqual(text(bytes), "Key:" + String(repeating: " ", count: 17) + "a\\xff\\x0a\n")
    }

    func testPaddingAndRightAlignment() {
        var w = writer()
        var start = w.text.count
        w.text.append(contentsOf: "12".utf8)
        w.pad(from: start, to: 4)
        start = w.text.count
        w.text.append(contentsOf: "12345".utf8)
        w.pad(from: start, to: 4)
        XCTAssertEqual(text(w), "12  12345 ", "at least one space")
        var aligned = writer()
        start = aligned.text.count
        aligned.text.append(hex: 0x104a30000)
        aligned.rightAlign(from: start, to: 18)
        aligned.text.append(contentsOf: " - ".utf8)
        start = aligned.text.count
        aligned.text.append(hex: 0xfffffe000b768000)
        aligned.rightAlign(from: start, to: 18)
        XCTAssertEqual(text(aligned), "       0x104a30000 - 0xfffffe000b768000", "no space when the column is full")
    }
}
