import Foundation
import TestSupport
import XCTest

/// KSCrash reports end to end: each fixture report `reports/NAME.crash` has a KSCrash twin
/// `kscrash/NAME.json` made by Fixtures/make_kscrash.py, with the same images, threads and
/// frames, the frames the report names given `symbol_name` as the reporter gives them. The
/// `.crash` report is the oracle (TextOutputTests checks it against llvm-symbolizer): the twin
/// must resolve to the same frames, frame for frame.
final class KSCrashTests: XCTestCase {
    /// `Fixtures/build/kscrash`; a failure (not a skip) when the fixtures are built without it.
    static func directory() throws -> URL {
        try Fixtures.twins("kscrash", what: "KSCrash")
    }


    /// Every frame of each thread, described without the image name (a macOS report names the
    /// bundle where KSCrash names the binary).
    private static func frames(_ report: [String: Any]) -> [[String]] {
        (report["threads"] as? [[String: Any]] ?? []).map { thread in
            (thread["frames"] as? [[String: Any]] ?? []).map { IPSTests.describe(jsonFrame: $0) }
        }
    }

    /// The frames of each thread that name a source file: those a debug file resolved.
    private static func resolved(_ frames: [[String]]) -> [[String]] {
        frames.map { $0.filter { !$0.contains(" file=- ") } }
    }

    /// Every frame, resolved or not, resolves as the frame of the same address in the `.crash`
    /// report: the same function, offset, file, line, column and inline chain; frames no debug
    /// file resolves keep the name the report gives them in both.
    func testTwinsResolveFrameForFrameAsTheCrashReports() throws {
        let directory = try Self.directory()
        var compared = 0
        var resolvedCount = 0
        for crash in try Fixtures.reports() {
            let name = URL(fileURLWithPath: crash).deletingPathExtension().lastPathComponent
            let expected = Self.frames(try Fixtures.jsonReport(crash))
            let twin = try Fixtures.jsonReport(directory.appendingPathComponent(name + ".json").path)
            let found = Self.frames(twin)
            XCTAssertEqual(found.count, expected.count, "\(name): one thread per thread")
            XCTAssertGreaterThan(Self.resolved(expected).joined().count, 0, name)
            for (t, frames) in expected.enumerated() where t < found.count {
                XCTAssertEqual(found[t], frames, "\(name), thread \(t)")
                compared += frames.count
                resolvedCount += Self.resolved([frames])[0].count
            }
            let crashed = (twin["threads"] as? [[String: Any]] ?? []).filter { $0["crashed"] as? Bool == true }
            XCTAssertEqual(crashed.count, 1, "\(name): the crashed thread")
        }
        print("KSCrash twins: \(compared) frames compared with the .crash reports, \(resolvedCount) of them resolved")
        XCTAssertGreaterThan(compared, 100)
    }

