@testable import CrashReport
import Foundation
import TestSupport
import XCTest

/// A large `.ips` report read a piece at a time (``IPSPieces``) gives what it gives read whole:
/// the pieces' texts one after another are the whole report's text, and their outputs, every
/// frame resolved, one after another, are its output, as text and as frame lines; read for its
/// document, the pieces' windows written back one after another are the document written back.
/// Compared over every `.ips` fixture and generated reports (thread names, crashed threads with
/// and without states, inlined and symbolicated frames, frames without an image, Last Exception
/// and text backtraces, text after the body), each cut into pieces of a thread each, of a few
/// threads and in one piece, their JSON given back as they are read.
final class IPSPiecesTests: XCTestCase {
    private static let pieceSizes = [1, 700, Int.max]

    func testTheFixturesInPiecesGiveTheWholeReportsOutput() throws {
        try IPSModelOracleTests.forEachJSONFixture { bytes, name in try assertPiecesAgree(bytes, name) }
    }

    func testGeneratedReportsInPiecesGiveTheWholeReportsOutput() throws {
        var generator = SplitMix64(seed: 0x91E)
        for k in 0..<150 {
            var text = IPSModelOracleTests.generatedReport(&generator, threads: 1...9, states: true)
            if k % 7 == 0 { text += "\nwords a tool added after the body\n" }
            try assertPiecesAgree(Array(text.utf8), "generated report \(k)")
        }
        for k in 0..<2 {
            let text = IPSModelOracleTests.generatedReport(&generator, threads: 700...1_000, states: true)
            try assertPiecesAgree(Array(text.utf8), "large generated report \(k)", sizes: [1, 1 << 16])
        }
    }

    /// The crashed thread of 15,000 frames, its state before or after them, among threads of
    /// 300: a piece holds whole threads, the state is written after the last.
    func testAThreadOfManyFramesIsOnePieceAndItsStateStays() throws {
        for stateFirst in [true, false] {
            let text = IPSReportUseTests.reportWithAThreadOfManyFrames(stateFirst: stateFirst, threadsAfter: 2)
            try assertPiecesAgree(Array(text.utf8), "one thread of many frames, its state " + (stateFirst ? "first" : "last"),
                                  sizes: [1, 1 << 16])
        }
    }

