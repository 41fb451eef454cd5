import Foundation
import TestSupport
import XCTest

/// `symbolicate -d Fixtures/build/macho REPORT` against llvm-symbolizer, line by line.
///
/// The expected output is built from the input report alone: every line comes back byte for
/// byte, except the frame lines listed in the report's `.expect.tsv`, which become one line per
/// source frame llvm-symbolizer gives at the row's lookup address (inlined ones first, each
/// ending ` [inlined]`), each keeping the input line's bytes up to the address and the blanks
/// after it.
final class TextOutputTests: XCTestCase {
    /// Compares `output` with what `report` should become; returns one message per difference.
    static func differences(output: String, report: FixtureReport, fullPath: Bool = false) -> [String] {
        let out = ReportText(output).lines
        var byLine: [Int: FixtureReport.Resolution] = [:]
        for resolution in report.resolutions.values { byLine[resolution.frameLine.lineIndex] = resolution }
        var failures: [String] = []
        var cursor = 0
        for (i, line) in report.text.lines.enumerated() {
            if let resolution = byLine[i], !resolution.oracle.isEmpty {
                let terminator = line.hasSuffix("\r\n") ? "\r\n" : line.hasSuffix("\n") ? "\n" : ""
                let prefix = resolution.frameLine.prefix
                let expected = resolution.oracle.enumerated().map { k, frame in
                    FixtureReport.renderedFrame(frame, offset: resolution.offset(of: frame),
                                                inlined: k < resolution.oracle.count - 1, fullPath: fullPath,
                                                prefix: prefix, terminator: terminator)
                }
                // The output lines of this frame: those with its prefix, up to the first that is
                // not an inlined frame.
                var got: [String] = []
                while cursor < out.count, out[cursor].hasPrefix(prefix) {
                    got.append(out[cursor])
                    cursor += 1
                    if !out[cursor - 1].trimmingCharacters(in: .newlines).hasSuffix(" [inlined]") { break }
                }
                if got.count != expected.count || !zip(expected, got).allSatisfy({ $0.matches($1) }) {
                    failures.append("""
                        \(resolution.label), input line \(i + 1):
                          llvm-symbolizer: \(resolution.oracle)
                          expected lines:
                        \(expected.map { "    \($0)" }.joined(separator: "\n"))
                          output lines:
                        \(got.isEmpty ? "    (none with the prefix \"\(prefix)\")" : got.map { "    " + $0.trimmingCharacters(in: .newlines) }.joined(separator: "\n"))
                        """)
                    if got.isEmpty, cursor < out.count { cursor += 1 }
                }
            } else {
                if cursor < out.count, out[cursor] == line {
                    cursor += 1
                } else {
                    let actual = cursor < out.count ? out[cursor].debugDescription : "(end of output)"
                    let what = byLine[i] != nil ? "a frame llvm-symbolizer cannot resolve" : "a line without debug file"
                    failures.append("input line \(i + 1) (\(what)) should come back byte for byte:\n  input:  \(line.debugDescription)\n  output: \(actual)")
                    cursor += 1
                }
            }
            if failures.count >= 25 {
                failures.append("(stopping after 25 differences)")
                return failures
            }
        }
        if cursor < out.count {
            failures.append("\(out.count - cursor) extra output lines at the end, from: \(out[cursor].debugDescription)")
        }
        return failures
    }

