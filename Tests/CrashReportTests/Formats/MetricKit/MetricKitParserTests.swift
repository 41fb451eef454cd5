import CrashReport
import Foundation
import TestSupport
import XCTest

/// MetricKit payloads on small handwritten snippets shaped as `jsonRepresentation()` writes them.
final class MetricKitParserTests: XCTestCase {
    static let appUUID = "70B89F27-1634-3580-A695-57CDB41D7743"
    static let kernelUUID = "11111111-2222-3333-4444-555555555555"

    static func frame(_ uuid: String, _ name: String, offset: UInt64?, address: UInt64?, samples: Int = 1,
                      sub: [String] = []) -> String {
        var members = [#""binaryUUID":"\#(uuid)""#]
        if let offset { members.append(#""offsetIntoBinaryTextSegment":\#(offset)"#) }
        members.append(#""sampleCount":\#(samples)"#)
        members.append(#""binaryName":"\#(name)""#)
        if let address { members.append(#""address":\#(address)"#) }
        if !sub.isEmpty { members.append(#""subFrames":[\#(sub.joined(separator: ","))]"#) }
        return "{" + members.joined(separator: ",") + "}"
    }

    static func diagnostic(_ roots: [String], perThread: Bool = true, metadata: String = #"{"appVersion":"1.0"}"#) -> String {
        #"{"version":"1.0.0","callStackTree":{"callStackPerThread":\#(perThread),"callStacks":[{"threadAttributed":true,"callStackRootFrames":[\#(roots.joined(separator: ","))]}]},"diagnosticMetaData":\#(metadata)}"#
    }

    static func parse(_ text: String) throws -> CrashReport {
        try ReportParser.parse(Array(text.utf8), path: "payload.json")
    }

    func testCrashStackIsReadAsAThreadWithImagesPlacedByAddressLessOffset() throws {
        let inner = Self.frame(Self.appUUID, "Sample", offset: 4000, address: 0x1_0000_0FA0 + 0x4000)
        let root = Self.frame(Self.kernelUUID, "libsystem_kernel.dylib", offset: 0, address: 0x1_C0A8_A000, sub: [inner])
        let payload = #"{"timeStampBegin":"2026-01-01 00:00:00","crashDiagnostics":[\#(Self.diagnostic([root], metadata: #"{"exceptionType":1,"signal":11,"platformArchitecture":"arm64e"}"#))]}"#
        let report = try Self.parse(payload)
        XCTAssertEqual(report.source.kind, .metricKit)
        XCTAssertEqual(report.codeType, "ARM-64")
        XCTAssertEqual(report.threads.count, 1)
        let thread = report.threads[0]
        XCTAssertTrue(thread.crashed)
        XCTAssertEqual(thread.name, "crashDiagnostics[0] call stack 0")
        XCTAssertEqual(thread.frames.map(\.index), [0, 1])
        XCTAssertEqual(thread.frames.map(\.returnAddress), [false, true])
        XCTAssertEqual(thread.frames.map(\.imageOffset), [0, 4000])
        // An offset of 0 is an offset: the image starts at the frame's address.
        let kernel = try XCTUnwrap(thread.frames[0].image)
        XCTAssertEqual(report.images[kernel].loadAddress, 0x1_C0A8_A000)
        XCTAssertEqual(report.images[kernel].uuid, "11111111222233334444555555555555")
        XCTAssertEqual(restText(report, thread.frames[0]), "0x1c0a8a000 + 0")
        let app = try XCTUnwrap(thread.frames[1].image)
        XCTAssertEqual(report.images[app].loadAddress, 0x1_0000_4000)
        XCTAssertEqual(restText(report, thread.frames[1]), "0x100004000 + 4000")
        XCTAssertEqual(report.source.metricKit?.sampleCount(FrameKey(thread: 0, frame: 1)), 1)
        let text = String(decoding: report.bytes, as: UTF8.self)
        XCTAssertTrue(text.contains("exceptionType:                1 (EXC_BAD_ACCESS)\n"), text)
        XCTAssertTrue(text.contains("signal:                       11 (SIGSEGV)\n"), text)
        XCTAssertTrue(text.contains("Call Stack 0 (thread attributed):\n0   [1]    libsystem_kernel.dylib         0x00000001c0a8a000 0x1c0a8a000 + 0\n"), text)
    }

    /// Without any address for its binary, a frame is placed by its UUID and offset alone.
    func testFrameWithOffsetOnlyKeepsItsOffset() throws {
        let root = Self.frame(Self.appUUID, "Sample", offset: 16900, address: nil)
        let report = try Self.parse(Self.diagnostic([root]))
        let frame = report.threads[0].frames[0]
        XCTAssertEqual(frame.imageOffset, 16900)
        XCTAssertEqual(frame.form, .imageOffset(offset: 16900))
        XCTAssertEqual(restText(report, frame), "Sample + 16900")
        XCTAssertEqual(report.images[try XCTUnwrap(frame.image)].uuid, "70b89f2716343580a69557cdb41d7743")
    }

    /// A sampled tree: branches are indented, frames keep their depth and sample counts.
    func testSampledTreeBranchesAreIndented() throws {
        let leafA = Self.frame(Self.appUUID, "Sample", offset: 300, address: 0x1_0000_012C, samples: 20)
        let leafB = Self.frame(Self.appUUID, "Sample", offset: 400, address: 0x1_0000_0190, samples: 10)
        let root = Self.frame(Self.appUUID, "Sample", offset: 200, address: 0x1_0000_00C8, samples: 30, sub: [leafA, leafB])
        let report = try Self.parse(Self.diagnostic([root], perThread: false))
        let lines = String(decoding: report.bytes, as: UTF8.self).split(separator: "\n").filter { $0.contains("Sample ") && $0.contains("[") }
        XCTAssertEqual(lines.map { String($0.prefix(13)) }, ["0   [30]   Sa", "  1   [20]   ", "  1   [10]   "])
        XCTAssertEqual(report.threads[0].frames.map(\.index), [0, 1, 1])
        XCTAssertEqual((0..<3).map { report.source.metricKit?.sampleCount(FrameKey(thread: 0, frame: $0)) }, [30, 20, 10])
    }

    /// A tree nested far deeper than any stack is read without recursion, and its indentation
    /// stays bounded however often it branches.
    func testDeepBranchingTreeStaysLinear() throws {
        let depth = 20_000
        var text = ""
        for _ in 0..<depth {
            text += #"{"binaryName":"A","offsetIntoBinaryTextSegment":1,"subFrames":[{"binaryName":"B"},"#
        }
        text += #"{"binaryName":"C"}"# + String(repeating: "]}", count: depth)
        let report = try Self.parse(#"{"callStackTree":{"callStacks":[{"callStackRootFrames":[\#(text)]}]}}"#)
        XCTAssertEqual(report.threads[0].frames.count, 2 * depth + 1)
        XCTAssertLessThan(report.bytes.count, 2 * depth * 100)
    }

    /// The array of payloads apps upload, and a payload inside a wrapper object.
    func testArraysAndWrappersOfPayloads() throws {
        let payload = #"{"hangDiagnostics":[\#(Self.diagnostic([Self.frame(Self.appUUID, "Sample", offset: 8, address: 0x1_0000_0008)]))]}"#
        let array = try Self.parse("[\(payload),\(payload)]")
        XCTAssertEqual(array.threads.map(\.name), ["[0].hangDiagnostics[0] call stack 0", "[1].hangDiagnostics[0] call stack 0"])
        let wrapped = try Self.parse(#"{"device":"iPhone","payload":\#(payload)}"#)
        XCTAssertEqual(wrapped.threads.map(\.name), ["payload.hangDiagnostics[0] call stack 0"])
        let bare = try Self.parse(#"{"callStackPerThread":true,"callStacks":[{"callStackRootFrames":[\#(Self.frame(Self.appUUID, "Sample", offset: 8, address: nil))]}]}"#)
        XCTAssertEqual(bare.threads.count, 1)
    }

    /// JSON that is not MetricKit is another kind of file; MetricKit JSON cut short is an error
    /// naming the file.
    func testRecognitionAndErrors() throws {
        XCTAssertNotEqual(try Self.parse(#"{"callStackNote":"not a tree"}"#).source.kind, .metricKit)
        let cut = String(Self.diagnostic([Self.frame(Self.appUUID, "Sample", offset: 8, address: 8)]).dropLast(20))
        XCTAssertThrowsError(try Self.parse(cut)) { error in
            let message = "\(error)"
            XCTAssertTrue(message.hasPrefix("payload.json: not a valid MetricKit payload: not valid JSON: "), message)
            XCTAssertTrue(message.hasSuffix("the file is cut short"), message)
        }
    }

    /// With nothing resolved the MetricKit output is the input; resolved frames gain members
    /// before their own, and resolving them again replaces those, leaving valid JSON.
    func testRendererAddsAndReplacesMembers() throws {
        let root = Self.frame(Self.appUUID, "Sample", offset: 8, address: 0x1_0000_0008)
        let input = Self.diagnostic([root])
        let report = try Self.parse(input)
        XCTAssertEqual(try Self.render(SymbolicatedReport(report: report)), input)

        let frames: [FrameKey: [SourceFrame]] = [FrameKey(thread: 0, frame: 0): [
            SourceFrame(function: "inner", offset: 4, file: "/src/a.c", line: 3, inlined: true),
            SourceFrame(function: "outer", offset: 8, file: "/src/b.c", line: 9),
        ]]
        let written = try Self.render(SymbolicatedReport(report: report, frames: frames))
        XCTAssertTrue(written.contains(#"{"symbol":"outer","symbolLocation":8,"file":"b.c","line":9,"inlinedFrames":[{"symbol":"inner","symbolLocation":4,"file":"a.c","line":3}],"binaryUUID":"#), written)

        let again = try Self.parse(written)
        let replaced: [FrameKey: [SourceFrame]] = [FrameKey(thread: 0, frame: 0): [SourceFrame(function: "other")]]
        let rewritten = try Self.render(SymbolicatedReport(report: again, frames: replaced))
        XCTAssertEqual(rewritten, input.replacingOccurrences(of: #"{"binaryUUID""#, with: #"{"symbol":"other","binaryUUID""#))

        // A frame object of managed members only: all of them go, the new ones stay valid JSON.
        let bare = try Self.parse(#"{"callStacks":[{"callStackRootFrames":[{"symbol":"x","line":2}]}]}"#)
        XCTAssertEqual(try Self.render(SymbolicatedReport(report: bare, frames: replaced)),
                       #"{"callStacks":[{"callStackRootFrames":[{"symbol":"other"}]}]}"#)
    }

    /// The MetricKit output of a report read from a MetricKit payload.
    static func render(_ symbolicated: SymbolicatedReport) throws -> String {
        let document = try XCTUnwrap(symbolicated.report.source.metricKit, "not read from a MetricKit payload")
        var out: [UInt8] = []
        MetricKitRenderer.render(symbolicated, document: document, fullPath: false, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
