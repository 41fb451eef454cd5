import CrashReport
import XCTest

final class CrashReportTests: XCTestCase {
    private func report(_ images: [BinaryImage]) -> CrashReport {
        CrashReport(path: "test", bytes: [], lines: [], images: images)
    }

    func testImageContainingUsesInclusiveRanges() {
        let report = report([
            BinaryImage(loadAddress: 0x3000, endAddress: 0x3fff, name: "C"),
            BinaryImage(loadAddress: 0x1000, endAddress: 0x1fff, name: "A"),
            BinaryImage(loadAddress: 0x2000, endAddress: 0x2fff, name: "B"),
        ])
        XCTAssertNil(report.image(containing: 0xfff))
        XCTAssertEqual(report.image(containing: 0x1000), 1)
        XCTAssertEqual(report.image(containing: 0x1fff), 1)
        XCTAssertEqual(report.image(containing: 0x2000), 2)
        XCTAssertEqual(report.image(containing: 0x3fff), 0)
        XCTAssertNil(report.image(containing: 0x4000))
        XCTAssertNil(report.image(containing: .max))
    }

    func testImageContainingPrefersTheSmallestRange() {
        let report = report([
            BinaryImage(loadAddress: 0, endAddress: .max, name: "???"),
            BinaryImage(loadAddress: 0x1000, endAddress: 0x9fff, name: "Outer"),
            BinaryImage(loadAddress: 0x2000, endAddress: 0x2fff, name: "Inner"),
            BinaryImage(loadAddress: 0x2000, endAddress: 0x2fff, name: "Twin"),
            BinaryImage(loadAddress: 0xa000, endAddress: 0xafff, name: "After"),
        ])
        XCTAssertEqual(report.image(containing: 0x1800), 1)
        XCTAssertEqual(report.image(containing: 0x2800), 2, "the earlier of two equal ranges")
        XCTAssertEqual(report.image(containing: 0x3000), 1, "an earlier, longer image still reaches here")
        XCTAssertEqual(report.image(containing: 0xa000), 4)
        XCTAssertEqual(report.image(containing: 0x10), 0, "only the placeholder contains it")
        XCTAssertEqual(report.image(containing: .max), 0)
    }

    func testImageContainingFollowsChangesToImages() {
        var report = report([BinaryImage(loadAddress: 0x1000, endAddress: 0x1fff, name: "A")])
        XCTAssertNil(report.image(containing: 0x5000))
        report.images.append(BinaryImage(loadAddress: 0x5000, endAddress: 0x5fff, name: "B"))
        XCTAssertEqual(report.image(containing: 0x5000), 1)
        report.images[0].endAddress = 0x8fff
        XCTAssertEqual(report.image(containing: 0x6000), 0)
    }

    func testImageContainingIgnoresInvertedRanges() {
        let report = report([BinaryImage(loadAddress: 0x2000, endAddress: 0x1000, name: "Bad")])
        XCTAssertNil(report.image(containing: 0x1800))
        XCTAssertNil(report.image(containing: 0x2000))
    }

    func testThreadIsReachableBesideFoundation() {
        let thread: CrashReport.Thread = ReportThread(kind: .thread(3), crashed: true)
        XCTAssertEqual(thread.kind, .thread(3))
    }
}
