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
        XCTAssertEqual(result.status, .outputFailed, "\(script): \(result.stderrText)", file: file, line: line)
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

    /// Help and version text is output like any other: written to a closed or full standard
    /// output, it is lost, and the run must say so and fail rather than exit 0 in silence.
    func testHelpAndVersionOnAClosedOrFullStandardOutputFail() throws {
        for command in ["--help", "--version", "help reports", "atos --help", "group --help"] {
            try assertOutputFails("\"$SYMBOLICATE\" \(command) >&-",
                                  saying: "standard output: cannot write: Bad file descriptor")
            try assertOutputFails("\"$SYMBOLICATE\" \(command) > /dev/full",
                                  saying: "standard output: cannot write: No space left on device")
        }
    }

    /// Every command that writes to standard output fails on a closed or full one, in each of
    /// its formats: none of them may lose its output and exit 0.
    func testEveryCommandFailsOnAClosedOrFullStandardOutput() throws {
        let macho = try Fixtures.path("macho"), report = try Fixtures.path("reports/App-arm64.crash")
        let dsym = try Fixtures.path("macho/App-arm64.dSYM")
        let commands = ["text", "json", "frames", "ips", "metrickit"].map { "-q --format \($0) -d \(quoted(macho)) \(quoted(report))" }
            + ["atos -o \(quoted(dsym)) 0x100003f2c", "atos -o \(quoted(dsym)) < <(echo 0x100003f2c)"]
            + ["table", "tsv", "json"].map { "group -q --format \($0) -d \(quoted(macho)) \(quoted(report))" }
            + ["text", "json"].map { "check --format \($0) \(quoted(dsym))" }
        for command in commands {
            try assertOutputFails("\"$SYMBOLICATE\" \(command) >&-",
                                  saying: "standard output: cannot write: Bad file descriptor")
            try assertOutputFails("\"$SYMBOLICATE\" \(command) > /dev/full",
                                  saying: "standard output: cannot write: No space left on device")
        }
    }

    /// Runs `symbolicate ARGUMENTS` with a standard output whose reader is gone before the
    /// first write (every write fails with EPIPE): its exit status and the lines of its
    /// standard error other than notes of debug files not found.
    private func runIntoAClosedPipe(_ arguments: [String]) throws -> (status: Int32, problems: [String]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try CLI.binary())
        process.arguments = arguments
        process.environment = CLI.environment
        let stdout = Pipe(), stderr = Pipe()
        try stdout.fileHandleForReading.close()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "\(arguments): ended by a signal, not by itself")
        let problems = String(decoding: errors, as: UTF8.self).split(separator: "\n").map(String.init)
            .filter { !$0.contains(": no debug file for ") && !ProcessResult.isSummaryLine($0) }
        return (process.terminationStatus, problems)
    }

    /// A reader that went away (`| head`) is no error: whatever the command, it stops quietly,
    /// with the status its inputs give and no line about standard output.
    func testAReaderThatWentAwayIsQuietForEveryCommand() throws {
        let macho = try Fixtures.path("macho"), report = try Fixtures.path("reports/App-arm64.crash")
        let dsym = try Fixtures.path("macho/App-arm64.dSYM")
        let commands: [[String]] = ["text", "json", "frames"].map { ["-q", "--format", $0, "-d", macho, report] }
            + [["atos", "-o", dsym, "0x100003f2c"], ["group", "-q", "-d", macho, report], ["check", dsym],
               ["--help"], ["--version"]]
        for arguments in commands {
            let result = try runIntoAClosedPipe(arguments)
            XCTAssertEqual(result.status, .success, "\(CLI.describe(arguments)): \(result.problems)")
            XCTAssertEqual(result.problems, [], CLI.describe(arguments))
        }
    }

    /// Reports written to files with -o need no standard output: a closed one is no error
    /// when nothing is written to it.
    func testOutputFilesNeedNoStandardOutput() throws {
        let macho = try Fixtures.path("macho"), report = try Fixtures.path("reports/App-arm64.crash")
        let root = try makeTemporaryDirectory("output-closed-stdout")
        defer { try? FileManager.default.removeItem(at: root) }
        let output = root.appendingPathComponent("out").path
        let result = try CLI.shell("\"$SYMBOLICATE\" -q -d \(quoted(macho)) -o \(quoted(output)) \(quoted(report)) >&-")
        XCTAssertEqual(result.status, .success, result.stderrText)
        XCTAssertEqual(result.problemLines, [])
        let written = try String(contentsOfFile: output + "/App-arm64.crash", encoding: .utf8)
        XCTAssertEqual(written, try CLI.run(["-q", "-d", macho, report]).stdoutText)
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
        XCTAssertEqual(result.status, .outputFailed, result.summary(arguments))
        XCTAssertEqual(result.problemLines.count, 1, result.summary(arguments))
        XCTAssert(result.stderrText.contains(output.appendingPathComponent("a").path), result.summary(arguments))
        XCTAssert(FileManager.default.fileExists(atPath: output.appendingPathComponent("b/x.crash").path),
                  "the other report is written: \(result.summary(arguments))")
    }
}
