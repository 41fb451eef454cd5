@testable import CrashReport
import XCTest

/// Stackshot `.ips` bodies: frames, images and hostile variants.
final class StackshotParserTests: XCTestCase {
    private static let metadata = #"{"bug_type":"288","os_version":"iPhone OS 15.0 (19A346)"}"#

    private func parse(_ body: String, metadata: String = StackshotParserTests.metadata) throws -> CrashReport {
        try ReportParser.parse(Array((metadata + "\n" + body).utf8), path: "stacks.ips")
    }

    private func line(_ report: CrashReport, _ index: Int) -> String {
        String(decoding: report.bytes[report.lines[index]], as: UTF8.self)
    }

    func testFramesAreTiedToTheirImageByIndex() throws {
        let report = try parse(#"""
            {"binaryImages":[["4C4C44C3-5555-3144-A19B-AF60D4F21F14",4372758528,"U"],
                             ["4c4c4408-5555-3144-a1c2-93818143d9eb","0x104a30000","U"],
                             ["447D769E-1CB7-3086-A0B4-32226837B587",18446741874878611456,"K"]],
             "processByPid":{"1234":{"procname":"App","threadById":{"5678":{"name":"worker",
                 "kernelFrames":[[2,771644],[2,766656]],"userFrames":[[0,16900],[1,17220]]}}}}}
            """#)
        XCTAssertEqual(report.source.kind, .ips)
        XCTAssertEqual(report.images.map(\.uuid), ["4c4c44c355553144a19baf60d4f21f14", "4c4c440855553144a1c293818143d9eb",
                                                    "447d769e1cb73086a0b432226837b587"])
        XCTAssertEqual(report.images.map(\.loadAddress), [0x104a30000, 0x104a30000, 0xfffffe000b768000])
        XCTAssertEqual(report.threads.count, 1)
        let frames = try XCTUnwrap(report.threads.first).frames
        XCTAssertEqual(frames.map(\.index), [0, 1, 2, 3])
        XCTAssertEqual(frames.map(\.image), [2, 2, 0, 1], "same load address, different images: tied by index")
        XCTAssertEqual(frames.map(\.address), [0xfffffe000b82463c, 0xfffffe000b8232c0, 0x104a34204, 0x104a34344])
        XCTAssertEqual(frames.map(\.imageOffset), [771644, 766656, 16900, 17220])
        XCTAssertEqual(frames.map(\.returnAddress), [false, true, false, true], "the first of each kind is a PC")
        XCTAssertEqual(restText(report, frames[2]), "0x104a30000 + 16900")
        XCTAssertEqual(report.threads.first?.name, "worker")
        XCTAssertEqual(report.warnings, [])
        XCTAssertEqual(report.source.ips?.bytes, Array((Self.metadata + "\n" + #"""
            {"binaryImages":[["4C4C44C3-5555-3144-A19B-AF60D4F21F14",4372758528,"U"],
                             ["4c4c4408-5555-3144-a1c2-93818143d9eb","0x104a30000","U"],
                             ["447D769E-1CB7-3086-A0B4-32226837B587",18446741874878611456,"K"]],
             "processByPid":{"1234":{"procname":"App","threadById":{"5678":{"name":"worker",
                 "kernelFrames":[[2,771644],[2,766656]],"userFrames":[[0,16900],[1,17220]]}}}}}
            """#).utf8))
    }

    /// Out-of-range, negative and non-numeric indices, missing offsets, images without a load
    /// address: those frames are printed as their JSON and are frames whose address is unknown
    /// (every frame of the report is one of the model, for JSON); the rest is read.
    func testOddFramesAndImagesAreKeptAsTextAndTheRestIsRead() throws {
        let report = try parse(#"""
            {"binaryImages":[["4C4C44C3-5555-3144-A19B-AF60D4F21F14",4372758528,"U"],["bad",-5,"U"],[],"x",
                             ["00000000-0000-0000-0000-000000000000",0,"A"],["4C4C44C3",1e3]],
             "processByPid":{"1":"launchd","2":{"threadById":{"3":{"userFrames":[[9,1],[-1,2],[0],["0",1],7,[1,4],[2,1],
                 [0,-3],[0,1.5],[0,99999999999999999999],[0,"16900"],[4,4096],[0,16900]]},"4":"x","5":{}}}}}
            """#)
        XCTAssertEqual(report.threads.count, 2)
        let frames = try XCTUnwrap(report.threads.first).frames
        XCTAssertEqual(frames.map(\.index), Array(0...12))
        XCTAssertEqual(frames.map(\.addressUnknown), Array(repeating: true, count: 11) + [false, false])
        XCTAssertEqual(frames.suffix(2).map(\.address), [4096, 0x104a34204])
        XCTAssertEqual(frames.map(\.image), Array(repeating: nil, count: 11) + [1, 0], "a frame of unknown address has no image")
        XCTAssertEqual(frames[11].returnAddress, true, "the PC was one of the frames left as text")
        XCTAssertEqual(frames[0].returnAddress, false)
        XCTAssertEqual(report.images.count, 2, "images without a load address are left out")
        XCTAssertNil(report.images[1].uuid, "the all-zero UUID names no image")
        XCTAssertEqual(report.warnings, ["stacks.ips: 11 stackshot frame(s) name no listed image or no offset that fits; printed as they are"])
        let text = String(decoding: report.bytes, as: UTF8.self)
        XCTAssertTrue(text.contains("0   ???                                  ??? [9,1]\n"), text)
        XCTAssertTrue(text.contains("Process:                      ??? [2]"), text)
    }

    func testStackshotInsideAWrapperAndOtherTypesWithTheShape() throws {
        let report = try parse(#"{"panicString":"panic(cpu 1)\nline two","stackshot":{"binaryImages":[["4C4C44C3-5555-3144-A19B-AF60D4F21F14",4372758528,"U"]],"processByPid":{"7":{"procname":"App","threadById":{"8":{"userFrames":[[0,16900]]}}}}}}"#,
                                metadata: #"{"bug_type":"210"}"#)
        XCTAssertEqual(report.source.kind, .ips)
        XCTAssertEqual(report.threads.first?.frames.first?.address, 0x104a34204)
        let text = String(decoding: report.bytes, as: UTF8.self)
        XCTAssertTrue(text.contains("panicString:\n  panic(cpu 1)\n  line two\n"), text)
    }

    func testA288BodyWithoutProcessesIsReadAndOtherTypesPassThrough() throws {
        let empty = try parse(#"{"reason":"x"}"#)
        XCTAssertEqual(empty.source.kind, .ips)
        XCTAssertEqual(empty.threads.count, 0)
        let textBody = try parse("Process: App [12]\n")
        XCTAssertEqual(textBody.source.kind, .classic, "a text body is read as a text report")
        let jetsam = try parse(#"{"largestProcess":"App"}"#, metadata: #"{"bug_type":"298"}"#)
        XCTAssertEqual(jetsam.source.kind, .noBacktraces)
        XCTAssertThrowsError(try parse(#"{"processByPid":{"#)) { error in
            XCTAssertTrue("\(error)".contains("cut short"), "\(error)")
        }
    }
}
