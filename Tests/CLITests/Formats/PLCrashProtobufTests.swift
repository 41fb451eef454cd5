import Foundation
import TestSupport
import XCTest

/// PLCrashReporter's binary `.plcrash` reports end to end. Each fixture report has a KSCrash
/// twin (`kscrash/NAME.json`, Fixtures/make_kscrash.py) with its images, threads and frames;
/// the test writes the same report as a `.plcrash` file with Python's protobuf encoder
/// (`ProtobufReportEncoder`) — images with their Mach-O UUIDs and CPU types, each frame's pc,
/// and for the frames the report names a `symbol` with its start address and the Mach-O
/// underscore PLCrashReporter records. The `.crash` report is the oracle (TextOutputTests
/// checks it against llvm-symbolizer, inlined frames included): every frame of the `.plcrash`
/// report must resolve as the frame of the same address does there, frame for frame.
final class PLCrashProtobufTests: XCTestCase {
    /// The `.plcrash` message of a KSCrash twin.
    static func plcrashMessage(kscrash path: String, exceptionFrames: Bool = false) throws -> [String: Any] {
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
            as? [String: Any])
        let system = document["system"] as? [String: Any] ?? [:]
        let crash = document["crash"] as? [String: Any] ?? [:]
        let error = crash["error"] as? [String: Any] ?? [:]
        let executable = system["CFBundleExecutablePath"] as? String ?? ""
        let images: [[String: Any]] = (document["binary_images"] as? [[String: Any]] ?? []).map { image in
            [
                "base_address": image["image_addr"] as? UInt64 ?? 0, "size": image["image_size"] as? UInt64 ?? 0,
                "name": image["name"] as? String ?? "",
                "uuid": ["hex": (image["uuid"] as? String ?? "").replacingOccurrences(of: "-", with: "")],
                "code_type": ["encoding": "TYPE_ENCODING_MACH", "type": image["cpu_type"] as? UInt64 ?? 0,
                              "subtype": image["cpu_subtype"] as? UInt64 ?? 0],
            ]
        }
        func frame(_ entry: [String: Any]) -> [String: Any] {
            var frame: [String: Any] = ["pc": entry["instruction_addr"] as? UInt64 ?? 0]
            if let name = entry["symbol_name"] as? String, let start = entry["symbol_addr"] as? UInt64 {
                // PLCrashReporter records the Mach-O symbol, with its underscore.
                frame["symbol"] = ["name": "_" + name, "start_address": start]
            }
            return frame
        }
        let threads: [[String: Any]] = (crash["threads"] as? [[String: Any]] ?? []).map { thread in
            let contents = (thread["backtrace"] as? [String: Any])?["contents"] as? [[String: Any]] ?? []
            return [
                "thread_number": thread["index"] as? Int ?? 0, "crashed": thread["crashed"] as? Bool ?? false,
                "frames": contents.map(frame),
                "registers": thread["crashed"] as? Bool == true
                    ? [["name": "x0", "value": 0], ["name": "fp", "value": 0x16f5d2f80], ["name": "lr", "value": 0x104a34344],
                       ["name": "sp", "value": 0x16f5d2f60], ["name": "pc", "value": 0x104a34204]] : [],
            ]
        }
        var message: [String: Any] = [
            "system_info": ["operating_system": "IPHONE_OS", "os_version": system["system_version"] as? String ?? "14.4",
                            "architecture": "ARCHITECTURE_UNKNOWN", "timestamp": 1_615_710_413,
                            "os_build": system["os_version"] as? String ?? "18D52"],
            "application_info": ["identifier": system["CFBundleIdentifier"] as? String ?? "com.example.App",
                                 "version": system["CFBundleVersion"] as? String ?? "1",
                                 "marketing_version": system["CFBundleShortVersionString"] as? String ?? "1.0"],
            "threads": threads,
            "binary_images": images,
            "signal": ["name": (error["signal"] as? [String: Any])?["name"] as? String ?? "SIGSEGV", "code": "SEGV_MAPERR",
                       "address": error["address"] as? UInt64 ?? 0],
            "process_info": ["process_name": system["process_name"] as? String ?? "App", "process_id": 1234,
                             "process_path": executable, "parent_process_name": "launchd", "parent_process_id": 1,
                             "native": true],
            "machine_info": ["model": system["machine"] as? String ?? "iPhone12,1",
                             "processor": ["encoding": "TYPE_ENCODING_MACH", "type": 0x0100_000C, "subtype": 0],
                             "processor_count": 6, "logical_processor_count": 6],
            "report_info": ["user_requested": false, "uuid": ["hex": "7c1e6a5293b44e0f8d2a5f6b1c9d3e40"]],
        ]
        if exceptionFrames, let first = threads.first(where: { $0["crashed"] as? Bool == true }) {
            message["exception"] = ["name": "NSRangeException", "reason": "index 4 beyond bounds [0 .. 2]",
                                    "frames": Array((first["frames"] as? [[String: Any]] ?? []).dropFirst())]
        }
        return message
    }


    private static func frames(_ report: [String: Any], kind: String = "thread") -> [[String]] {
        (report["threads"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == kind }.map { thread in
            (thread["frames"] as? [[String: Any]] ?? []).map { IPSTests.describe(jsonFrame: $0) }
        }
    }

    /// Every frame of every fixture report's `.plcrash` twin resolves as in the `.crash` report.
    func testTwinsResolveFrameForFrameAsTheCrashReports() throws {
        let dir = try makeTemporaryDirectory("plcrash-twins")
        defer { try? FileManager.default.removeItem(at: dir) }
        let kscrash = try KSCrashTests.directory()
        var compared = 0, resolved = 0
        for crash in try Fixtures.reports() {
            let name = URL(fileURLWithPath: crash).deletingPathExtension().lastPathComponent
            let twin = kscrash.appendingPathComponent(name + ".json").path
            guard FileManager.default.fileExists(atPath: twin) else { continue }
            let path = dir.appendingPathComponent(name + ".plcrash").path
            try ProtobufReportEncoder.encode("plcrash", try Self.plcrashMessage(kscrash: twin), to: path)
            let expected = Self.frames(try Fixtures.jsonReport(crash))
            let found = Self.frames(try Fixtures.jsonReport(path))
            XCTAssertEqual(found.count, expected.count, "\(name): one thread per thread")
            for (t, frames) in expected.enumerated() where t < found.count {
                XCTAssertEqual(found[t], frames, "\(name), thread \(t)")
                compared += frames.count
                resolved += frames.filter { !$0.contains(" file=- ") }.count
            }
        }
        print("PLCrashProtobufTests: \(compared) frames of .plcrash twins compared with the .crash reports, "
              + "\(resolved) of them resolved (inlined frames included)")
        XCTAssertGreaterThan(resolved, 50)
    }

    /// The text is PLCrashReportTextFormatter's; the exception's backtrace resolves as the
    /// crashed thread's frames of the same addresses; frame lines and JSON have every frame.
    func testTextLayoutExceptionBacktraceAndFormats() throws {
        let dir = try makeTemporaryDirectory("plcrash-text")
        defer { try? FileManager.default.removeItem(at: dir) }
        let twin = try KSCrashTests.directory().appendingPathComponent("App-arm64.json").path
        let path = dir.appendingPathComponent("App.plcrash").path
        try ProtobufReportEncoder.encode("plcrash", try Self.plcrashMessage(kscrash: twin, exceptionFrames: true), to: path)
        let plain = try CLI.run([path])
        XCTAssertEqual(plain.status, .success, plain.stderrText)
        // The app's UUID, as its twin gives it: the fixtures' builds choose it.
        let twinImages = (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: twin))) as? [String: Any])?["binary_images"]
            as? [[String: Any]] ?? []
        let appUUID = try XCTUnwrap(twinImages.first { ($0["name"] as? String)?.hasSuffix("/App") == true }?["uuid"] as? String)
        let uuidDigits = appUUID.replacingOccurrences(of: "-", with: "").lowercased()
        for expected in ["Incident Identifier: 7C1E6A52-93B4-4E0F-8D2A-5F6B1C9D3E40\n", "CrashReporter Key:   TODO\n",
                         "Hardware Model:      iPhone12,1\n", "Process:         App [1234]\n",
                         "Version:         1.0 (1)\n", "Code Type:       ARM-64\n", "Parent Process:  launchd [1]\n",
                         "Date/Time:       2021-03-14 08:26:53 +0000\n", "OS Version:      iPhone OS 14.4 (18D52)\n",
                         "Exception Type:  SIGSEGV\n", "Crashed Thread:  0\n",
                         "*** Terminating app due to uncaught exception 'NSRangeException', reason: 'index 4 beyond bounds [0 .. 2]'\n",
                         "Last Exception Backtrace:\n", "Thread 0 crashed with ARM-64 Thread State:\n", " +App arm64  <\(uuidDigits)> "] {
            XCTAssertTrue(plain.stdoutText.contains(expected), "missing \(expected.debugDescription) in:\n\(plain.stdoutText)")
        }
        let report = try Fixtures.jsonReport(path)
        let thread = try XCTUnwrap(Self.frames(report).first)
        let exception = try XCTUnwrap(Self.frames(report, kind: "last_exception_backtrace").first)
        // The thread's frames past its first are return addresses, as every exception frame
        // is: the same lookups, one index less.
        func unnumbered(_ frames: [String]) -> [String] { frames.map { String($0.drop { $0 != " " }) } }
        let pastFirst = thread.filter { !$0.hasPrefix("index=0 ") }
        XCTAssertGreaterThan(pastFirst.count, 10)
        XCTAssertEqual(unnumbered(exception), unnumbered(pastFirst))
        let frames = try CLI.run(["--format", "frames", "-d", try Fixtures.path("macho"), path])
        let lines = frames.stdoutText.split(separator: "\n")
        XCTAssertFalse(lines.isEmpty)
        XCTAssertTrue(lines.allSatisfy { $0.split(separator: "\t", omittingEmptySubsequences: false).count == 8 })
    }

    /// A folder holding a `.plcrash` report symbolicates it; in place it is refused (its
    /// protobuf would become text) and left as it is.
    func testFoldersAndInPlace() throws {
        let dir = try makeTemporaryDirectory("plcrash-folder")
        defer { try? FileManager.default.removeItem(at: dir) }
        let twin = try KSCrashTests.directory().appendingPathComponent("App-arm64.json").path
        let path = dir.appendingPathComponent("App.plcrash").path
        try ProtobufReportEncoder.encode("plcrash", try Self.plcrashMessage(kscrash: twin), to: path)
        let folder = try CLI.run(["-d", try Fixtures.path("macho"), dir.path])
        XCTAssertEqual(folder.status, .success, folder.stderrText)
        XCTAssertTrue(folder.stdoutText.contains("Thread 0 Crashed:\n0   App "), folder.stdoutText)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let inPlace = try CLI.run(["--in-place", "-d", try Fixtures.path("macho"), path])
        XCTAssertNotEqual(inPlace.status, .success)
        XCTAssertTrue(inPlace.stderrText.contains("\(path): a .plcrash report is not written back in place"), inPlace.stderrText)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
    }
}
