@testable import CrashReport
import XCTest

/// The Swift runtime's crash logs as `SwiftBacktraceParser` reads them, from logs made after
/// what the runtime prints (Swift 6 on Linux).
final class SwiftBacktraceParserTests: XCTestCase {
    static let textLog = """
        Fatal error: Index out of range

        *** Program crashed: Illegal instruction at 0x00007ffff796df7f ***

        Thread 0 "worker \\"a\\"" crashed:

        0      0x00007ffff796df7f
        1 [ra] 0x00005555555557e4
        2 [async] 0x0000555555555900
        3      ...

        Thread 1:

        0  0x00007ffff62caf16
        1  ...

        Registers:

        rax 0x0000000000000000  0

        Images (12 omitted):

        0x0000555555554000–0x0000555555555e90 fdeb5b5d06b673c562bcf273f94d5b47041dd4eb app /tmp/app
        0x00007ffff7800000-0x00007ffff7dd2d40 <no build ID>                            libswiftCore.so /opt/swift/libswiftCore.so

        """

    func testTextLog() throws {
        let bytes = Array(Self.textLog.utf8)
        XCTAssertTrue(SwiftBacktraceParser.looksLikeSwiftBacktrace(bytes))
        let report = try ReportParser.parse(bytes, path: "app.log")
        XCTAssertEqual(report.source.kind, .swiftBacktrace)
        if case .swiftBacktrace(let document) = report.source {
            XCTAssertNil(document, "a text log keeps no JSON document")
        }
        XCTAssertEqual(report.threads.count, 2)
        XCTAssertEqual(report.threads[0].name, "worker \\\"a\\\"")
        XCTAssertTrue(report.threads[0].crashed)
        XCTAssertFalse(report.threads[1].crashed)
        XCTAssertEqual(report.crashedThread, 0)
        let frames = report.threads[0].frames
        XCTAssertEqual(frames.map(\.address), [0x7ffff796df7f, 0x5555555557e4, 0x555555555900])
        XCTAssertEqual(frames.map(\.returnAddress), [false, true, false])
        XCTAssertEqual(frames.map(\.image), [1, 0, 0])
        XCTAssertEqual(report.images.map(\.uuid), ["fdeb5b5d06b673c562bcf273f94d5b47041dd4eb", nil])
        XCTAssertEqual(report.images.map(\.endAddress), [0x555555555e8f, 0x7ffff7dd2d3f])
        XCTAssertEqual(report.images.map(\.path), ["/tmp/app", "/opt/swift/libswiftCore.so"])
        XCTAssertEqual(report.images[0].format, .elf)

        var out: [UInt8] = []
        TextRenderer().render(SymbolicatedReport(report: report), into: &out)
        XCTAssertEqual(out, bytes)
    }

    func testResolvedTextFrameHasTheRuntimesLayout() throws {
        let report = try ReportParser.parse(Array(Self.textLog.utf8), path: "app.log")
        let resolved = SymbolicatedReport(report: report, frames: [
            FrameKey(thread: 0, frame: 1): [
                SourceFrame(function: "inner(_:)", offset: 3, file: "/src/a.swift", line: 2, column: 9, inlined: true),
                SourceFrame(function: "outer()", offset: 67, file: "/src/a.swift", line: 7, column: 5),
            ],
        ])
        var out: [UInt8] = []
        TextRenderer().render(resolved, into: &out)
        let text = String(decoding: out, as: UTF8.self)
        XCTAssertTrue(text.contains("""
            1 [ra] [inlined] 0x00005555555557e4 inner(_:) in app at /src/a.swift:2:9
            1 [ra] 0x00005555555557e4 outer() + 67 in app at /src/a.swift:7:5
            2 [async] 0x0000555555555900

            """), text)
    }

    func testSymbolicatedTextLogIsReadAsResolved() throws {
        let log = """
            Thread 0 "d" crashed:

              0 [inlined] [system] 0x00005555555560f8 specialized Array.subscript.getter in d at //<compiler-generated>
              1 [inlined]          0x00005555555560f8 inner(_:_:) in d at /tmp/d.swift:2:69
              2                    0x00005555555560f8 outer(_:_:) + 24 in d at /tmp/d.swift:3:65
              3 [ra]               0x00007ffff7f8bb15 swift_job_run + 148 in libswift_Concurrency.so
            ...

            """
        let report = try ReportParser.parse(Array(log.utf8), path: "d.log")
        XCTAssertEqual(report.source.kind, .swiftBacktrace)
        let frames = report.threads[0].frames
        XCTAssertEqual(frames.map(\.inlined), [true, true, false, false])
        XCTAssertEqual(frames[1].form, .symbolicated(name: "inner(_:_:)", offset: nil, file: "/tmp/d.swift", line: 2))
        XCTAssertEqual(frames[2].form, .symbolicated(name: "outer(_:_:)", offset: 24, file: "/tmp/d.swift", line: 3))
        XCTAssertEqual(frames[3].form, .symbol(name: "swift_job_run", offset: 148))
        XCTAssertEqual(report.threads[0].inlinedRun(endingAt: 2), 0..<3)
    }

