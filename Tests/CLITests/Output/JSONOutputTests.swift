import Foundation
import TestSupport
import XCTest

/// `symbolicate --format json`: the schema, and every frame against llvm-symbolizer.
final class JSONOutputTests: XCTestCase {
    static let reportKeys: Set<String> = ["path", "threads", "images"]
    static let threadKeys: Set<String> = ["index", "kind", "crashed", "name", "frames"]
    static let frameKeys: Set<String> = ["index", "image", "address", "symbol", "offset", "file", "line", "column", "inlined"]
    static let imageKeys: Set<String> = ["name", "uuid", "arch", "load_address", "debug_file", "unresolved"]
    static let unresolvedKeys: Set<String> = ["reason", "message", "file", "file_id", "file_archs"]
    static let unresolvedReasons: Set<String> = ["no_file", "no_identifier", "other_uuid", "other_arch", "symbol_table_only",
                                                 "no_debug_info", "damaged", "partly_damaged", "contradicted",
                                                 "unusable_server_file", "other_os_build"]

    /// Parses a JSON document, failing the test with the text when it is not one.
    static func parse(_ result: ProcessResult, _ arguments: [String],
                      file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: result.stdout)
        } catch {
            XCTFail("not JSON (\(error)): \(result.summary(arguments))", file: file, line: line)
            throw error
        }
        guard let top = object as? [String: Any] else {
            XCTFail("the document is not an object: \(result.summary(arguments))", file: file, line: line)
            throw FixtureError("not an object")
        }
        XCTAssertEqual(Set(top.keys), ["reports"], "top-level keys", file: file, line: line)
        guard let reports = top["reports"] as? [[String: Any]] else {
            XCTFail("\"reports\" is not an array of objects", file: file, line: line)
            throw FixtureError("no reports")
        }
        return reports
    }

    /// The value types of the schema, decoded strictly (a number is not a boolean, and so on).
    struct Document: Decodable {
        struct Report: Decodable {
            var path: String
            var threads: [Thread]
            var images: [Image]
        }
        struct Thread: Decodable {
            var index: Int?
            var kind: String
            var crashed: Bool
            var name: String?
            var frames: [Frame]
        }
        struct Frame: Decodable {
            var index: Int
            var image: String?
            /// Null when the report gives no address that can be read.
            var address: String?
            var symbol: String?
            var offset: UInt64?
            var file: String?
            var line: Int?
            var column: Int?
            var inlined: Bool
        }
        struct Image: Decodable {
            var name: String?
            var uuid: String?
            var arch: String?
            var load_address: String
            var debug_file: String?
            var unresolved: Unresolved?
        }
        struct Unresolved: Decodable {
            var reason: String
            var message: String
            var file: String?
            var file_id: String?
            var file_archs: [String]
        }
        var reports: [Report]
    }

    /// Checks the keys of every object and the type of every value; returns the problems.
    static func schemaProblems(_ data: Data) -> [String] {
        var problems: [String] = []
        func check(_ condition: Bool, _ message: @autoclosure () -> String) { if !condition { problems.append(message()) } }
        func isHex(_ text: String) -> Bool { text.hasPrefix("0x") && parseHex(text) != nil && text == text.lowercased() }
        do {
            let document = try JSONDecoder().decode(Document.self, from: data)
            for report in document.reports {
                for thread in report.threads {
                    check(["thread", "last_exception_backtrace", "application_specific_backtrace"].contains(thread.kind),
                          "thread kind: \(thread.kind)")
                    check((thread.index == nil) == (thread.kind == "last_exception_backtrace"),
                          "thread index \(thread.index.map(String.init) ?? "null") for kind \(thread.kind)")
                    for frame in thread.frames {
                        check(frame.address.map(isHex) ?? true,
                              "frame address is not \"0x…\" lowercase: \(frame.address ?? "null")")
                    }
                }
                for image in report.images {
                    check(isHex(image.load_address), "load_address is not \"0x…\" lowercase: \(image.load_address)")
                    if let unresolved = image.unresolved {
                        check(unresolvedReasons.contains(unresolved.reason), "unresolved reason: \(unresolved.reason)")
                        check(!unresolved.message.isEmpty, "an unresolved image without a message")
                    }
                }
            }
        } catch {
            problems.append("the document does not decode with the schema's types: \(error)")
        }
        guard let top = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return problems + ["not a JSON object"]
        }
        for report in top["reports"] as? [[String: Any]] ?? [] {
            check(Set(report.keys) == reportKeys, "report keys \(report.keys.sorted()) ≠ \(reportKeys.sorted())")
            for thread in report["threads"] as? [[String: Any]] ?? [] {
                check(Set(thread.keys) == threadKeys, "thread keys \(thread.keys.sorted()) ≠ \(threadKeys.sorted())")
                for frame in thread["frames"] as? [[String: Any]] ?? [] {
                    check(Set(frame.keys) == frameKeys, "frame keys \(frame.keys.sorted()) ≠ \(frameKeys.sorted())")
                }
            }
            for image in report["images"] as? [[String: Any]] ?? [] {
                check(Set(image.keys) == imageKeys, "image keys \(image.keys.sorted()) ≠ \(imageKeys.sorted())")
                if let unresolved = image["unresolved"] as? [String: Any] {
                    check(Set(unresolved.keys) == unresolvedKeys,
                          "unresolved keys \(unresolved.keys.sorted()) ≠ \(unresolvedKeys.sorted())")
                }
            }
        }
        return problems
    }

    func testFixtureReportsAsJSON() throws {
        let macho = try Fixtures.path("macho")
        for path in try Fixtures.reports() {
            let report = try FixtureReport.load(path)
            let arguments = ["-d", macho, "--no-demangle", "--format", "json", path]
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, .success, result.summary(arguments))
            XCTAssertEqual(result.stderrText, "", "no warnings expected: \(CLI.describe(arguments))")
            let reports = try Self.parse(result, arguments)
            XCTAssertEqual(reports.count, 1, "one report object")
            guard let json = reports.first else { continue }
            let problems = Self.schemaProblems(result.stdout)
            XCTAssert(problems.isEmpty, "\(path): schema:\n" + problems.prefix(20).joined(separator: "\n"))
            XCTAssertEqual(json["path"] as? String, path, "the report's path as given")
            checkThreads(json, report)
            checkImages(json, report)
        }
    }

    private func checkThreads(_ json: [String: Any], _ report: FixtureReport) {
        let threads = (json["threads"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "thread" }
        let sections = report.text.threads
        XCTAssertEqual(threads.compactMap { $0["index"] as? Int }, sections.map(\.number),
                       "\(report.path): the threads, in order")
        for (thread, section) in zip(threads, sections) {
            let label = "\(report.path) thread \(section.number)"
            XCTAssertEqual(thread["crashed"] as? Bool, section.crashed, "\(label): crashed")
            XCTAssertEqual(thread["name"] as? String, section.name, "\(label): name")
            let frames = thread["frames"] as? [[String: Any]] ?? []
            XCTAssertEqual(Set(frames.compactMap { $0["index"] as? Int }), Set(section.frames.map(\.frame)),
                           "\(label): frame indexes")
            for frameLine in section.frames {
                let entries = frames.filter { $0["index"] as? Int == frameLine.frame }
                let key = FrameKey(thread: section.number, frame: frameLine.frame)
                let where_ = "\(label) frame \(frameLine.frame)"
                for entry in entries {
                    XCTAssertEqual(entry["address"] as? String, hex(frameLine.address), "\(where_): address")
                    XCTAssertEqual(entry["image"] as? String, frameLine.image, "\(where_): image as printed in the frame")
                }
                if let resolution = report.resolutions[key], !resolution.oracle.isEmpty {
                    let oracle = resolution.oracle
                    let got = entries.map(describe).joined(separator: "\n    ")
                    let want = oracle.enumerated().map { k, frame in
                        "\(frame.function) + \(frame.startAddress == nil ? "any" : resolution.offset(of: frame).map(String.init) ?? "nil") "
                            + "\(basename(frame.file)):\(frame.line):\(frame.column) inlined=\(k < oracle.count - 1)"
                    }.joined(separator: "\n    ")
                    let message = "\(resolution.label):\n  expected (llvm-symbolizer):\n    \(want)\n  output:\n    \(got)"
                    guard entries.count == oracle.count else {
                        XCTFail("\(message)\n  (\(entries.count) entries for \(oracle.count) frames)")
                        continue
                    }
                    for (k, (entry, frame)) in zip(entries, oracle).enumerated() {
                        XCTAssertEqual(entry["symbol"] as? String, frame.function, "symbol, \(message)")
                        XCTAssertEqual((entry["file"] as? String).map(basename), frame.line > 0 ? basename(frame.file) : nil,
                                       "file, \(message)")
                        XCTAssertEqual(entry["line"] as? Int, frame.line > 0 ? frame.line : nil, "line, \(message)")
                        XCTAssertEqual(entry["column"] as? Int, frame.column > 0 ? frame.column : nil, "column, \(message)")
                        XCTAssertEqual(entry["inlined"] as? Bool, k < oracle.count - 1, "inlined, \(message)")
                        if frame.startAddress != nil {
                            XCTAssertEqual((entry["offset"] as? NSNumber)?.uint64Value, resolution.offset(of: frame),
                                           "offset, \(message)")
                        }  // else llvm-symbolizer gives no start (an inlined function in several ranges): any offset
                    }
                } else {
                    // Not resolved: one entry with what the line itself says.
                    XCTAssertEqual(entries.count, 1, "\(where_): one entry for an unresolved frame: \(entries.map(describe))")
                    guard let entry = entries.first else { continue }
                    XCTAssertEqual(entry["inlined"] as? Bool, false, "\(where_): inlined")
                    XCTAssert(entry["file"] is NSNull && entry["line"] is NSNull && entry["column"] is NSNull,
                              "\(where_): no source location for \(frameLine.rest): \(describe(entry))")
                    let (symbol, offset) = Self.symbolAndOffset(frameLine.rest)
                    XCTAssertEqual(entry["symbol"] as? String, symbol, "\(where_): symbol of \(frameLine.rest.debugDescription)")
                    XCTAssertEqual((entry["offset"] as? NSNumber)?.uint64Value, offset,
                                   "\(where_): offset of \(frameLine.rest.debugDescription)")
                }
            }
        }
    }

    /// `symbol + 12` → (symbol, 12); `0x1a8f06000 + 10435364` → (nil, nil).
    static func symbolAndOffset(_ rest: String) -> (String?, UInt64?) {
        guard let plus = rest.range(of: " + ", options: .backwards) else { return (nil, nil) }
        let symbol = String(rest[..<plus.lowerBound])
        let offset = UInt64(rest[plus.upperBound...].trimmingCharacters(in: .whitespaces))
        if symbol.hasPrefix("0x"), parseHex(symbol) != nil { return (nil, nil) }
        return (symbol, offset)
    }

    private func describe(_ entry: [String: Any]) -> String {
        func text(_ key: String) -> String { entry[key].map { $0 is NSNull ? "nil" : "\($0)" } ?? "missing" }
        return "\(text("symbol")) + \(text("offset")) \((entry["file"] as? String).map(basename) ?? "nil"):\(text("line")):\(text("column")) inlined=\(text("inlined"))"
    }

    private func checkImages(_ json: [String: Any], _ report: FixtureReport) {
        let images = json["images"] as? [[String: Any]] ?? []
        let lines = report.text.images
        XCTAssertEqual(images.count, lines.count, "\(report.path): one image per Binary Images line")
        for (image, line) in zip(images, lines) {
            let label = "\(report.path) image \(line.name)"
            XCTAssertEqual(image["name"] as? String, line.name, "\(label): name")
            XCTAssertEqual((image["uuid"] as? String).map(compactUUID), line.uuid, "\(label): uuid")
            XCTAssertEqual(image["arch"] as? String, line.arch, "\(label): arch")
            XCTAssertEqual(image["load_address"] as? String, hex(line.start), "\(label): load_address")
            if let debugFile = report.debugFiles.first(where: { $0.value.compactIdentifier == line.uuid })?.key {
                let got = image["debug_file"] as? String
                XCTAssert(got.map { URL(fileURLWithPath: $0).standardized.path.hasSuffix("/" + debugFile) } ?? false,
                          "\(label): debug_file should be …/\(debugFile), is \(got ?? "null")")
            } else {
                XCTAssert(image["debug_file"] is NSNull,
                          "\(label): no debug file for a system image, debug_file is \(image["debug_file"] ?? "missing")")
            }
        }
        // Both fixture images have a debug file in the arm64 report.
        if report.path.hasSuffix("/App-arm64.crash") {
            for name in ["App", "libGreeter.dylib"] {
                let image = images.first { $0["name"] as? String == name }
                XCTAssert(image?["debug_file"] is String, "\(report.path): \(name) should have its debug file")
            }
        }
    }

    func testSeveralReportsGiveOneDocument() throws {
        let macho = try Fixtures.path("macho")
        let reports = try Fixtures.reports()
        let arguments = ["-d", macho, "--format", "json"] + reports
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        let parsed = try Self.parse(result, arguments)
        XCTAssertEqual(parsed.compactMap { $0["path"] as? String }, reports, "one object per report, in order")
        XCTAssertFalse(result.stdoutText.contains("==> "), "no text headers in JSON output")
    }

    func testCorpusReportsAsJSONHaveNothingResolved() throws {
        guard let corpus = TestPaths.corpus else { throw XCTSkip(TestPaths.corpusAbsent) }
        for path in try CorpusTests.reports(corpus) {
            let arguments = ["-d", corpus.appendingPathComponent("debug").path, "--format", "json", path]
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, .success, result.summary(arguments))
            let reports = try Self.parse(result, arguments)
            guard let report = reports.first else {
                XCTFail("\(path): no report object")
                continue
            }
            let problems = Self.schemaProblems(result.stdout)
            XCTAssert(problems.isEmpty, "\(path): schema:\n" + problems.prefix(20).joined(separator: "\n"))
            let text = ReportText(try String(contentsOfFile: path, encoding: .utf8))
            for image in report["images"] as? [[String: Any]] ?? [] {
                XCTAssert(image["debug_file"] is NSNull, "\(path): no debug file matches \(image["name"] ?? "?")")
            }
            for thread in report["threads"] as? [[String: Any]] ?? [] {
                for frame in thread["frames"] as? [[String: Any]] ?? [] {
                    XCTAssertEqual(frame["inlined"] as? Bool, false, "\(path): nothing is resolved, so nothing is inlined")
                }
            }
            let frameCount = (report["threads"] as? [[String: Any]] ?? [])
                .filter { $0["kind"] as? String == "thread" }
                .map { ($0["frames"] as? [Any])?.count ?? 0 }.reduce(0, +)
            XCTAssertEqual(frameCount, text.threads.map(\.frames.count).reduce(0, +),
                           "\(path): one JSON frame per frame line of the numbered threads")
        }
    }
}
