import Foundation
import TestSupport
import XCTest

/// Errors and warnings: one line on stderr naming the file and the reason; exit 0 when every
/// report was written, 1 when one could not be read, 64 for a wrong command line.
final class ErrorTests: XCTestCase {
    private var temporary: [URL] = []

    override func tearDownWithError() throws {
        for url in temporary { try? FileManager.default.removeItem(at: url) }
        temporary = []
    }

    private func temporaryDirectory(_ label: String) throws -> URL {
        let url = try makeTemporaryDirectory(label)
        temporary.append(url)
        return url
    }

    private func single(_ path: String, _ macho: String) throws -> String {
        let result = try CLI.run(["-d", macho, "--no-demangle", path])
        XCTAssertEqual(result.status, .success, result.summary(["-d", macho, "--no-demangle", path]))
        return result.stdoutText
    }

    func testAMissingReportFailsButTheOthersAreWritten() throws {
        let macho = try Fixtures.path("macho")
        let reports = try Fixtures.reports()
        let missing = try temporaryDirectory("missing").appendingPathComponent("gone.crash").path
        let arguments = ["-d", macho, "--no-demangle", reports[0], missing, reports[1]]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .reportFailed, result.summary(arguments))
        XCTAssertEqual(result.problemLines.count, 1, "one line on stderr: \(result.summary(arguments))")
        XCTAssert(result.stderrText.contains(missing), "the message should name \(missing): \(result.stderrText)")
        let out = result.stdoutText
        for path in [reports[0], reports[1]] {
            let block = "==> \(path) <==\n" + (try single(path, macho))
            XCTAssert(out.contains(block), "\(path) should still be written, after its header: \(result.summary(arguments))")
        }
        XCTAssertFalse(out.contains("==> \(missing) <=="), "no header for a report that could not be read")
    }

    func testAMissingFirstReportLeavesNoBlankLineBeforeTheFirstHeader() throws {
        // As head(1) does: the blank line separates a report from the one before; there is none.
        let macho = try Fixtures.path("macho")
        let report = try Fixtures.path("reports/App-arm64.crash")
        let missing = try temporaryDirectory("missing-first").appendingPathComponent("gone.crash").path
        let arguments = ["-d", macho, "--no-demangle", missing, report]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .reportFailed, result.summary(arguments))
        let out = result.stdoutText
        XCTAssert(out.hasPrefix("==> "),
                  "the output should start with the header of the first report written, not a blank line; "
                  + "it starts with \(String(out.prefix(40)).debugDescription)")
        let body = out.hasPrefix("\n") ? String(out.dropFirst()) : out
        XCTAssert(body == "==> \(report) <==\n" + (try single(report, macho)),
                  "after its header, the report as when named alone: \(CLI.describe(arguments))")
    }

    /// A binary file is not a report: one line says so, naming it, and none of its bytes is
    /// written (they are no text to give back); the text report after it still is.
    func testABinaryFileIsNotAReport() throws {
        let binary = try Fixtures.path("macho/App-arm64")
        let report = try Fixtures.path("reports/App-arm64.crash")
        var arguments = [binary]
        var result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .reportFailed, result.summary(arguments))
        XCTAssertEqual(result.stdout, Data(), "nothing of the binary is written")
        XCTAssertEqual(result.stderrLines, ["symbolicate: \(binary): cannot read: binary data, not a text report (a Mach-O file)"])

        arguments = [binary, report]
        result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .reportFailed, result.summary(arguments))
        XCTAssert(result.stdoutText.contains("==> \(report) <==\n" + (try String(contentsOfFile: report, encoding: .utf8))),
                  "the text report is still written: \(result.summary(arguments))")

        let empty = try temporaryDirectory("empty").appendingPathComponent("empty.crash")
        try Data().write(to: empty)
        arguments = [empty.path]
        result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .reportFailed, "an empty report: \(result.summary(arguments))")
        XCTAssert(result.stderrText.contains(empty.path), "the message should name the file: \(result.stderrText)")
    }

    /// A debug path named that gives nothing is said once, the report is still written, and the
    /// exit status (2) tells a script so.
    func testAMissingDebugPathIsSaidAndFailsTheRun() throws {
        let report = try Fixtures.path("reports/App-arm64.crash")
        let missing = try temporaryDirectory("missing-d").appendingPathComponent("nothing.dSYM").path
        let arguments = ["-d", missing, report]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .unusableDebugPath, result.summary(arguments))
        XCTAssertEqual(result.problemLines.count, 1, "one warning line: \(result.summary(arguments))")
        XCTAssert(result.stderrText.contains(missing), "the warning should name \(missing): \(result.stderrText)")
        XCTAssertEqual(result.stdoutText, try String(contentsOfFile: report, encoding: .utf8),
                       "with no debug file, the report comes back as it was")
    }

    func testADebugPathThatIsNotAnObjectFileIsSaidAndFailsTheRun() throws {
        let report = try Fixtures.path("reports/App-arm64.crash")
        let text = try Fixtures.path("manifest.txt")
        let macho = try Fixtures.path("macho")
        let arguments = ["-d", text, "-d", macho, "--no-demangle", report]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .unusableDebugPath, result.summary(arguments))
        XCTAssertEqual(result.problemLines.count, 1, "one warning line: \(result.summary(arguments))")
        XCTAssert(result.stderrText.contains(text), "the warning should name \(text): \(result.stderrText)")
        XCTAssertEqual(result.stdoutText, try single(report, macho), "the other debug files are still used")
    }

    func testADebugFileMatchingNoImageIsAWarning() throws {
        let report = try Fixtures.path("reports/App-arm64.crash")
        let bundle = try Fixtures.path("macho/App-x86_64.dSYM")
        guard let entry = try Fixtures.manifest().first(where: { $0.path.hasPrefix("macho/App-x86_64.dSYM/") }) else {
            throw FixtureError("manifest.txt: no App-x86_64.dSYM")
        }
        let arguments = ["-d", bundle, report]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        XCTAssertEqual(result.problemLines.count, 1, "one warning line: \(result.summary(arguments))")
        XCTAssert(result.stderrText.contains("App-x86_64"), "the warning should name the file: \(result.stderrText)")
        XCTAssert(compactUUID(result.stderrText).contains(entry.compactIdentifier),
                  "the warning should give the file's UUID \(entry.identifier): \(result.stderrText)")
        XCTAssertEqual(result.stdoutText, try String(contentsOfFile: report, encoding: .utf8),
                       "nothing matches: the report comes back as it was")
    }

    func testACorruptDSYMIsAWarningNotACrash() throws {
        let report = try Fixtures.path("reports/App-arm64.crash")
        let copy = try temporaryDirectory("corrupt").appendingPathComponent("App-arm64.dSYM")
        try FileManager.default.copyItem(atPath: try Fixtures.path("macho/App-arm64.dSYM"), toPath: copy.path)
        let dwarf = copy.appendingPathComponent("Contents/Resources/DWARF/App-arm64")
        var bytes = [UInt8](try Data(contentsOf: dwarf))
        guard let section = MachOSections.find("__debug_info", in: bytes), section.size > 256 else {
            throw FixtureError("no __debug_info section in \(dwarf.path)")
        }
        // 64 bytes of 0xff in the middle of __debug_info: a run of bad LEB128s and abbreviation codes.
        let middle = section.offset + section.size / 2
        for k in (middle - 32)..<(middle + 32) { bytes[k] = 0xFF }
        try Data(bytes).write(to: dwarf)

        let arguments = ["-d", copy.path, "--no-demangle", report]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        XCTAssertGreaterThanOrEqual(result.problemLines.count, 1, "a warning expected: \(result.summary(arguments))")
        XCTAssert(result.problemLines.allSatisfy { $0.contains(dwarf.path) || $0.contains(copy.path) },
                  "each warning should name the corrupt file: \(result.stderrText)")
        // Every line is either an input line as it was or a frame line of App, resolved
        // (perhaps partly) after the original prefix; no report line is lost.
        let input = ReportText(try String(contentsOfFile: report, encoding: .utf8))
        let inputLines = Set(input.lines)
        let prefixes = input.threads.flatMap(\.frames).filter { $0.image == "App" }.map(\.prefix)
        let output = ReportText(result.stdoutText).lines
        for line in output where !inputLines.contains(line) {
            XCTAssert(prefixes.contains { line.hasPrefix($0) }, "an output line that is neither input nor a resolved App frame: \(line.debugDescription)")
        }
        let nonFrames = input.lines.enumerated().filter { index, _ in
            !input.threads.flatMap(\.frames).contains { $0.lineIndex == index && $0.image == "App" }
        }.map(\.element)
        XCTAssertEqual(output.filter { inputLines.contains($0) && !prefixes.contains(where: $0.hasPrefix) }.count,
                       nonFrames.count, "every line that is not an App frame comes back")
    }

    func testUnknownFormatIsAUsageError() throws {
        let report = try Fixtures.path("reports/App-arm64.crash")
        for arguments in [["--format", "nonsense", report], ["--no-such-option", report], ["-d"]] {
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, .usage, result.summary(arguments))
            XCTAssertEqual(result.stdoutText, "", "nothing on stdout for a usage error: \(CLI.describe(arguments))")
            XCTAssertFalse(result.stderrText.isEmpty, "a message on stderr for \(CLI.describe(arguments))")
        }
    }

    /// Report paths may come before, between and after options, with values attached or
    /// not (`--format=frames`, `-j2`, `-dDIR`), and after `--`: the run is the same as with every option first. (Paths after the
    /// first are set aside before the argument parser, which is slow on thousands of them.)
    func testReportsAndOptionsInAnyOrder() throws {
        let macho = try Fixtures.path("macho")
        let reports = try Fixtures.reports()
        XCTAssertGreaterThanOrEqual(reports.count, 3)
        let (a, b, c) = (reports[0], reports[1], reports[2])
        let reference = try CLI.run(["-d", macho, "--format", "frames", "-q", "-j", "2", a, b, c])
        XCTAssertEqual(reference.status, .success, reference.summary(["-d", macho, "--format", "frames", a, b, c]))
        for path in [a, b, c] { XCTAssert(reference.stdoutText.contains(path + "\t"), "frames of \(path)") }
        for arguments in [
            [a, "-d", macho, b, "--format", "frames", "-q", c, "-j", "2"],
            [a, "--debug-files=" + macho, b, "--format=frames", c, "-qj", "2"],
            [a, "-d" + macho, b, "--format=frames", c, "-q", "-j2"],
            ["-q", a, "--format", "frames", b, "--jobs", "2", c, "-d", macho],
            ["-d", macho, "--format", "frames", "-q", "-j", "2", "--", a, b, c],
        ] {
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, .success, result.summary(arguments))
            XCTAssertEqual(result.stdoutText, reference.stdoutText, CLI.describe(arguments))
        }
        // An option's value that looks like a report path stays the option's value.
        let output = try temporaryDirectory("order").path
        let arguments = [a, "-o", output, "-d", macho, b]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        XCTAssertEqual(result.problemLines, [], result.summary(arguments))
        let written = try FileManager.default.subpathsOfDirectory(atPath: output).filter { $0.hasSuffix(".crash") }
        XCTAssertEqual(written.count, 2, "\(written)")
    }

    /// The options the report paths (and atos addresses) are told apart from, the program's
    /// ``ValueOptions`` (compiled here too), are exactly those that take a value as the
    /// command line parser describes the subcommands that set their positional arguments
    /// aside (those with a repeating one), and none of their flags has a name among them.
    func testTheOptionsTakingAValueAreKnown() throws {
        let result = try CLI.run(["--experimental-dump-help"])
        XCTAssertEqual(result.status, .success, result.summary(["--experimental-dump-help"]))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdoutText.utf8)) as? [String: Any])
        let root = try XCTUnwrap(json["command"] as? [String: Any])
        XCTAssertEqual(root["defaultSubcommand"] as? String, "reports")
        var long: Set<String> = [], short: Set<Character> = []
        var flags: Set<String> = [], commands: Set<String> = []
        for command in try XCTUnwrap(root["subcommands"] as? [[String: Any]]) {
            let name = try XCTUnwrap(command["commandName"] as? String)
            let arguments = command["arguments"] as? [[String: Any]] ?? []
            guard name != "help", arguments.contains(where: { $0["kind"] as? String == "positional" && $0["isRepeating"] as? Bool == true })
            else { continue }
            commands.insert(name)
            for argument in arguments {
                for option in argument["names"] as? [[String: Any]] ?? [] {
                    let text = try XCTUnwrap(option["name"] as? String)
                    let isShort = option["kind"] as? String == "short"
                    switch argument["kind"] as? String {
                    case "option":
                        XCTAssertEqual(argument["parsingStrategy"] as? String, "default", "\(name) \(text): takes more than the next argument")
                        if isShort { short.formUnion(text) } else { long.insert("--" + text) }
                    case "flag":
                        flags.insert(isShort ? "-" + text : "--" + text)
                    default:
                        break
                    }
                }
            }
        }
        XCTAssertEqual(commands, ["reports", "atos", "group", "check"])
        XCTAssertEqual(ValueOptions.long, long, "ValueOptions.long")
        XCTAssertEqual(ValueOptions.short, short, "ValueOptions.short")
        let clashing = flags.filter { ValueOptions.long.contains($0) || ($0.count == 2 && ValueOptions.short.contains($0.last!)) }
        XCTAssertEqual(clashing, [], "flags named as options that take a value")
    }

    /// Every option that takes a value keeps it in every subcommand whose positional
    /// arguments are set aside before the argument parser (those it describes as repeating):
    /// after a first path, an option's value that looks like a path is the option's, not a
    /// second path. Were it taken for one, the parser would see the option without a value.
    func testEveryOptionTakingAValueKeepsItsValue() throws {
        let result = try CLI.run(["--experimental-dump-help"])
        XCTAssertEqual(result.status, .success, result.summary(["--experimental-dump-help"]))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdoutText.utf8)) as? [String: Any])
        let root = try XCTUnwrap(json["command"] as? [String: Any])
        let folder = try temporaryDirectory("value-options").path
        let (first, value) = (folder + "/first", folder + "/value")
        var checked: [String: Int] = [:]
        for command in try XCTUnwrap(root["subcommands"] as? [[String: Any]]) {
            let name = try XCTUnwrap(command["commandName"] as? String)
            let arguments = command["arguments"] as? [[String: Any]] ?? []
            guard name != "help", arguments.contains(where: { $0["kind"] as? String == "positional" && $0["isRepeating"] as? Bool == true })
            else { continue }
            for argument in arguments where argument["kind"] as? String == "option" {
                for option in argument["names"] as? [[String: Any]] ?? [] {
                    let text = try XCTUnwrap(option["name"] as? String)
                    let spelled = option["kind"] as? String == "short" ? "-" + text : "--" + text
                    // The default subcommand also unnamed.
                    for prefix in name == "reports" ? [[name], []] : [[name]] {
                        let line = prefix + [first, spelled, value]
                        let result = try CLI.run(line)
                        XCTAssertFalse(result.stderrText.contains("Missing value for"), result.summary(line))
                        checked[name, default: 0] += 1
                    }
                }
            }
        }
        XCTAssertEqual(Set(checked.keys), ["reports", "atos", "group", "check"], "the subcommands checked: \(checked)")
    }

    /// The statuses are the documented ones (docs/usage.md; 64 and 74 are sysexits.h's, 64 the
    /// argument parser's too), and --help explains them.
    func testHelpMentionsTheExitCodes() throws {
        XCTAssertEqual(ExitStatus.allCases.map(\.rawValue), [0, 1, 2, 64, 74])
        let result = try CLI.run(["--help"])
        XCTAssertEqual(result.status, .success, result.summary(["--help"]))
        let help = result.stdoutText
        for (status, meaning) in [(ExitStatus.success, "written"), (.reportFailed, "could not be read"),
                                  (.unusableDebugPath, "gave nothing to use"), (.usage, "command line"),
                                  (.outputFailed, "could not be written")] {
            let code = String(status.rawValue)
            let mentioned = help.split(separator: "\n").contains { line in
                line.split(whereSeparator: { $0 == " " }).first.map(String.init) == code && line.contains(meaning)
            }
            XCTAssert(mentioned, "--help should explain exit code \(code) (\(meaning)): \(help)")
        }
    }

    /// `symbolicate … | head -1`: the reader goes away after the first line; the tool stops
    /// quietly, with nothing on stderr.
    func testAClosedPipeEndsTheRunQuietly() throws {
        let binary = try CLI.binary()
        let macho = try Fixtures.path("macho")
        let report = try Fixtures.path("reports/App-arm64.crash")
        // Far more than a pipe holds, so the tool must notice the closed pipe.
        let arguments = ["-d", macho] + Array(repeating: report, count: 400)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = CLI.environment
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var first = Data()
        let reader = stdout.fileHandleForReading
        while !first.contains(0x0A) {
            guard let chunk = try reader.read(upToCount: 1), !chunk.isEmpty else { break }
            first.append(chunk)
        }
        try reader.close()
        let deadline = Date().addingTimeInterval(120)  // a hang detector: the loop ends when the tool does
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            XCTFail("the tool kept running for 120 s after its reader went away")
        }
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(String(decoding: first, as: UTF8.self), "==> \(report) <==\n", "the first line")
        XCTAssertEqual(process.terminationReason, .exit, "the tool should end by itself, not by a signal (status \(process.terminationStatus))")
        XCTAssertEqual(String(decoding: errors, as: UTF8.self), "", "no error text on stderr when the reader goes away")
        XCTAssertEqual(process.terminationStatus, .success, "every report read: exit 0")
    }
}
