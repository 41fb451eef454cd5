import Foundation
import Grouping
import XCTest

/// The group table: what it keeps per group, its order, and how it is written out.
final class GroupTableTests: XCTestCase {
    private let segv = CrashSignature(kind: "bad access", frames: ["load_word", "payload_header", "header_is_valid"], source: .appFrames)
    private let abort = CrashSignature(kind: "abort", frames: ["require", "check_shelf", "inventory_check"], source: .appFrames)

    private func facts(_ signature: CrashSignature, date: String?, version: String, os: String = "iPhone OS 14.4 (18D52)") -> ReportFacts {
        ReportFacts(signature: signature, exceptionType: signature.kind == "abort" ? "EXC_CRASH (SIGABRT)" : "EXC_BAD_ACCESS (SIGSEGV)",
                    date: date.flatMap(CrashDate.init), appVersion: version, osVersion: os)
    }

    func testGroupsCollectCountsDatesVersionsAndExamples() throws {
        let table = GroupTable(examples: 2)
        table.add(facts(segv, date: "2021-03-15 10:00:00 +0000", version: "2.3.1"), path: "b.crash")
        table.add(facts(abort, date: "2021-03-16 10:00:00 +0000", version: "2.3.1"), path: "c.crash")
        table.add(facts(segv, date: "2021-03-14 10:00:00 +0000", version: "2.3.0"), path: "a.crash")
        table.add(facts(segv, date: nil, version: "2.4"), path: "d.crash")
        table.add(nil, path: "broken.crash")
        XCTAssertEqual(table.reports, 4)
        XCTAssertEqual(table.unreadable, 1)
        let groups = table.sortedGroups
        XCTAssertEqual(groups.map(\.count), [3, 1])
        let first = groups[0]
        XCTAssertEqual(first.id, segv.id)
        XCTAssertEqual(first.firstSeen?.text, "2021-03-14 10:00:00 +0000")
        XCTAssertEqual(first.lastSeen?.text, "2021-03-15 10:00:00 +0000")
        XCTAssertEqual(first.firstVersion, "2.3.0", "the version of the earliest report")
        XCTAssertEqual(first.appVersions.values, ["2.3.1", "2.3.0", "2.4"])
        XCTAssertEqual(first.examples, ["b.crash", "a.crash"], "the first two, in input order")
        XCTAssertEqual(first.share(of: table.reports), 75)
    }

    func testTiesAreOrderedByID() {
        let table = GroupTable()
        table.add(facts(abort, date: nil, version: "1"), path: "a")
        table.add(facts(segv, date: nil, version: "1"), path: "b")
        XCTAssertEqual(table.sortedGroups.map(\.id), [abort.id, segv.id].sorted())
    }

    /// A group's memory is bounded whatever the number of its reports.
    func testWhatAGroupKeepsIsBounded() {
        let table = GroupTable(examples: 3)
        for i in 0..<20_000 {
            table.add(facts(segv, date: "2021-03-14 10:00:00 +0000", version: "1.\(i)", os: "iOS \(i % 40)"), path: "r\(i).crash")
        }
        let group = table.sortedGroups[0]
        XCTAssertEqual(group.count, 20_000)
        XCTAssertEqual(group.examples.count, 3)
        XCTAssertEqual(group.appVersions.values.count, GroupTable.valuesKept)
        XCTAssertTrue(group.appVersions.truncated)
        XCTAssertEqual(group.osVersions.values.count, GroupTable.valuesKept)
    }

    func testTheTableFitsOneHundredColumns() {
        let table = GroupTable()
        let long = CrashSignature(kind: "trap", frames: [String(repeating: "VeryLongSwiftTypeName.", count: 10) + "method",
                                                         "closure #1 in " + String(repeating: "x", count: 80), "main"],
                                  source: .appFrames)
        for i in 0..<1234 {
            table.add(facts(i % 3 == 0 ? long : segv, date: "2021-03-14 10:00:00 +0000", version: "\(i % 20).0 (\(i))",
                            os: "iPhone OS 14.\(i % 9) (18D52)"), path: "/very/long/path/to/the/crash/reports/folder/report-\(i).crash")
        }
        let text = String(decoding: GroupReport.table(table), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertTrue(lines[0].hasPrefix("2 groups in 1234 reports"))
        for line in lines { XCTAssertLessThanOrEqual(line.count, GroupReport.width, String(line)) }
        XCTAssertTrue(text.contains(segv.id))
    }

    func testTSVAndJSON() throws {
        let table = GroupTable()
        table.add(facts(segv, date: "2021-03-14 09:26:53.5312 +0100", version: "1 (1.0)"), path: "a\tb.crash")
        table.add(facts(abort, date: nil, version: "2"), path: "c.crash")
        table.add(facts(segv, date: "2021-03-15 09:26:53 +0100", version: "1 (1.0)"), path: "d.crash")
        let tsv = String(decoding: GroupReport.tsv(table), as: UTF8.self).split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        XCTAssertEqual(tsv.count, 3)
        XCTAssertTrue(tsv.allSatisfy { $0.count == 12 }, "a tab in a path is escaped")
        XCTAssertEqual(tsv[1][0], Substring(segv.id))
        XCTAssertEqual(tsv[1][1], "2")
        XCTAssertEqual(tsv[1][2], "66.7")
        XCTAssertEqual(tsv[1][6], "2021-03-14T08:26:53Z")
        XCTAssertEqual(tsv[1][11], "a\\x09b.crash, d.crash")

        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(GroupReport.json(table))) as? [String: Any])
        XCTAssertEqual(json["reports"] as? Int, 3)
        let groups = try XCTUnwrap(json["groups"] as? [[String: Any]])
        XCTAssertEqual(groups.map { $0["id"] as? String }, [segv.id, abort.id])
        let signature = try XCTUnwrap(groups[0]["signature"] as? [String: Any])
        XCTAssertEqual(signature["frames"] as? [String], segv.frames)
        XCTAssertEqual(signature["kind"] as? String, "bad access")
        XCTAssertEqual(groups[0]["examples"] as? [String], ["a\tb.crash", "d.crash"])
        XCTAssertEqual(groups[0]["last_seen"] as? String, "2021-03-15T08:26:53Z")
        XCTAssertTrue(groups[1]["first_seen"] is NSNull)
    }

    func testThePageEscapesWhatReportsSay() {
        let table = GroupTable()
        let hostile = CrashSignature(kind: "trap", frames: ["<script>alert(1)</script>", "a&b\u{1b}[31m"], source: .appFrames)
        table.add(ReportFacts(signature: hostile, appVersion: "\"><img src=x>"), path: "<b>.crash")
        let page = String(decoding: GroupPage.render(table), as: UTF8.self)
        XCTAssertFalse(page.contains("<script>alert"))
        XCTAssertFalse(page.contains("<img"))
        XCTAssertFalse(page.contains("<b>.crash"))
        XCTAssertFalse(page.contains("\u{1b}"))
        XCTAssertTrue(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        XCTAssertFalse(page.contains("http://") && page.contains("src=\"http"), "nothing is loaded from the network")
    }
}
