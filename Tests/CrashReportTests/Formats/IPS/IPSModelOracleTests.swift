@testable import CrashReport
import Foundation
import TestSupport
import XCTest

/// The `.ips` translator makes the report's model as it writes the text, without reading the
/// text back. The classic parser reading that text is the oracle: over every `.ips` fixture and
/// a few hundred generated reports (thread names and queues, symbolicated and inlined frames,
/// frames without an image or a base, Last Exception and text backtraces, odd names), the two
/// give the same header, backtraces, frames and images. The form of a frame from a JSON object
/// is the object's (`symbol` without `symbolLocation` reads back as no form at all from the
/// text), as it was when the text was read back; forms are tested with the renderers.
final class IPSModelOracleTests: XCTestCase {
    func testTheFixturesModelsAreTheTextsReading() throws {
        try Self.forEachJSONFixture { bytes, name in
            try assertModelIsTheTextsReading(try ReportParser.parse(bytes, path: name), name)
        }
    }

    /// Calls `body` with the bytes and name of every `.ips` fixture read as JSON (15 at least).
    static func forEachJSONFixture(_ body: ([UInt8], String) throws -> Void) throws {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        let files = FileManager.default.enumerator(at: fixtures, includingPropertiesForKeys: nil)!
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "ips" }
        XCTAssertGreaterThanOrEqual(files.count, 20)
        var read = 0
        for url in files {
            let bytes = [UInt8](try Data(contentsOf: url))
            guard case .ips = try ReportParser.parse(bytes, path: url.path).source else { continue }
            try body(bytes, url.lastPathComponent)
            read += 1
        }
        XCTAssertGreaterThanOrEqual(read, 15)
    }

    func testGeneratedReportsModelsAreTheTextsReading() throws {
        var generator = SplitMix64(seed: 0x1B5)
        for k in 0..<300 {
            let text = Self.generatedReport(&generator)
            let report = try IPSReportParser.parse(Array(text.utf8), path: "generated-\(k).ips")
            try assertModelIsTheTextsReading(report, "generated report \(k)")
        }
    }

    /// Compares `report`'s model with the classic parser's reading of its text.
    private func assertModelIsTheTextsReading(_ report: CrashReport, _ name: String) throws {
        guard case .ips(let document) = report.source else { return XCTFail("\(name): not read as .ips") }
        let oracle = try ClassicReportParser.parse(report.bytes, path: report.path)
        XCTAssertEqual(report.lines, oracle.lines, name)
        XCTAssertEqual(report.header.map(\.key), oracle.header.map(\.key), name)
        XCTAssertEqual(report.header.map(\.value), oracle.header.map(\.value), name)
        XCTAssertEqual(report.codeType, oracle.codeType, name)
        XCTAssertEqual(report.crashedThread, oracle.crashedThread, name)
        XCTAssertEqual(report.images, oracle.images, name)
        XCTAssertEqual(report.threads.count, oracle.threads.count, name)
        for (t, (thread, expected)) in zip(report.threads, oracle.threads).enumerated() {
            XCTAssertEqual(thread.kind, expected.kind, "\(name) backtrace \(t)")
            XCTAssertEqual(thread.name, expected.name, "\(name) backtrace \(t)")
            XCTAssertEqual(thread.crashed, expected.crashed, "\(name) backtrace \(t)")
            XCTAssertEqual(thread.headerLine, expected.headerLine, "\(name) backtrace \(t)")
            XCTAssertEqual(thread.addressListLines, expected.addressListLines, "\(name) backtrace \(t)")
            XCTAssertEqual(thread.frames.count, expected.frames.count, "\(name) backtrace \(t)")
            for (f, (frame, read)) in zip(thread.frames, expected.frames).enumerated() {
                var read = read
                let fromObject = document.frameObjects[FrameKey(thread: t, frame: f)] != nil
                if fromObject { read.form = frame.form }
                XCTAssertEqual(frame, read, "\(name) backtrace \(t) frame \(f)")
            }
        }
    }

    // MARK: Generated reports

    private static let imageNames = ["App", "My App", "libsystem_kernel.dylib", "Foundation", "libswiftCore.dylib",
                                     "App Extension", "Ünïcode Framework", "dyld"]
    private static let archs = ["arm64", "arm64e", "x86_64"]
    private static let symbols = ["main", "-[NSObject(Category) doSomething:withObject:]", "closure #1 in App.run()",
                                  "__pthread_kill", "<redacted>", "operator new(unsigned long)", "objc_msgSend",
                                  "specialized Array.subscript.getter"]

    /// An `.ips` report of random but well-formed parts, of `threads` threads; with `states`,
    /// a triggered thread has a `threadState`.
    static func generatedReport(_ g: inout SplitMix64, threads: ClosedRange<Int> = 1...5, states: Bool = false) -> String {
        var images: [[String: Any]] = []
        var base: UInt64 = 0x1_0000_0000
        for k in 0..<Int.random(in: 1...6, using: &g) {
            base += UInt64.random(in: 1...64, using: &g) << 16
            var image: [String: Any] = ["base": base, "size": UInt64.random(in: 1...32, using: &g) << 12,
                                        "uuid": UUID(uuid: randomUUID(&g)).uuidString.lowercased(),
                                        "name": imageNames.randomElement(using: &g)!, "arch": archs.randomElement(using: &g)!]
            if Bool.random(using: &g) { image["path"] = "/usr/lib/" + (image["name"] as! String) }
            if k > 0 && Int.random(in: 0..<8, using: &g) == 0 { image.removeValue(forKey: "base") }
            if Int.random(in: 0..<10, using: &g) == 0 { image.removeValue(forKey: "uuid") }
            if Int.random(in: 0..<10, using: &g) == 0 { image["name"] = "" }
            images.append(image)
        }
        func frames() -> [[String: Any]] {
            (0..<Int.random(in: 0...12, using: &g)).flatMap { _ -> [[String: Any]] in
                var frame: [String: Any] = ["imageOffset": Int.random(in: 0..<0x8000, using: &g)]
                if Int.random(in: 0..<12, using: &g) != 0 { frame["imageIndex"] = Int.random(in: 0..<images.count + 1, using: &g) }
                if Bool.random(using: &g) {
                    frame["symbol"] = symbols.randomElement(using: &g)!
                    if Bool.random(using: &g) { frame["symbolLocation"] = Int.random(in: 0..<400, using: &g) }
                    if Bool.random(using: &g) {
                        frame["sourceFile"] = "File\(Int.random(in: 0..<5, using: &g)).swift"
                        if Bool.random(using: &g) { frame["sourceLine"] = Int.random(in: 0..<900, using: &g) }
                    }
                }
                guard Int.random(in: 0..<4, using: &g) == 0 else { return [frame] }
                var inlined = frame
                inlined["inline"] = true
                inlined["symbol"] = "inlined()"
                return [inlined, frame]
            }
        }
        var body: [String: Any] = ["procName": "App", "pid": 42, "cpuType": "ARM-64", "usedImages": images,
                                   "captureTime": "2024-05-01 10:00:00.0000 +0000",
                                   "exception": ["type": "EXC_CRASH", "signal": "SIGABRT"]]
        let threadCount = Int.random(in: threads, using: &g)
        if Bool.random(using: &g) { body["faultingThread"] = Int.random(in: 0..<threadCount, using: &g) }
        body["threads"] = (0..<threadCount).map { k -> [String: Any] in
            var thread: [String: Any] = ["id": 1000 + k, "frames": frames()]
            if Bool.random(using: &g) { thread["queue"] = "com.apple.main-thread" }
            if Bool.random(using: &g) { thread["name"] = ["worker", " padded name ", "Ünïcode", ""].randomElement(using: &g)! }
            if Int.random(in: 0..<4, using: &g) == 0 { thread["triggered"] = true }
            if states, thread["triggered"] != nil {
                thread["threadState"] = ["flavor": "ARM_THREAD_STATE64",
                                         "x": (0..<29).map { _ in ["value": UInt64.random(in: 0...UInt64(UInt32.max), using: &g)] },
                                         "pc": ["value": 0x1_0400_4204], "lr": ["value": 0x1_0400_4f44],
                                         "sp": ["value": 0x1_6b3f_f000], "fp": ["value": 0x1_6b3f_f010],
                                         "cpsr": ["value": 0x6000_0000], "far": ["value": 0],
                                         "esr": ["value": 0x9200_0006, "description": "(Data Abort) byte read Translation fault"]]
            }
            return thread
        }
        if Int.random(in: 0..<3, using: &g) == 0 { body["lastExceptionBacktrace"] = frames() }
        if Int.random(in: 0..<3, using: &g) == 0 {
            body["asiBacktraces"] = [
                "0   CoreFoundation                      0x00000001a70e92b8 __exceptionPreprocess + 220\n1   App   0x0000000104a3c60c 0x104a30000 + 50700",
                "(0x1a70e92b8 0x104a3c60c\n 0x104a3c700)",
            ].filter { _ in Bool.random(using: &g) }
        }
        if Bool.random(using: &g) { body["asi"] = ["libsystem_c.dylib": ["abort() called", "second\nmessage"]] }
        let data = try! JSONSerialization.data(withJSONObject: body, options: Bool.random(using: &g) ? [.prettyPrinted] : [])
        return #"{"app_name":"App","bug_type":"309","os_version":"iPhone OS 17.0 (21A329)"}"# + "\n"
            + String(decoding: data, as: UTF8.self)
    }

    private static func randomUUID(_ g: inout SplitMix64) -> uuid_t {
        let b = (0..<16).map { _ in UInt8.random(in: 0...255, using: &g) }
        return (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
    }
}
