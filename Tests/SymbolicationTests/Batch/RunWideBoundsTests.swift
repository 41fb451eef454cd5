@testable import Symbolication
import XCTest

/// What a run keeps from report to report (warnings said once, the summary's images) is
/// bounded: a batch of reports strangers made can name a new image in every line.
final class RunWideBoundsTests: XCTestCase {
    /// A warning is said once while its key is kept; past ``Diagnostics/saidKept`` keys they
    /// are let go, and the first may be said again.
    func testWarningsSaidOnceAreKeptUpToABound() {
        var lines: [String] = []
        let diagnostics = Diagnostics { lines.append($0) }
        diagnostics.warn("first", once: "key 0")
        diagnostics.warn("first again", once: "key 0")
        XCTAssertEqual(lines.count, 1, "said once")
        XCTAssertTrue(lines[0].hasSuffix("first"), lines[0])
        for k in 1..<Diagnostics.saidKept { diagnostics.warn("line \(k)", once: "key \(k)") }
        XCTAssertEqual(lines.count, Diagnostics.saidKept)
        diagnostics.warn("one more", once: "key \(Diagnostics.saidKept)")
        diagnostics.warn("first, after the bound", once: "key 0")
        XCTAssertEqual(lines.count, Diagnostics.saidKept + 2, "the keys were let go once the bound was met")
    }

    /// The summary's images: at most ``ReportRunner/Tally/missingKept``, in one report's tally
    /// or in the run's; the frames of an image kept are still counted, and an image passed
    /// over is said to be there ("more than").
    func testTheSummaryKeepsABoundedNumberOfImages() {
        func image(_ k: Int) -> ReportRunner.Tally.MissingImage {
            .init(name: "lib\(k).dylib", identifier: String(k, radix: 16), arch: "arm64", reason: "no file")
        }
        var run = ReportRunner.Tally()
        var first = ReportRunner.Tally(reports: 1)
        for k in 0..<(ReportRunner.Tally.missingKept - 1) { first.missing[image(k)] = 1 }
        run.add(first)
        XCTAssertFalse(run.missingPassedOver)
        var second = ReportRunner.Tally(reports: 1)
        second.missing = [image(0): 2, image(ReportRunner.Tally.missingKept): 1, image(ReportRunner.Tally.missingKept + 1): 1]
        run.add(second)
        XCTAssertEqual(run.missing.count, ReportRunner.Tally.missingKept)
        XCTAssertEqual(run.missing[image(0)], 3, "a kept image's frames are counted")
        XCTAssertTrue(run.missingPassedOver, "one of the two new images found the summary full")
        XCTAssertEqual(run.reports, 2)
    }
}
