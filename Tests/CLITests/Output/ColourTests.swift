import Foundation
import TestSupport
import XCTest

/// `--color` and `NO_COLOR` end to end: the program run on a pseudo-terminal (`script`) marks
/// the lines of the frames resolved in the app's images in bold, and the summary's problems in
/// red; into a pipe or a file, with `--color never`, `NO_COLOR` or `TERM=dumb`, it writes no
/// escape sequence. With the marks taken out, the output is the plain output byte for byte.
final class ColourTests: XCTestCase {
    static let bold = "\u{1B}[1m", red = "\u{1B}[31m", reset = "\u{1B}[0m"

    static func unmarked(_ text: String) -> String {
        text.replacingOccurrences(of: bold, with: "").replacingOccurrences(of: red, with: "")
            .replacingOccurrences(of: reset, with: "")
    }

    /// Lines split on bytes, without their terminators ("\r\n" is one Character to String).
    static func lines(_ text: String) -> [String] {
        Array(text.utf8).split(separator: 0x0A, omittingEmptySubsequences: false).map {
            String(decoding: $0.last == 0x0D ? $0.dropLast() : $0, as: UTF8.self)
        }
    }

    static func quoted(_ argument: String) -> String {
        "'" + argument.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// `symbolicate ARGUMENTS` on a pseudo-terminal; `redirect` sends stdout or stderr
    /// elsewhere (`2>/dev/null`), `environment` is set for it (TERM=xterm and no NO_COLOR
    /// unless it says otherwise). The terminal's output, its "\r\n" made "\n".
    func onTerminal(_ arguments: [String], redirect: String, environment: [String: String] = [:]) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            throw XCTSkip("script (bsdutils) is not installed: no pseudo-terminal to run the program on")
        }
        var settings = ["TERM": "xterm"]
        settings.merge(environment) { $1 }
        let assignments = settings.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.quoted($0.value))" }
        let command = (["exec", "env"] + (environment["NO_COLOR"] == nil ? ["-u", "NO_COLOR"] : []) + assignments
            + ["\"$SYMBOLICATE\""] + arguments.map(Self.quoted)).joined(separator: " ") + " " + redirect
        let result = try CLI.shell("script -qec \(Self.quoted(command)) /dev/null < /dev/null")
        XCTAssertEqual(result.status, .success, result.stderrText)
        return Self.lines(result.stdoutText).joined(separator: "\n")
    }

    /// The example with libGreeter.dylib moved to a system folder: its frames still resolve
    /// (by UUID), but they are the system's, not the app's.
    func exampleWithASystemLibrary() throws -> (report: String, cleanup: () -> Void) {
        let dir = try makeTemporaryDirectory("colour")
        let original = try String(contentsOfFile: Fixtures.path("reports/App-arm64.crash"), encoding: .utf8)
        let moved = original.replacingOccurrences(
            of: #"/private/var/containers/Bundle/Application/[0-9A-F-]+/App.app/Frameworks/libGreeter.dylib"#,
            with: "/usr/lib/libGreeter.dylib", options: .regularExpression)
        XCTAssertNotEqual(moved, original)
        let report = dir.appendingPathComponent("App-arm64.crash")
        try moved.write(to: report, atomically: true, encoding: .utf8)
        return (report.path, { try? FileManager.default.removeItem(at: dir) })
    }

    func testTheAppsResolvedFramesAreBoldOnATerminal() throws {
        let (report, cleanup) = try exampleWithASystemLibrary()
        defer { cleanup() }
        let arguments = ["-d", try Fixtures.path("macho"), report]
        let terminal = try onTerminal(arguments, redirect: "2>/dev/null")
        let plain = try CLI.run(arguments)
        XCTAssertEqual(plain.status, .success, plain.stderrText)
        XCTAssertFalse(plain.stdoutText.contains("\u{1B}"), "no escape sequence into a pipe")
        XCTAssertEqual(Self.unmarked(terminal), Self.lines(plain.stdoutText).joined(separator: "\n"),
                       "the marks are all a terminal gets more")

        // The oracle: a resolved line is one the report does not have; its image is its second
        // column; App is the app's (its path is in App.app), libGreeter.dylib now the system's.
        let input = Set(Self.lines(try String(contentsOfFile: report, encoding: .utf8)))
        var counts: [String: (marked: Int, unmarked: Int)] = [:]
        for line in Self.lines(terminal) {
            let text = Self.unmarked(line)
            let isMarked = line.hasPrefix(Self.bold) && line.hasSuffix(Self.reset)
            XCTAssertTrue(isMarked || !line.contains("\u{1B}"), "a mark that is not a whole line's: \(line)")
            guard !input.contains(text) else {
                XCTAssertFalse(isMarked, "a line as the report has it is marked: \(line)")
                continue
            }
            let image = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.map(String.init) ?? ""
            XCTAssertEqual(isMarked, image == "App", "\(image): \(line)")
            counts[image, default: (0, 0)].marked += isMarked ? 1 : 0
            counts[image, default: (0, 0)].unmarked += isMarked ? 0 : 1
        }
        XCTAssertGreaterThan(counts["App"]?.marked ?? 0, 0, "no App frame was resolved and marked")
        XCTAssertGreaterThan(counts["libGreeter.dylib"]?.unmarked ?? 0, 0, "no system frame was resolved (and left unmarked)")
        print("ColourTests: \(counts["App"]?.marked ?? 0) App lines marked, \(counts["libGreeter.dylib"]?.unmarked ?? 0) libGreeter lines not")
    }

    /// Two reports without debug files: the summary on a terminal shows the unresolved count and
    /// the app images without a debug file in red, and is otherwise the summary of a pipe.
    func testTheSummarysProblemsAreRedOnATerminal() throws {
        // --color between the reports: its value is not taken for a report.
        let reports = [try Fixtures.path("reports/App-arm64.crash"), "--color", "auto", try Fixtures.path("reports/App-x86_64.crash")]
        let terminal = try onTerminal(reports, redirect: ">/dev/null")
        let plain = try CLI.run(reports)
        XCTAssertEqual(plain.status, .success, plain.stderrText)
        XCTAssertFalse(plain.stderrText.contains("\u{1B}"), "no escape sequence on stderr that is not a terminal")
        // The warnings come as the reports are done, in any order; the summary last, in order.
        let plainLines = Self.lines(plain.stderrText).filter { !$0.isEmpty }
        let terminalLines = Self.lines(Self.unmarked(terminal)).filter { !$0.isEmpty }
        XCTAssertEqual(terminalLines.sorted(), plainLines.sorted())
        XCTAssertEqual(terminalLines.filter(ProcessResult.isSummaryLine), plainLines.filter(ProcessResult.isSummaryLine))

        let summary = Self.lines(terminal).filter { ProcessResult.isSummaryLine(Self.unmarked($0)) }
        XCTAssertGreaterThan(summary.count, 2, terminal)
        let counts = try XCTUnwrap(summary.first)
        XCTAssertTrue(counts.range(of: #"resolved, \#u{1B}\[31m[1-9][0-9]* unresolved\#u{1B}\[0m$"#, options: .regularExpression) != nil,
                      "the unresolved count in red: \(counts)")
        for line in summary.dropFirst() {
            XCTAssertTrue(line.hasPrefix("symbolicate: " + Self.red) && line.hasSuffix(Self.reset), "not red: \(line)")
        }
        for line in Self.lines(terminal) where !ProcessResult.isSummaryLine(Self.unmarked(line)) {
            XCTAssertFalse(line.contains("\u{1B}"), "a warning is marked: \(line)")
        }
    }

    func testNoMarksInPipesFilesOrWhenTurnedOff() throws {
        let example = ["-d", try Fixtures.path("macho"), try Fixtures.path("reports/App-arm64.crash")]
        let plain = try CLI.run(example)
        let expected = Self.lines(plain.stdoutText).joined(separator: "\n")
        XCTAssertTrue(plain.stdoutText.contains(" (parser.c:"))
        for (label, arguments, environment) in [
            ("--color never", ["--color", "never"], [:]),
            ("--color=never", ["--color=never"], [:]),
            ("NO_COLOR=1", [], ["NO_COLOR": "1"]),
            ("TERM=dumb", [], ["TERM": "dumb"]),
        ] as [(String, [String], [String: String])] {
            let terminal = try onTerminal(arguments + example, redirect: "2>/dev/null", environment: environment)
            XCTAssertFalse(terminal.contains("\u{1B}"), "\(label): marked on a terminal")
            XCTAssertEqual(terminal, expected, label)
        }
        let empty = try onTerminal(example, redirect: "2>/dev/null", environment: ["NO_COLOR": ""])
        XCTAssertTrue(empty.contains(Self.bold), "an empty NO_COLOR is as if unset")

        // --color always: into a pipe too, over NO_COLOR (an option wins over the environment).
        var environment = CLI.environment
        environment["NO_COLOR"] = "1"
        let always = try runProcess(try CLI.binary(), ["--color", "always"] + example, environment: environment)
        XCTAssertTrue(always.stdoutText.contains(Self.bold))
        XCTAssertEqual(Self.lines(Self.unmarked(always.stdoutText)).joined(separator: "\n"), expected)

        // Never into files, nor in JSON or frame lines.
        let dir = try makeTemporaryDirectory("colour-files")
        defer { try? FileManager.default.removeItem(at: dir) }
        let written = try CLI.run(["--color", "always", "-o", dir.path] + example)
        XCTAssertEqual(written.status, .success, written.stderrText)
        let file = try String(contentsOf: dir.appendingPathComponent("App-arm64.crash"), encoding: .utf8)
        XCTAssertEqual(file, plain.stdoutText, "a file written with -o is never marked")
        for format in ["json", "frames", "ips"] {
            let marked = try CLI.run(["--color", "always", "--format", format] + example)
            let unmarked = try CLI.run(["--format", format] + example)
            XCTAssertEqual(marked.stdout, unmarked.stdout, "--format \(format) is never marked")
        }
    }

    /// A glibc backtrace of a program built here: the program's resolved lines are marked, libc's
    /// (resolved from libc6-dbg where installed) are not.
    func testLinuxLogFramesOfTheProgramAreMarked() throws {
        let compilers = try LinuxToolchain.compilers()
        let dir = try makeTemporaryDirectory("colour-linux")
        defer { try? FileManager.default.removeItem(at: dir) }
        let binary = dir.appendingPathComponent("backtrace-\(compilers[0].name)").path
        try LinuxToolchain.compile(compilers[0].c, compilers[0].linkerFlags, sources: ["backtrace_main.c", "inventory.c"],
                                   output: binary)
        let log = dir.appendingPathComponent("crash.log")
        try LinuxToolchain.crashLog(binary, ["segv"], label: "glibc").write(to: log, atomically: true, encoding: .utf8)
        let arguments = ["-d", binary, log.path]
        let marked = try CLI.run(["--color", "always"] + arguments)
        let plain = try CLI.run(arguments)
        XCTAssertEqual(Self.unmarked(marked.stdoutText), plain.stdoutText)
        let input = Set(Self.lines(try String(contentsOf: log, encoding: .utf8)))
        var programLines = 0
        for line in Self.lines(marked.stdoutText) {
            let text = Self.unmarked(line)
            let isMarked = line.hasPrefix(Self.bold) && line.hasSuffix(Self.reset)
            let resolvedInProgram = !input.contains(text) && text.hasPrefix(binary)
            XCTAssertEqual(isMarked, resolvedInProgram, line)
            programLines += resolvedInProgram ? 1 : 0
        }
        XCTAssertGreaterThan(programLines, 0, "no frame of the program was resolved:\n\(plain.stdoutText)")
    }
}
