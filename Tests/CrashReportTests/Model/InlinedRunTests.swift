import CrashReport
import XCTest

/// Which inlined lines of an already symbolicated report belong to a concrete frame: one rule
/// (`Thread.inlinedRun(endingAt:)`) that the text, JSON and frames renderers all follow.
final class InlinedRunTests: XCTestCase {
    /// Two inlined lines before frame 0's concrete line; the second is at another address, so
    /// neither belongs to the concrete frame.
    static let otherAddressBetween = "Thread 0:\n"
        + "0   App  0x1000 clamp + 8 (Math.h:12) [inlined]\n"
        + "0   App  0x1004 other + 4 (Other.h:3) [inlined]\n"
        + "0   App  0x1000 compute + 40 (main.c:42)\n"
        + "1   App  0x1010 0x1000 + 16\n"

    static let sameAddress = "Thread 0:\n"
        + "0   App  0x1000 clamp + 8 (Math.h:12) [inlined]\n"
        + "0   App  0x1000 other + 4 (Other.h:3) [inlined]\n"
        + "0   App  0x1000 compute + 40 (main.c:42)\n"
        + "1   App  0x1010 0x1000 + 16\n"

    static let resolved = [SourceFrame(function: "fresh", offset: 2, file: "/src/fresh.c", line: 7)]

    func testRunStopsAtAnInlinedLineOfAnotherAddress() throws {
        let report = try parse(Self.otherAddressBetween)
        let thread = report.threads[0]
        XCTAssertEqual(thread.frames.map(\.inlined), [true, true, false, false])
        XCTAssertEqual(thread.inlinedRun(endingAt: 2), 2..<3)
        XCTAssertEqual(thread.inlinedRun(endingAt: 3), 3..<4, "frame 2 is not inlined")
        XCTAssertEqual(thread.inlinedRun(endingAt: 0), 0..<1)

        let symbolicated = SymbolicatedReport(report: report, frames: [FrameKey(thread: 0, frame: 2): Self.resolved])
        XCTAssertFalse(symbolicated.replacesInlinedLine(thread: 0, frame: 0))
        XCTAssertFalse(symbolicated.replacesInlinedLine(thread: 0, frame: 1))
        XCTAssertFalse(symbolicated.replacesInlinedLine(thread: 0, frame: 2))

        var text: [UInt8] = []
        TextRenderer().render(symbolicated, into: &text)
        XCTAssertEqual(String(decoding: text, as: UTF8.self), Self.otherAddressBetween.replacingOccurrences(
            of: "0x1000 compute + 40 (main.c:42)", with: "0x1000 fresh + 2 (fresh.c:7)"))

        var frames: [UInt8] = []
        FramesRenderer().render(symbolicated, into: &frames)
        let functions = String(decoding: frames, as: UTF8.self).split(separator: "\n")
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false)[5] }
        XCTAssertEqual(functions, ["clamp", "other", "fresh", ""], "the inlined lines are kept, as in the text")

        var json: [UInt8] = []
        JSONRenderer.render([symbolicated], into: &json)
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        let reports = try XCTUnwrap(root["reports"] as? [[String: Any]])
        let threads = try XCTUnwrap(reports.first?["threads"] as? [[String: Any]])
        let jsonFrames = try XCTUnwrap(threads.first?["frames"] as? [[String: Any]])
        XCTAssertEqual(jsonFrames.map { $0["symbol"] as? String }, ["clamp", "other", "fresh", nil])
    }

    func testRunTakesEveryInlinedLineOfTheSameAddress() throws {
        let report = try parse(Self.sameAddress)
        let thread = report.threads[0]
        XCTAssertEqual(thread.inlinedRun(endingAt: 2), 0..<3)

        let symbolicated = SymbolicatedReport(report: report, frames: [FrameKey(thread: 0, frame: 2): Self.resolved])
        XCTAssertTrue(symbolicated.replacesInlinedLine(thread: 0, frame: 0))
        XCTAssertTrue(symbolicated.replacesInlinedLine(thread: 0, frame: 1))
        XCTAssertFalse(symbolicated.replacesInlinedLine(thread: 0, frame: 2))
        XCTAssertFalse(SymbolicatedReport(report: report).replacesInlinedLine(thread: 0, frame: 0),
                       "an unresolved concrete frame keeps its inlined lines")

        var text: [UInt8] = []
        TextRenderer().render(symbolicated, into: &text)
        XCTAssertEqual(String(decoding: text, as: UTF8.self),
                       "Thread 0:\n0   App  0x1000 fresh + 2 (fresh.c:7)\n1   App  0x1010 0x1000 + 16\n")

        var frames: [UInt8] = []
        FramesRenderer().render(symbolicated, into: &frames)
        XCTAssertEqual(String(decoding: frames, as: UTF8.self).split(separator: "\n").count, 2)
    }

    func testRunNeedsAdjacentLines() throws {
        // An inlined frame that is not on the line just before ends the run.
        var report = try parse(Self.sameAddress)
        report.threads[0].frames[1].line = report.threads[0].frames[2].line
        XCTAssertEqual(report.threads[0].inlinedRun(endingAt: 2), 2..<3)
    }
}