    func testEachFixtureReportMatchesLLVMSymbolizer() throws {
        let macho = try Fixtures.path("macho")
        let reports = try Fixtures.reports()
        XCTAssertFalse(reports.isEmpty, "no reports in Fixtures/build/reports")
        for path in reports {
            let report = try FixtureReport.load(path)
            XCTAssertFalse(report.rows.isEmpty, "\(Fixtures.expectFile(for: path)) has no rows")
            for resolution in report.resolutions.values where resolution.oracle.isEmpty {
                XCTFail("fixture problem: llvm-symbolizer resolves nothing for \(resolution.label) of \(path)")
            }
            let arguments = ["-d", macho, "--no-demangle", path]
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, .success, result.summary(arguments))
            XCTAssertEqual(result.stderrText, "", "no warnings expected: \(CLI.describe(arguments))")
            let failures = Self.differences(output: result.stdoutText, report: report)
            XCTAssert(failures.isEmpty, "\(CLI.describe(arguments)):\n" + failures.joined(separator: "\n"))

            // Frames of images that have no debug file (UIKitCore, libsystem_*, ...) are untouched.
            let outputLines = Set(ReportText(result.stdoutText).lines)
            let systemFrames = report.text.threads.flatMap(\.frames).filter { frame in
                !report.resolutions.values.contains { $0.frameLine.lineIndex == frame.lineIndex }
            }
            XCTAssertFalse(systemFrames.isEmpty, "\(path): expected frames of system images")
            for frame in systemFrames {
                XCTAssert(outputLines.contains(report.text.lines[frame.lineIndex]),
                          "\(path): the frame line of \(frame.image) should be unchanged: \(report.text.lines[frame.lineIndex].debugDescription)")
            }
        }
    }

    func testFullPathPrintsTheRecordedSourcePaths() throws {
        let macho = try Fixtures.path("macho")
        let path = try Fixtures.path("reports/App-arm64.crash")
        let report = try FixtureReport.load(path)
        let arguments = ["-d", macho, "--no-demangle", "--full-path", path]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        let failures = Self.differences(output: result.stdoutText, report: report, fullPath: true)
        XCTAssert(failures.isEmpty, "\(CLI.describe(arguments)):\n" + failures.joined(separator: "\n"))
    }

    func testDebugFilesNamedOneByOneWorkLikeADirectory() throws {
        let path = try Fixtures.path("reports/App-arm64.crash")
        let report = try FixtureReport.load(path)
        // A dSYM bundle and a file inside another bundle.
        let arguments = ["-d", try Fixtures.path("macho/App-arm64.dSYM"),
                         "-d", try Fixtures.path("macho/libGreeter.dylib.dSYM/Contents/Resources/DWARF/libGreeter.dylib"),
                         "--no-demangle", path]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        XCTAssertEqual(result.stderrText, "", "both debug files match an image: \(CLI.describe(arguments))")
        let failures = Self.differences(output: result.stdoutText, report: report)
        XCTAssert(failures.isEmpty, "\(CLI.describe(arguments)):\n" + failures.joined(separator: "\n"))
    }

    func testSeveralReportsAreEachPrecededByAHeader() throws {
        let macho = try Fixtures.path("macho")
        let reports = try Fixtures.reports()
        var expected = ""
        for (k, path) in reports.enumerated() {
            let single = try CLI.run(["-d", macho, "--no-demangle", path])
            XCTAssertEqual(single.status, .success, single.summary(["-d", macho, "--no-demangle", path]))
            expected += (k > 0 ? "\n" : "") + "==> \(path) <==\n" + single.stdoutText
        }
        let arguments = ["-d", macho, "--no-demangle"] + reports
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        XCTAssertEqual(result.stdoutText, expected,
                       "each report, preceded by `==> path <==` (and a blank line between reports), as each alone")
    }

    func testStandardInputGivesTheSameOutputAsThePath() throws {
        let macho = try Fixtures.path("macho")
        for path in try Fixtures.reports() {
            let byPath = try CLI.run(["-d", macho, "--no-demangle", path])
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let piped = try CLI.run(["-d", macho, "--no-demangle"], input: bytes)
            XCTAssertEqual(piped.status, .success, piped.summary(["-d", macho, "--no-demangle", "<", path]))
            XCTAssertEqual(piped.stdoutText, byPath.stdoutText, "symbolicate -d macho < \(path) differs from naming the file")
            let dash = try CLI.run(["-d", macho, "--no-demangle", "-"], input: bytes)
            XCTAssertEqual(dash.status, .success, dash.summary(["-d", macho, "--no-demangle", "-", "<", path]))
            XCTAssertEqual(dash.stdoutText, byPath.stdoutText, "symbolicate -d macho - < \(path) differs from naming the file")
        }
    }

    func testADirectoryOfReportsIsReadLikeTheReportsInIt() throws {
        let macho = try Fixtures.path("macho")
        let directory = try Fixtures.path("reports")
        let reports = try Fixtures.reports()
        let byName = try CLI.run(["-d", macho, "--no-demangle"] + reports)
        let arguments = ["-d", macho, "--no-demangle", directory]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        // The headers name the files; compare the reports themselves.
        func bodies(_ text: String) -> [String] {
            text.components(separatedBy: "\n").filter { !($0.hasPrefix("==> ") && $0.hasSuffix(" <==")) }
        }
        XCTAssertEqual(bodies(result.stdoutText), bodies(byName.stdoutText),
                       "a directory of *.crash files should give what naming them does (\(CLI.describe(arguments)))")
    }
}
