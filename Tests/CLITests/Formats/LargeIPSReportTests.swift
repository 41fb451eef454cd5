import Foundation
import TestSupport
import XCTest

/// A large `.ips` report (4 MiB or more) written as text, frame lines or back as `.ips` is read,
/// symbolicated and written a piece of whole threads at a time. Its text is that of its
/// translation read as a classic report: the tool's text of it with nothing resolved (which
/// the library tests compare with the report read whole), symbolicated again as a `.crash`
/// file, whose frames the format tests check against llvm-symbolizer; written back, it names
/// what was resolved.
final class LargeIPSReportTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try makeTemporaryDirectory("large-ips")
    }

    override func tearDownWithError() throws {
        if let root { try? FileManager.default.removeItem(at: root) }
    }

    /// The fixture `.ips` report with its threads copied until it takes 5 MiB: threads of the
    /// app (resolved with the fixtures' dSYMs) and of system libraries (left as they are).
    private func largeReport() throws -> String {
        let report = root.appendingPathComponent("large.ips").path
        try Fixtures.ipsReportOfManyThreads(size: 5 << 20, to: report) { k, count in k % count }
        return report
    }

    /// The fields of the frame lines of a run with `arguments`, but the first (the report's path).
    private func frameFields(_ arguments: [String]) throws -> [Substring] {
        let result = try CLI.run(["-q", "--format", "frames"] + arguments)
        XCTAssertEqual(result.status, .success, result.stderrText)
        return String(decoding: result.stdout, as: UTF8.self).split(separator: "\n")
            .map { $0.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false).last ?? "" }
    }

    func testALargeIPSReportGivesWhatItsTranslationGives() throws {
        let macho = try Fixtures.path("macho")
        let report = try largeReport()
        let translated = try CLI.run(["-q", report])
        XCTAssertEqual(translated.status, .success, translated.stderrText)
        let translation = root.appendingPathComponent("translation.crash").path
        try translated.stdout.write(to: URL(fileURLWithPath: translation))

        let pieces = try CLI.run(["-q", "-d", macho, report])
        let classic = try CLI.run(["-q", "-d", macho, translation])
        XCTAssertEqual(pieces.status, .success, pieces.stderrText)
        XCTAssertEqual(classic.status, .success, classic.stderrText)
        XCTAssertTrue(pieces.stdout == classic.stdout, "the text of the .ips as the text of its translation")
        XCTAssertNotEqual(pieces.stdout, translated.stdout, "frames were resolved")
        XCTAssertEqual(pieces.stderrText.replacingOccurrences(of: report, with: "REPORT"),
                       classic.stderrText.replacingOccurrences(of: translation, with: "REPORT"), "the same warnings")

        let frames = try frameFields(["-d", macho, report])
        XCTAssertGreaterThan(frames.count, 50_000)
        XCTAssertEqual(frames, try frameFields(["-d", macho, translation]), "the frame lines of the .ips as those of its translation")
    }

    /// Its resolved frames against llvm-symbolizer: each thread is a copy of a thread of the
    /// fixture (its first, then thread `k % count` as the `k`th more), whose app frames the
    /// fixtures' `expect.tsv` names with their debug file and lookup address. Every such frame
    /// of every thread prints, innermost first, the functions, files and lines llvm-symbolizer
    /// gives there, and no other frame is given a file and line.
    func testALargeIPSReportsFramesAgreeWithLLVMSymbolizer() throws {
        let root = try Fixtures.root()
        let report = try largeReport()
        let crash = try Fixtures.path("reports/App-arm64.crash")
        let rows = try Fixtures.expectRows(for: crash)
        let manifest = try Fixtures.manifest()
        var wanted: [FrameKey: [String]] = [:]
        for (debugFile, group) in Dictionary(grouping: rows, by: \.debugFile) {
            let entry = try XCTUnwrap(manifest.first { $0.path == debugFile }, debugFile)
            let oracle = try Oracle.symbolize(object: root.appendingPathComponent(debugFile).path, arch: entry.arch,
                                              addresses: group.map(\.lookup))
            for row in group {
                wanted[FrameKey(thread: row.thread, frame: row.frame)] = (oracle[row.lookup] ?? []).map { frame in
                    frame.function + "\t" + (frame.file.isEmpty ? "" : basename(frame.file) + (frame.line > 0 ? ":\(frame.line)" : ""))
                }
            }
        }
        let fixture = try String(contentsOfFile: try Fixtures.path("ips/App-arm64.ips"), encoding: .utf8)
        let body = try XCTUnwrap(try JSONSerialization.jsonObject(
            with: Data(fixture.split(separator: "\n", maxSplits: 1)[1].utf8)) as? [String: Any])
        let threadCount = try XCTUnwrap((body["threads"] as? [Any])?.count)
        let result = try CLI.run(["-q", "--format", "frames", "--no-demangle", "-d", try Fixtures.path("macho"), report])
        XCTAssertEqual(result.status, .success, result.stderrText)
        let appAddresses = Set(rows.map { hex($0.address) })
        // path, thread, frame, image, address, function, file:line, [inlined]
        var printed: [FrameKey: [String]] = [:]
        var threads = Set<Int>()
        for line in String(decoding: result.stdout, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 7, let thread = Int(fields[1]), let frame = Int(fields[2]) else {
                XCTFail("not a frame line: \(line)")
                continue
            }
            threads.insert(thread)
            // A system frame prints the name the report gave it, without a file: not resolved here.
            guard !fields[5].isEmpty, !fields[6].isEmpty || appAddresses.contains(fields[4]) else { continue }
            printed[FrameKey(thread: thread, frame: frame), default: []].append(fields[5] + "\t" + fields[6])
        }
        XCTAssertGreaterThan(threads.count, 1_000, "a report of many threads")
        var compared = 0
        for thread in threads.sorted() {
            let original = thread == 0 ? 0 : (thread - 1) % threadCount
            for (key, functions) in wanted where key.thread == original && !functions.isEmpty {
                let here = FrameKey(thread: thread, frame: key.frame)
                XCTAssertEqual(printed.removeValue(forKey: here), functions, "\(here) (thread \(original) of the fixture)")
                compared += 1
            }
        }
        XCTAssertTrue(printed.isEmpty, "resolved where llvm-symbolizer knows nothing: \(printed.keys.sorted { ($0.thread, $0.frame) < ($1.thread, $1.frame) }.prefix(5))")
        XCTAssertGreaterThan(compared, 10_000)
    }

    /// Written back as `.ips`, to the stream, with `-o` and in place, it is the same document,
    /// and that document says what was resolved: read again without debug files, its frame
    /// lines are those of the report read with them.
    func testALargeIPSReportWrittenBackSaysWhatWasResolved() throws {
        let macho = try Fixtures.path("macho")
        let report = try largeReport()
        let written = try CLI.run(["-q", "--format", "ips", "-d", macho, report])
        XCTAssertEqual(written.status, .success, written.stderrText)
        let back = root.appendingPathComponent("back.ips").path
        try written.stdout.write(to: URL(fileURLWithPath: back))
        let folder = root.appendingPathComponent("out").path
        let toFolder = try CLI.run(["-q", "-d", macho, "-o", folder, report])
        XCTAssertEqual(toFolder.status, .success, toFolder.stderrText)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: folder + "/large.ips")), written.stdout, "-o")
        let inPlace = root.appendingPathComponent("in-place.ips").path
        try FileManager.default.copyItem(atPath: report, toPath: inPlace)
        let replaced = try CLI.run(["-q", "-d", macho, "--in-place", inPlace])
        XCTAssertEqual(replaced.status, .success, replaced.stderrText)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: inPlace)), written.stdout, "--in-place")

        let resolved = try frameFields(["-d", macho, report])
        XCTAssertGreaterThan(resolved.count, 50_000)
        XCTAssertEqual(try frameFields([back]), resolved, "the document written back names what was resolved")
        XCTAssertNotEqual(try frameFields([report]), resolved, "frames were resolved")
    }

    /// Among other reports, at `-j 2`: its output where it belongs, the summary and the list
    /// of missing debug files counting it once (its app's images have none here); a reader
    /// that stops early ends the run at once.
    func testALargeIPSReportAmongOthers() throws {
        let macho = try Fixtures.path("macho")
        let report = try largeReport()
        let small = try Fixtures.path("reports/App-arm64.crash")
        let alone = try CLI.run(["-q", report])
        let smallAlone = try CLI.run(["-q", small])
        let missing = root.appendingPathComponent("missing.csv").path
        let batch = try CLI.run(["-j", "2", "--missing", missing, small, report, small])
        XCTAssertEqual(batch.status, .success, batch.stderrText)
        let expected = Data("==> \(small) <==\n".utf8) + smallAlone.stdout + Data("\n==> \(report) <==\n".utf8) + alone.stdout
            + Data("\n==> \(small) <==\n".utf8) + smallAlone.stdout
        XCTAssertTrue(batch.stdout == expected, "each report's output in its place")
        XCTAssertTrue(batch.stderrLines.contains { $0.contains(": 3 reports, ") }, batch.stderrText)
        let list = try String(contentsOfFile: missing, encoding: .utf8).split(separator: "\n").dropFirst()
        XCTAssertFalse(list.isEmpty, "the app's images lack debug files")
        for row in list {
            let reports = row.split(separator: ",", omittingEmptySubsequences: false).dropLast().last
            XCTAssertTrue(reports == "1" || reports == "2" || reports == "3", "\(row): each report counted once")
        }

        let stopped = try CLI.shell("\"$SYMBOLICATE\" -q -d '\(macho)' '\(report)' | head -c 1000 > /dev/null; echo ${PIPESTATUS[0]}",
                                    timeout: 60)
        XCTAssertEqual(String(decoding: stopped.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "0", stopped.stderrText)
    }
}
