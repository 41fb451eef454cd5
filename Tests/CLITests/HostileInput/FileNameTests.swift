import Foundation
import TestSupport
import XCTest

/// File names that are not UTF-8 (bytes 0x80, 0xff, a lone 0xc3) and one holding U+F701 are
/// found in a walked folder, read when named, written under -o, and printed with their own
/// bytes; JSON spells such bytes U+FFFD.
final class FileNameTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try makeTemporaryDirectory("file-names")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    /// The names, as printf(1) escapes and as bytes.
    private let names: [(printf: String, bytes: [UInt8])] = [
        ("a\\x80.crash", [0x61, 0x80] + Array(".crash".utf8)),
        ("b\\xff.crash", [0x62, 0xff] + Array(".crash".utf8)),
        ("c\\xc3.crash", [0x63, 0xc3] + Array(".crash".utf8)),
        ("d\\xef\\x9c\\x81.crash", [0x64, 0xef, 0x9c, 0x81] + Array(".crash".utf8)),
    ]

    private func setUpReports() throws -> String {
        let report = try Fixtures.path("reports/App-arm64.crash")
        var script = "set -e; mkdir -p '\(root.path)/in'; cd '\(root.path)/in'\n"
        for name in names { script += "cp '\(report)' \"$(printf '\(name.printf)')\"\n" }
        let result = try CLI.shell(script)
        XCTAssertEqual(result.status, 0, result.stderrText)
        return report
    }

    func testNamesThatAreNotUTF8AreWalkedReadAndWritten() throws {
        let report = try setUpReports()
        let macho = try Fixtures.path("macho")
        let single = try CLI.run(["-q", "-d", macho, report])
        let folder = Array((root.path + "/in/").utf8)

        // A walked folder: every report, with its header in its own bytes.
        var result = try CLI.shell("\"$SYMBOLICATE\" -q -d '\(macho)' '\(root.path)/in'")
        XCTAssertEqual(result.status, .success, result.stderrText)
        var expected: [UInt8] = []
        for (i, name) in names.sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }).enumerated() {
            if i > 0 { expected.append(0x0a) }
            expected += Array("==> ".utf8) + folder + name.bytes + Array(" <==\n".utf8) + Array(single.stdout)
        }
        XCTAssertEqual(Array(result.stdout), expected, result.stderrText)

        // Named on the command line, and under -o: the same bytes.
        let named = names.map { "\"$(printf '\(root.path)/in/\($0.printf)')\"" }.joined(separator: " ")
        result = try CLI.shell("\"$SYMBOLICATE\" -q -o '\(root.path)/out' \(named) && cd '\(root.path)/out' && "
                               + names.map { "cmp -s '\(report)' \"$(printf '\($0.printf)')\" || echo differs" }
                               .joined(separator: " && ") + " && ls | wc -l")
        XCTAssertEqual(result.status, .success, result.stderrText)
        XCTAssertEqual(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines), "4",
                       "(no debug files: each output is its report) four files, each named as its report, none differing: \(result.stdoutText)")

        // An error names the file with its bytes too.
        result = try CLI.shell("\"$SYMBOLICATE\" -q \"$(printf '\(root.path)/in/gone\\x80.crash')\"")
        XCTAssertEqual(result.status, .reportFailed)
        XCTAssertEqual(Array(result.stderr), Array("symbolicate: \(root.path)/in/gone".utf8) + [0x80]
                       + Array(".crash: cannot read: no such file or directory\n".utf8))
    }

    /// Every frame line starts with the report's name in its own bytes, the rest of the line
    /// as for any other name.
    func testFrameLinesStartWithTheNamesOwnBytes() throws {
        let report = try setUpReports()
        let macho = try Fixtures.path("macho")
        let plain = try CLI.run(["-q", "--format", "frames", "-d", macho, report])
        let plainLines = Array(plain.stdout).split(separator: 0x0a)
        XCTAssertFalse(plainLines.isEmpty)
        for name in names {
            let path = Array((root.path + "/in/").utf8) + name.bytes
            let result = try CLI.shell("\"$SYMBOLICATE\" -q --format frames -d '\(macho)' \"$(printf '\(root.path)/in/\(name.printf)')\"")
            XCTAssertEqual(result.status, .success, result.stderrText)
            let lines = Array(result.stdout).split(separator: 0x0a)
            XCTAssertEqual(lines.count, plainLines.count, name.printf)
            for (line, plainLine) in zip(lines, plainLines) {
                XCTAssertEqual(Array(line), path + plainLine.drop { $0 != 0x09 }, name.printf)
            }
        }
    }

    func testJSONSpellsRawBytesAsReplacementCharacters() throws {
        _ = try setUpReports()
        let result = try CLI.shell("\"$SYMBOLICATE\" -q --format json \"$(printf '\(root.path)/in/a\\x80.crash')\"")
        XCTAssertEqual(result.status, .success, result.stderrText)
        XCTAssertNotNil(String(data: result.stdout, encoding: .utf8), "the JSON is valid UTF-8")
        XCTAssert(result.stdoutText.contains("\"path\":\"\(root.path)/in/a\u{FFFD}.crash\""), result.stdoutText.prefix(300) + "")
    }
}
