import Foundation
import TestSupport
import XCTest

/// MetricKit payloads end to end: each fixture report `reports/NAME.crash` has a MetricKit twin
/// `metrickit/NAME.json` made by Fixtures/make_metrickit.py, a crash diagnostic with one call
/// stack per thread of the report. The `.crash` report is the oracle (TextOutputTests checks it
/// against llvm-symbolizer): the twin must resolve to the same frames, frame for frame.
final class MetricKitTests: XCTestCase {
    /// `Fixtures/build/metrickit`; a failure (not a skip) when the fixtures are built without it.
    static func directory() throws -> URL {
        try Fixtures.twins("metrickit", what: "MetricKit")
    }


    /// The frames the debug files resolved, of each thread, described without the image name
    /// (a macOS report names the bundle where MetricKit names the binary): a frame a debug file
    /// resolved is the only kind that names a source file, in both outputs.
    private static func resolvedFrames(_ report: [String: Any]) -> [[String]] {
        (report["threads"] as? [[String: Any]] ?? []).map { thread in
            (thread["frames"] as? [[String: Any]] ?? []).filter { !($0["file"] is NSNull) && $0["file"] != nil }
                .map { IPSTests.describe(jsonFrame: $0) }
        }
    }

    /// What the `.crash` report resolves each address to, as a faulting PC (frame 0) or a
    /// return address (other frames): the oracle for frames the twins lay out differently.
    private static func oracle(_ crash: [String: Any]) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for thread in crash["threads"] as? [[String: Any]] ?? [] {
            for frame in thread["frames"] as? [[String: Any]] ?? [] where !(frame["file"] is NSNull) {
                let key = "\((frame["index"] as? Int) == 0 ? "pc" : "return") \(frame["address"] ?? "-")"
                let described = IPSTests.describe(jsonFrame: frame).replacingOccurrences(of: #"^index=\d+ "#, with: "",
                                                                                          options: .regularExpression)
                if !(result[key]?.contains(described) ?? false) { result[key, default: []].append(described) }
            }
        }
        return result
    }

    func testCrashTwinsResolveFrameForFrameAsTheCrashReports() throws {
        let directory = try Self.directory()
        for crash in try Fixtures.reports() {
            let name = URL(fileURLWithPath: crash).deletingPathExtension().lastPathComponent
            let expected = Self.resolvedFrames(try Fixtures.jsonReport(crash))
            let twin = try Fixtures.jsonReport(directory.appendingPathComponent(name + ".json").path)
            let found = Self.resolvedFrames(twin)
            XCTAssertEqual(found.count, expected.count, "\(name): one call stack per thread")
            XCTAssertGreaterThan(expected.joined().count, 0, name)
            for (t, frames) in expected.enumerated() where t < found.count {
                XCTAssertEqual(found[t], frames, "\(name), thread \(t)")
            }
            let attributed = (twin["threads"] as? [[String: Any]] ?? []).filter { $0["crashed"] as? Bool == true }
            XCTAssertEqual(attributed.count, 1, "\(name): the attributed call stack is the crashed thread")
            for thread in twin["threads"] as? [[String: Any]] ?? [] {
                for frame in thread["frames"] as? [[String: Any]] ?? [] {
                    XCTAssertEqual(frame["sample_count"] as? Int, 1, "\(name): sample counts are kept")
                }
            }
        }
    }

    /// The single-diagnostic form and the array of payloads resolve as the payload does.
    func testOtherShapesResolveAsThePayload() throws {
        let directory = try Self.directory()
        let payload = Self.resolvedFrames(try Fixtures.jsonReport(directory.appendingPathComponent("App-arm64.json").path))
        let single = Self.resolvedFrames(try Fixtures.jsonReport(directory.appendingPathComponent("App-arm64-crash-diagnostic.json").path))
        XCTAssertEqual(single, payload)
        let array = Self.resolvedFrames(try Fixtures.jsonReport(directory.appendingPathComponent("App-arm64-payloads.json").path))
        XCTAssertEqual(Array(array.prefix(payload.count)), payload)
        XCTAssertGreaterThan(array.count, payload.count, "the second payload's diagnostics follow")
    }

    /// Hang, CPU exception, disk-write and app-launch diagnostics: each is read, and each of
    /// their frames resolves as the frame of the same address in App-arm64.crash, a root frame
    /// as the faulting PC, a sub-frame as a return address.
    func testEveryDiagnosticKindResolvesAsTheCrashReport() throws {
        let directory = try Self.directory()
        let oracle = Self.oracle(try Fixtures.jsonReport(try Fixtures.path("reports/App-arm64.crash")))
        let path = directory.appendingPathComponent("App-arm64-diagnostics.json").path
        let report = try Fixtures.jsonReport(path)
        var checked = 0
        var kinds: Set<String> = []
        for thread in report["threads"] as? [[String: Any]] ?? [] {
            let frames = thread["frames"] as? [[String: Any]] ?? []
            if frames.contains(where: { !($0["file"] is NSNull) }) {
                kinds.insert(String((thread["name"] as? String ?? "").prefix { $0 != "[" }))
            }
            for frame in frames where !(frame["file"] is NSNull) {
                let key = "\((frame["index"] as? Int) == 0 ? "pc" : "return") \(frame["address"] ?? "-")"
                let described = IPSTests.describe(jsonFrame: frame).replacingOccurrences(of: #"^index=\d+ "#, with: "",
                                                                                          options: .regularExpression)
                guard let expected = oracle[key] else { continue }  // the address without one: no App frame
                XCTAssertTrue(expected.contains(described), "\(key): \(described) is not one of \(expected)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 20)
        XCTAssertEqual(kinds, ["hangDiagnostics", "cpuExceptionDiagnostics", "diskWriteExceptionDiagnostics",
                               "appLaunchDiagnostics"], "each kind has resolved frames")

        let text = String(decoding: try CLI.succeeding(["-d", try Fixtures.path("macho"), path]).stdout, as: UTF8.self)
        for heading in ["Hang Diagnostic: hangDiagnostics[0]", "CPU Exception Diagnostic: cpuExceptionDiagnostics[0]",
                        "Disk Write Exception Diagnostic: diskWriteExceptionDiagnostics[0]",
                        "App Launch Diagnostic: appLaunchDiagnostics[0]"] {
            XCTAssertTrue(text.contains(heading + "\n"), heading)
        }
        // The frame given by its offset alone gets its address from its binary's base, which
        // another frame gave, and resolves.
        XCTAssertTrue(text.range(of: #"\n  1   \[9\]    libGreeter\.dylib +0x00000001051c42ac greeter_emit \+ \d+ \(greeter\.c:\d+\)\n"#,
                                 options: .regularExpression) != nil, text)
        // Offset 0: the image starts at the frame's address.
        XCTAssertTrue(text.contains("       0x1dd5c579c libsystem_pthread_start.dylib <0f0f0f0f000040008000000000000000>\n"), text)
    }

    /// `--format metrickit`: the payload byte for byte with nothing resolved; resolved frames get
    /// the members the JSON output gives them; writing a written payload again changes nothing.
    func testMetricKitOutputAddsSymbolsAndNothingElse() throws {
        let directory = try Self.directory()
        for name in ["App-arm64", "App-x86_64", "App-arm64-diagnostics", "App-arm64-payloads"] {
            let path = directory.appendingPathComponent(name + ".json").path
            let original = try Data(contentsOf: URL(fileURLWithPath: path))
            XCTAssertEqual(try CLI.succeeding(["--format", "metrickit", path]).stdout, original, "\(name): nothing resolved")

            let written = try CLI.succeeding(["--format", "metrickit", "-d", try Fixtures.path("macho"), path]).stdout
            XCTAssertNotEqual(written, original)
            let object = try JSONSerialization.jsonObject(with: written)
            let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("metrickit-\(getpid())-\(name).json")
            defer { try? FileManager.default.removeItem(at: temporary) }
            try written.write(to: temporary)
            XCTAssertEqual(try CLI.succeeding(["--format", "metrickit", "-d", try Fixtures.path("macho"), temporary.path]).stdout,
                           written, "\(name): resolved again, it is unchanged")

            // The frame objects in tree order, as the JSON output lists frames.
            var objects: [[String: Any]] = []
            func walk(_ value: Any) {
                if let array = value as? [Any] { array.forEach(walk); return }
                guard let dictionary = value as? [String: Any] else { return }
                if dictionary["binaryUUID"] != nil { objects.append(dictionary) }
                for key in dictionary.keys.sorted(by: { a, _ in a != "subFrames" }) where key != "inlinedFrames" {
                    walk(dictionary[key]!)
                }
            }
            walk(object)
            let report = try Fixtures.jsonReport(path)
            var expected: [String] = []
            for thread in report["threads"] as? [[String: Any]] ?? [] {
                var group: [[String: Any]] = []
                for frame in thread["frames"] as? [[String: Any]] ?? [] {
                    group.append(frame)
                    guard frame["inlined"] as? Bool != true else { continue }
                    expected.append(group.map { "\($0["symbol"] is NSNull ? "-" : "\($0["symbol"]!)")" }.joined(separator: " < "))
                    group = []
                }
            }
            let found = objects.map { object -> String in
                let inlined = (object["inlinedFrames"] as? [[String: Any]] ?? []).map { "\($0["symbol"] ?? "-")" }
                return (inlined + ["\(object["symbol"] ?? "-")"]).joined(separator: " < ")
            }
            // Foundation's dictionaries lose the document's order of diagnostic kinds.
            XCTAssertEqual(found.sorted(), expected.sorted(), name)
            XCTAssertEqual(found.count, expected.count, name)
        }
    }

    /// A payload cut short names the file and why, is written as it came, and the run goes on
    /// with the others.
    func testTruncatedPayloadIsOneLineAndTheRunGoesOn() throws {
        let directory = try Self.directory()
        let path = directory.appendingPathComponent("App-arm64.json").path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("metrickit-cut-\(getpid()).json")
        defer { try? FileManager.default.removeItem(at: temporary) }
        try bytes.prefix(bytes.count / 2).write(to: temporary)
        let arguments = ["-q", temporary.path, path]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .reportFailed, result.summary(arguments))
        let errors = result.stderrText.split(separator: "\n")
        XCTAssertEqual(errors.count, 1, result.summary(arguments))
        XCTAssertTrue(errors.first?.hasPrefix("symbolicate: \(temporary.path): not a valid MetricKit payload: ") == true
                      && errors.first?.contains("the file is cut short") == true, result.summary(arguments))
        XCTAssertTrue(result.stdoutText.contains("Crash Diagnostic: crashDiagnostics[0]"), result.summary(arguments))
    }
}
