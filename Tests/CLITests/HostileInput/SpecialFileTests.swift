import Foundation
import TestSupport
import XCTest

/// Files that are not regular — FIFOs, devices, /proc — and folders that loop: none blocks or
/// exhausts a run. Every run here is under `timeout`: a tool that blocks fails with 124.
final class SpecialFileTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try makeTemporaryDirectory("special-files")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
    private func quoted(_ path: String) -> String { "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    private func expectedOutput(_ report: String, _ macho: String) throws -> String {
        let result = try CLI.run(["-q", "-d", macho, report])
        XCTAssertEqual(result.status, .success, result.summary(["-q", "-d", macho, report]))
        return result.stdoutText
    }

    /// A FIFO named with -d, met in a -d folder, or named like a report in a folder of
    /// reports is never opened: the run ends, and a FIFO named says what it is.
    func testAFIFOBlocksNothing() throws {
        let macho = try Fixtures.path("macho"), report = try Fixtures.path("reports/App-arm64.crash")
        try FileManager.default.createDirectory(atPath: path("debug"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: path("reports"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: report, toPath: path("reports/a.crash"))
        XCTAssertEqual(mkfifo(path("fifo"), 0o600), 0)
        XCTAssertEqual(mkfifo(path("debug/App.dSYM"), 0o600), 0)
        XCTAssertEqual(mkfifo(path("debug/App"), 0o600), 0)
        XCTAssertEqual(mkfifo(path("reports/b.crash"), 0o600), 0)
        let expected = try expectedOutput(report, macho)

        var result = try CLI.shell("\"$SYMBOLICATE\" -q -d \(quoted(path("fifo"))) -d \(quoted(macho)) \(quoted(report))", timeout: 120)
        XCTAssertEqual(result.status, .unusableDebugPath, result.stderrText)
        XCTAssertEqual(result.problemLines, ["symbolicate: \(path("fifo")): a FIFO, not a debug file: passed over"])
        XCTAssertEqual(result.stdoutText, expected)

        result = try CLI.shell("\"$SYMBOLICATE\" -q -d \(quoted(path("debug"))) -d \(quoted(macho)) \(quoted(report))", timeout: 120)
        XCTAssertEqual(result.status, .success, result.stderrText)
        XCTAssertEqual(result.stdoutText, expected)

        result = try CLI.shell("\"$SYMBOLICATE\" -q -d \(quoted(macho)) \(quoted(path("reports")))", timeout: 120)
        XCTAssertEqual(result.status, .success, result.stderrText)
        XCTAssertEqual(result.stdoutText, expected, "the FIFO is passed over: one report, without a header")

        result = try CLI.shell("\"$SYMBOLICATE\" atos -o \(quoted(path("fifo"))) 0x1000", timeout: 120)
        XCTAssertEqual(result.status, .reportFailed, result.stderrText)
        XCTAssertEqual(result.stderrLines, ["symbolicate: \(path("fifo")): a FIFO, not a Mach-O or ELF file"])
    }

    /// A report named on the command line may be a pipe: `symbolicate <(cat x.crash)`.
    func testAPipeNamedAsAReportIsRead() throws {
        let macho = try Fixtures.path("macho"), report = try Fixtures.path("reports/App-arm64.crash")
        let result = try CLI.shell("\"$SYMBOLICATE\" -q -d \(quoted(macho)) <(cat \(quoted(report)))", timeout: 120)
        XCTAssertEqual(result.status, .success, result.stderrText)
        XCTAssertEqual(result.stdoutText, try expectedOutput(report, macho))
    }

    /// An endless stream of text, or a file over the limit, is read to the limit only: one
    /// line, exit 1. (An endless stream that is no text, such as /dev/zero, is refused from
    /// its first block: BinaryInputTests.)
    func testAReportIsReadUpToTheLimit() throws {
        var result = try CLI.shell("yes 'Thread 0:' | \"$SYMBOLICATE\" -q --max-report-size 1M -", timeout: 120)
        XCTAssertEqual(result.status, .reportFailed, result.stderrText)
        XCTAssertEqual(result.stderrLines, ["symbolicate: <stdin>: cannot read: larger than the limit of 1 MiB"])

        let report = try Fixtures.path("reports/App-arm64.crash")
        result = try CLI.shell("yes | \"$SYMBOLICATE\" -q --max-report-size 1K \(quoted(report)) -", timeout: 120)
        XCTAssertEqual(result.status, .reportFailed, result.stderrText)
        XCTAssertEqual(result.problemLines, ["symbolicate: \(report): cannot read: larger than the limit of 1 KiB",
                                             "symbolicate: <stdin>: cannot read: larger than the limit of 1 KiB"])

        result = try CLI.shell("\"$SYMBOLICATE\" -q --max-report-size 0 \(quoted(report))")
        XCTAssertEqual(result.status, .usage, result.stderrText)
    }

    /// A Linux log names the modules of its frames, and the tool looks at those files: never
    /// at the kernel's (/proc/self/exe would be the tool itself, /proc/self/mem its memory).
    func testAModulePathInProcIsNotRead() throws {
        for module in ["/proc/self/exe", "/proc/self/mem", "/dev/zero"] {
            // The offset of the tool's own `main`: were /proc/self/exe read, the frame would
            // resolve to it.
            let script = """
                main=$(nm "$SYMBOLICATE" | sed -n 's/^\\([0-9a-f]*\\) T main$/\\1/p' | head -1)
                printf '==1==ERROR: AddressSanitizer: SEGV on unknown address\\n    #0 0x55d0c0a01234  (\(module)+0x%x)\\n' \
                    $((0x$main + 4)) > '\(path("asan.log"))'
                cat '\(path("asan.log"))'; echo ---
                "$SYMBOLICATE" -q '\(path("asan.log"))'
                """
            let result = try CLI.shell(script, timeout: 120)
            XCTAssertEqual(result.status, .success, result.stderrText)
            let parts = result.stdoutText.components(separatedBy: "---\n")
            XCTAssertEqual(parts.count, 2, result.stdoutText)
            XCTAssert(parts[0].contains("\(module)+0x"), parts[0])
            XCTAssertEqual(parts.last, parts.first, "\(module): the frame is left as it is")
        }
    }

    /// Folders that link back into themselves: the walk enters each folder once and ends.
    func testALinkCycleEndsTheWalk() throws {
        let macho = try Fixtures.path("macho"), report = try Fixtures.path("reports/App-arm64.crash")
        let dwarf = path("debug/App.dSYM/Contents/Resources/DWARF")
        try FileManager.default.createDirectory(atPath: dwarf, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: macho + "/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64",
                                         toPath: dwarf + "/App")
        try FileManager.default.createSymbolicLink(atPath: path("debug/Loop.dSYM"), withDestinationPath: ".")
        // Three ways back at every level: a walk that follows them has 3^n paths to go.
        for name in ["Back", "Again", "More"] {
            try FileManager.default.createSymbolicLink(atPath: dwarf + "/\(name).dSYM", withDestinationPath: path("debug"))
        }
        try FileManager.default.createSymbolicLink(atPath: path("debug/Contents"), withDestinationPath: path("debug/App.dSYM/Contents"))
        let result = try CLI.shell("\"$SYMBOLICATE\" -q -d \(quoted(path("debug"))) \(quoted(report))", timeout: 120)
        XCTAssertEqual(result.status, .success, result.stderrText)
        XCTAssertEqual(result.stdoutText, try expectedOutput(report, macho + "/App-arm64.dSYM"))
    }

    /// Errors say what is true: a link loop, a missing file, a directory.
    func testErrorsSayWhatIsWrong() throws {
        let report = try Fixtures.path("reports/App-arm64.crash")
        try FileManager.default.createSymbolicLink(atPath: path("loop"), withDestinationPath: "loop")
        var result = try CLI.run(["-q", "-d", path("loop"), "-d", path("missing"), report])
        XCTAssertEqual(result.status, .unusableDebugPath, "debug paths that give nothing are said, and the exit status tells: \(result.stderrText)")
        XCTAssertEqual(result.problemLines, [
            "symbolicate: \(path("loop")): a symbolic link loop (too many levels of symbolic links)",
            "symbolicate: \(path("missing")): no such file or directory",
        ])
        result = try CLI.run(["-q", path("loop"), path("missing")])
        XCTAssertEqual(result.status, .reportFailed, result.stderrText)
        XCTAssertEqual(result.problemLines.sorted(), [
            "symbolicate: \(path("loop")): cannot read: a symbolic link loop (too many levels of symbolic links)",
            "symbolicate: \(path("missing")): cannot read: no such file or directory",
        ])
        result = try CLI.run(["atos", "-o", root.path, "0x1000"])
        XCTAssertEqual(result.status, .reportFailed, result.stderrText)
        XCTAssertEqual(result.stderrLines, ["symbolicate: \(root.path): a directory, not a Mach-O or ELF file"])
    }

    /// Counts are range-checked: a huge -j is a usage error, not an overflow trap.
    func testHugeCountsAreRefused() throws {
        let report = try Fixtures.path("reports/App-arm64.crash")
        for jobs in ["9223372036854775807", "100000", "-1", "99999999999999999999999"] {
            let result = try CLI.run(["-q", "-j", jobs, report])
            XCTAssertEqual(result.status, .usage, "-j \(jobs): \(result.stderrText)")
        }
    }
}