    /// Only a JSON crash report is read in pieces; the others are read whole, their bytes left
    /// as they were, and one that cannot be read throws as it does read whole.
    func testOnlyJSONCrashReportsAreReadInPieces() throws {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        let classic = try String(contentsOfFile: fixtures.appendingPathComponent("reports/App-arm64.crash").path, encoding: .utf8)
        let threads = (0..<50).map { #"{"id":\#($0),"frames":[]}"# }.joined(separator: ",")
        let others: [(String, String)] = [
            ("a classic report", classic),
            ("a classic body under bug_type 109", #"{"bug_type":"109","os_version":"iPhone OS 14.4"}"# + "\n" + classic),
            ("a classic body under bug_type 309", #"{"bug_type":"309","os_version":"iPhone OS 14.4"}"# + "\n" + classic),
            ("a jetsam event", #"{"bug_type":"298","os_version":"iPhone OS 17.0"}"# + "\n"
                + #"{"procName":"App","threads":["# + threads + #"],"usedImages":[]}"#),
            ("a body without threads", #"{"bug_type":"309","os_version":"iPhone OS 17.0"}"# + "\n" + #"{"procName":"App"}"#),
        ]
        for (name, text) in others {
            var bytes = Array(text.utf8)
            XCTAssertNil(try ReportParser.pieces(taking: &bytes, path: "r.ips", pieceSize: 1), name)
            XCTAssertEqual(bytes, Array(text.utf8), "\(name): left as it was")
        }
        let cut = #"{"bug_type":"309","os_version":"iPhone OS 17.0"}"# + "\n" + #"{"procName":"App","threads":[{"frames":["#
        var bytes = Array(cut.utf8)
        var thrown: Error?
        do { _ = try ReportParser.pieces(taking: &bytes, path: "cut.ips", pieceSize: 1) } catch { thrown = error }
        XCTAssertThrowsError(try ReportParser.parse(Array(cut.utf8), path: "cut.ips")) { whole in
            XCTAssertEqual(thrown.map { "\($0)" }, "\(whole)", "the error of the report read whole")
        }
        XCTAssertEqual(bytes, Array(cut.utf8), "a report that cannot be read is left as it was")
    }

    // MARK: Comparing

    /// Reads `bytes` whole for its text, then in pieces of each of `sizes`, taken, and compares.
    private func assertPiecesAgree(_ bytes: [UInt8], _ name: String, sizes: [Int] = pieceSizes) throws {
        let whole = try ReportParser.parse(bytes, path: "report.ips", use: .text)
        let wholeText = rendered(whole), wholeFrames = framesRendered(whole)
        for size in sizes {
            var taken = bytes
            let pieces = try XCTUnwrap(try ReportParser.pieces(taking: &taken, path: "report.ips", pieceSize: size),
                                       "\(name): read in pieces")
            XCTAssertEqual(taken, [], "\(name): the input is taken")
            var text: [UInt8] = [], output: [UInt8] = [], frames: [UInt8] = []
            var count = 0, threads = 0
            while let piece = pieces.next() {
                count += 1
                threads += piece.threads.count
                text += piece.bytes
                XCTAssertEqual(piece.lines, LineRanges(piece.bytes), "\(name), pieces of \(size): piece \(count)'s lines")
                XCTAssertEqual(piece.header.map(\.key), whole.header.map(\.key), "\(name), pieces of \(size)")
                XCTAssertEqual(piece.header.map(\.value), whole.header.map(\.value), "\(name), pieces of \(size)")
                XCTAssertEqual(piece.codeType, whole.codeType, "\(name), pieces of \(size)")
                XCTAssertEqual(piece.images.map(\.name), whole.images.map(\.name), "\(name), pieces of \(size)")
                XCTAssertEqual(piece.images.map(\.loadAddress), whole.images.map(\.loadAddress), "\(name), pieces of \(size)")
                XCTAssertEqual(piece.images.map(\.identity), whole.images.map(\.identity), "\(name), pieces of \(size)")
                output += rendered(piece)
                frames += framesRendered(piece)
            }
            XCTAssertNil(pieces.next(), "\(name): no piece after the last")
            XCTAssertEqual(threads, whole.threads.count, "\(name), pieces of \(size): the backtraces")
            XCTAssertTrue(text == whole.bytes, "\(name), pieces of \(size): the text, piece after piece")
            XCTAssertTrue(output == wholeText, "\(name), pieces of \(size): the text output, every frame resolved")
            XCTAssertTrue(frames == wholeFrames, "\(name), pieces of \(size): the frame lines, every frame resolved")
            let threadCount = whole.threads.filter { if case .thread = $0.kind { return true } else { return false } }.count
            if size == 1 { XCTAssertGreaterThanOrEqual(count, threadCount, "\(name): a thread a piece") }
            if size == Int.max { XCTAssertEqual(count, 1, "\(name): one piece") }
        }
        try assertDocumentPiecesAgree(bytes, name, sizes: sizes)
    }

    /// Reads `bytes` whole for its document, then in pieces of each size, taken, and compares
    /// what they write back. A report whose Last Exception Backtrace or text backtraces come
    /// after its first thread is not read so.
    private func assertDocumentPiecesAgree(_ bytes: [UInt8], _ name: String, sizes: [Int]) throws {
        let whole = try ReportParser.parse(bytes, path: "report.ips", use: .document)
        let written = ipsRendered(whole)
        let text = String(decoding: bytes, as: UTF8.self)
        let threads = text.range(of: "\"threads\"")?.lowerBound
        let openingLast = ["\"lastExceptionBacktrace\"", "\"asiBacktraces\""].contains { member in
            guard let threads, let place = text.range(of: member)?.lowerBound else { return false }
            return place > threads
        }
        for size in sizes {
            var taken = bytes
            guard let pieces = try ReportParser.pieces(taking: &taken, path: "report.ips", pieceSize: size, use: .document)
            else {
                XCTAssertTrue(openingLast, "\(name): read for its document in pieces")
                XCTAssertEqual(taken, bytes, "\(name): left as it was")
                return
            }
            XCTAssertFalse(openingLast, "\(name): its Last Exception or text backtraces come after its threads")
            var output: [UInt8] = []
            var windows: [Range<Int>] = []
            while let piece = pieces.next() {
                guard case .ips(let document) = piece.source, let window = document.window else {
                    return XCTFail("\(name): a piece without a window of its document")
                }
                windows.append(window)
                output += ipsRendered(piece)
            }
            XCTAssertEqual(windows.first?.lowerBound, 0, "\(name)")
            XCTAssertEqual(windows.last?.upperBound, bytes.count, "\(name)")
            XCTAssertTrue(zip(windows, windows.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound }, "\(name): windows")
            XCTAssertTrue(output == written, "\(name), pieces of \(size): the document written back, every frame resolved")
        }
    }

    private func ipsRendered(_ report: CrashReport) -> [UInt8] {
        var out: [UInt8] = []
        guard case .ips(let document) = report.source else { return out }
        IPSRenderer.render(SymbolicatedReport(report: report, frames: IPSReportUseTests.resolutions(of: report)),
                           document: document, fullPath: false, into: &out)
        return out
    }

    private func rendered(_ report: CrashReport) -> [UInt8] {
        var out: [UInt8] = []
        TextRenderer().render(SymbolicatedReport(report: report, frames: IPSReportUseTests.resolutions(of: report)), into: &out)
        return out
    }

    private func framesRendered(_ report: CrashReport) -> [UInt8] {
        var out: [UInt8] = []
        FramesRenderer().render(SymbolicatedReport(report: report, frames: IPSReportUseTests.resolutions(of: report)), into: &out)
        return out
    }
}