    static let jsonLog = """
        Fatal error: Index out of range
        { "kind": "crashReport", "threads": [ { "name": "app", "crashed": true, "frames": [ { "kind": "programCounter", "address": "0x00007ffff796df7f" }, { "kind": "returnAddress", "address": "0x00005555555557e4" }, { "kind": "omittedFrames", "count": 3 }, { "kind": "asyncResumePoint", "address": "0x0000555555555900" }, { "kind": "truncated" } ] } ], "omittedImages": 12, "images": [ { "name": "app", "buildId": "fdeb5b5d", "path": "/tmp/app", "baseAddress": "0x0000555555554000", "endOfText": "0x0000555555555e90" } ] , "backtraceTime": 0.01 }
        after

        """

    func testJSONLogWrittenBackWithFramesResolved() throws {
        let bytes = Array(Self.jsonLog.utf8)
        let report = try ReportParser.parse(bytes, path: "app.log")
        guard case .swiftBacktrace(let document?) = report.source else {
            return XCTFail("a JSON log keeps its document for writing it back: \(report.source.kind)")
        }
        XCTAssertEqual(document.tree.string(document.tree.member("kind", of: document.tree.root)), "crashReport")
        XCTAssertEqual(report.threads.count, 1)
        XCTAssertEqual(report.threads[0].frames.map(\.address), [0x7ffff796df7f, 0x5555555557e4, 0x555555555900])
        XCTAssertEqual(report.threads[0].frames.map(\.returnAddress), [false, true, false])
        XCTAssertEqual(report.threads[0].frames.map(\.image), [nil, 0, 0])

        var unchanged: [UInt8] = []
        SwiftBacktraceJSONRenderer.render(SymbolicatedReport(report: report), document: document, into: &unchanged)
        XCTAssertEqual(unchanged, bytes)

        let resolved = SymbolicatedReport(report: report, frames: [
            FrameKey(thread: 0, frame: 1): [
                SourceFrame(function: "inner(_:)", offset: 3, file: "/src/a.swift", line: 2, column: 9, inlined: true),
                SourceFrame(function: "outer()", offset: 67, file: "/src/a.swift", line: 7, column: 5),
            ],
        ])
        var out: [UInt8] = []
        SwiftBacktraceJSONRenderer.render(resolved, document: document, into: &out)
        let text = String(decoding: out, as: UTF8.self)
        XCTAssertTrue(text.contains("""
            { "kind": "returnAddress", "address": "0x00005555555557e4", "inlined": true, "offset": 0, \
            "description": "inner(_:)", "image": "app", "sourceLocation": { "file": "/src/a.swift", "line": 2, "column": 9 } }, \
            { "kind": "returnAddress", "address": "0x00005555555557e4", "offset": 67, "description": "outer() + 67", \
            "image": "app", "sourceLocation": { "file": "/src/a.swift", "line": 7, "column": 5 } }, { "kind": "omittedFrames"
            """), text)
        XCTAssertTrue(text.hasPrefix("Fatal error: Index out of range\n{ "))
        XCTAssertTrue(text.hasSuffix("\"backtraceTime\": 0.01 }\nafter\n"))
    }

    func testHostileLinesAreText() throws {
        let log = """
            Thread 99999999999999999999 crashed:
            Thread 0 " crashed:
            Thread 0 crashed:
            1 [ra] 0x
            1 [bogus] 0x0000555555555900
            99999999999999999999 0x1
            2 [ra] 0x00005555555557e40000000
            3 [ra]0x0000555555555721
            { "kind": "crashReport", "threads": 7 }
            Images:
            0x5–0x1 ab c /d
            0x1–0x5 zz c /d

            """
        let report = try ReportParser.parse(Array(log.utf8), path: "odd.log")
        XCTAssertEqual(report.source.kind, .swiftBacktrace)
        XCTAssertEqual(report.threads.count, 1)
        // `1 [ra] 0x` and an address of more than 64 bits are frames whose address cannot be
        // read: frames of the thread, resolved by nothing, written as they came.
        XCTAssertEqual(report.threads[0].frames.map(\.index), [1, 2])
        XCTAssertTrue(report.threads[0].frames.allSatisfy { $0.addressUnknown && $0.image == nil })
        XCTAssertEqual(report.images.count, 0)
        var out: [UInt8] = []
        TextRenderer().render(SymbolicatedReport(report: report), into: &out)
        XCTAssertEqual(out, Array(log.utf8))
    }
}
