@testable import CrashReport
import Foundation
import TestSupport
import XCTest

/// An `.ips` report read for one use (``ReportUse``) holds only what that use reads, and gives
/// the same output: read for its text (its input taken, its JSON given back as it is
/// translated), it prints the text of a report read whole; read for its document, it writes
/// the same document back; read for its model (taken too), the same JSON. Compared over every
/// `.ips` fixture and generated reports, small and of thousands of threads (whose text is let
/// go, and whose JSON is given back, many times over), each with every frame resolved.
final class IPSReportUseTests: XCTestCase {
    func testTheFixturesReadForOneUseGiveTheSameOutput() throws {
        try IPSModelOracleTests.forEachJSONFixture { bytes, name in try assertUsesAgree(bytes, name) }
    }

    func testGeneratedReportsReadForOneUseGiveTheSameOutput() throws {
        var generator = SplitMix64(seed: 0x05E)
        for k in 0..<200 {
            let text = IPSModelOracleTests.generatedReport(&generator, states: true)
            try assertUsesAgree(Array(text.utf8), "generated report \(k)")
        }
    }

    func testLargeReportsReadForOneUseGiveTheSameOutput() throws {
        var generator = SplitMix64(seed: 0x1A4)
        for k in 0..<3 {
            let text = IPSModelOracleTests.generatedReport(&generator, threads: 700...1_200, states: true)
            XCTAssertGreaterThan(text.utf8.count, 4 * IPSTranslator.droppedTextChunk, "generated report \(k)")
            try assertUsesAgree(Array(text.utf8), "large generated report \(k)")
        }
    }

    /// A report whose crashed thread has 15,000 frames (a deep recursion), after a thread of
    /// 300: its frames are given back as they are read, and its state, before or after them,
    /// is written all the same.
    func testOneThreadOfManyFramesReadForOneUseGivesTheSameOutput() throws {
        for stateFirst in [true, false] {
            let text = Self.reportWithAThreadOfManyFrames(stateFirst: stateFirst)
            XCTAssertGreaterThan(text.utf8.count, 512 << 10)
            try assertUsesAgree(Array(text.utf8), "one thread, its state " + (stateFirst ? "first" : "last"))
        }
    }

    /// A report of a crashed thread of 15,000 frames (in three images, every fifth named by the
    /// device), its state before or after its frames, after a thread of 300 and before
    /// `threadsAfter` more such.
    static func reportWithAThreadOfManyFrames(stateFirst: Bool, threadsAfter: Int = 0) -> String {
        let frames = (0..<15_000).map { k in
            #"{"imageOffset":\#(16_000 + k % 977),"imageIndex":\#(k % 3)\#(k % 5 == 0 ? #","symbol":"recurse","symbolLocation":12"# : "")}"#
        }.joined(separator: ",")
        let state = #""threadState":{"flavor":"ARM_THREAD_STATE64","x":[{"value":1},{"value":2}],"pc":{"value":4372775428},"lr":{"value":4372775748},"sp":{"value":6094139152},"fp":{"value":6094139232},"cpsr":{"value":1610612736},"far":{"value":0}}"#
        let images = #""usedImages":[{"base":4372758528,"size":65536,"uuid":"4c4c44c3-5555-3144-a19b-af60d4f21f14","name":"App","arch":"arm64"},{"base":7000000000,"size":1048576,"name":"libsystem_kernel.dylib"},{"base":8000000000,"size":1048576,"name":"libdyld.dylib"}]"#
        let other = #"{"id":7,"frames":["# + (0..<300).map { #"{"imageOffset":\#(17_000 + $0),"imageIndex":0}"# }
            .joined(separator: ",") + "]}"
        let crashed = stateFirst ? #"{"triggered":true,"# + state + #","frames":["# + frames + "]}"
            : #"{"triggered":true,"frames":["# + frames + "]," + state + "}"
        let threads = [other, crashed] + Array(repeating: other, count: threadsAfter)
        return #"{"bug_type":"309","os_version":"iPhone OS 17.0 (21A329)"}"# + "\n"
            + #"{"procName":"App","cpuType":"ARM-64","threads":["# + threads.joined(separator: ",") + "]," + images + "}"
    }

