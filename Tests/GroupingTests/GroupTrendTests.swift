import Foundation
import Grouping
import XCTest

/// Versions, trends and members of groups.
final class GroupTrendTests: XCTestCase {
    private let segv = CrashSignature(kind: "bad access", frames: ["load_word"], source: .appFrames)
    private let trap = CrashSignature(kind: "trap", frames: ["engine_run"], source: .appFrames)

    func testVersionsSortAsVersions() {
        let sorted = ["2.10", "2.9", "10.0", "1.2.1", "1.2", "2.9b"].sorted(by: AppVersion.precedes)
        XCTAssertEqual(sorted, ["1.2", "1.2.1", "2.9", "2.9b", "2.10", "10.0"])
        XCTAssertEqual(AppVersion.marketing("1.2 (34)"), "1.2")
        XCTAssertEqual(AppVersion.marketing("34 (1.2)"), "1.2")
        XCTAssertEqual(AppVersion.marketing("2.0"), "2.0")
        XCTAssertEqual(AppVersion.marketing("1.2.3 (1.2.3.4)"), "1.2.3")
    }

    func testGroupsCountReportsPerVersionAndDayAndMarkNewOnes() throws {
        let table = GroupTable()
        for (i, version) in ["2.9 (29)", "29 (2.9)", "2.10 (30)", "2.9 (29)"].enumerated() {
            table.add(ReportFacts(signature: segv, date: CrashDate("2021-03-1\(i % 2 + 4) 10:00:00 +0000"), appVersion: version), path: "s\(i)")
        }
        table.add(ReportFacts(signature: trap, date: CrashDate("2021-03-20 23:30:00 -0200"), appVersion: "2.10 (30)"), path: "t")
        XCTAssertEqual(table.newestVersion, "2.10")
        let segvGroup = try XCTUnwrap(table.sortedGroups.first { $0.id == segv.id })
        XCTAssertEqual(segvGroup.trend.versionCounts.map(\.version), ["2.9", "2.10"])
        XCTAssertEqual(segvGroup.trend.versionCounts.map(\.count), [3, 1])
        XCTAssertEqual(segvGroup.trend.dayCounts.map(\.day), ["2021-03-14", "2021-03-15"])
        let trapGroup = try XCTUnwrap(table.sortedGroups.first { $0.id == trap.id })
        XCTAssertEqual(trapGroup.trend.dayCounts.map(\.day), ["2021-03-21"], "days in UTC")
        XCTAssertTrue(table.isNewInNewestVersion(trapGroup))
        XCTAssertFalse(table.isNewInNewestVersion(segvGroup))

        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(GroupReport.json(table))) as? [String: Any])
        XCTAssertEqual(json["newest_version"] as? String, "2.10")
        let groups = try XCTUnwrap(json["groups"] as? [[String: Any]])
        let first = try XCTUnwrap(groups.first { $0["id"] as? String == segv.id })
        XCTAssertEqual((first["version_counts"] as? [[String: Any]])?.compactMap { $0["version"] as? String }, ["2.9", "2.10"])
        XCTAssertEqual((first["day_counts"] as? [[String: Any]])?.compactMap { $0["reports"] as? Int }, [2, 2])
        XCTAssertTrue(first["new_in"] is NSNull)
        XCTAssertNil(first["members"], "members only when asked for")
        XCTAssertEqual(groups.first { $0["id"] as? String == trap.id }?["new_in"] as? String, "2.10")
    }

    /// Members are kept only when asked for: without, nothing per report is kept.
    func testMembersAreKeptOnlyWhenAskedFor() throws {
        let plain = GroupTable(), listed = GroupTable(members: true)
        for i in 0..<5_000 {
            let facts = ReportFacts(signature: i % 3 == 0 ? trap : segv, appVersion: "1.\(i % 7)")
            plain.add(facts, path: "r\(i).crash")
            listed.add(facts, path: "r\(i).crash")
        }
        XCTAssertEqual(plain.sortedGroups.map(\.members.count), [0, 0])
        XCTAssertEqual(listed.sortedGroups.map(\.members.count), [3333, 1667])
        XCTAssertEqual(listed.sortedGroups[1].members.prefix(2), ["r0.crash", "r3.crash"])

        let tsv = String(decoding: GroupReport.tsv(listed), as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(tsv.first, "id\tpath")
        XCTAssertEqual(tsv.count, 5_001)
        XCTAssertEqual(tsv[1], "\(segv.id)\tr1.crash")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(GroupReport.json(listed))) as? [String: Any])
        let members = (json["groups"] as? [[String: Any]])?.compactMap { $0["members"] as? [String] }
        XCTAssertEqual(members?.map(\.count), [3333, 1667])
    }
}
