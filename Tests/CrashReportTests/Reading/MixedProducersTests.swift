@testable import CrashReport
import XCTest

/// A log of several producers (``MixedProducers``): each producer's frames are read into
/// backtraces of their own, and each is written back in its producer's form.
final class MixedProducersTests: XCTestCase {
    static let swiftPart = """
        *** Program crashed: Illegal instruction at 0x00007fb6e116df7f ***

        Thread 0 "crash" crashed:

        0      0x00007fb6e116df7f
        1 [ra] 0x0000555f68c29175

        Registers:

        rax 0x0000000000000000  0

        Images (12 omitted):

        0x0000555f68c28000–0x0000555f68c293e8 6e0ece0a047f56339fcfe4fc34566a0bfcf261c1 crash    /tmp/mix/crash

        """

    static let llvmPart = """
        PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ and include the crash backtrace.
        Stack dump:
        0.\tProgram arguments: ./llvmtool
         #0 0x00007f3ffe4b73c6 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/usr/lib/llvm-19/lib/libLLVM.so.19.1+0xeb73c6)
         #1 0x0000558d79143188 (./llvmtool+0x1188)
         #2 0x0000558d791431d9 (./llvmtool+0x11d9)

        """

    static let glibcPart = """
        progress backtrace:
        ./app(report_progress+0x7c)[0x557508a0c275]
        ./app(main+0xc)[0x557508a0c40f]

        """

    func testEachProducersFramesAreABacktraceOfTheirOwn() throws {
        let log = "[12/40] Compiling\n" + Self.llvmPart + Self.swiftPart + Self.glibcPart + "done\n"
        let report = try ReportParser.parse(Array(log.utf8), path: "build.log")
        guard case .swiftBacktrace(nil) = report.source else { return XCTFail("read as \(report.source)") }
        XCTAssertEqual(report.threads.count, 3)
        XCTAssertEqual(report.threads.map(\.kind), [.thread(0), .thread(1), .thread(2)])
        XCTAssertEqual(report.threads.map(\.crashed), [true, false, false])
        XCTAssertEqual(report.threads.map(\.frames.count), [2, 3, 2])
        XCTAssertEqual(report.otherProducers, [BacktraceProducer(threads: 1..<3, frameLines: .linux, frameNaming: .standard)])
        XCTAssertEqual((0..<3).map { report.frameLines(ofThread: $0) }, [.swiftRuntime, .linux, .linux])
        XCTAssertEqual((0..<3).map { report.frameNaming(ofThread: $0) }, [.swiftRuntime, .standard, .standard])
        // The Linux frames name images of their own, after the Swift log's.
        let llvmImages = Set(report.threads[1].frames.compactMap(\.image).map { report.images[$0].name })
        XCTAssertEqual(llvmImages, ["libLLVM.so.19.1", "llvmtool"])
        XCTAssertEqual(report.threads[2].frames.compactMap(\.image).map { report.images[$0].name }, ["app", "app"])
        XCTAssertEqual(report.images.first?.name, "crash")
        XCTAssertEqual(renderedUnchanged(report), Array(log.utf8), "nothing resolved: the log comes back byte for byte")
    }

    /// Each resolved frame is written in its own producer's form.
    func testResolvedFramesAreWrittenInTheirProducersForm() throws {
        let log = Self.llvmPart + Self.swiftPart
        let report = try ReportParser.parse(Array(log.utf8), path: "build.log")
        let frame = SourceFrame(function: "parse_module(Node*)", offset: 8, file: "/src/tool.cpp", line: 5, column: 62)
        let swift = SourceFrame(function: "level3(_:_:)", offset: 68, file: "/src/crash.swift", line: 1, column: 69)
        let symbolicated = SymbolicatedReport(report: report, frames: [FrameKey(thread: 1, frame: 1): [frame],
                                                                        FrameKey(thread: 0, frame: 1): [swift]])
        var out: [UInt8] = []
        TextRenderer().render(symbolicated, into: &out)
        let text = String(decoding: out, as: UTF8.self)
        XCTAssertTrue(text.contains("\n #1 0x0000558d79143188 in parse_module(Node*) /src/tool.cpp:5:62\n"), text)
        XCTAssertTrue(text.contains("\n1 [ra] 0x0000555f68c29175 level3(_:_:) + 68 in crash at /src/crash.swift:1:69\n"), text)
    }

    /// A tombstone with a sanitizer's report among its lines (an app run with `wrap.sh`):
    /// the sanitizer's frames are a backtrace after the tombstone's.
    func testASanitizersFramesInATombstoneAreReadToo() throws {
        let log = """
            *** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***
            ABI: 'arm64'
            pid: 4242, tid: 4242, name: example  >>> com.example <<<
            backtrace:
                  #00 pc 00000000000043c0  /data/app/~~x==/com.example-y==/lib/arm64/libcrashy.so (BuildId: 070a0337)
            ==4242==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x0040 at pc 0x7b2c4a5d3c
                #0 0x7b2c4a431c  (/data/app/~~x==/com.example-y==/lib/arm64/libcrashy.so+0x431c) (BuildId: 070a0337)
                #1 0x7b2c4a43c0  (/data/app/~~x==/com.example-y==/lib/arm64/libcrashy.so+0x43c0) (BuildId: 070a0337)

            """
        let report = try ReportParser.parse(Array(log.utf8), path: "tombstone_01")
        guard case .tombstone = report.source else { return XCTFail("read as \(report.source)") }
        XCTAssertEqual(report.threads.map(\.frames.count), [1, 2])
        XCTAssertEqual((0..<2).map { report.frameLines(ofThread: $0) }, [.tombstone, .linux])
        XCTAssertEqual(report.threads[1].frames.compactMap(\.imageOffset), [0x431c, 0x43c0])
        XCTAssertEqual(renderedUnchanged(report), Array(log.utf8))
    }

    /// A log of one producer is read as before: no other producer, the same backtraces.
    func testALogOfOneProducerHasNoOtherProducer() throws {
        let swift = try ReportParser.parse(Array(Self.swiftPart.utf8), path: "crash.log")
        XCTAssertEqual(swift.otherProducers, [])
        XCTAssertEqual(swift.threads.count, 1)
        let linux = try ReportParser.parse(Array((Self.llvmPart + Self.glibcPart).utf8), path: "app.log")
        guard case .linuxLog = linux.source else { return XCTFail("read as \(linux.source)") }
        XCTAssertEqual(linux.otherProducers, [])
    }
}
