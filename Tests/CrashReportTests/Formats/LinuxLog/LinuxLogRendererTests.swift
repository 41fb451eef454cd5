import CrashReport
import XCTest

/// `TextRenderer` on Linux logs: resolved frames in the sanitizers' `in FUNC FILE:LINE:COL`
/// form, inlined frames as repeated lines, everything else byte for byte.
final class LinuxLogRendererTests: XCTestCase {
    private func render(_ text: String, _ frames: [FrameKey: [SourceFrame]]) throws -> String {
        let report = try LinuxLogParser.parse(Array(text.utf8), path: "test.log")
        var out: [UInt8] = []
        TextRenderer().render(SymbolicatedReport(report: report, frames: frames), into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static let chain = [
        SourceFrame(function: "item_weight", offset: 8, file: "/src/inventory.h", line: 25, column: 12, inlined: true),
        SourceFrame(function: "shelf_weight", offset: 8, file: "/src/inventory.h", line: 31, column: 0, inlined: true),
        SourceFrame(function: "inventory_total", offset: 56, file: "/src/inventory.c", line: 10, column: 18),
    ]

    func testSanitizerFramesAsTheSanitizerPrintsThem() throws {
        let text = """
            READ of size 4 at 0x7b6b565e0028 thread T0
                #0 0x55c9f9e4943d  (/tmp/prog+0x17443d) (BuildId: 4f2c)
                #1 0x55c9f9e48eee  (/tmp/prog+0x173eee)
                #2 0x7f0b57245249  (/lib/x86_64-linux-gnu/libc.so.6+0x27249)

            """
        let output = try render(text, [
            FrameKey(thread: 0, frame: 0): Self.chain,
            FrameKey(thread: 0, frame: 1): [SourceFrame(function: "main", file: "/src/main.c", line: 39, column: nil)],
        ])
        XCTAssertEqual(output, """
            READ of size 4 at 0x7b6b565e0028 thread T0
                #0 0x55c9f9e4943d in item_weight /src/inventory.h:25:12
                #0 0x55c9f9e4943d in shelf_weight /src/inventory.h:31
                #0 0x55c9f9e4943d in inventory_total /src/inventory.c:10:18
                #1 0x55c9f9e48eee in main /src/main.c:39
                #2 0x7f0b57245249  (/lib/x86_64-linux-gnu/libc.so.6+0x27249)

            """)
    }

    func testSanitizerFrameWithoutASourceFileKeepsItsModule() throws {
        let text = "    #7 0x5607583e4260  (/tmp/prog+0x80260) (BuildId: 4f2c)\n    #8 0x5  (<unknown module>)\n"
        let output = try render(text, [
            FrameKey(thread: 0, frame: 0): [SourceFrame(function: "_start", offset: 32)],
            FrameKey(thread: 0, frame: 1): [SourceFrame(function: "f")],
        ])
        XCTAssertEqual(output, "    #7 0x5607583e4260 in _start (/tmp/prog+0x80260) (BuildId: 4f2c)\n    #8 0x5 in f\n",
                       "as a sanitizer prints a function it has no source for")
    }

    func testGlibcFramesGetTheTextAfterTheLineAndAnInlinedMark() throws {
        let text = "backtrace:\r\n./prog(+0x1388)[0x55fd7aec4388]\r\n./prog(+0x1145) [0x55fd7aec4145]  \r\n"
            + "/lib/x86_64-linux-gnu/libc.so.6(abort+0xd3)[0x7fea7f400472]"
        let output = try render(text, [
            FrameKey(thread: 0, frame: 0): Self.chain,
            FrameKey(thread: 0, frame: 1): [SourceFrame(function: "main", file: "/src/main.c", line: 65, column: 5)],
            FrameKey(thread: 0, frame: 2): [SourceFrame(function: "raise", inlined: true), SourceFrame(function: "abort")],
        ])
        XCTAssertEqual(output, "backtrace:\r\n"
            + "./prog(+0x1388)[0x55fd7aec4388] in item_weight /src/inventory.h:25:12 [inlined]\r\n"
            + "./prog(+0x1388)[0x55fd7aec4388] in shelf_weight /src/inventory.h:31 [inlined]\r\n"
            + "./prog(+0x1388)[0x55fd7aec4388] in inventory_total /src/inventory.c:10:18\r\n"
            + "./prog(+0x1145) [0x55fd7aec4145] in main /src/main.c:65:5\r\n"
            + "/lib/x86_64-linux-gnu/libc.so.6(abort+0xd3)[0x7fea7f400472] in raise [inlined]\r\n"
            + "/lib/x86_64-linux-gnu/libc.so.6(abort+0xd3)[0x7fea7f400472] in abort")
    }

    func testLLVMFramesAndMissingParts() throws {
        let text = """
             #0 0x000055d0c0a01234 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/usr/bin/clang+0x1234)
             #1 0x000055d0c0a01300 (/usr/bin/clang+0x1300)
             #2 0x000055d0c0a01400
            """
        let output = try render(text, [
            FrameKey(thread: 0, frame: 0): [SourceFrame(function: "llvm::sys::PrintStackTrace(llvm::raw_ostream&, int)")],
            FrameKey(thread: 0, frame: 1): [SourceFrame(function: "f", file: "/src/f.c", line: nil, column: 7)],
            FrameKey(thread: 0, frame: 2): [SourceFrame(function: "g", file: "", line: 3)],
        ])
        XCTAssertEqual(output, """
             #0 0x000055d0c0a01234 in llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/usr/bin/clang+0x1234)
             #1 0x000055d0c0a01300 in f /src/f.c
             #2 0x000055d0c0a01400 in g
            """)
    }
}
