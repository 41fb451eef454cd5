import CrashReport
import Foundation
import XCTest

/// Writing `.ips` reports back: unchanged when nothing is resolved, resolved frame objects
/// rewritten in place, inlined frames inserted, asiBacktraces text rewritten.
final class IPSRendererTests: XCTestCase {
    typealias Snippets = IPSReportParserTests

    static let compute = SourceFrame(function: "compute", offset: 40, file: "/src/main.c", line: 42, column: 5)
    static let clamp = SourceFrame(function: "clamp", offset: 8, file: "/src/include/Math.h", line: 12, column: 3,
                                   inlined: true)

    private func render(_ text: String, _ frames: [FrameKey: [SourceFrame]], fullPath: Bool = false) throws -> String {
        let report = try Snippets.parse(text)
        return String(decoding: try Self.render(SymbolicatedReport(report: report, frames: frames), fullPath: fullPath),
                      as: UTF8.self)
    }

    /// The `.ips` output of a report read from a JSON `.ips`.
    static func render(_ symbolicated: SymbolicatedReport, fullPath: Bool = false) throws -> [UInt8] {
        let document = try XCTUnwrap(symbolicated.report.source.ips, "not read from a JSON .ips")
        var out: [UInt8] = []
        IPSRenderer.render(symbolicated, document: document, fullPath: fullPath, into: &out)
        return out
    }

    /// `text` with `old` (which must occur exactly once) replaced by `new`.
    private func replacing(_ text: String, _ old: String, _ new: String,
                           file: StaticString = #filePath, line: UInt = #line) -> String {
        XCTAssertEqual(text.components(separatedBy: old).count, 2, "\(old) should occur once", file: file, line: line)
        return text.replacingOccurrences(of: old, with: new)
    }

    func testNothingResolvedComesBackByteForByte() throws {
        let inlined = #"[{"imageOffset":50656,"symbol":"clamp","symbolLocation":8,"inline":true,"imageIndex":0},{"imageOffset":50656,"imageIndex":0}]"#
        for text in [Snippets.report(), Snippets.report(lastException: true, asi: true),
                     Snippets.report(lastException: true, asi: true).replacingOccurrences(of: "\n", with: "\r\n"),
                     Snippets.report(frames: inlined)] {
            XCTAssertEqual(try render(text, [:]), text)
        }
    }

