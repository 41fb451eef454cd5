import Foundation
import TestSupport
import XCTest

/// Every frame of a report is a frame of `--format json`, in every format: a frame the tool
/// cannot place in an image (a kernel frame, `??? [0x...]`, a stackshot pair naming no listed
/// image) is one with `image` or `address` null, never left out — a crash server counting or
/// grouping frames would otherwise see another stack than the report's.
///
/// The oracle counts the frames of each input by the format's own shape, independently of the
/// parsers: the frame objects of a JSON document, the numbered frame lines of a text backtrace,
/// the nodes of a call tree. Inputs: every fixture and corpus report, and one of each format
/// the fixtures have none of (call trees, stackshots, Linux logs, Swift runtime backtraces,
/// Android tombstones).
final class JSONFrameCountTests: XCTestCase {
    func testEveryFrameOfEveryReportIsAFrameInJSON() throws {
        let dir = try makeTemporaryDirectory("frame-count")
        defer { try? FileManager.default.removeItem(at: dir) }
        var inputs: [String] = []
        for folder in ["reports", "ips", "metrickit", "group"] {
            let url = try Fixtures.root().appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
            where [".crash", ".ips", ".json"].contains(where: name.hasSuffix) {
                inputs.append(url.appendingPathComponent(name).path)
            }
        }
        let corpus = TestPaths.packageRoot.appendingPathComponent("../shared/corpus/reports")
        if let names = try? FileManager.default.contentsOfDirectory(atPath: corpus.path) {
            inputs += names.sorted().map { corpus.appendingPathComponent($0).path }
        } else {
            print("JSONFrameCountTests: no shared corpus at \(corpus.path); fixtures only")
        }
        for (name, text) in try Self.madeInputs() {
            let path = dir.appendingPathComponent(name).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            inputs.append(path)
        }
        XCTAssertGreaterThan(inputs.count, 40)

        var frames = 0
        for path in inputs {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let expected = try Self.frameCount(data, name: (path as NSString).lastPathComponent)
            let arguments = ["--format", "json", path]
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, .success, result.summary(arguments))
            let report = try IPSTests.jsonReport(result, arguments)
            let found = (report["threads"] as? [[String: Any]] ?? []).reduce(0) { $0 + (($1["frames"] as? [Any])?.count ?? 0) }
            XCTAssertEqual(found, expected, "\((path as NSString).lastPathComponent): frames in JSON vs frames in the report")
            frames += expected
        }
        print("JSONFrameCountTests: \(inputs.count) reports, \(frames) frames")
    }

    // MARK: Inputs the fixtures have none of

    private static func madeInputs() throws -> [(String, String)] {
        let stackshot = #"""
            {"bug_type":"288","os_version":"iPhone OS 14.4 (18D52)"}
            {"binaryImages":[["4C4C44C3-5555-3144-A19B-AF60D4F21F14",4372758528,"U"],["447D769E-1CB7-3086-A0B4-32226837B587",18446741874878611456,"K"]],
             "processByPid":{"1234":{"procname":"App","threadById":{"5678":{"kernelFrames":[[1,771644],[9,12]],
                 "userFrames":[[0,16900],[0,18446744073709551615],[7],[0,17220]]},"5679":{"userFrames":[[0,16568]]}}}}}
            """#
        let linux = """
            Obtained 4 stack frames.
            ./app(crash_here+0x1d)[0x55d0c0a011a9]
            /lib/x86_64-linux-gnu/libc.so.6(+0x271ca)[0x7f3a2b8271ca]
            ./app(+0x1155)[0x55d0c0a01155]
            [0x55d0c0a01000]
            ==4242==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000014
                #0 0x4c5e2f in parse_record /src/parser.c:31:5
                #1 0x4c6001 in main (/build/app+0x4c6001)
                #2 0x7f1e2a229d8f  (/lib/x86_64-linux-gnu/libc.so.6+0x29d8f) (BuildId: 4f7b0c955c3f81b5)
            Current stack trace:
            0    libswiftCore.so                    0x00007fe4b8b5f130 swift_reportError + 33
            1    app                                0x0000557fa3a3b7e4 <unavailable> + 6116

            """
        let swift = """
            *** Program crashed: Illegal instruction at 0x00007ffff796df7f ***

            Thread 0 "app" crashed:

            0      0x00007ffff796df7f
            1 [ra] 0x00005555555557e4
            2 [ra] [thunk] 0x0000555555555900
            3      ...

            Thread 1:

            0 [ra] 0x00005555555557e4

            Images (2 omitted):

            0x0000555555554000–0x0000555555555e90 fdeb5b5d06b673c5 app /tmp/app

            """
        let swiftJSON = #"""
            { "kind": "crashReport", "threads": [ { "name": "app", "crashed": true, "frames": [ { "kind": "programCounter", "address": "0x00005555555557e4" }, { "kind": "returnAddress", "address": "0x0000555555555721" }, { "kind": "truncated" } ] } ], "images": [ { "name": "app", "buildId": "fdeb5b5d", "path": "/tmp/app", "baseAddress": "0x0000555555554000", "endOfText": "0x0000555555555e90" } ] }
            """#
        let tombstone = """
            *** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***
            ABI: 'arm64'
            pid: 4242, tid: 4242, name: example  >>> com.example <<<
            backtrace:
                  #00 pc 000000000000433c  /data/app/lib/arm64/libcrashy.so (cart_total+36) (BuildId: 5f0e3a1c)
                  #01 pc 1000000000000433c  /data/app/lib/arm64/libcrashy.so
                  #02 pc 00000000002d8b14  /apex/com.android.art/lib64/libart.so (art_quick_invoke_stub+548)
                  #03 pc 0000000000001234  <anonymous:7b4f2a1000>
            stack:
                #00  0000007fd2c1a0f0  000000000000433c  /data/app/lib/arm64/libcrashy.so
            --- --- --- --- --- --- --- --- --- --- --- --- --- --- --- ---
            pid: 4242, tid: 4250, name: RenderThread  >>> com.example <<<
            backtrace:
                  #00 pc 00000000000044c0  /data/app/lib/arm64/libcrashy.so (worker_wait+12)

            """
        return [
            ("tombstone_03", tombstone),
            ("App.cpu_resource.diag", try Fixtures.fillingUUIDs(CallTreeTests.microstackshot)),
            ("App.sample.txt", try Fixtures.fillingUUIDs(CallTreeTests.sample)),
            ("App.hang.spindump.txt", try Fixtures.fillingUUIDs(CallTreeTests.spindump)),
            ("stacks-2021-03-14-092653.ips", stackshot),
            ("crash.log", linux),
            ("swift-backtrace.log", swift),
            ("swift-backtrace.json", swiftJSON),
        ]
    }

    // MARK: The oracle

    /// The frames of a report, counted by its format's shape.
    static func frameCount(_ data: Data, name: String) throws -> Int {
        let text = String(decoding: data, as: UTF8.self)
        let firstLine = String(text.prefix { $0 != "\n" })
        if firstLine.hasPrefix("{"), firstLine.contains("\"bug_type\"") {
            let rest = text.dropFirst(firstLine.count + 1)
            guard let body = try? JSONSerialization.jsonObject(with: Data(rest.utf8)) as? [String: Any] else {
                return classicFrames(String(rest))
            }
            if let processes = body["processByPid"] as? [String: Any] {
                return processes.values.compactMap { ($0 as? [String: Any])?["threadById"] as? [String: Any] }
                    .flatMap(\.values).compactMap { $0 as? [String: Any] }
                    .reduce(0) { $0 + (($1["kernelFrames"] as? [Any])?.count ?? 0) + (($1["userFrames"] as? [Any])?.count ?? 0) }
            }
            let threads = (body["threads"] as? [[String: Any]] ?? []).reduce(0) { $0 + (($1["frames"] as? [Any])?.count ?? 0) }
            let exception = (body["lastExceptionBacktrace"] as? [Any])?.count ?? 0
            let asi = (body["asiBacktraces"] as? [String] ?? []).reduce(0) { $0 + classicFrames("Application Specific Backtrace 1:\n" + $1) }
            return threads + exception + asi
        }
        if let json = try? JSONSerialization.jsonObject(with: data) {
            if let object = json as? [String: Any], object["kind"] as? String == "crashReport" {
                return (object["threads"] as? [[String: Any]] ?? []).flatMap { $0["frames"] as? [[String: Any]] ?? [] }
                    .filter { $0["address"] is String }.count
            }
            return metricKitFrames(json)
        }
        if text.contains("Call graph:") || text.contains("Heaviest stack") || text.contains("Data Source:") {
            return callTreeFrames(text)
        }
        if text.contains("*** Program crashed:") { return swiftBacktraceFrames(text) }
        if text.contains("*** *** *** ***") { return tombstoneFrames(text) }
        if text.contains("Incident Identifier:") || text.contains("Binary Images:") || text.contains("Process:") {
            return classicFrames(text)
        }
        return linuxFrames(text)
    }

    private static func matches(_ line: Substring, _ pattern: String) -> Bool {
        line.range(of: pattern, options: .regularExpression) != nil
    }

    /// Numbered lines with a `0x` address in the backtrace sections of a classic report.
    private static func classicFrames(_ text: String) -> Int {
        var count = 0
        var inBacktrace = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = line.hasSuffix("\r") ? line.dropLast() : line
            if matches(line, #"^(Thread [0-9]+( Crashed| Attributed)?:|Last Exception Backtrace:|Application Specific Backtrace [0-9]+:)"#) {
                inBacktrace = true
            } else if line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                inBacktrace = false
            } else if inBacktrace, matches(line, #"^[0-9]+[ \t]+[^ \t].*[ \t]0x[0-9a-fA-F]+([ \t]|$)"#) {
                count += 1
            }
        }
        return count
    }

    /// The objects of a MetricKit payload that are frames: those naming a binary or an address.
    private static func metricKitFrames(_ value: Any) -> Int {
        if let object = value as? [String: Any] {
            let frame = object["binaryUUID"] != nil || object["offsetIntoBinaryTextSegment"] != nil
                || (object["address"] != nil && object["binaryName"] != nil)
            return (frame ? 1 : 0) + object.values.reduce(0) { $0 + metricKitFrames($1) }
        }
        if let array = value as? [Any] { return array.reduce(0) { $0 + metricKitFrames($1) } }
        return 0
    }

    /// Nodes of a call tree: `[guides] [*]COUNT BODY` where BODY has an image group or an
    /// address and is no state line (`<on behalf of ...>`) or `sample` thread header.
    private static func callTreeFrames(_ text: String) -> Int {
        text.split(separator: "\n").filter { line in
            matches(line, #"^[ \t+!:|]*\*?[0-9]+[ \t]+[^ \t<]"#) && !matches(line, #"^[ \t+!:|]*[0-9]+[ \t]+Thread_"#)
                && (line.contains(" [0x") || line.hasSuffix(")") || matches(line, #"\) [0-9]+-[0-9]+$"#))
        }.count
    }

    /// glibc `...[0xADDR]` lines that name a module or follow one, `#N 0xADDR` lines, and
    /// `N MODULE 0xADDR NAME + OFFSET` lines.
    private static func linuxFrames(_ text: String) -> Int {
        text.split(separator: "\n").filter { line in
            matches(line, #"\[0x[0-9a-fA-F]+\]$"#) || matches(line, #"^[ \t]*#[0-9]+[ \t]+0x[0-9a-fA-F]+([ \t]|$)"#)
                || matches(line, #"^[0-9]+[ \t]+[^ \t]+[ \t]+0x[0-9a-fA-F]+ .* \+ [0-9]+$"#)
        }.count
    }

    /// `#NN pc ...` lines of an Android tombstone (stack dumps print `#NN` without `pc`).
    private static func tombstoneFrames(_ text: String) -> Int {
        text.split(separator: "\n").filter { matches($0, #"^[ \t]*#[0-9]+[ \t]+pc([ \t]|$)"#) }.count
    }

    /// `N [attr]... 0xADDR` lines of a Swift runtime backtrace.
    private static func swiftBacktraceFrames(_ text: String) -> Int {
        text.split(separator: "\n").filter { matches($0, #"^[0-9]+( \[[a-z]+\])* +0x[0-9a-fA-F]+"#) }.count
    }
}
