import CrashReport
import XCTest

final class TextRendererTests: XCTestCase {
    static let text = "Thread 0 Crashed:\n"
        + "0   libsystem_kernel.dylib        \t0x18da6eec4 __pthread_kill + 8\n"
        + "1   App                           \t0x0000000104a3c5e0 0x104a30000 + 50656\n"
        + "2   App                           \t0x0000000104a3c600 0x104a30000 + 50688\n"
        + "\n"
        + "Binary Images:\n"
        + "0x104a30000 - 0x104a3ffff App arm64  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /App\n"

    static let inlinedAndConcrete = [
        SourceFrame(function: "clamp", offset: 8, file: "/src/include/Math.h", line: 12, column: 3, inlined: true),
        SourceFrame(function: "compute", offset: 40, file: "/src/main.c", line: 42, column: 5),
    ]

    private func render(_ report: CrashReport, _ frames: [FrameKey: [SourceFrame]], fullPath: Bool = false) -> String {
        var out: [UInt8] = []
        TextRenderer(fullPath: fullPath).render(SymbolicatedReport(report: report, frames: frames), into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func testResolvedFrameWithInlinedFrames() throws {
        let report = try parse(Self.text)
        let output = render(report, [FrameKey(thread: 0, frame: 1): Self.inlinedAndConcrete])
        XCTAssertEqual(output, "Thread 0 Crashed:\n"
            + "0   libsystem_kernel.dylib        \t0x18da6eec4 __pthread_kill + 8\n"
            + "1   App                           \t0x0000000104a3c5e0 clamp + 8 (Math.h:12) [inlined]\n"
            + "1   App                           \t0x0000000104a3c5e0 compute + 40 (main.c:42)\n"
            + "2   App                           \t0x0000000104a3c600 0x104a30000 + 50688\n"
            + "\n"
            + "Binary Images:\n"
            + "0x104a30000 - 0x104a3ffff App arm64  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /App\n")
    }

    func testFullPath() throws {
        let report = try parse(Self.text)
        let output = render(report, [FrameKey(thread: 0, frame: 1): Self.inlinedAndConcrete], fullPath: true)
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines[2], "1   App                           \t0x0000000104a3c5e0 clamp + 8 (/src/include/Math.h:12) [inlined]")
        XCTAssertEqual(lines[3], "1   App                           \t0x0000000104a3c5e0 compute + 40 (/src/main.c:42)")
    }

    func testOmittedParts() throws {
        let report = try parse(Self.text)
        let output = render(report, [
            FrameKey(thread: 0, frame: 0): [SourceFrame(function: "__pthread_kill", offset: 8)],
            FrameKey(thread: 0, frame: 1): [SourceFrame(function: "compute", offset: nil, file: "/src/main.c", line: 0)],
            FrameKey(thread: 0, frame: 2): [SourceFrame(function: "main", offset: 16, file: "main.c", line: nil)],
        ])
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines[1], "0   libsystem_kernel.dylib        \t0x18da6eec4 __pthread_kill + 8")
        XCTAssertEqual(lines[2], "1   App                           \t0x0000000104a3c5e0 compute (main.c)")
        XCTAssertEqual(lines[3], "2   App                           \t0x0000000104a3c600 main + 16 (main.c)")
        XCTAssertEqual(lines.count, 8)
    }

    func testUnresolvedFramesAreUntouched() throws {
        let report = try parse(Self.text)
        XCTAssertEqual(render(report, [:]), Self.text)
        XCTAssertEqual(render(report, [FrameKey(thread: 0, frame: 1): []]), Self.text, "an empty resolution is none")
        XCTAssertEqual(render(report, [FrameKey(thread: 5, frame: 0): Self.inlinedAndConcrete,
                                       FrameKey(thread: 0, frame: 9): Self.inlinedAndConcrete]), Self.text,
                       "keys that name no frame are ignored")
        let output = render(report, [FrameKey(thread: 0, frame: 2): [SourceFrame(function: "f", offset: 1)]])
        XCTAssertEqual(output, Self.text.replacingOccurrences(of: "0x0000000104a3c600 0x104a30000 + 50688",
                                                              with: "0x0000000104a3c600 f + 1"))
    }

    func testAddressListBecomesNumberedFramesWhenOneResolves() throws {
        let text = "Last Exception Backtrace:\n(0x104a3c5e0\n 0x104a3c600 0x5)\n\nBinary Images:\n"
            + "0x104a30000 - 0x104a3ffff App arm64  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /App\n"
        let report = try parse(text)
        XCTAssertEqual(report.threads[0].frames.count, 3)
        XCTAssertEqual(report.threads[0].addressListLines, 1..<3)
        XCTAssertEqual(render(report, [:]), text, "a list nothing resolves is kept")
        XCTAssertEqual(render(report, [FrameKey(thread: 0, frame: 0): Self.inlinedAndConcrete]),
                       "Last Exception Backtrace:\n"
                       + "0   App                           \t0x0000000104a3c5e0 clamp + 8 (Math.h:12) [inlined]\n"
                       + "0   App                           \t0x0000000104a3c5e0 compute + 40 (main.c:42)\n"
                       + "1   App                           \t0x0000000104a3c600 0x104a30000 + 50688\n"
                       + "2   ???                           \t0x0000000000000005 ???\n"
                       + "\nBinary Images:\n"
                       + "0x104a30000 - 0x104a3ffff App arm64  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /App\n")
    }

    func testCRLFLinesKeepTheirTerminator() throws {
        let text = "Thread 0:\r\n0   App  0x1000 0x1000 + 0\r\n1   App  0x1010 0x1000 + 16\r\n"
        let report = try parse(text)
        let output = render(report, [FrameKey(thread: 0, frame: 0): Self.inlinedAndConcrete])
        XCTAssertEqual(output, "Thread 0:\r\n"
            + "0   App  0x1000 clamp + 8 (Math.h:12) [inlined]\r\n"
            + "0   App  0x1000 compute + 40 (main.c:42)\r\n"
            + "1   App  0x1010 0x1000 + 16\r\n")
    }

    func testLastLineWithoutNewline() throws {
        let text = "Thread 0:\r\n0   App  0x1000 0x1000 + 0"
        let report = try parse(text)
        let output = render(report, [FrameKey(thread: 0, frame: 0): Self.inlinedAndConcrete])
        XCTAssertEqual(output, "Thread 0:\r\n"
            + "0   App  0x1000 clamp + 8 (Math.h:12) [inlined]\r\n"
            + "0   App  0x1000 compute + 40 (main.c:42)",
            "inlined lines borrow the previous line's terminator; the last stays unterminated")
    }

    func testAddressAtTheEndOfTheLine() throws {
        let text = "Thread 0:\n0   App  0x1000\n"
        let report = try parse(text)
        XCTAssertEqual(report.threads[0].frames[0].form, .unknown)
        let output = render(report, [FrameKey(thread: 0, frame: 0): [SourceFrame(function: "f", offset: 2)]])
        XCTAssertEqual(output, "Thread 0:\n0   App  0x1000 f + 2\n")
    }

    func testRenderingAppends() throws {
        let report = try parse(Self.text)
        var out = Array("before\n".utf8)
        TextRenderer().render(SymbolicatedReport(report: report), into: &out)
        XCTAssertEqual(out, Array(("before\n" + Self.text).utf8))
    }
}
