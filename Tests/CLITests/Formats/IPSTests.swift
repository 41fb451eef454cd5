import Foundation
import TestSupport
import XCTest

/// `.ips` reports end to end: each fixture report `reports/NAME.crash` has a JSON twin
/// `ips/NAME.ips` (bug_type 309) made by Fixtures/make_reports.py with the same threads, frames
/// and images. The `.crash` report is the oracle (TextOutputTests checks it against
/// llvm-symbolizer): its twin must resolve to the same frames in text, JSON and `.ips` output.
final class IPSTests: XCTestCase {
    private var temporary: [URL] = []

    override func tearDownWithError() throws {
        for url in temporary { try? FileManager.default.removeItem(at: url) }
        temporary = []
    }

    // MARK: Fixtures

    /// `Fixtures/build/ips`; an error (a failure, not a skip) when the fixtures are built but
    /// it is absent, since Fixtures/build.sh always makes it.
    static func directory() throws -> URL {
        try Fixtures.twins("ips", what: ".ips", ext: "ips")
    }

    /// Every fixture report and its `.ips` twin.
    static func twins() throws -> [(crash: String, ips: String)] {
        let directory = try directory()
        let reports = try Fixtures.reports()
        XCTAssertFalse(reports.isEmpty, "no reports in Fixtures/build/reports")
        return reports.map { crash in
            let name = URL(fileURLWithPath: crash).deletingPathExtension().lastPathComponent
            return (crash, directory.appendingPathComponent(name + ".ips").path)
        }
    }

    // MARK: Reading the outputs

    /// The frame lines of the numbered threads, as "FRAME ADDRESS REST" by thread number.
    /// Image names are left out: a macOS report may print the bundle id where the `.ips`
    /// names the file.
    static func threadFrames(_ text: String) -> [Int: [String]] {
        var result: [Int: [String]] = [:]
        for section in ReportText(text).threads {
            result[section.number] = section.frames.map { "\($0.frame) \(hex($0.address)) \($0.rest)" }
        }
        return result
    }

