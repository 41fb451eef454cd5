@testable import CrashReport
import XCTest

final class CallTreeReportParserTests: XCTestCase {
    private func parse(_ text: String) throws -> CrashReport {
        try ReportParser.parse(Array(text.utf8), path: "test.diag")
    }

    /// Two processes load different images at one address: each frame goes to the image of
    /// its own process's Binary Images block, found by base = address − offset.
    func testFramesLandInTheirOwnProcessesImages() throws {
        let report = try parse("""
            Data Source:      Microstackshots

            Powerstats for:   First [1]
              3  ??? (First + 16) [0x100000010]

              Binary Images:
                       0x100000000 -                ???  com.example.First 1.0 (1) <11111111-1111-1111-1111-111111111111>  /First
                       0x1a0000000 -        0x1a0000fff  libA.dylib <33333333-3333-3333-3333-333333333333>  /usr/lib/libA.dylib

            Powerstats for:   Second [2]
              2  ??? (Second + 32) [0x100000020]
                2  ??? (libA.dylib + 8) [0x1a0000008]

              Binary Images:
                       0x100000000 -                ???  com.example.Second 1.0 (1) <22222222-2222-2222-2222-222222222222>  /Second
                       0x1a0000000 -        0x1a0000fff  libA.dylib <33333333-3333-3333-3333-333333333333>  /usr/lib/libA.dylib

            """)
        XCTAssertEqual(report.source.kind, .callTree)
        XCTAssertEqual(report.threads.count, 2)
        XCTAssertEqual(report.threads.map(\.name), ["First [1]", "Second [2]"])
        let first = report.threads[0].frames[0]
        XCTAssertEqual(first.image.map { report.images[$0].uuid }, "11111111111111111111111111111111")
        XCTAssertEqual(first.imageOffset, 16)
        let second = report.threads[1].frames
        XCTAssertEqual(second[0].image.map { report.images[$0].uuid }, "22222222222222222222222222222222")
        XCTAssertEqual(second[0].returnAddress, true, "a node with a child holds a return address")
        XCTAssertEqual(second[1].returnAddress, false, "a leaf holds the sampled PC")
        XCTAssertEqual(second.map(\.index), [0, 1], "a node's index is its depth")
        XCTAssertEqual(report.source.callTree?.nodes[1].map(\.samples), [2, 2])
    }

    /// Symbols with parentheses, source locations, a time range after the address, kernel
    /// frames and frames without an address, as spindump prints them.
    /// A call tree is told by a line that opens one, wherever it is: first, last, after blanks,
    /// with or without a line end or a carriage return; not by the words inside a line.
    func testACallTreeIsToldByALineThatOpensOne() {
        let yes = ["Call graph:\n", "x\n  Call graph:", "a\r\nHeaviest stack for the main thread\r\n",
                   "Data Source:      Stackshots\nb", "\n\nData Source: Microstackshots", "\tCall graph:  \n"]
        let no = ["", "\n", "Call graph", "x Call graph:\n", "Data Source: Samples\n", "Date/Time: Call graph:",
                  "Heaviest stack", "Thread 0 Crashed:\n0 App 0x1 main + 4\n"]
        for text in yes { XCTAssertTrue(CallTreeReportParser.looksLikeCallTree(Array(text.utf8)), text.debugDescription) }
        for text in no { XCTAssertFalse(CallTreeReportParser.looksLikeCallTree(Array(text.utf8)), text.debugDescription) }
    }

    func testSpindumpLines() throws {
        let report = try parse("""
            Heaviest stack for the main thread of the target process:
              49  static App.$main() + 35 (App.swift:31,1 in App + 17460019) [0x10772db33] 1-49
              49  CA::Layer::setter(unsigned int, _CAValueType, void const*) + 157 (QuartzCore + 34665) [0x7ff80b8d4769]
             *1   hndl_alltraps + 223 (kernel + 39327) [0xffffff800021999f]
              16  start_wqthread + 15 (libsystem_pthread.dylib)

            """)
        let frames = report.threads[0].frames
        XCTAssertEqual(frames.count, 4)
        XCTAssertEqual(frames[0].form, .symbolicated(name: "static App.$main()", offset: 35, file: "App.swift", line: 31))
        XCTAssertEqual(frames[0].imageName, "App")
        XCTAssertEqual(frames[1].form, .symbol(name: "CA::Layer::setter(unsigned int, _CAValueType, void const*)", offset: 157))
        XCTAssertEqual(frames[1].imageName, "QuartzCore")
        XCTAssertEqual(frames[2].address, 0xffffff800021999f)
        XCTAssertEqual(frames[3].imageName, "libsystem_pthread.dylib")
        XCTAssertEqual(frames.map(\.returnAddress), [true, true, true, false], "a heaviest stack ends in its PC")
    }

    func testAReportWithoutFramesSaysSo() throws {
        let report = try parse("Data Source:      Stackshots\n\nHeaviest stack for the target process:\n  ...\n")
        XCTAssertEqual(report.warnings.count, 1)
        XCTAssertTrue(report.warnings[0].contains("written as it is"))
    }

    func testNonCrashIPSTypesPassThroughWithAWarning() throws {
        let text = "{\"bug_type\":\"298\",\"os_version\":\"iPhone OS 14.4 (18D52)\"}\n{\"largestProcess\":\"App\"}"
        let report = try parse(text)
        XCTAssertEqual(report.source.kind, .noBacktraces)
        XCTAssertEqual(renderedUnchanged(report), Array(text.utf8))
        XCTAssertEqual(report.warnings, ["test.diag: a jetsam event report (bug_type 298) holds no frames to symbolicate; written as it is"])
    }
}
