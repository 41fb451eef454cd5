import Foundation
import TestSupport
import XCTest

/// PLCrashReporter's text (its `PLCrashReportTextFormatter`, Apple format) end to end: the test
/// writes App-arm64.crash as PLCrashReporter writes a report — `Code Type: ARM-64`, `Report
/// Version: 104`, no thread name lines, `+` before the main executable in Binary Images and a
/// blank before the other images, and a Last Exception Backtrace of numbered lines — and each
/// frame must resolve as in the `.crash` report, the oracle (checked against llvm-symbolizer by
/// TextOutputTests).
final class PLCrashReporterTests: XCTestCase {
    /// App-arm64.crash in PLCrashReporter's shape.
    static func plcrashText(_ crash: String) -> String {
        var lines: [String] = []
        for line in crash.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("Code Type:") {
                lines.append("Code Type:       ARM-64")
            } else if line.hasPrefix("Report Version:") {
                lines.append("Report Version:  104")
            } else if line.hasPrefix("Thread "), line.contains(" name:") {
                continue
            } else if line == "Binary Images:" {
                lines.append(line)
            } else if let range = line.range(of: #"^ *0x[0-9a-f]+ - +0x[0-9a-f]+ "#, options: .regularExpression) {
                let rest = line[range.upperBound...]
                lines.append(String(line[range]) + (rest.hasPrefix("App ") ? "+" : " ") + rest)
            } else {
                lines.append(line)
            }
        }
        var text = lines.joined(separator: "\n")
        let exception = """
            Last Exception Backtrace:
            0   CoreFoundation                      0x00000001a7080f7c 0x1a6fdf000 + 663420
            1   App                                 0x0000000104a34344 0x104a30000 + 17220

            Thread 0 Crashed:
            """
        text = text.replacingOccurrences(of: "Thread 0 Crashed:", with: exception)
        return text
    }

    private static func frames(_ report: [String: Any], kind: String) -> [[String]] {
        (report["threads"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == kind }.map { thread in
            (thread["frames"] as? [[String: Any]] ?? []).map { IPSTests.describe(jsonFrame: $0) }
        }
    }

    func testFramesResolveAsInTheCrashReport() throws {
        let crash = try Fixtures.path("reports/App-arm64.crash")
        let text = Self.plcrashText(try String(contentsOfFile: crash, encoding: .utf8))
        XCTAssertTrue(text.contains(" +App arm64  <"), text)
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("plcrash-\(getpid()).crash")
        defer { try? FileManager.default.removeItem(at: temporary) }
        try Data(text.utf8).write(to: temporary)

        func json(_ path: String) throws -> [String: Any] {
            let arguments = ["--format", "json", "-d", try Fixtures.path("macho"), path]
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, .success, result.summary(arguments))
            return try IPSTests.jsonReport(result, arguments)
        }
        let expected = Self.frames(try json(crash), kind: "thread")
        let report = try json(temporary.path)
        let found = Self.frames(report, kind: "thread")
        XCTAssertEqual(found.count, expected.count)
        var compared = 0
        for (t, frames) in expected.enumerated() where t < found.count {
            XCTAssertEqual(found[t], frames, "thread \(t)")
            compared += frames.count
        }
        XCTAssertGreaterThan(compared, 40)
        // The exception backtrace's App frame is a return address, resolved as thread 0's frame 1.
        let exception = try XCTUnwrap(Self.frames(report, kind: "last_exception_backtrace").first)
        let returnAddress = expected[0].filter { $0.contains("address=0x104a34344 ") }
        XCTAssertFalse(returnAddress.isEmpty)
        XCTAssertEqual(exception.filter { $0.contains("address=0x104a34344 ") }, returnAddress)
    }
}