    /// The frame lines under a header such as "Last Exception Backtrace:", up to a blank line.
    static func block(_ header: String, in text: String) -> [ReportText.FrameLine] {
        let lines = ReportText(text).lines
        guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .newlines) == header }) else { return [] }
        var frames: [ReportText.FrameLine] = []
        for index in (start + 1)..<lines.count {
            guard let frame = ReportText.parseFrameLine(lines[index], lineIndex: index) else { break }
            frames.append(frame)
        }
        return frames
    }

    /// The one report of a `--format json` run.
    static func jsonReport(_ result: ProcessResult, _ arguments: [String]) throws -> [String: Any] {
        let reports = try JSONOutputTests.parse(result, arguments)
        XCTAssertEqual(reports.count, 1, CLI.describe(arguments))
        return try XCTUnwrap(reports.first)
    }

    /// A JSON output frame in a form that compares: everything but the image name.
    static func describe(jsonFrame frame: [String: Any]) -> String {
        func value(_ key: String) -> String {
            guard let value = frame[key], !(value is NSNull) else { return "-" }
            return "\(value)"
        }
        return ["index", "address", "symbol", "offset", "file", "line", "column", "inlined"]
            .map { "\($0)=\(value($0))" }.joined(separator: " ")
    }

    /// The frames of the numbered threads of a JSON report, by thread number.
    static func jsonThreadFrames(_ report: [String: Any]) -> [Int: [String]] {
        var result: [Int: [String]] = [:]
        for thread in report["threads"] as? [[String: Any]] ?? [] where thread["kind"] as? String == "thread" {
            guard let number = thread["index"] as? Int else { continue }
            result[number] = (thread["frames"] as? [[String: Any]] ?? []).map { describe(jsonFrame: $0) }
        }
        return result
    }

    /// A written `.ips` file: the metadata line and the body.
    struct WrittenIPS {
        var metadata: String
        var body: [String: Any]

        init(_ data: Data, file: StaticString = #filePath, line: UInt = #line) throws {
            let bytes = [UInt8](data)
            let newline = try XCTUnwrap(bytes.firstIndex(of: 0x0A), "no metadata line", file: file, line: line)
            metadata = String(decoding: bytes[..<newline], as: UTF8.self)
            body = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes[(newline + 1)...])) as? [String: Any],
                                 "the body is not a JSON object", file: file, line: line)
        }

        /// The absolute address of a frame object: its image's base plus its offset.
        func address(_ frame: [String: Any]) -> UInt64? {
            guard let images = body["usedImages"] as? [[String: Any]], let index = frame["imageIndex"] as? Int,
                  images.indices.contains(index), let base = (images[index]["base"] as? NSNumber)?.uint64Value,
                  let offset = (frame["imageOffset"] as? NSNumber)?.uint64Value
            else { return nil }
            return base &+ offset
        }

        /// A frame object in the terms of the JSON output: symbol, offset, file, line, inlined.
        func describe(_ frame: [String: Any]) -> String {
            func value(_ key: String) -> String {
                frame[key].map { "\($0)" } ?? "-"
            }
            let inlined = (frame["inline"] as? Bool) == true
            return "address=\(address(frame).map(hex) ?? "-") symbol=\(value("symbol")) offset=\(value("symbolLocation"))"
                + " file=\(value("sourceFile")) line=\(value("sourceLine")) inlined=\(inlined)"
        }

        /// The frames of each thread, by thread number (the position in `threads`).
        var threadFrames: [Int: [String]] {
            var result: [Int: [String]] = [:]
            for (number, thread) in (body["threads"] as? [[String: Any]] ?? []).enumerated() {
                result[number] = (thread["frames"] as? [[String: Any]] ?? []).map(describe)
            }
            return result
        }

        /// The body without frames and backtraces: what symbolication must not change.
        var withoutFrames: NSDictionary {
            var copy = body
            copy["threads"] = (body["threads"] as? [[String: Any]] ?? []).map { thread -> [String: Any] in
                var thread = thread
                thread["frames"] = nil
                return thread
            }
            copy["lastExceptionBacktrace"] = nil
            copy["asiBacktraces"] = nil
            return copy as NSDictionary
        }
    }

    /// A JSON output frame in the terms of a written `.ips` frame.
    static func asIPSFrame(_ frame: [String: Any], fullPath: Bool) -> String {
        func value(_ key: String) -> String? {
            guard let value = frame[key], !(value is NSNull) else { return nil }
            return "\(value)"
        }
        let file = value("file").map { fullPath ? $0 : basename($0) }
        return "address=\(value("address") ?? "-") symbol=\(value("symbol") ?? "-") offset=\(value("offset") ?? "-")"
            + " file=\(file ?? "-") line=\(value("line") ?? "-") inlined=\((frame["inlined"] as? Bool) == true)"
    }

    static func jsonThreadFramesAsIPS(_ report: [String: Any], fullPath: Bool) -> [Int: [String]] {
        var result: [Int: [String]] = [:]
        for thread in report["threads"] as? [[String: Any]] ?? [] where thread["kind"] as? String == "thread" {
            guard let number = thread["index"] as? Int else { continue }
            result[number] = (thread["frames"] as? [[String: Any]] ?? []).map { asIPSFrame($0, fullPath: fullPath) }
        }
        return result
    }

    // MARK: Twins

    func testTextOutputHasTheFramesOfTheCrashTwin() throws {
        let macho = try Fixtures.path("macho")
        for (crash, ips) in try Self.twins() {
            let expected = try CLI.succeeding(["-d", macho, "--no-demangle", crash])
            let got = try CLI.succeeding(["-d", macho, "--no-demangle", ips])
            let expectedFrames = Self.threadFrames(expected.stdoutText)
            XCTAssert(expected.stdoutText.contains(" [inlined]"), "\(crash): the oracle should resolve inlined frames")
            XCTAssertFalse(expectedFrames.isEmpty, "\(crash): no thread frames")
            XCTAssertEqual(Self.threadFrames(got.stdoutText), expectedFrames, "\(ips) against \(crash)")
            XCTAssertEqual(got.stderrText.replacingOccurrences(of: ips, with: crash), expected.stderrText,
                           "the same warnings as the twin")
        }
    }

    func testJSONOutputHasTheFramesOfTheCrashTwin() throws {
        let macho = try Fixtures.path("macho")
        for (crash, ips) in try Self.twins() {
            let expectedArguments = ["-d", macho, "--no-demangle", "--format", "json", crash]
            let arguments = ["-d", macho, "--no-demangle", "--format", "json", ips]
            let expected = try Self.jsonReport(try CLI.succeeding(expectedArguments), expectedArguments)
            let got = try Self.jsonReport(try CLI.succeeding(arguments), arguments)
            let problems = JSONOutputTests.schemaProblems(try CLI.succeeding(arguments).stdout)
            XCTAssert(problems.isEmpty, "\(ips): schema:\n" + problems.joined(separator: "\n"))
            XCTAssertEqual(got["path"] as? String, ips)
            XCTAssertEqual(Self.jsonThreadFrames(got), Self.jsonThreadFrames(expected), "\(ips) against \(crash)")
            func debugFiles(_ report: [String: Any]) -> [String: String] {
                var result: [String: String] = [:]
                for image in report["images"] as? [[String: Any]] ?? [] {
                    if let uuid = image["uuid"] as? String, let file = image["debug_file"] as? String { result[uuid] = file }
                }
                return result
            }
            XCTAssertFalse(debugFiles(expected).isEmpty, "\(crash): images with debug files")
            XCTAssertEqual(debugFiles(got), debugFiles(expected), "\(ips): the same debug file for each UUID")
        }
    }

    func testIPSOutputHasTheFramesOfTheCrashTwinAndNothingElseChanges() throws {
        let macho = try Fixtures.path("macho")
        for (crash, ips) in try Self.twins() {
            for fullPath in [false, true] {
                let flags = fullPath ? ["--full-path"] : []
                let expectedArguments = ["-d", macho, "--no-demangle", "--format", "json"] + flags + [crash]
                let expected = try Self.jsonReport(try CLI.succeeding(expectedArguments), expectedArguments)
                let result = try CLI.succeeding(["-d", macho, "--no-demangle", "--format", "ips"] + flags + [ips])
                let written = try WrittenIPS(result.stdout)
                let input = try WrittenIPS(Data(contentsOf: URL(fileURLWithPath: ips)))
                XCTAssertEqual(written.metadata, input.metadata, "\(ips): the metadata line is unchanged")
                XCTAssert(written.withoutFrames.isEqual(to: input.withoutFrames as! [AnyHashable: Any]),
                          "\(ips): only frames change")
                let expectedFrames = Self.jsonThreadFramesAsIPS(expected, fullPath: fullPath)
                XCTAssert(expectedFrames.values.joined().contains { $0.hasSuffix("inlined=true") },
                          "\(crash): the oracle should have inlined frames")
                XCTAssertEqual(written.threadFrames, expectedFrames, "\(ips)\(fullPath ? " --full-path" : "") against \(crash)")
            }
        }
    }

    func testAUniversalDSYMGivesTheSliceWhoseUUIDMatches() throws {
        let macho = try Fixtures.path("macho")
        let ips = try Self.directory().appendingPathComponent("App-universal-arm64.ips").path
        let crash = try Fixtures.path("reports/App-universal-arm64.crash")
        let dwarf = "macho/App-universal.dSYM/Contents/Resources/DWARF/App-universal"
        let slices = try Fixtures.manifest().filter { $0.path == dwarf }
        XCTAssertEqual(Set(slices.map(\.arch)), ["arm64", "x86_64"], "the fixture dSYM is universal")
        let arm64 = try XCTUnwrap(slices.first { $0.arch == "arm64" })

        let arguments = ["-d", macho, "--no-demangle", "--format", "json", ips]
        let report = try Self.jsonReport(try CLI.succeeding(arguments), arguments)
        let app = try XCTUnwrap((report["images"] as? [[String: Any]])?.first { $0["name"] as? String == "App" })
        XCTAssertEqual(app["uuid"] as? String, arm64.compactIdentifier, "the report names the arm64 slice")
        XCTAssertEqual((app["debug_file"] as? String).map { $0.hasSuffix(dwarf) }, true, "\(app)")
        let expectedArguments = ["-d", macho, "--no-demangle", "--format", "json", crash]
        let expected = try Self.jsonReport(try CLI.succeeding(expectedArguments), expectedArguments)
        XCTAssertEqual(Self.jsonThreadFrames(report), Self.jsonThreadFrames(expected),
                       "resolved in the arm64 slice, as the .crash twin (checked against llvm-symbolizer for arm64)")
    }

    // MARK: Exception backtraces

    /// App-arm64-exception.ips: its Last Exception Backtrace and asiBacktraces hold thread 0's
    /// return addresses, which must resolve as they do in thread 0 of App-arm64.crash.
    func testExceptionBacktracesResolveLikeTheSameReturnAddressesInTheTwin() throws {
        let macho = try Fixtures.path("macho")
        let ips = try Self.directory().appendingPathComponent("App-arm64-exception.ips").path
        let crash = try Fixtures.path("reports/App-arm64.crash")

        // Text: each address's lines, as the twin prints them for return addresses (frames 1+).
        let expectedText = try CLI.succeeding(["-d", macho, "--no-demangle", crash]).stdoutText
        // (An address may be in several threads; each frame's lines are kept once.)
        var oracle: [UInt64: [String]] = [:]
        for section in ReportText(expectedText).threads {
            var lines: [Int: [String]] = [:]
            for frame in section.frames where frame.frame > 0 { lines[frame.frame, default: []].append(frame.rest) }
            for frame in section.frames where frame.frame > 0 && oracle[frame.address] == nil {
                oracle[frame.address] = lines[frame.frame]
            }
        }
        let text = try CLI.succeeding(["-d", macho, "--no-demangle", ips]).stdoutText
        for header in ["Last Exception Backtrace:", "Application Specific Backtrace 1:"] {
            let frames = Self.block(header, in: text)
            XCTAssertGreaterThan(frames.count, 10, "\(header) in \(ips)")
            var got: [UInt64: [String]] = [:]
            for frame in frames { got[frame.address, default: []].append(frame.rest) }
            let shared = got.keys.filter { oracle[$0] != nil }
            XCTAssertGreaterThanOrEqual(shared.count, 3, "\(header): return addresses shared with the twin")
            XCTAssert(shared.contains { oracle[$0]!.contains { $0.hasSuffix("[inlined]") } }, "\(header): some resolve to inlined frames")
            for address in shared {
                XCTAssertEqual(got[address], oracle[address], "\(header) frame at \(hex(address))")
            }
        }

        // JSON, both backtraces.
        let expectedArguments = ["-d", macho, "--no-demangle", "--format", "json", crash]
        let expected = try Self.jsonReport(try CLI.succeeding(expectedArguments), expectedArguments)
        var jsonOracle: [String: [String]] = [:]
        var ipsOracle: [UInt64: [String]] = [:]
        for thread in expected["threads"] as? [[String: Any]] ?? [] {
            var json: [String: [String]] = [:]
            var written: [UInt64: [String]] = [:]
            for frame in thread["frames"] as? [[String: Any]] ?? [] where (frame["index"] as? Int ?? 0) > 0 {
                let address = frame["address"] as? String ?? ""
                let comparable = Self.describe(jsonFrame: frame)
                json[address, default: []].append(String(comparable.drop(while: { $0 != " " })))  // no frame number
                if let value = parseHex(address) { written[value, default: []].append(Self.asIPSFrame(frame, fullPath: false)) }
            }
            jsonOracle.merge(json) { first, _ in first }
            ipsOracle.merge(written) { first, _ in first }
        }
        let arguments = ["-d", macho, "--no-demangle", "--format", "json", ips]
        let report = try Self.jsonReport(try CLI.succeeding(arguments), arguments)
        let kinds = (report["threads"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
        XCTAssertEqual(Array(kinds.prefix(2)), ["last_exception_backtrace", "application_specific_backtrace"])
        for thread in (report["threads"] as? [[String: Any]] ?? []).prefix(2) {
            var got: [String: [String]] = [:]
            for frame in thread["frames"] as? [[String: Any]] ?? [] {
                got[frame["address"] as? String ?? "", default: []].append(
                    String(Self.describe(jsonFrame: frame).drop(while: { $0 != " " })))
            }
            let shared = got.keys.filter { jsonOracle[$0] != nil }
            XCTAssertGreaterThanOrEqual(shared.count, 3, "\(thread["kind"] ?? "?"): return addresses shared with the twin")
            for address in shared { XCTAssertEqual(got[address], jsonOracle[address], "\(thread["kind"] ?? "?") at \(address)") }
        }

        // Written back as .ips: the frame objects of lastExceptionBacktrace and the text of asiBacktraces.
        let written = try WrittenIPS(try CLI.succeeding(["-d", macho, "--no-demangle", "--format", "ips", ips]).stdout)
        var got: [UInt64: [String]] = [:]
        for frame in written.body["lastExceptionBacktrace"] as? [[String: Any]] ?? [] {
            if let address = written.address(frame) { got[address, default: []].append(written.describe(frame)) }
        }
        let shared = got.keys.filter { ipsOracle[$0] != nil }
        XCTAssertGreaterThanOrEqual(shared.count, 3, "lastExceptionBacktrace: return addresses shared with the twin")
        for address in shared { XCTAssertEqual(got[address], ipsOracle[address], "lastExceptionBacktrace at \(hex(address))") }
        let asi = try XCTUnwrap((written.body["asiBacktraces"] as? [String])?.first)
        var asiGot: [UInt64: [String]] = [:]
        for (index, line) in ReportText(asi).lines.enumerated() {
            if let frame = ReportText.parseFrameLine(line, lineIndex: index) { asiGot[frame.address, default: []].append(frame.rest) }
        }
        let asiShared = asiGot.keys.filter { oracle[$0] != nil }
        XCTAssertGreaterThanOrEqual(asiShared.count, 3, "asiBacktraces: return addresses shared with the twin")
        for address in asiShared { XCTAssertEqual(asiGot[address], oracle[address], "asiBacktraces at \(hex(address))") }
    }

    // MARK: bug_type 109, unchanged documents, errors

    func testBugType109IsTheClassicReportAfterItsMetadataLine() throws {
        let macho = try Fixtures.path("macho")
        let ips = try Self.directory().appendingPathComponent("App-x86_64-109.ips").path
        let crash = try Fixtures.path("reports/App-x86_64.crash")
        let input = try String(contentsOfFile: ips, encoding: .utf8)
        let metadataLine = String(input.prefix { $0 != "\n" }) + "\n"
        XCTAssert(metadataLine.contains(#""bug_type":"109""#), metadataLine)
        XCTAssertEqual(input, metadataLine + (try String(contentsOfFile: crash, encoding: .utf8)),
                       "the fixture: the metadata line, then the .crash report")
        let expected = try CLI.succeeding(["-d", macho, "--no-demangle", crash]).stdoutText
        XCTAssertEqual(try CLI.succeeding(["-d", macho, "--no-demangle", ips]).stdoutText, metadataLine + expected)
        XCTAssertEqual(try CLI.succeeding(["-d", macho, "--no-demangle", "--format", "ips", ips]).stdoutText, metadataLine + expected,
                       "--format ips writes a text body as text")
        let arguments = ["-d", macho, "--no-demangle", "--format", "json", ips]
        let expectedArguments = ["-d", macho, "--no-demangle", "--format", "json", crash]
        XCTAssertEqual(Self.jsonThreadFrames(try Self.jsonReport(try CLI.succeeding(arguments), arguments)),
                       Self.jsonThreadFrames(try Self.jsonReport(try CLI.succeeding(expectedArguments), expectedArguments)))
    }

    func testWithoutDebugFilesEveryIPSComesBackByteForByte() throws {
        let directory = try Self.directory()
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".ips") }.sorted()
        XCTAssertGreaterThanOrEqual(files.count, 6)
        for name in files {
            let path = directory.appendingPathComponent(name).path
            let result = try CLI.succeeding(["--format", "ips", path])
            let input = try Data(contentsOf: URL(fileURLWithPath: path))
            XCTAssert(result.stdout == input, "\(name) --format ips without debug files: " + CorpusTests.firstDifference(input, result.stdout))
        }
    }

    func testAWrittenIPSReadsBackToTheSameFrames() throws {
        let macho = try Fixtures.path("macho")
        let folder = try makeTemporaryDirectory("ips-round-trip")
        temporary.append(folder)
        for (_, ips) in try Self.twins() {
            let once = try CLI.succeeding(["-d", macho, "--no-demangle", "--format", "ips", ips])
            let copy = folder.appendingPathComponent(URL(fileURLWithPath: ips).lastPathComponent)
            try once.stdout.write(to: copy)
            let text = try CLI.succeeding(["-d", macho, "--no-demangle", ips]).stdoutText
            let again = try CLI.succeeding(["-d", macho, "--no-demangle", copy.path])
            XCTAssertEqual(Self.threadFrames(again.stdoutText), Self.threadFrames(text),
                           "\(ips) written with symbols reads back to the frames it was written with")
            let twice = try CLI.succeeding(["-d", macho, "--no-demangle", "--format", "ips", copy.path])
            XCTAssertEqual(twice.stdout, once.stdout, "\(ips): symbolicating a symbolicated .ips changes nothing")
        }
    }

    func testACutShortIPSFailsWithOneLineAndTheOthersAreWritten() throws {
        let macho = try Fixtures.path("macho")
        let good = try Self.directory().appendingPathComponent("App-arm64.ips").path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        let folder = try makeTemporaryDirectory("ips-cut")
        temporary.append(folder)
        let cut = folder.appendingPathComponent("cut.ips").path
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        let arguments = ["-d", macho, "--no-demangle", cut, good]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .reportFailed, result.summary(arguments))
        XCTAssertEqual(result.problemLines.count, 1, result.summary(arguments))
        XCTAssert(result.stderrText.hasPrefix("symbolicate: \(cut): not a valid .ips report: the JSON body is not valid JSON")
                  || result.stderrText.contains("\(cut): not a valid .ips report: the JSON body is not valid JSON"),
                  result.stderrText)
        XCTAssert(result.stderrText.contains("the file is cut short"), result.stderrText)
        let alone = try CLI.succeeding(["-d", macho, "--no-demangle", good]).stdoutText
        let cutText = String(decoding: bytes.prefix(bytes.count / 2), as: UTF8.self)
        XCTAssertEqual(result.stdoutText, "==> \(cut) <==\n" + cutText + "\n==> \(good) <==\n" + alone,
                       "the cut report is written as it is, then the good one")
    }

    func testADirectoryOfIPSReportsIsReadLikeTheReportsInIt() throws {
        let macho = try Fixtures.path("macho")
        let directory = try Self.directory()
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".ips") }.sorted()
        let arguments = ["-d", macho, "--no-demangle", "--format", "json", directory.path]
        let reports = try JSONOutputTests.parse(try CLI.succeeding(arguments), arguments)
        XCTAssertEqual(reports.compactMap { ($0["path"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent } }.sorted(),
                       files)
    }
}
