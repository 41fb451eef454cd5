import CrashReport
import Foundation
import TestSupport
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
        let thread: Backtrace = Backtrace(kind: .thread(3), crashed: true)
        XCTAssertEqual(thread.kind, .thread(3))
    }
}

final class ImageLookupTests: XCTestCase {
    /// The rule, the slow way: the smallest image holding the address, the earliest among equals.
    private func expected(_ images: [BinaryImage], _ address: UInt64) -> Int? {
        images.indices.filter { images[$0].loadAddress <= address && address <= images[$0].endAddress }
            .min { (images[$0].endAddress - images[$0].loadAddress, $0) < (images[$1].endAddress - images[$1].loadAddress, $1) }
    }

    func testOverlappingImagesFollowTheRule() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            var images: [BinaryImage] = []
            for _ in 0..<Int.random(in: 1...30, using: &generator) {
                let start = UInt64.random(in: 0...200, using: &generator)
                let end = Bool.random() ? start + UInt64.random(in: 0...80, using: &generator) : start &- 1
                images.append(BinaryImage(loadAddress: start, endAddress: end, name: "i"))
            }
            if Bool.random() { images.append(BinaryImage(loadAddress: 0, endAddress: .max, name: "???")) }
            let report = CrashReport(path: "r", bytes: [], lines: [], images: images)
            for address in UInt64(0)...300 {
                XCTAssertEqual(report.image(containing: address), expected(images, address), "\(address) in \(images)")
            }
            XCTAssertEqual(report.image(containing: .max), expected(images, .max))
        }
    }

    func testManyNestedImagesAreLookedUpQuickly() {
        let count = 20000
        let images = (0..<count).map {
            BinaryImage(loadAddress: 0x1000 + UInt64($0), endAddress: 0x1000_0000 - UInt64($0), name: "n\($0)")
        }
        let start = CPUTime.process
        let report = CrashReport(path: "r", bytes: [], lines: [], images: images)
        var found = 0
        for k in 0..<count where report.image(containing: 0x1000 + UInt64(k)) == k { found += 1 }
        XCTAssertEqual(found, count)
        XCTAssertEqual(report.image(containing: 0x2000_0000), nil)
        XCTAssertEqual(report.image(containing: 0x800_0000), count - 1)
        XCTAssertLessThan(CPUTime.process - start, 2, "lookups must not walk every overlapping image (seconds of CPU)")
    }
}
