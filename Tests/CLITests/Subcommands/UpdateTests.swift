import Foundation
import TestSupport
import XCTest

/// `--update -o DIR`: a folder of outputs brought up to date. After every step — new debug
/// files, a report changed, an output removed or changed by hand, the record damaged — the
/// folder holds exactly what a full run of the same options writes into an empty one, and the
/// outputs that did not need it were not written again (their modification times are as
/// they were).
final class UpdateTests: XCTestCase {
    /// Every file of `folder` but the record, by relative path.
    private func contents(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for case let url as URL in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)! {
            guard !url.hasDirectoryPath, url.lastPathComponent != ".symbolicate-update" else { continue }
            files[String(url.path.dropFirst(folder.path.count + 1))] = try Data(contentsOf: url)
        }
        return files
    }

    private func modificationTimes(_ folder: URL) throws -> [String: Date] {
        var times: [String: Date] = [:]
        for name in try contents(folder).keys {
            times[name] = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[.modificationDate] as? Date
        }
        return times
    }

    /// Runs `--update` into `outputs` and a full run into a new folder with `extra`; checks
    /// they agree and returns the names of the outputs the update wrote.
    private func update(_ reports: URL, _ outputs: URL, _ extra: [String], _ label: String) throws -> Set<String> {
        let before = try modificationTimes(outputs)
        let run = try CLI.run(["-q", "--update", "-o", outputs.path] + extra + [reports.path])
        XCTAssertNotEqual(run.status, .usage, "\(label): \(run.stderrText)")
        let full = outputs.deletingLastPathComponent().appendingPathComponent("full-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: full) }
        _ = try CLI.run(["-q", "-o", full.path] + extra + [reports.path])
        let want = try contents(full), got = try contents(outputs)
        XCTAssertEqual(Set(got.keys), Set(want.keys), label)
        for (name, bytes) in want { XCTAssertEqual(got[name], bytes, "\(label): \(name) is not what a full run writes") }
        let after = try modificationTimes(outputs)
        return Set(after.keys.filter { before[$0] != after[$0] })
    }

    func testAnUpdatedFolderIsAFullRunsAndTouchesOnlyWhatChanged() throws {
        let dir = try makeTemporaryDirectory("update")
        defer { try? FileManager.default.removeItem(at: dir) }
        let reports = dir.appendingPathComponent("reports"), outputs = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: reports.appendingPathComponent("ips"), withIntermediateDirectories: true)
        var names: [String] = []
        for source in try Fixtures.reports() + [try Fixtures.path("ips/App-arm64.ips"), try Fixtures.path("ips/App-x86_64.ips")] {
            let name = (source.hasSuffix(".ips") ? "ips/" : "") + (source as NSString).lastPathComponent
            try FileManager.default.copyItem(atPath: source, toPath: reports.appendingPathComponent(name).path)
            names.append(name)
        }
        let macho = ["-d", try Fixtures.path("macho")]

        XCTAssertEqual(try update(reports, outputs, [], "first run"), Set(names), "every output is new")
        XCTAssertEqual(try update(reports, outputs, [], "again"), [], "nothing changed: nothing is written")
        let covered = try update(reports, outputs, macho, "debug files given")
        XCTAssertFalse(covered.isEmpty, "the app's debug files resolve frames of some reports")
        XCTAssertEqual(try update(reports, outputs, macho, "again with them"), [], "nothing changed: nothing is written")

        // A report changed (a newer modification time), an output removed, one changed by hand.
        let changed = names[0], removed = names[1], edited = names[2]
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)],
                                              ofItemAtPath: reports.appendingPathComponent(changed).path)
        try FileManager.default.removeItem(at: outputs.appendingPathComponent(removed))
        try Data("edited\n".utf8).write(to: outputs.appendingPathComponent(edited))
        XCTAssertEqual(try update(reports, outputs, macho, "changes"), [changed, removed, edited])

        // A damaged record, or one of other options, is none: every output is written again.
        try Data("symbolicate-update 1\ngarbage\n".utf8).write(to: outputs.appendingPathComponent(".symbolicate-update"))
        XCTAssertEqual(try update(reports, outputs, macho, "damaged record"), Set(names))
        XCTAssertEqual(try update(reports, outputs, macho + ["--full-path"], "other options"), Set(names))
    }

    func testUpdateNeedsAnOutputFolder() throws {
        let report = try Fixtures.path("reports/App-arm64.crash")
        let result = try CLI.run(["--update", report])
        XCTAssertEqual(result.status, .usage, result.stderrText)
        XCTAssertTrue(result.stderrText.contains("--update"), result.stderrText)
    }
}
