@testable import Symbolication
import XCTest

/// The CSV fields of ``MissingDebugFiles``: RFC 4180 quoting where a field needs it, and every
/// row one line whatever a name holds.
final class MissingDebugFilesTests: XCTestCase {
    func testFieldsAreQuotedOnlyWhenTheyNeedIt() {
        XCTAssertEqual(MissingDebugFiles.field("App"), "App")
        XCTAssertEqual(MissingDebugFiles.field("My App"), "My App")
        XCTAssertEqual(MissingDebugFiles.field("a,b"), "\"a,b\"")
        XCTAssertEqual(MissingDebugFiles.field("say \"hi\""), "\"say \"\"hi\"\"\"")
        XCTAssertEqual(MissingDebugFiles.field(""), "")
    }

    func testALineBreakInANameStaysOnItsRow() {
        for name in ["two\nlines", "carriage\rreturn", "tab\there", "nul\u{0}byte", "esc\u{1B}[31m"] {
            let field = MissingDebugFiles.field(name)
            XCTAssertFalse(field.contains("\n") || field.contains("\r") || field.contains("\u{1B}") || field.contains("\u{0}"),
                           "\(name.debugDescription) → \(field.debugDescription)")
        }
    }

    func testAnEmptyListIsItsHeader() {
        XCTAssertEqual(String(decoding: MissingDebugFiles().csv(), as: UTF8.self),
                       "debug_file,debug_id,code_file,code_id,arch,frames,reports,reason\n")
    }
}