    /// Frames with `symbol_name` keep the reporter's name; frames without one in an image with
    /// a debug file resolve.
    func testNamedFramesKeepTheirNamesAndTheOthersResolve() throws {
        let directory = try Self.directory()
        let path = directory.appendingPathComponent("App-arm64.json").path
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
            as? [String: Any])
        let threads = ((document["crash"] as? [String: Any])?["threads"] as? [[String: Any]]) ?? []
        let output = (try Fixtures.jsonReport(path)["threads"] as? [[String: Any]]) ?? []
        XCTAssertEqual(output.count, threads.count)
        var named = 0
        var unnamed = 0
        for (t, thread) in threads.enumerated() where t < output.count {
            let contents = ((thread["backtrace"] as? [String: Any])?["contents"] as? [[String: Any]]) ?? []
            let frames = output[t]["frames"] as? [[String: Any]] ?? []
            for (f, entry) in contents.enumerated() {
                // The concrete frame of the frame's entries: the last one of its index.
                let frame = try XCTUnwrap(frames.last { $0["index"] as? Int == f }, "thread \(t) frame \(f)")
                if let symbol = entry["symbol_name"] as? String {
                    XCTAssertEqual(frame["symbol"] as? String, symbol, "thread \(t) frame \(f)")
                    named += 1
                } else if (entry["object_name"] as? String).map({ ["App", "libGreeter.dylib"].contains($0) }) == true {
                    XCTAssertNotNil(frame["file"] as? String, "thread \(t) frame \(f) resolves")
                    unnamed += 1
                }
            }
        }
        XCTAssertGreaterThanOrEqual(named, 10)
        XCTAssertGreaterThanOrEqual(unnamed, 10)
    }

    /// The report of an uncaught exception, with a nested recrash report: the outer report is
    /// read and resolves as the plain twin; the warning says the nested one is not.
    func testExceptionReportAndItsRecrashReport() throws {
        let directory = try Self.directory()
        let plain = Self.frames(try Fixtures.jsonReport(directory.appendingPathComponent("App-arm64.json").path))
        let path = directory.appendingPathComponent("App-arm64-exception.json").path
        XCTAssertEqual(Self.frames(try Fixtures.jsonReport(path)), plain)
        let arguments = ["-d", try Fixtures.path("macho"), path]
        let result = try CLI.succeeding(arguments)
        XCTAssertTrue(result.stdoutText.contains("Exception Type:      EXC_CRASH (SIGABRT)\n"), result.summary(arguments))
        XCTAssertTrue(result.stdoutText.contains("Application Specific Information:\n*** Terminating app due to uncaught "
            + "exception 'NSRangeException', reason: '*** -[__NSArrayM objectAtIndex:]: index 4 beyond bounds [0 .. 2]'\n"),
                      result.summary(arguments))
        XCTAssertTrue(result.stderrText.contains("\(path): the nested recrash_report (a crash in the crash handler) is not read\n"),
                      result.summary(arguments))
    }

    /// Two reports in one array: each resolves as its own twin, in its own images.
    func testArrayOfReportsResolvesAsEachReport() throws {
        let directory = try Self.directory()
        let first = Self.frames(try Fixtures.jsonReport(directory.appendingPathComponent("App-arm64.json").path))
        let second = Self.frames(try Fixtures.jsonReport(directory.appendingPathComponent("App-arm64-dwarf5.json").path))
        let both = Self.frames(try Fixtures.jsonReport(directory.appendingPathComponent("App-arm64-reports.json").path))
        XCTAssertEqual(both, first + second)
    }

    /// Text output is the translation with its frames resolved; frame lines have their eight fields.
    func testTextAndFramesOutput() throws {
        let path = try Self.directory().appendingPathComponent("App-x86_64.json").path
        let arguments = ["-d", try Fixtures.path("macho"), path]
        let text = try CLI.succeeding(arguments).stdoutText
        XCTAssertTrue(text.contains("Report Version:      3.3.0 (KSCrash)\n"), text)
        XCTAssertTrue(text.range(of: #"\n0   App +0x[0-9a-f]{16} parse_record \+ \d+ \(parser\.c:\d+\)\n"#,
                                 options: .regularExpression) != nil, text)
        let frames = try CLI.succeeding(["--format", "frames"] + arguments).stdoutText
        let lines = frames.split(separator: "\n")
        XCTAssertGreaterThan(lines.count, 10)
        for line in lines { XCTAssertEqual(line.split(separator: "\t", omittingEmptySubsequences: false).count, 8, String(line)) }
    }

    /// A report cut short names the file and why in one line, and the run goes on with the others.
    func testTruncatedReportIsOneLineAndTheRunGoesOn() throws {
        let path = try Self.directory().appendingPathComponent("App-arm64.json").path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("kscrash-cut-\(getpid()).json")
        defer { try? FileManager.default.removeItem(at: temporary) }
        try bytes.prefix(bytes.count / 2).write(to: temporary)
        let arguments = ["-q", "-d", try Fixtures.path("macho"), temporary.path, path]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .reportFailed, result.summary(arguments))
        let errors = result.stderrText.split(separator: "\n")
        XCTAssertEqual(errors.count, 1, result.summary(arguments))
        XCTAssertTrue(errors.first?.hasPrefix("symbolicate: \(temporary.path): not a valid KSCrash report: ") == true
                      && errors.first?.contains("the file is cut short") == true, result.summary(arguments))
        XCTAssertTrue(result.stdoutText.contains("Report Version:      3.3.0 (KSCrash)"), result.summary(arguments))
    }
}
