import CrashReport
import XCTest

/// `TextRenderer` on tombstones (`TextRenderer+Tombstone.swift`): a resolved frame's line is
/// kept whole and followed by `in FUNCTION FILE:LINE:COLUMN`, inlined frames repeat the line,
/// and every other byte comes back as it was.
final class TombstoneRendererTests: XCTestCase {
    private func render(_ text: String, _ frames: [FrameKey: [SourceFrame]]) throws -> String {
        let report = try TombstoneParser.parse(Array(text.utf8), path: "tombstone.txt")
        var out: [UInt8] = []
        TextRenderer().render(SymbolicatedReport(report: report, frames: frames), into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static let chain = [
        SourceFrame(function: "unit_price", offset: 12, file: "/src/native-lib.c", line: 20, column: 19, inlined: true),
        SourceFrame(function: "line_price", offset: 12, file: "/src/native-lib.c", line: 25, column: 0, inlined: true),
        SourceFrame(function: "cart_total", offset: 36, file: "/src/native-lib.c", line: 32, column: 18),
    ]

    static let line0 = "      #00 pc 000000000000433c  /data/app/lib/arm64/libcrashy.so (cart_total+36) (BuildId: 5f0e)"
    static let line1 = "      #01 pc 00000000000043d8  /data/app/lib/arm64/libcrashy.so"

    func testResolvedFramesFollowTheirLine() throws {
        let text = "pid: 1, tid: 1, name: x  >>> x <<<\nbacktrace:\n\(Self.line0)\n\(Self.line1)\n"
            + "      #02 pc 00000000002d8b14  /apex/com.android.art/lib64/libart.so (art_quick_invoke_stub+548)\n"
        let output = try render(text, [
            FrameKey(thread: 0, frame: 0): Self.chain,
            FrameKey(thread: 0, frame: 1): [SourceFrame(function: "checkout", file: "/src/native-lib.c", line: 39, column: 17)],
        ])
        XCTAssertEqual(output, """
            pid: 1, tid: 1, name: x  >>> x <<<
            backtrace:
            \(Self.line0) in unit_price /src/native-lib.c:20:19
            \(Self.line0) in line_price /src/native-lib.c:25
            \(Self.line0) in cart_total /src/native-lib.c:32:18
            \(Self.line1) in checkout /src/native-lib.c:39:17
                  #02 pc 00000000002d8b14  /apex/com.android.art/lib64/libart.so (art_quick_invoke_stub+548)

            """)
    }

    /// Without a file, the function alone; names are escaped: they stay on their line.
    func testFunctionWithoutFileAndEscapedNames() throws {
        let output = try render("pid: 1, tid: 1\n\(Self.line1)", [
            FrameKey(thread: 0, frame: 0): [SourceFrame(function: "f\n\u{1b}[31m", offset: 4)],
        ])
        XCTAssertEqual(output, "pid: 1, tid: 1\n\(Self.line1) in f\\x0a\\x1b[31m")
    }

    /// Behind logcat's prefix, with CRLF: every added line has the prefix and the line end.
    func testLogcatPrefixAndCRLFAreKept() throws {
        let prefix = "11-20 10:00:00.456  4242  4242 F DEBUG   : "
        let text = "\(prefix)pid: 1, tid: 1, name: x  >>> x <<<\r\n\(prefix)\(Self.line0)\r\n"
        let output = try render(text, [FrameKey(thread: 0, frame: 0): Self.chain])
        XCTAssertEqual(output, "\(prefix)pid: 1, tid: 1, name: x  >>> x <<<\r\n"
            + "\(prefix)\(Self.line0) in unit_price /src/native-lib.c:20:19\r\n"
            + "\(prefix)\(Self.line0) in line_price /src/native-lib.c:25\r\n"
            + "\(prefix)\(Self.line0) in cart_total /src/native-lib.c:32:18\r\n")
    }

    /// The output read again: the added lines are the frame's earlier resolution, replaced as a
    /// whole when the frame is resolved anew, so that the output comes out the same.
    func testResolvingTheOutputAgainGivesTheSameOutput() throws {
        let text = "pid: 1, tid: 1\n\(Self.line0)\n\(Self.line1)\n"
        let frames: [FrameKey: [SourceFrame]] = [
            FrameKey(thread: 0, frame: 0): Self.chain,
            FrameKey(thread: 0, frame: 1): [SourceFrame(function: "checkout")],
        ]
        let once = try render(text, frames)
        // In the output, frame 0's chain is three lines (two inlined): its concrete frame is the third.
        let again = try render(once, [FrameKey(thread: 0, frame: 2): Self.chain, FrameKey(thread: 0, frame: 3): [SourceFrame(function: "checkout")]])
        XCTAssertEqual(again, once)
        XCTAssertEqual(try render(once, [:]), once)
    }
}