    /// A report taken for its text is handed back whole when it cannot be parsed (it is then
    /// written out as it is), and read whole again when its threads have no frame at all (a
    /// report of a kind that holds none is passed through as it is).
    func testATakenReportIsWhole() throws {
        var invalid = Array(#"{"bug_type":"309"}"#.utf8) + [0x0A] + Array(repeating: UInt8(ascii: "["), count: 3 * Int(sysconf(Int32(_SC_PAGESIZE))))
        let copy = invalid
        XCTAssertThrowsError(try ReportParser.parse(taking: &invalid, path: "cut.ips", use: .text))
        XCTAssertEqual(invalid, copy, "a report that does not parse is handed back as it was")

        let threads = (0..<2_000).map { #"{"id":\#($0),"frames":[]}"# }.joined(separator: ",")
        let frameless = #"{"bug_type":"298","os_version":"iPhone OS 17.0"}"# + "\n"
            + #"{"procName":"App","threads":["# + threads + #"],"usedImages":[]}"#
        var bytes = Array(frameless.utf8)
        let report = try ReportParser.parse(taking: &bytes, path: "frameless.ips", use: .text)
        XCTAssertEqual(bytes, [], "a parsed report's input is taken")
        XCTAssertTrue(report.threads.allSatisfy(\.frames.isEmpty))
        let whole = try ReportParser.parse(Array(frameless.utf8), path: "frameless.ips")
        XCTAssertEqual(report.bytes, whole.bytes, "a report without frames is read from its whole input")
    }

    // MARK: Comparing

    /// Reads `bytes` whole, for its text (taken) and for its document, and compares.
    private func assertUsesAgree(_ bytes: [UInt8], _ name: String) throws {
        let whole = try ReportParser.parse(bytes, path: "report.ips")
        var taken = bytes
        let text = try ReportParser.parse(taking: &taken, path: "report.ips", use: .text)
        let forDocument = try ReportParser.parse(bytes, path: "report.ips", use: .document)
        var takenForModel = bytes
        let forModel = try ReportParser.parse(taking: &takenForModel, path: "report.ips", use: .model)
        XCTAssertEqual(taken, [], "\(name): the input is taken")
        XCTAssertEqual(takenForModel, [], "\(name): the input is taken")
        guard case .ips(let wholeDocument) = whole.source, case .ips(let textDocument) = text.source,
              case .ips(let document) = forDocument.source, case .ips(let modelDocument) = forModel.source else {
            return XCTFail("\(name): not read as .ips by every use")
        }

        // For its text: the same text and model, a document without bytes.
        XCTAssertEqual(text.bytes, whole.bytes, name)
        XCTAssertEqual(text.lines, whole.lines, name)
        assertSameModel(text, whole, name)
        XCTAssertEqual(textDocument.bytes, [], name)
        XCTAssertEqual(textDocument.frameObjects.count, 0, name)
        XCTAssertEqual(textDocument.sharedCacheUUID, wholeDocument.sharedCacheUUID, name)

        // For its document: the same document and model; every line there, those of the
        // threads' frames empty.
        assertSameModel(forDocument, whole, name)
        XCTAssertEqual(document.bytes, wholeDocument.bytes, name)
        XCTAssertEqual(document.frameObjects, wholeDocument.frameObjects, name)
        XCTAssertEqual(document.inlinedFrames, wholeDocument.inlinedFrames, name)
        XCTAssertEqual(document.textBacktraces, wholeDocument.textBacktraces, name)
        XCTAssertEqual(forDocument.lines.count, whole.lines.count, name)
        XCTAssertLessThanOrEqual(forDocument.bytes.count, whole.bytes.count, name)
        for k in whole.lines.indices where !forDocument.lines[k].isEmpty {
            XCTAssertEqual(forDocument.bytes[forDocument.lines[k]], whole.bytes[whole.lines[k]], "\(name) line \(k)")
        }
        if whole.bytes.count > 4 * IPSTranslator.droppedTextChunk {
            XCTAssertLessThan(forDocument.bytes.count, whole.bytes.count / 2, "\(name): the threads' text is let go")
        }

        // For its model: the same model, a document without bytes, the threads' text let go.
        assertSameModel(forModel, whole, name)
        XCTAssertEqual(modelDocument.bytes, [], name)
        XCTAssertEqual(modelDocument.frameObjects.count, 0, name)
        XCTAssertEqual(modelDocument.sharedCacheUUID, wholeDocument.sharedCacheUUID, name)
        XCTAssertEqual(forModel.lines.count, whole.lines.count, name)
        XCTAssertEqual(forModel.bytes, forDocument.bytes, "\(name): the text left as a document's is")

        // The same output, every frame resolved.
        let resolutions = Self.resolutions(of: whole)
        func rendered(_ report: CrashReport, ips: Bool) -> [UInt8] {
            var out: [UInt8] = []
            let symbolicated = SymbolicatedReport(report: report, frames: resolutions)
            if ips, case .ips(let document) = report.source {
                IPSRenderer.render(symbolicated, document: document, fullPath: false, into: &out)
            } else {
                TextRenderer().render(symbolicated, into: &out)
            }
            return out
        }
        XCTAssertEqual(rendered(text, ips: false), rendered(whole, ips: false), "\(name): text output")
        XCTAssertEqual(rendered(forDocument, ips: true), rendered(whole, ips: true), "\(name): .ips output")
        func json(_ report: CrashReport) -> [UInt8] {
            var out: [UInt8] = []
            JSONRenderer.renderReport(SymbolicatedReport(report: report, frames: resolutions), into: &out)
            return out
        }
        XCTAssertEqual(json(forModel), json(whole), "\(name): JSON output")
    }

    private func assertSameModel(_ report: CrashReport, _ expected: CrashReport, _ name: String) {
        XCTAssertEqual(report.header.map(\.key), expected.header.map(\.key), name)
        XCTAssertEqual(report.header.map(\.value), expected.header.map(\.value), name)
        XCTAssertEqual(report.codeType, expected.codeType, name)
        XCTAssertEqual(report.crashedThread, expected.crashedThread, name)
        XCTAssertEqual(report.images, expected.images, name)
        XCTAssertEqual(report.threads, expected.threads, name)
    }

    /// A resolution for every frame with an address, made of its address alone (a frame
    /// resolves alike in whatever report it is read): one source frame, or two (an inlined one
    /// first) for an address divisible by 3, named after the address.
    static func resolutions(of report: CrashReport) -> [FrameKey: [SourceFrame]] {
        var frames: [FrameKey: [SourceFrame]] = [:]
        for (t, thread) in report.threads.enumerated() {
            for (f, frame) in thread.frames.enumerated() where !frame.flags.contains(.addressUnknown) {
                let hex = String(frame.address, radix: 16)
                var resolved = [SourceFrame(function: "f_\(hex)", offset: frame.address % 64, file: "/src/f.swift",
                                            line: Int(frame.address % 900), column: 3)]
                if frame.address % 3 == 0 {
                    resolved.insert(SourceFrame(function: "inlined_\(hex)", file: "/src/g.h", line: 7, inlined: true), at: 0)
                }
                frames[FrameKey(thread: t, frame: f)] = resolved
            }
        }
        return frames
    }
}