    func testAResolvedFrameGetsItsSymbolAndSourceLocation() throws {
        let text = Snippets.report()
        let output = try render(text, [FrameKey(thread: 0, frame: 1): [Self.compute]])
        XCTAssertEqual(output, replacing(text, #"{"imageOffset":50656,"imageIndex":0}"#,
            #"{"imageOffset":50656,"imageIndex":0,"symbol":"compute","symbolLocation":40,"sourceFile":"main.c","sourceLine":42}"#))
        let full = try render(text, [FrameKey(thread: 0, frame: 1): [Self.compute]], fullPath: true)
        XCTAssert(full.contains(#""sourceFile":"/src/main.c""#), "the full path with fullPath")
    }

    func testInlinedFramesAreInsertedBeforeTheirFrame() throws {
        let text = Snippets.report()
        let output = try render(text, [FrameKey(thread: 0, frame: 2): [Self.clamp, Self.compute]])
        XCTAssertEqual(output, replacing(text, #"{"imageOffset":50688,"imageIndex":0}"#,
            #"{"imageOffset":50688,"symbol":"clamp","symbolLocation":8,"sourceFile":"Math.h","sourceLine":12,"inline":true,"imageIndex":0},"#
            + #"{"imageOffset":50688,"imageIndex":0,"symbol":"compute","symbolLocation":40,"sourceFile":"main.c","sourceLine":42}"#))
    }

    func testExistingMembersAreReplacedOrRemovedNeverDuplicated() throws {
        let text = Snippets.report()
        let kill = #"{"imageOffset":\#(Snippets.killOffset),"symbol":"__pthread_kill","symbolLocation":8,"imageIndex":1}"#
        let resolved = SourceFrame(function: "__pthread_kill_impl", offset: 12, file: "/k/kill.c", line: 3)
        XCTAssertEqual(try render(text, [FrameKey(thread: 0, frame: 0): [resolved]]), replacing(text, kill,
            #"{"imageOffset":\#(Snippets.killOffset),"symbol":"__pthread_kill_impl","symbolLocation":12,"imageIndex":1,"sourceFile":"kill.c","sourceLine":3}"#))
        // What the resolution does not know is removed rather than left stale.
        let bare = SourceFrame(function: "x", offset: nil, file: nil, line: nil)
        XCTAssertEqual(try render(text, [FrameKey(thread: 0, frame: 0): [bare]]), replacing(text, kill,
            #"{"imageOffset":\#(Snippets.killOffset),"symbol":"x","imageIndex":1}"#))
        // A line without a file says nothing.
        let noFile = SourceFrame(function: "y", offset: 4, file: nil, line: 9)
        XCTAssertEqual(try render(text, [FrameKey(thread: 0, frame: 0): [noFile]]), replacing(text, kill,
            #"{"imageOffset":\#(Snippets.killOffset),"symbol":"y","symbolLocation":4,"imageIndex":1}"#))
    }

    func testOldInlinedObjectsGiveWayToTheNewOnes() throws {
        let old = #"{"imageOffset":50656,"symbol":"stale","symbolLocation":8,"inline":true,"imageIndex":0},{"imageOffset":50656,"imageIndex":0}"#
        let text = Snippets.report(frames: "[" + old + #",{"imageOffset":50688,"imageIndex":0}]"#)
        let report = try Snippets.parse(text)
        XCTAssertEqual(report.source.ips?.inlinedFrames, [FrameKey(thread: 0, frame: 1): [FrameKey(thread: 0, frame: 0)]])

        let output = try render(text, [FrameKey(thread: 0, frame: 1): [Self.clamp, Self.compute]])
        XCTAssertEqual(output, replacing(text, old,
            #"{"imageOffset":50656,"symbol":"clamp","symbolLocation":8,"sourceFile":"Math.h","sourceLine":12,"inline":true,"imageIndex":0},"#
            + #"{"imageOffset":50656,"imageIndex":0,"symbol":"compute","symbolLocation":40,"sourceFile":"main.c","sourceLine":42}"#))
        let concreteOnly = try render(text, [FrameKey(thread: 0, frame: 1): [Self.compute]])
        XCTAssertEqual(concreteOnly, replacing(text, old,
            #"{"imageOffset":50656,"imageIndex":0,"symbol":"compute","symbolLocation":40,"sourceFile":"main.c","sourceLine":42}"#))
        // An inlined frame's own resolution is not written: its concrete frame's is.
        XCTAssertEqual(try render(text, [FrameKey(thread: 0, frame: 0): [Self.compute]]), text)
    }

    func testPrettyPrintedFramesStayPrettyPrinted() throws {
        let frames = """
            [
                  {
                    "imageOffset" : 50656,
                    "imageIndex" : 0
                  },
                  {
                    "imageOffset" : 50688,
                    "imageIndex" : 0
                  }
                ]
            """
        let text = Snippets.report(frames: frames)
        let output = try render(text, [FrameKey(thread: 0, frame: 0): [Self.clamp, Self.compute]])
        let expected = """
            [
                  {
                    "imageOffset" : 50656,
                    "symbol" : "clamp",
                    "symbolLocation" : 8,
                    "sourceFile" : "Math.h",
                    "sourceLine" : 12,
                    "inline" : true,
                    "imageIndex" : 0
                  },
                  {
                    "imageOffset" : 50656,
                    "imageIndex" : 0,
                    "symbol" : "compute",
                    "symbolLocation" : 40,
                    "sourceFile" : "main.c",
                    "sourceLine" : 42
                  },
                  {
                    "imageOffset" : 50688,
                    "imageIndex" : 0
                  }
                ]
            """
        XCTAssertEqual(output, replacing(text, frames, expected))
    }

    func testASIBacktraceTextIsRewrittenLikeAReport() throws {
        let text = Snippets.report(lastException: true, asi: true)
        let report = try Snippets.parse(text)
        XCTAssertEqual(report.threads[1].kind, .applicationSpecificBacktrace(1))
        let output = try render(text, [FrameKey(thread: 1, frame: 1): [Self.clamp, Self.compute],
                                       FrameKey(thread: 0, frame: 1): [Self.compute]])
        let line = "1   Sample                              0x0000000104a3c60c "
        let expectedString = "0   CoreFoundation                      0x00000001a70e92b8 __exceptionPreprocess + 220\\n"
            + line + "clamp + 8 (Math.h:12) [inlined]\\n" + line + "compute + 40 (main.c:42)"
        var expected = replacing(text, "\\n1   Sample                              0x0000000104a3c60c 0x104a30000 + 50700\"]",
                                 "\\n" + line + "clamp + 8 (Math.h:12) [inlined]\\n" + line + "compute + 40 (main.c:42)\"]")
        expected = replacing(expected, #"{"imageOffset":50700,"imageIndex":0}]"#,
            #"{"imageOffset":50700,"imageIndex":0,"symbol":"compute","symbolLocation":40,"sourceFile":"main.c","sourceLine":42}]"#)
        XCTAssertEqual(output, expected)
        XCTAssert(output.contains(expectedString))
    }

    func testTheOutputIsJSONWithTheNamesAsGiven() throws {
        let text = Snippets.report(lastException: true, asi: true)
        let report = try Snippets.parse(text)
        let awkward = "operator\"\"_q(char const*) \\ \n\t é 😀 \u{1}"
        var frames: [FrameKey: [SourceFrame]] = [:]
        for (t, thread) in report.threads.enumerated() {
            for f in thread.frames.indices {
                frames[FrameKey(thread: t, frame: f)] = [SourceFrame(function: awkward, offset: 1, file: "/a/\"b\".c", line: 2)]
            }
        }
        let out = try Self.render(SymbolicatedReport(report: report, frames: frames), fullPath: true)
        let newline = try XCTUnwrap(out.firstIndex(of: 0x0A))
        XCTAssertEqual(Array(out[..<newline]), Array(Snippets.metadata.utf8), "the metadata line is unchanged")
        let body = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out[(newline + 1)...])) as? [String: Any])
        let threads = try XCTUnwrap(body["threads"] as? [[String: Any]])
        let written = threads.flatMap { $0["frames"] as? [[String: Any]] ?? [] }
            + (body["lastExceptionBacktrace"] as? [[String: Any]] ?? [])
        XCTAssertEqual(written.count, 6)
        for frame in written {
            XCTAssertEqual(frame["symbol"] as? String, awkward)
            XCTAssertEqual(frame["sourceFile"] as? String, "/a/\"b\".c")
            XCTAssertEqual(frame["sourceLine"] as? Int, 2)
            XCTAssertEqual(frame["symbolLocation"] as? Int, 1)
        }
        let asi = try XCTUnwrap((body["asiBacktraces"] as? [String])?.first)
        // Text backtraces are text: their names are escaped so that each frame keeps its line.
        let awkwardAsText = "operator\"\"_q(char const*) \\ \\x0a\\x09 é 😀 \\x01"
        XCTAssertEqual(asi.components(separatedBy: awkwardAsText).count, 3, "both text frames rewritten")
    }
}
