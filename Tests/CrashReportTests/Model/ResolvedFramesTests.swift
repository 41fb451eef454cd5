import CrashReport
import XCTest

/// The table of source frames by frame: it behaves like a dictionary of the resolved frames.
final class ResolvedFramesTests: XCTestCase {
    private let compute = [SourceFrame(function: "compute", offset: 8, file: "/src/main.c", line: 42)]

    func testEntriesComeBackByKeyAndInReportOrder() {
        var frames: ResolvedFrames = [FrameKey(thread: 1, frame: 3): compute]
        frames[FrameKey(thread: 0, frame: 2)] = compute
        frames[FrameKey(thread: 1, frame: 0)] = compute
        XCTAssertEqual(frames.count, 3)
        XCTAssertEqual(frames.keys, [FrameKey(thread: 0, frame: 2), FrameKey(thread: 1, frame: 0), FrameKey(thread: 1, frame: 3)])
        XCTAssertEqual(frames[FrameKey(thread: 1, frame: 3)], compute)
        XCTAssertNil(frames[FrameKey(thread: 1, frame: 1)])
        XCTAssertNil(frames[FrameKey(thread: 7, frame: 0)])
        XCTAssertNil(frames[FrameKey(thread: 0, frame: -1)])
    }

    func testAnEmptyResolutionIsNone() {
        var frames = ResolvedFrames([FrameKey(thread: 0, frame: 0): compute, FrameKey(thread: 0, frame: 1): []])
        XCTAssertEqual(frames.count, 1)
        XCTAssertNil(frames[FrameKey(thread: 0, frame: 1)])
        frames[FrameKey(thread: 0, frame: 0)] = []
        XCTAssertTrue(frames.isEmpty)
        XCTAssertEqual(Array(frames).count, 0)
        frames[FrameKey(thread: 2, frame: 5)] = nil
        XCTAssertTrue(frames.isEmpty)
    }

    /// A table made for a report: every frame of every thread (empty ones too) has a place,
    /// the same array given to several frames is kept once, and frames past the report's
    /// frames still get a place.
    func testATableForAReportMatchesADictionary() throws {
        let text = "Thread 0:\n0 App 0x1000 0x1000 + 0\n\nThread 1:\n\nThread 2:\n"
            + (0..<9).map { "\($0) App 0x\(String(0x1000 + $0, radix: 16)) 0x1000 + \($0)\n" }.joined()
        let report = try ReportParser.parse(Array(text.utf8), path: "t.crash")
        XCTAssertEqual(report.threads.map(\.frames.count), [1, 0, 9])
        var table = ResolvedFrames(for: report)
        var expected: [FrameKey: [SourceFrame]] = [:]
        let other = [SourceFrame(function: "other", offset: nil, file: nil, line: nil)]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let key = FrameKey(thread: Int.random(in: 0...3, using: &generator), frame: Int.random(in: 0...11, using: &generator))
            let value: [SourceFrame] = [compute, other, []].randomElement(using: &generator)!
            table[key] = value
            expected[key] = value.isEmpty ? nil : value
            XCTAssertEqual(table.count, expected.count)
        }
        for (key, value) in expected { XCTAssertEqual(table[key], value, "\(key)") }
        XCTAssertEqual(table.keys, expected.keys.sorted { ($0.thread, $0.frame) < ($1.thread, $1.frame) })
        XCTAssertTrue(ResolvedFrames(for: report).isEmpty)
    }
}
