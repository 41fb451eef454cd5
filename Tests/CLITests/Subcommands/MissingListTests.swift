import Foundation
import TestSupport
import XCTest

/// `--missing FILE`: the debug files a run lacked, as CSV, for `reports` and `group`.
///
/// The oracle reads the fixture reports' text itself, not the tool's output: each frame line
/// whose text after the address is `0xLOAD + OFFSET` or `IMAGE + OFFSET` (no function named)
/// is placed in the image line whose range holds its address; an image outside the system's
/// folders with such frames is a row (its frames, its reports), unless `-d` gives a debug file
/// of its UUID (the fixtures' manifest lists them).
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

    /// What the reports' text leaves unnamed in app images, by UUID (uppercase, dashed): frames
    /// and reports. `covered`: the UUIDs a debug file is given for.
    static func expected(reports: [String], covered: Set<String>) throws -> [String: (frames: Int, reports: Int)] {
        let imageLine = try NSRegularExpression(pattern: #"^\s*0x([0-9a-f]+) - +0x([0-9a-f]+) .*<([0-9A-Fa-f-]+)> (/\S.*)$"#)
        // `N IMAGE 0xADDRESS 0xLOAD + OFFSET` or `... IMAGE + OFFSET`: an offset, no function.
        let frameLine = try NSRegularExpression(pattern: #"^\d+ +(.+?)\s+0x([0-9a-f]+) (\S+) \+ \d+$"#)
        func groups(_ regex: NSRegularExpression, _ line: String) -> [String]? {
            guard let match = regex.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) else { return nil }
            return (1..<match.numberOfRanges).map { String(line[Range(match.range(at: $0), in: line)!]) }
        }
        var expected: [String: (frames: Int, reports: Int)] = [:]
        for report in reports {
            let lines = try String(contentsOfFile: report, encoding: .utf8).components(separatedBy: "\n")
            let images = lines.compactMap { groups(imageLine, $0) }.map { g in
                (start: UInt64(g[0], radix: 16)!, end: UInt64(g[1], radix: 16)!, path: g[3],
                 uuid: g[2].replacingOccurrences(of: "-", with: "").uppercased())
            }
            var counts: [String: Int] = [:]
            for line in lines {
                guard let g = groups(frameLine, line), g[2].hasPrefix("0x") || g[2] == g[0], let address = UInt64(g[1], radix: 16),
                      let image = images.first(where: { $0.start <= address && address <= $0.end }),
                      !image.path.hasPrefix("/usr/lib/") && !image.path.hasPrefix("/System/") else { continue }
                let u = image.uuid
                let dashed = [u.prefix(8), u.dropFirst(8).prefix(4), u.dropFirst(12).prefix(4), u.dropFirst(16).prefix(4), u.dropFirst(20)]
                    .joined(separator: "-")
                guard !covered.contains(dashed) else { continue }
                counts[dashed, default: 0] += 1
            }
            for (uuid, count) in counts {
                let old = expected[uuid] ?? (0, 0)
                expected[uuid] = (old.frames + count, old.reports + 1)
            }
        }
        return expected
    }

    /// The UUIDs of the Mach-O debug files the fixtures' manifest lists.
    static func machOUUIDs() throws -> Set<String> {
        let manifest = try String(contentsOfFile: try Fixtures.path("manifest.txt"), encoding: .utf8)
        return Set(manifest.split(separator: "\n").map { $0.split(separator: "\t") }
            .filter { $0.count > 1 && $0[0].hasPrefix("macho/") }.map { String($0[1]).uppercased() })
    }

    func testTheListIsWhatTheReportsLeaveUnnamed() throws {
        let dir = try makeTemporaryDirectory("missing")
        defer { try? FileManager.default.removeItem(at: dir) }
        let reports = try Fixtures.reports()
        XCTAssertGreaterThanOrEqual(reports.count, 4)
        let folder = try Fixtures.path("reports")
        for (label, extra, covered) in [("no debug files", [String](), Set<String>()),
                                        ("with -d macho", ["-d", try Fixtures.path("macho")], try Self.machOUUIDs())] {
            let want = try Self.expected(reports: reports, covered: covered)
            for command in [[], ["group"]] {
                let csv = dir.appendingPathComponent("missing.csv").path
                let run = try CLI.run(command + ["-q", "--missing", csv] + extra + [folder])
                XCTAssertNotEqual(run.status, .usage, "\(label): \(run.stderrText)")
                let rows = Self.rows(try String(contentsOfFile: csv, encoding: .utf8))
                let got = Dictionary(rows.map { ($0.debugID, ($0.frames, $0.reports)) }, uniquingKeysWith: { a, _ in a })
                XCTAssertEqual(got.count, rows.count, "\(label) \(command): one row per UUID")
                XCTAssertEqual(Set(got.keys), Set(want.keys), "\(label) \(command)")
                for (uuid, counts) in want {
                    XCTAssertEqual(got[uuid]?.0, counts.frames, "\(label) \(command): frames of \(uuid)")
                    XCTAssertEqual(got[uuid]?.1, counts.reports, "\(label) \(command): reports of \(uuid)")
                }
                XCTAssertTrue(rows.allSatisfy { $0.reason == "no_file" && $0.codeID.isEmpty && !$0.codeFile.isEmpty }, "\(rows)")
                XCTAssertEqual(rows.map(\.frames), rows.map(\.frames).sorted(by: >), "most frames first")
            }
            if label == "no debug files" { XCTAssertGreaterThanOrEqual(want.count, 3, "\(want)") }
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
