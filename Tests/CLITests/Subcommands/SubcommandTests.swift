import Foundation
import TestSupport
import XCTest

/// The command line as the argument parser routes it: `symbolicate REPORT...` is
/// `symbolicate reports REPORT...`, every subcommand has its help, and report paths also come
/// from a list (`--reports-from FILE` or `-`), so that thousands never depend on argv limits.
final class SubcommandTests: XCTestCase {
    func testTheDefaultSubcommandIsTheReportCommand() throws {
        let macho = try Fixtures.path("macho")
        let report = try Fixtures.path("reports/App-arm64.crash")
        let implicit = try CLI.run(["-d", macho, report])
        let explicit = try CLI.run(["reports", "-d", macho, report])
        XCTAssertEqual(implicit.status, .success, implicit.summary(["-d", macho, report]))
        XCTAssertEqual(explicit.status, .success, explicit.summary(["reports", "-d", macho, report]))
        XCTAssertEqual(implicit.stdout, explicit.stdout)
        XCTAssert(implicit.stdoutText.contains("(parser.c:"), "the report should be resolved: \(implicit.stdoutText)")
    }

    func testEverySubcommandHasItsHelp() throws {
        for (arguments, expected) in [(["--help"], "SUBCOMMANDS"), (["help", "reports"], "--debug-files"),
                                      (["reports", "--help"], "--reports-from"), (["help", "atos"], "--arch"),
                                      (["-d", "x", "--help"], "--debug-files")] {
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, .success, result.summary(arguments))
            XCTAssert(result.stdoutText.contains(expected), "\(CLI.describe(arguments)) should mention \(expected): \(result.stdoutText)")
        }
    }

    func testAnUnknownOptionIsAUsageErrorOfItsSubcommand() throws {
        for arguments in [["--no-such-option", "x.crash"], ["atos", "-o", "x", "--no-such-option"]] {
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, .usage, result.summary(arguments))
            XCTAssert(result.stderrText.contains("no-such-option"), result.summary(arguments))
        }
    }

    /// Paths from a list file and from standard input, one per line or NUL-separated (a name
    /// with a newline in it), after those on the command line, in that order; the output is
    /// the same as with the paths as arguments.
    func testReportsFromAListAreReadInOrder() throws {
        let macho = try Fixtures.path("macho")
        let reports = try Fixtures.reports()
        let folder = try makeTemporaryDirectory("reports-from")
        defer { try? FileManager.default.removeItem(at: folder) }
        let odd = folder.appendingPathComponent("a\nname.crash").path
        try FileManager.default.copyItem(atPath: reports[0], toPath: odd)
        let listed = Array(reports.dropFirst()) + [odd]

        let direct = try CLI.run(["-d", macho, "-j", "2"] + [reports[0]] + listed)
        XCTAssertEqual(direct.status, .success, direct.stderrText)

        let nulList = folder.appendingPathComponent("list0").path
        try Data(listed.map { $0 + "\0" }.joined().utf8).write(to: URL(fileURLWithPath: nulList))
        let fromFile = try CLI.run(["-d", macho, "-j", "2", "--reports-from", nulList, reports[0]])
        XCTAssertEqual(fromFile.status, .success, fromFile.stderrText)
        XCTAssert(fromFile.stdout == direct.stdout, "--reports-from FILE: " + CorpusTests.firstDifference(direct.stdout, fromFile.stdout))

        // One per line, with Windows line ends and blank lines: the name with a newline cannot be in such a list.
        let lines = Array(reports.dropFirst()).map { $0 + "\r\n\n" }.joined()
        let fromStdin = try CLI.run(["-d", macho, "-j", "2", reports[0], "--reports-from", "-"], input: Data(lines.utf8))
        let expected = try CLI.run(["-d", macho, "-j", "2"] + reports)
        XCTAssertEqual(fromStdin.status, .success, fromStdin.stderrText)
        XCTAssert(fromStdin.stdout == expected.stdout, "--reports-from -: " + CorpusTests.firstDifference(expected.stdout, fromStdin.stdout))
    }

    func testAnUnreadableListIsOneLineAndStatusOne() throws {
        let arguments = ["--reports-from", "/nonexistent/list.txt"]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .reportFailed, result.summary(arguments))
        XCTAssertEqual(result.problemLines.count, 1, result.summary(arguments))
        XCTAssert(result.stderrText.contains("/nonexistent/list.txt"), result.summary(arguments))
        XCTAssertEqual(result.stdout.count, 0)

        let both = ["--reports-from", "-", "-"]
        XCTAssertEqual(try CLI.run(both).status, .usage, "a list and a report cannot both come from standard input")
    }

    /// Thousands of paths in a list, more bytes (10 MB) than an argv may hold (2 MB on Linux).
    func testFiveThousandLongListedReports() throws {
        let report = try Fixtures.path("reports/App-arm64.crash")
        let folder = try makeTemporaryDirectory("reports-from-many")
        defer { try? FileManager.default.removeItem(at: folder) }
        // A long path to the same report, through a chain of "./" so every entry is ~2 KB.
        let long = folder.path + String(repeating: "/.", count: 1000) + "/r.crash"
        try FileManager.default.copyItem(atPath: report, toPath: folder.appendingPathComponent("r.crash").path)
        let list = folder.appendingPathComponent("list").path
        try Data(String(repeating: long + "\n", count: 5_000).utf8).write(to: URL(fileURLWithPath: list))
        let arguments = ["-q", "--format", "frames", "--reports-from", list]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        let single = try CLI.run(["--format", "frames", report])
        XCTAssertEqual(result.stdoutText.split(separator: "\n").count, 5_000 * single.stdoutText.split(separator: "\n").count)
    }
}
