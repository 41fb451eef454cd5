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
}
