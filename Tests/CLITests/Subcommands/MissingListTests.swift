import Foundation
import TestSupport
import XCTest

/// `--missing FILE`: the debug files a run lacked, as CSV, for `reports` and `group`.
///
/// The oracle is the same run's JSON output (another renderer of the same resolutions): each
/// image with an `unresolved` reason is a row, with its frames that have neither a line nor a
/// symbol (resolved or the report's own) and are not inlined, and the reports that have any.
final class MissingListTests: XCTestCase {
    static let header = "debug_file,debug_id,code_file,code_id,arch,frames,reports,reason"

    struct Row: Hashable {
        var debugFile, debugID, codeFile, codeID, arch: String
        var frames, reports: Int
        var reason: String
    }

    /// The rows of a CSV text (no field of the fixtures needs quotes).
    static func rows(_ csv: String) -> [Row] {
        var lines = csv.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, header)
        lines.removeFirst()
        return lines.map { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            XCTAssertEqual(f.count, 8, line)
            return Row(debugFile: f[0], debugID: f[1], codeFile: f[2], codeID: f[3], arch: f[4],
                       frames: Int(f[5]) ?? -1, reports: Int(f[6]) ?? -1, reason: f[7])
        }
    }

    /// What the JSON output of the same inputs says is missing: UUID digits to (frames,
    /// reports, reason).
    static func expected(fromJSON data: Data) throws -> [String: (frames: Int, reports: Int, reason: String)] {
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        var expected: [String: (frames: Int, reports: Int, reason: String)] = [:]
        for report in document["reports"] as? [[String: Any]] ?? [] {
            // Each frame's image: the one loaded last at or below its address (the fixtures'
            // images do not overlap), as a frame's image is found by its address.
            let images = (report["images"] as? [[String: Any]] ?? []).compactMap { image -> (load: UInt64, image: [String: Any])? in
                guard let load = (image["load_address"] as? String).flatMap({ UInt64($0.dropFirst(2), radix: 16) }) else { return nil }
                return (load, image)
            }.sorted { $0.load < $1.load }
            var counts: [String: Int] = [:]
            var reasons: [String: (key: String, reason: String)] = [:]
            for thread in report["threads"] as? [[String: Any]] ?? [] {
                for frame in thread["frames"] as? [[String: Any]] ?? [] {
                    guard let address = (frame["address"] as? String).flatMap({ UInt64($0.dropFirst(2), radix: 16) }),
                          let image = images.last(where: { $0.load <= address })?.image,
                          let unresolved = image["unresolved"] as? [String: Any], let uuid = image["uuid"] as? String,
                          frame["inlined"] as? Bool != true, frame["line"] is NSNull, frame["symbol"] is NSNull
                    else { continue }
                    // By UUID alone: an image line may leave its architecture to the Code Type.
                    let name = uuid
                    reasons[name] = (name, unresolved["reason"] as? String ?? "")
                    counts[name, default: 0] += 1
                }
            }
            for (name, count) in counts {
                let (key, reason) = reasons[name]!
                let old = expected[key] ?? (0, 0, reason)
                expected[key] = (old.frames + count, old.reports + 1, old.reason)
            }
        }
        return expected
    }

    private func assertRows(_ rows: [Row], match expected: [String: (frames: Int, reports: Int, reason: String)],
                            _ label: String) {
        XCTAssertEqual(rows.count, expected.count, label)
        for row in rows {
            let key = row.debugID.replacingOccurrences(of: "-", with: "").lowercased()
            guard let want = expected[key] else { XCTFail("\(label): \(row) is not missing in the JSON"); continue }
            XCTAssertEqual(row.frames, want.frames, "\(label): \(row)")
            XCTAssertEqual(row.reports, want.reports, "\(label): \(row)")
            XCTAssertEqual(row.reason, want.reason, "\(label): \(row)")
        }
        // Most frames first.
        XCTAssertEqual(rows.map(\.frames), rows.map(\.frames).sorted(by: >), label)
    }

    func testTheListAgreesWithTheJSONOfTheSameRun() throws {
        let dir = try makeTemporaryDirectory("missing")
        defer { try? FileManager.default.removeItem(at: dir) }
        let inputs = [try Fixtures.path("reports"), try Fixtures.path("ips"), try Fixtures.path("group")]
        // Without debug files every app image is missing; with the Mach-O fixtures, some are found.
        for (label, extra) in [("no debug files", [String]()), ("with -d macho", ["-d", try Fixtures.path("macho")])] {
            let csv = dir.appendingPathComponent("missing.csv").path
            let run = try CLI.run(["-q", "--format", "json", "--missing", csv] + extra + inputs)
            XCTAssertNotEqual(run.status, .usage, run.stderrText)
            let rows = Self.rows(try String(contentsOfFile: csv, encoding: .utf8))
            assertRows(rows, match: try Self.expected(fromJSON: run.stdout), label)
            if label == "no debug files" {
                XCTAssertGreaterThanOrEqual(rows.count, 5, "\(label): \(rows)")
                XCTAssertTrue(rows.allSatisfy { $0.reason == "no_file" && $0.codeID.isEmpty && !$0.codeFile.isEmpty }, "\(rows)")
            }
            // group lists the same, from its own run.
            let groupCSV = dir.appendingPathComponent("group.csv").path
            let group = try CLI.run(["group", "-q", "--missing", groupCSV] + extra + inputs)
            XCTAssertNotEqual(group.status, .usage, group.stderrText)
            XCTAssertEqual(Set(Self.rows(try String(contentsOfFile: groupCSV, encoding: .utf8))), Set(rows), label)
        }
    }

    /// Frames the report names itself need no debug file; a module of a Linux log is named by
    /// its build-id, which is its code id too; `-` writes the list to standard output when the
    /// reports go to files.
    func testNamedFramesDoNotCountAndBuildIDsAreCodeIDs() throws {
        let dir = try makeTemporaryDirectory("missing-named")
        defer { try? FileManager.default.removeItem(at: dir) }
        let buildID = "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"
        let log = """
            ==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000
                #0 0x5555555552a9  (/srv/bin/server+0x12a9) (BuildId: \(buildID))
                #1 0x5555555553b4 in handle_request (/srv/bin/server+0x13b4) (BuildId: \(buildID))
                #2 0x5555555554c0  (/srv/bin/server+0x14c0) (BuildId: \(buildID))

            """
        let report = dir.appendingPathComponent("asan.log").path
        try log.write(toFile: report, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out").path
        let run = try CLI.run(["-q", "-o", out, "--missing", "-", report])
        let rows = Self.rows(run.stdoutText)
        XCTAssertEqual(rows, [Row(debugFile: "server", debugID: buildID, codeFile: "/srv/bin/server", codeID: buildID,
                                  arch: rows.first?.arch ?? "", frames: 2, reports: 1, reason: "no_file")],
                       run.stdoutText + run.stderrText)
        XCTAssertTrue(FileManager.default.fileExists(atPath: Path(out, "asan.log")), "the report is still written")
    }

    func testStandardOutputIsRefusedWhereTheOutputGoes() throws {
        let report = try Fixtures.path("reports/App-arm64.crash")
        let reports = try CLI.run(["--missing", "-", report])
        XCTAssertEqual(reports.status, .usage, reports.stderrText)
        XCTAssertTrue(reports.stderrText.contains("--missing"), reports.stderrText)
        let group = try CLI.run(["group", "--missing", "-", report])
        XCTAssertEqual(group.status, .usage, group.stderrText)
        let empty = try CLI.run(["--missing", "", report])
        XCTAssertEqual(empty.status, .usage, empty.stderrText)
    }

    private func Path(_ folder: String, _ name: String) -> String { (folder as NSString).appendingPathComponent(name) }
}
