import CrashReport
import XCTest

/// A parsed report holds its frames without the spare room that growing arrays leave: of a
/// report with many backtraces, that room would otherwise be paid for each one.
final class ReportMemoryTests: XCTestCase {
    private func backtrace(_ number: Int) -> String {
        "Thread \(number):\n" + (0..<17).map { "\($0)   App   0x\(String(0x104a34000 + $0 * 4, radix: 16)) 0x104a30000 + \(16384 + $0 * 4)\n" }.joined() + "\n"
    }

    func testClassicBacktracesKeepNoSpareRoom() throws {
        let text = (0..<50).map(backtrace).joined()
            + "Binary Images:\n0x104a30000 - 0x104a3ffff App arm64  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /App\n"
        let report = try ReportParser.parse(Array(text.utf8), path: "many.crash")
        XCTAssertEqual(report.threads.count, 50)
        for thread in report.threads {
            XCTAssertEqual(thread.frames.count, 17)
            XCTAssertLessThanOrEqual(thread.frames.capacity, 17 + 17 / 8 + 2, "\(thread.kind)")
        }
    }

    func testLinuxBacktracesKeepNoSpareRoom() throws {
        let text = (0..<50).map { _ in
            "==1==ERROR: AddressSanitizer: heap-use-after-free\n"
                + (0..<17).map { "    #\($0) 0x\(String(0x401000 + $0 * 4, radix: 16))  (/srv/app+0x\(String(0x1000 + $0 * 4, radix: 16)))\n" }.joined()
                + "\n"
        }.joined()
        let report = try ReportParser.parse(Array(text.utf8), path: "asan.log")
        XCTAssertEqual(report.source.kind, .linuxLog)
        XCTAssertEqual(report.threads.count, 50)
        for thread in report.threads {
            XCTAssertEqual(thread.frames.count, 17)
            XCTAssertLessThanOrEqual(thread.frames.capacity, 17 + 17 / 8 + 2, "\(thread.kind)")
        }
    }

    /// A frame is smaller than the line it comes from (a classic frame line is 70 to 100
    /// bytes): a report of a million frames must not cost much more than its bytes. Its
    /// number, line and place in the line take 32 bits each.
    func testAFrameIsCompact() {
        XCTAssertLessThanOrEqual(MemoryLayout<Frame>.stride, 72)
        XCTAssertEqual(MemoryLayout<FrameList>.stride, 8, "a backtrace's frames are one reference")
        XCTAssertLessThanOrEqual(MemoryLayout<Backtrace>.stride, 48)
    }

    /// Values past 32 bits — a frame number past 2^31, a line past 2^31 (a report of many
    /// gigabytes), a place in a line past 2^31 — are kept whole, and a copy of a frame changed
    /// so leaves the original as it was.
    func testFrameValuesPast32BitsAreKept() {
        let text = FrameText()
        var frame = Frame(index: 1 << 40, imageName: "App", address: 0x1000, form: .unknown, line: Int(UInt32.max) + 5,
                          restStart: 1 << 33, text: text)
        XCTAssertEqual(frame.index, 1 << 40)
        XCTAssertEqual(frame.line, Int(UInt32.max) + 5)
        XCTAssertEqual(frame.restStart, 1 << 33)
        let original = frame
        frame.line = 7
        XCTAssertEqual(frame.line, 7)
        XCTAssertEqual(frame.index, 1 << 40)
        XCTAssertEqual(original.line, Int(UInt32.max) + 5, "the copy changed, not the original")
        frame.index = 3
        frame.restStart = nil
        XCTAssertEqual([frame.index, frame.line], [3, 7])
        XCTAssertNil(frame.restStart)
        XCTAssertEqual(original.restStart, 1 << 33)
        XCTAssertEqual(Frame(index: -2, imageName: nil, address: 1, form: .addressOnly, line: 0, restStart: nil).index, -2)
    }

    /// The frames that print the same image or symbol name share one string: the name is held
    /// once per report, not once per frame.
    func testFramesShareTheirNames() throws {
        let line = "libsystem_pthread.dylib        0x18da6eec4 __pthread_kill_implementation + 8\n"
        let text = "Thread 0:\n" + (0..<3).map { "\($0)   " + line }.joined()
            + "\nBinary Images:\n0x18da60000 - 0x18da8ffff libsystem_pthread.dylib arm64e  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /usr/lib/system/libsystem_pthread.dylib\n"
        let report = try ReportParser.parse(Array(text.utf8), path: "shared.crash")
        let frames = report.threads[0].frames
        XCTAssertEqual(frames.count, 3)
        func storage(_ string: String?) -> UnsafePointer<UInt8>? {
            string?.utf8.withContiguousStorageIfAvailable { $0.baseAddress }!
        }
        func symbol(_ frame: Frame) -> String? {
            if case .symbol(let name, _) = frame.form { return name }
            return nil
        }
        XCTAssertEqual(frames[2].imageName, "libsystem_pthread.dylib")
        XCTAssertEqual(symbol(frames[2]), "__pthread_kill_implementation")
        for frame in frames.dropFirst() {
            XCTAssertEqual(storage(frame.imageName), storage(frames[0].imageName), "image name of frame \(frame.index)")
            XCTAssertEqual(storage(symbol(frame)), storage(symbol(frames[0])), "symbol of frame \(frame.index)")
        }
    }
}
