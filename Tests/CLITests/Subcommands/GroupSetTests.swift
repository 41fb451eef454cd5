import Foundation
import TestSupport
import XCTest

/// The grouping measurement: `symbolicate group` over the set of Fixtures/build/group-set
/// (Fixtures/make_group_set.py: one app with a bug per crash kind, built for arm64, arm64e,
/// x86_64 and the simulator at -O0 and -O2, `.crash` and `.ips` reports whose true kind
/// kinds.tsv gives), with the builds' dSYMs as a crash server has them and without. See
/// docs/grouping.md, "Measurement".
final class GroupSetTests: XCTestCase {
    /// With the dSYMs: at least 95% of reports in a group whose majority kind is theirs, and
    /// the release builds of the three device architectures in one group per kind, but for the
    /// exceptions ``explainedSplit(_:_:)`` names and counts.
    func testWithDebugFilesReportsGroupByKindAcrossArchitectures() throws {
        let set = try GroupSet.load()
        let measure = try set.measure(["-d", set.folder.appendingPathComponent("bin").path])
        print(measure.summary("with debug files"))
        XCTAssertGreaterThanOrEqual(measure.purity, 0.95, measure.misgrouped.joined(separator: "\n"))
        XCTAssertEqual(measure.unexplainedSplits, [], "release builds of one kind in several groups")
        XCTAssertLessThanOrEqual(measure.explainedSplits.count, 1, "\(measure.explainedSplits)")
    }

    /// Without debug files: frames are `App+0xOFFSET`, which differ between builds, so the
    /// architectures are groups of their own; the groups are still of one kind each.
    func testWithoutDebugFilesReportsStillGroupByKind() throws {
        let set = try GroupSet.load()
        let measure = try set.measure(["--no-cache"])
        print(measure.summary("without debug files"))
        XCTAssertGreaterThanOrEqual(measure.purity, 0.95, measure.misgrouped.joined(separator: "\n"))
        // One build's .crash and .ips report are one group (its image named alike in both).
        for kind in set.releaseKinds {
            XCTAssertLessThanOrEqual(measure.releaseGroups[kind]?.count ?? 0, 3, kind)
        }
    }

    /// The set is what docs/grouping.md says: many kinds, each from several architectures.
    func testTheSetHoldsManyKindsAndArchitectures() throws {
        let set = try GroupSet.load()
        XCTAssertGreaterThanOrEqual(set.rows.count, 60)
        XCTAssertGreaterThanOrEqual(Set(set.rows.values.map(\.kind)).count, 12)
        for kind in Set(set.rows.values.map(\.kind)) {
            XCTAssertGreaterThanOrEqual(Set(set.rows.values.filter { $0.kind == kind }.map(\.arch)).count, 2, kind)
        }
    }
}

/// Fixtures/build/group-set: its reports and their true kinds.
private struct GroupSet {
    struct Row { var kind, arch, optimization, form: String }
    var folder: URL
    /// Report file name → what kinds.tsv says of it.
    var rows: [String: Row]

    static func load() throws -> GroupSet {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        let folder = fixtures.appendingPathComponent("group-set")
        let tsv = try String(contentsOf: folder.appendingPathComponent("kinds.tsv"), encoding: .utf8)
        var rows: [String: Row] = [:]
        for line in tsv.split(separator: "\n") {
            let f = line.split(separator: "\t").map(String.init)
            rows[f[0]] = Row(kind: f[1], arch: f[2], optimization: f[3], form: f[4])
        }
        return GroupSet(folder: folder, rows: rows)
    }

    /// The kinds with release builds of device architectures.
    var releaseKinds: Set<String> { Set(rows.values.filter(isDeviceRelease).map(\.kind)) }

    func isDeviceRelease(_ row: Row) -> Bool { row.optimization == "O2" && !row.arch.hasPrefix("sim-") }

