import Foundation
import Grouping
import TestSupport
import XCTest

/// Report dates read as points in time, against GNU date's reading of the same text.
final class CrashDateTests: XCTestCase {
    func testDatesAgreeWithGNUDate() throws {
        let texts = [
            "2021-03-14 09:26:53.5312 +0100", "2021-03-14 09:26:53 +0000", "2022-02-21 16:45:09.6621 -0530",
            "1999-12-31 23:59:59.00 +1400", "2024-02-29 00:00:00 +0000", "1970-01-01 00:00:00 +0000",
            "2038-01-19 03:14:08 +0000", "2100-03-01 12:00:00 -0800",
        ]
        for text in texts {
            let date = try XCTUnwrap(CrashDate(text), text)
            let gnu = try runProcess("/bin/date", ["-u", "-d", text.replacingOccurrences(of: ".5312", with: "")
                .replacingOccurrences(of: ".6621", with: "").replacingOccurrences(of: ".00", with: ""), "+%s"])
            XCTAssertEqual(date.seconds, Int64(gnu.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)), text)
            let iso = try runProcess("/bin/date", ["-u", "-d", "@\(date.seconds)", "+%Y-%m-%dT%H:%M:%SZ"])
            XCTAssertEqual(date.iso8601, iso.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines), text)
        }
    }

    func testFormsAndOrder() throws {
        XCTAssertEqual(CrashDate("2021-03-14T09:26:53Z")?.iso8601, "2021-03-14T09:26:53Z")
        XCTAssertEqual(CrashDate("2021-03-14 09:26:53")?.iso8601, "2021-03-14T09:26:53Z", "no zone: UTC")
        XCTAssertEqual(CrashDate("2021-03-14 09:26:53 +05:30")?.iso8601, "2021-03-14T03:56:53Z")
        XCTAssertEqual(CrashDate("2021-03-14 09:26:53 +0100")?.day, "2021-03-14")
        let earlier = try XCTUnwrap(CrashDate("2021-03-14 09:00:00 +0100"))
        let later = try XCTUnwrap(CrashDate("2021-03-14 08:30:00 +0000"))
        XCTAssertLessThan(earlier, later, "08:00 UTC before 08:30 UTC whatever the local times say")
        for bad in ["", "yesterday", "2021-13-01 00:00:00", "2021-03-14", "2021-03-14 25:00:00", "２０２１-03-14 09:26:53"] {
            XCTAssertNil(CrashDate(bad), bad)
        }
    }
}
