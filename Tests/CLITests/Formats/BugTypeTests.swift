import Foundation
import TestSupport
import XCTest

/// An `.ips` report is read by what its body holds, not by its `bug_type`: a body with frames
/// and images is symbolicated whatever the type says, and only one with no frame at all passes
/// through with its one warning. Devices and tools write resource, hang and watchdog reports
/// under many types (185, 385, 142, ...), some of them in the classic text form, some in the
/// crash report's JSON; a table of the types that hold nothing would pass real backtraces
/// through unsymbolicated.
///
/// The oracle is the same body under the crash types (the classic `.crash` for text bodies,
/// bug_type 309 for JSON bodies), whose symbolication the other tests check.
final class BugTypeTests: XCTestCase {
    /// Every type known to name some report, and some that name none.
    private static let bugTypes = ["109", "142", "145", "151", "185", "202", "210", "211", "284", "288", "298", "309",
                                   "313", "385", "999", "x", ""]

    private static func metadata(_ bugType: String) -> String {
        #"{"app_name":"App","timestamp":"2021-03-14 09:26:53.00 +0100","bug_type":"\#(bugType)","os_version":"iPhone OS 14.4 (18D52)","name":"App","incident_id":"7C1E6A52-93B4-4E0F-8D2A-5F6B1C9D3E47"}"#
    }

