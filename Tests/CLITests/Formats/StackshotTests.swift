import Foundation
import TestSupport
import XCTest

/// Stackshot `.ips` reports (bug_type 288) end to end: a stackshot made at test time from the
/// fixture report App-arm64.crash — its images, and one thread per thread of the report with
/// its frames as `[imageIndex, offset]` pairs — must resolve frame for frame as the report does.
final class StackshotTests: XCTestCase {
    private static let metadata = #"{"bug_type":"288","timestamp":"2021-03-14 09:26:53.00 +0100","os_version":"iPhone OS 14.4 (18D52)","incident_id":"3B2D6C1A-7E4F-4A90-8C1D-2E5F6A7B8C9D"}"#

    private func run(_ arguments: [String]) throws -> ProcessResult {
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        return result
    }

    private func jsonReport(_ path: String) throws -> [String: Any] {
        let arguments = ["--format", "json", "-d", try Fixtures.path("macho"), path]
        return try IPSTests.jsonReport(try run(arguments), arguments)
    }

    /// The resolved frames of a JSON report's threads, each described without its image name
    /// and index (a stackshot names images by UUID, and numbers kernel frames first).
    private static func resolvedFrames(_ report: [String: Any]) -> [[String]] {
        (report["threads"] as? [[String: Any]] ?? []).map { thread in
            (thread["frames"] as? [[String: Any]] ?? []).filter { !($0["file"] is NSNull) && $0["file"] != nil }
                .map { IPSTests.describe(jsonFrame: $0).replacingOccurrences(of: #"^index=\d+ "#, with: "",
                                                                              options: .regularExpression) }
        }
    }

    /// A stackshot of `crash` (its `--format json` report): every image as `[UUID, load, "U"]`
    /// plus a kernel image, and per thread the frames' pairs; thread 0 also has two kernel
    /// frames. Returns the file's text.
    private static func stackshot(of crash: [String: Any]) throws -> String {
        let images = crash["images"] as? [[String: Any]] ?? []
        var entries: [String] = []
        var loads: [String: (index: Int, load: UInt64)] = [:]
        for (i, image) in images.enumerated() {
            let uuid = try XCTUnwrap(image["uuid"] as? String)
            let load = try XCTUnwrap(parseHex(image["load_address"] as? String ?? ""))
            entries.append(#"["\#(uuid.uppercased())", \#(load), "U"]"#)
            loads[image["name"] as? String ?? ""] = (i, load)
        }
        let kernel = images.count
        entries.append(#"["447D769E-1CB7-3086-A0B4-32226837B587", 18446741874878611456, "K"]"#)
        var threads: [String] = []
        for (t, thread) in (crash["threads"] as? [[String: Any]] ?? []).enumerated() {
            var pairs: [String] = []
            var lastIndex = -1
            for frame in thread["frames"] as? [[String: Any]] ?? [] {
                guard let index = frame["index"] as? Int, index != lastIndex,
                      let image = loads[frame["image"] as? String ?? ""],
                      let address = parseHex(frame["address"] as? String ?? "")
                else { continue }
                lastIndex = index
                pairs.append("[\(image.index), \(address - image.load)]")
            }
            let kernelFrames = t == 0 ? #""kernelFrames": [[\#(kernel), 771644], [\#(kernel), 766656]], "# : ""
            threads.append(#""\#(100 + t)": {"id": \#(100 + t), "name": "thread \#(t)", \#(kernelFrames)"userFrames": [\#(pairs.joined(separator: ", "))]}"#)
        }
        return metadata + "\n" + #"""
            {
              "reason": "stackshot requested",
              "binaryImages": [\#(entries.joined(separator: ", "))],
              "processByPid": {"1234": {"procname": "App", "pid": 1234, "threadById": {\#(threads.joined(separator: ", "))}}}
            }
            """#
    }

    func testFramesResolveAsTheSameAddressesInTheCrashReport() throws {
        let crash = try jsonReport(try Fixtures.path("reports/App-arm64.crash"))
        let text = try Self.stackshot(of: crash)
        let path = try makeTemporaryDirectory("stackshot").appendingPathComponent("stacks-2021-03-14-092653.ips").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)

        let expected = Self.resolvedFrames(crash)
        let report = try jsonReport(path)
        let found = Self.resolvedFrames(report)
        XCTAssertEqual(found.count, expected.count, "one thread per thread of the report")
        XCTAssertGreaterThan(expected.joined().count, 10)
        XCTAssertEqual(found, expected)
        let first = try XCTUnwrap((report["threads"] as? [[String: Any]])?.first?["frames"] as? [[String: Any]])
        XCTAssertEqual(first.first?["image"] as? String, "447D769E-1CB7-3086-A0B4-32226837B587", "kernel frames first")
        XCTAssertTrue(first.first?["symbol"] is NSNull, "a kernel frame without a debug file stays unresolved")

        let result = try run(["-d", try Fixtures.path("macho"), path])
        let output = String(decoding: result.stdout, as: UTF8.self)
        XCTAssertTrue(output.contains("Process:                      App [1234]"), output)
        XCTAssertTrue(output.contains("parse_record + 28 (parser.c:27)"), output)
        XCTAssertTrue(output.contains("0xfffffe000b82463c 0xfffffe000b768000 + 771644"), "kernel frames shown: \(output)")
        XCTAssertFalse(result.stderrText.contains("written as it is"), result.stderrText)

        let ips = try run(["--format", "ips", "-d", try Fixtures.path("macho"), path])
        XCTAssertEqual(ips.stdout, Data(text.utf8), "frames are pairs: --format ips writes the stackshot as it is")
    }

    /// A body that is not valid JSON is a one-line error naming the file; the run goes on.
    func testTruncatedStackshotIsAnErrorAndTheRunGoesOn() throws {
        let dir = try makeTemporaryDirectory("stackshot")
        let cut = dir.appendingPathComponent("stacks-cut.ips").path
        try (Self.metadata + "\n{\"processByPid\": {\"1\": {\"procname\": \"launchd\"").write(toFile: cut, atomically: true, encoding: .utf8)
        let good = try Fixtures.path("reports/App-arm64.crash")
        let arguments = ["-d", try Fixtures.path("macho"), cut, good]
        let result = try CLI.run(arguments)
        XCTAssertNotEqual(result.status, .success, result.summary(arguments))
        let errors = result.stderrText.split(separator: "\n").filter { $0.contains(cut) }
        XCTAssertEqual(errors.count, 1, result.stderrText)
        XCTAssertTrue(errors.first?.contains("cut short") ?? false, result.stderrText)
        XCTAssertTrue(String(decoding: result.stdout, as: UTF8.self).contains("parse_record"), "the next report is read")
    }
}