    /// Groups the set with `options` and measures the groups against the true kinds.
    func measure(_ options: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Measure {
        let arguments = ["group", "--format", "json", "--members"] + options + [folder.appendingPathComponent("reports").path]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, 0, result.summary(arguments), file: file, line: line)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        var measure = Measure()
        var groupOf: [String: String] = [:]
        var members: [String: [String]] = [:]
        for group in try XCTUnwrap(json["groups"] as? [[String: Any]]) {
            let id = try XCTUnwrap(group["id"] as? String)
            let signature = try XCTUnwrap(group["signature"] as? [String: Any])
            measure.text[id] = signature["text"] as? String ?? ""
            measure.frames[id] = signature["frames"] as? [String] ?? []
            for path in try XCTUnwrap(group["members"] as? [String]) {
                let name = URL(fileURLWithPath: path).lastPathComponent
                groupOf[name] = id
                members[id, default: []].append(name)
            }
        }
        XCTAssertEqual(Set(groupOf.keys), Set(rows.keys), "every report in one group", file: file, line: line)
        // Purity: a report counts when its group's kinds have one majority, its own.
        var pure = 0
        for (name, row) in rows {
            guard let id = groupOf[name] else { continue }
            var counts: [String: Int] = [:]
            for member in members[id] ?? [] { counts[rows[member]?.kind ?? "?", default: 0] += 1 }
            let top = counts.values.max() ?? 0
            if counts[row.kind] == top && counts.values.filter({ $0 == top }).count == 1 {
                pure += 1
            } else {
                measure.misgrouped.append("\(name) (\(row.kind)): \(measure.text[id] ?? "") \(counts)")
            }
        }
        measure.purity = Double(pure) / Double(rows.count)
        for (name, row) in rows where isDeviceRelease(row) {
            if let id = groupOf[name] { measure.releaseGroups[row.kind, default: []].insert(id) }
        }
        for (kind, ids) in measure.releaseGroups where ids.count > 1 {
            let sorted = ids.sorted()
            let extra = sorted.dropFirst().filter { id in !sorted.contains { $0 != id && measure.explainedSplit($0, id) } }
            if extra.isEmpty && sorted.count == 2 {
                measure.explainedSplits.append("\(kind): \(sorted.map { measure.text[$0] ?? "" })")
            } else {
                measure.unexplainedSplits.append("\(kind): \(sorted.map { measure.text[$0] ?? "" })")
            }
        }
        return measure
    }
}

/// What ``GroupSet/measure(_:file:line:)`` found.
private struct Measure {
    var text: [String: String] = [:]
    var frames: [String: [String]] = [:]
    var purity = 0.0
    var misgrouped: [String] = []
    /// Kind → the groups of its release builds for arm64, arm64e and x86_64.
    var releaseGroups: [String: Set<String>] = [:]
    var explainedSplits: [String] = []
    var unexplainedSplits: [String] = []

    /// Whether groups `a` and `b` of one kind are split for one of the reasons the rules cannot
    /// undo: one build's debug information names an inlined function at the crash that the
    /// other's does not have (an x86_64 -O2 build that folded a load into its caller's loop:
    /// the frames are the same, one further down), or a faulting address in the app's data,
    /// named `Image+0xOFFSET` (docs/grouping.md).
    func explainedSplit(_ a: String, _ b: String) -> Bool {
        guard let x = frames[a], let y = frames[b] else { return false }
        let shifted = { (p: [String], q: [String]) in p.count >= 2 && q.count >= 2 && Array(p.dropFirst()) == Array(q.prefix(p.count - 1)) }
        let dataAddress = { (p: [String]) in p.count == 1 && p[0].contains("+0x") }
        return shifted(x, y) || shifted(y, x) || (dataAddress(x) && dataAddress(y))
    }

    func summary(_ title: String) -> String {
        let kinds = releaseGroups.count
        let groups = releaseGroups.values.map(\.count).reduce(0, +)
        var lines = [String(format: "group-set %@: %.1f%% of reports in a group of their kind; release builds: %.2f groups per kind (%d groups, %d kinds)",
                            title, purity * 100, Double(groups) / Double(max(kinds, 1)), groups, kinds)]
        lines += explainedSplits.map { "  explained split: " + $0 }
        lines += unexplainedSplits.map { "  split: " + $0 }
        lines += misgrouped.map { "  misgrouped: " + $0 }
        return lines.joined(separator: "\n")
    }
}
