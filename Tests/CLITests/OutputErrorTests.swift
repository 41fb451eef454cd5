import Foundation
import TestSupport
import XCTest

/// Output that cannot be written: only a reader that went away (EPIPE) is quiet; any other
/// write error is one line naming the output and the reason, and exit status 74.
final class OutputErrorTests: XCTestCase {
    private func quoted(_ path: String) -> String { "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Runs `script` and checks that it exits 74 with `problem` as its one error line.
    private func assertOutputFails(_ script: String, saying problem: String,
                                   file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try CLI.shell(script)
        XCTAssertEqual(result.status, 74, "\(script): \(result.stderrText)", file: file, line: line)
        XCTAssertEqual(result.problemLines, ["symbolicate: " + problem], script, file: file, line: line)
    }

    func testAFullDiskIsAnErrorNotAClosedPipe() throws {
        let macho = try Fixtures.path("macho"), report = try Fixtures.path("reports/App-arm64.crash")
        for format in ["text", "json", "frames"] {
            try assertOutputFails("\"$SYMBOLICATE\" -q --format \(format) -d \(quoted(macho)) \(quoted(report)) > /dev/full",
                                  saying: "standard output: cannot write: No space left on device")
        }
    }

    func testAClosedStandardOutputIsAnError() throws {
        let macho = try Fixtures.path("macho"), report = try Fixtures.path("reports/App-arm64.crash")
        try assertOutputFails("\"$SYMBOLICATE\" -q -d \(quoted(macho)) \(quoted(report)) >&-",
                              saying: "standard output: cannot write: Bad file descriptor")
    }

    func testAtosOnAFullDiskFails() throws {
        let dsym = try Fixtures.path("macho/App-arm64.dSYM")
        try assertOutputFails("\"$SYMBOLICATE\" atos -o \(quoted(dsym)) 0x100003f2c > /dev/full",
                              saying: "standard output: cannot write: No space left on device")
    }

    /// An output file that cannot be made (a file stands where its folder should be): named,
    /// with the reason, exit 74; the other reports are still written.
    func testAnOutputFileThatCannotBeWrittenFailsTheRun() throws {
        let report = try Fixtures.path("reports/App-arm64.crash")
        let root = try makeTemporaryDirectory("output-error")
        defer { try? FileManager.default.removeItem(at: root) }
        let input = root.appendingPathComponent("in"), output = root.appendingPathComponent("out")
        for folder in ["a", "b"] {
            try FileManager.default.createDirectory(at: input.appendingPathComponent(folder), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: report, toPath: input.appendingPathComponent("\(folder)/x.crash").path)
        }
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        try Data("a file, not a folder".utf8).write(to: output.appendingPathComponent("a"))
        let arguments = ["-q", "-o", output.path, input.path]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, 74, result.summary(arguments))
        XCTAssertEqual(result.problemLines.count, 1, result.summary(arguments))
        XCTAssert(result.stderrText.contains(output.appendingPathComponent("a").path), result.summary(arguments))
        XCTAssert(FileManager.default.fileExists(atPath: output.appendingPathComponent("b/x.crash").path),
                  "the other report is written: \(result.summary(arguments))")
    }
}