    private func run(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> ProcessResult {
        let result = try CLI.run(arguments, file: file, line: line)
        XCTAssertEqual(result.status, .success, result.summary(arguments), file: file, line: line)
        return result
    }

    private func write(_ text: String, _ name: String, in dir: URL) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A CPU-limit resource report in the classic form (`EXC_RESOURCE`, an attributed thread),
    /// made from the fixture report: threads with frames, and its Binary Images.
    private static func resourceReport() throws -> String {
        let crash = try String(contentsOfFile: Fixtures.path("reports/App-arm64.crash"), encoding: .utf8)
        let resource = crash
            .replacingOccurrences(of: "Exception Type:  EXC_BAD_ACCESS (SIGSEGV)", with: "Exception Type:  EXC_RESOURCE")
            .replacingOccurrences(of: "Exception Subtype: KERN_INVALID_ADDRESS at 0x0000000000000000",
                                  with: "Exception Subtype: CPU\nException Message: (Limit 50%) Observed 90% over 180 secs")
            .replacingOccurrences(of: "Thread 0 Crashed:", with: "Thread 0 Attributed:")
        XCTAssertNotEqual(resource, crash)
        XCTAssertTrue(resource.contains("Thread 0 Attributed:") && resource.contains("Binary Images:"))
        return resource
    }

    func testAClassicBodyWithFramesIsSymbolicatedWhateverItsBugType() throws {
        let dir = try makeTemporaryDirectory("bug-types")
        defer { try? FileManager.default.removeItem(at: dir) }
        let macho = try Fixtures.path("macho")
        let body = try Self.resourceReport()
        let plain = try write(body, "App.crash", in: dir)
        let expected = try run(["-d", macho, plain]).stdoutText
        XCTAssertTrue(expected.contains("parse_record"), "the body resolves: \(expected)")
        let jsonArguments = ["--format", "json", "-d", macho, plain]
        let expectedFrames = IPSTests.jsonThreadFrames(try IPSTests.jsonReport(try run(jsonArguments), jsonArguments))

        for bugType in Self.bugTypes {
            let metadata = Self.metadata(bugType) + "\n"
            let path = try write(metadata + body, "App-\(bugType).ips", in: dir)
            let result = try run(["-d", macho, path])
            XCTAssertEqual(result.stdoutText, metadata + expected, "bug_type \(bugType): the classic report after its metadata line")
            XCTAssertFalse(result.stderrText.contains("written as it is"), "bug_type \(bugType): \(result.stderrText)")
            let arguments = ["--format", "json", "-d", macho, path]
            XCTAssertEqual(IPSTests.jsonThreadFrames(try IPSTests.jsonReport(try run(arguments), arguments)), expectedFrames,
                           "bug_type \(bugType): the frames in JSON")
        }
    }

    func testAJSONCrashBodyIsSymbolicatedWhateverItsBugType() throws {
        let dir = try makeTemporaryDirectory("bug-types")
        defer { try? FileManager.default.removeItem(at: dir) }
        let macho = try Fixtures.path("macho")
        let ips = try String(contentsOfFile: Fixtures.path("ips/App-arm64.ips"), encoding: .utf8)
        let newline = try XCTUnwrap(ips.firstIndex(of: "\n"))
        let (crashMetadata, body) = (String(ips[..<newline]), String(ips[newline...]))
        XCTAssertTrue(crashMetadata.contains(#""bug_type":"309""#))
        let crash = try write(ips, "App.ips", in: dir)
        let expected = try run(["-d", macho, crash]).stdoutText
        XCTAssertTrue(expected.contains("parse_record"), "the body resolves: \(expected)")
        let expectedIPS = try run(["--format", "ips", "-d", macho, crash]).stdoutText
        let jsonArguments = ["--format", "json", "-d", macho, crash]
        let expectedFrames = IPSTests.jsonThreadFrames(try IPSTests.jsonReport(try run(jsonArguments), jsonArguments))

        for bugType in Self.bugTypes where bugType != "288" {  // 288 with a JSON body is a stackshot (StackshotTests)
            let metadata = crashMetadata.replacingOccurrences(of: #""bug_type":"309""#, with: #""bug_type":"\#(bugType)""#)
            let path = try write(metadata + body, "App-\(bugType).ips", in: dir)
            let result = try run(["-d", macho, path])
            XCTAssertFalse(result.stderrText.contains("written as it is"), "bug_type \(bugType): \(result.stderrText)")
            XCTAssertEqual(result.stdoutText, expected, "bug_type \(bugType): the translation, resolved")
            let ips = try run(["--format", "ips", "-d", macho, path]).stdoutText
            XCTAssertEqual(ips, expectedIPS.replacingOccurrences(of: crashMetadata, with: metadata),
                           "bug_type \(bugType): --format ips")
            let arguments = ["--format", "json", "-d", macho, path]
            XCTAssertEqual(IPSTests.jsonThreadFrames(try IPSTests.jsonReport(try run(arguments), arguments)), expectedFrames,
                           "bug_type \(bugType): the frames in JSON")
        }
    }

    /// Jetsam events, panics, and stackshot or resource reports with no frame in their body,
    /// as JSON or as text: written as they are, with one warning naming their type.
    func testABodyWithoutFramesPassesThroughWithOneWarning() throws {
        let dir = try makeTemporaryDirectory("bug-types")
        defer { try? FileManager.default.removeItem(at: dir) }
        let macho = try Fixtures.path("macho")
        let bodies = [
            #"{"crashReporterKey":"4e1f0c9a","largestProcess":"App","processes":[{"uuid":"4c4c44c3-5555-3144-a19b-af60d4f21f14","name":"App","rpages":91022,"reason":"per-process-limit","pid":1234}]}"#,
            #"{"build":"iPhone OS 14.4 (18D52)","panicString":"panic(cpu 1 caller 0xfffffff0271a8c4c): Kernel data abort.\nPanicked thread: 0xffffffe19a4f0000, backtrace: 0xffffffe8141a3040, tid: 4242\n\t\t  lr: 0xfffffff0271a8c4c  fp: 0xffffffe8141a3090\n"}"#,
            "panic(cpu 0 caller 0xffffff8000222ddc): Kernel trap at 0xffffff7f80a7c6a4, type 14=page fault\n"
                + "Backtrace (CPU 0), Frame : Return Address\n0xffffff80e9863b70 : 0xffffff800021d5dd mach_kernel : _panic + 0xcd\n"
                + "      Kernel Extensions in backtrace:\n         com.apple.driver.AppleIntelCPUPowerManagement(222.0)[0A1B]@0xffffff7f80a7c000->0xffffff7f80a9ffff\n",
            "Event:            wakeups\nAction taken:     none\nWakeups:          45001 wakeups over the last 180 seconds\n",
        ]
        for (bugType, kind) in [("298", "jetsam event"), ("151", "kernel panic"), ("210", "kernel panic"),
                                ("185", "resource or watchdog"), ("284", "stackshot")] {
            for (b, body) in bodies.enumerated() {
                let text = Self.metadata(bugType) + "\n" + body
                let path = try write(text, "report-\(bugType)-\(b).ips", in: dir)
                for format in ["text", "ips"] {
                    let result = try run(["--format", format, "-d", macho, path])
                    XCTAssertEqual(result.stdout, Data(text.utf8), "bug_type \(bugType), body \(b), as \(format)")
                    let warnings = result.stderrLines.filter { $0.contains(path) }
                    XCTAssertEqual(warnings, ["symbolicate: \(path): a \(kind) report (bug_type \(bugType)) holds no frames "
                                              + "to symbolicate; written as it is"], result.stderrText)
                }
            }
        }
    }
}
