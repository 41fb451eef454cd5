import Foundation
import TestSupport
import XCTest

/// `--format kscrash`: a KSCrash report written back as its JSON, byte for byte but for its
/// resolved frame objects, which get `symbol_name`, `symbol_addr`, `file`, `line` and
/// `inlined_frames`. The oracle is the same run's `--format json` (which KSCrashTests checks
/// frame for frame against the `.crash` twins, and those against llvm-symbolizer).
final class KSCrashWriteBackTests: XCTestCase {
    private static let added = ["symbol_name", "symbol_addr", "file", "line", "inlined_frames"]

    private static func json(_ data: Data, _ what: String) throws -> Any {
        do {
            return try JSONSerialization.jsonObject(with: data)
        } catch {
            XCTFail("\(what) is not JSON: \(error)")
            throw error
        }
    }

    /// A JSON value as compact JSON with sorted keys, to compare; "absent" for none.
    private static func canonical(_ value: Any?) -> String {
        guard let value, let data = try? JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys]) else {
            return "absent"
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The frame objects of a KSCrash document, thread by thread in document order (one report,
    /// or each report of an array).
    private static func frameObjects(_ document: Any) -> [[[String: Any]]] {
        let reports = (document as? [Any]) ?? [document]
        var threads: [[[String: Any]]] = []
        for case let report as [String: Any] in reports {
            let crash = report["crash"] as? [String: Any]
            for case let thread as [String: Any] in crash?["threads"] as? [Any] ?? [] {
                let backtrace = thread["backtrace"] as? [String: Any]
                threads.append((backtrace?["contents"] as? [Any] ?? []).compactMap { $0 as? [String: Any] })
            }
        }
        return threads
    }

    /// The source frames of each report frame in `--format json` output, by thread and frame
    /// index, innermost first.
    private static func sourceFrames(_ output: Any) -> [[Int: [[String: Any]]]] {
        let report = ((output as? [String: Any])?["reports"] as? [[String: Any]])?.first
        return (report?["threads"] as? [[String: Any]] ?? []).map { thread in
            var frames: [Int: [[String: Any]]] = [:]
            for frame in thread["frames"] as? [[String: Any]] ?? [] {
                if let index = frame["index"] as? Int { frames[index, default: []].append(frame) }
            }
            return frames
        }
    }

    /// What a resolved frame object should get, from its source frames in the JSON output.
    private static func expectedMembers(_ frames: [[String: Any]]) throws -> [String: Any] {
        let concrete = try XCTUnwrap(frames.last)
        func place(_ frame: [String: Any]) -> [String: Any] {
            var members: [String: Any] = [:]
            if let file = frame["file"] as? String {
                members["file"] = URL(fileURLWithPath: file).lastPathComponent
                if let line = frame["line"] as? Int, line > 0 { members["line"] = line }
            }
            return members
        }
        var members = place(concrete)
        members["symbol_name"] = concrete["symbol"] as? String ?? "??"
        let address = try XCTUnwrap(UInt64((concrete["address"] as? String ?? "").dropFirst(2), radix: 16))
        if let offset = concrete["offset"] as? Int { members["symbol_addr"] = Int(address) - offset }
        if frames.count > 1 {
            members["inlined_frames"] = frames.dropLast().map { frame in
                place(frame).merging(["symbol_name": frame["symbol"] as? String ?? "??"]) { a, _ in a }
            }
        }
        return members
    }

    func testResolvedFramesGetTheirSymbolsAndTheRestIsUnchanged() throws {
        let directory = try KSCrashTests.directory()
        let macho = try Fixtures.path("macho")
        var resolved = 0, inlined = 0, untouched = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() where name.hasSuffix(".json") {
            let path = directory.appendingPathComponent(name).path
            let input = try Data(contentsOf: URL(fileURLWithPath: path))
            let written = try CLI.succeeding(["--format", "kscrash", "-d", macho, path])
            let output = try Self.json(Data(written.stdoutText.utf8), "\(name) written back")
            let oracle = Self.sourceFrames(try Self.json(Data(try CLI.succeeding(["--format", "json", "-d", macho, path]).stdoutText.utf8),
                                                         "\(name) in JSON"))
            let before = Self.frameObjects(try Self.json(input, name)), after = Self.frameObjects(output)
            XCTAssertEqual(after.count, before.count, name)
            XCTAssertEqual(oracle.count, before.count, "\(name): one JSON thread per KSCrash thread")
            for t in before.indices where t < after.count && t < oracle.count {
                XCTAssertEqual(after[t].count, before[t].count, "\(name), thread \(t)")
                for f in before[t].indices where f < after[t].count {
                    let label = "\(name), thread \(t), frame \(f)"
                    let frames = oracle[t][f] ?? []
                    var kept = after[t][f]
                    if frames.contains(where: { $0["file"] is String }) {
                        let wanted = try Self.expectedMembers(frames)
                        for key in Self.added {
                            XCTAssertEqual(Self.canonical(kept[key]), Self.canonical(wanted[key]), "\(label): \(key)")
                            kept[key] = nil
                        }
                        resolved += 1
                        if frames.count > 1 { inlined += 1 }
                        var original = before[t][f]
                        for key in Self.added { original[key] = nil }
                        XCTAssertEqual(Self.canonical(kept), Self.canonical(original), "\(label): its own members")
                    } else {
                        XCTAssertEqual(Self.canonical(kept), Self.canonical(before[t][f]), "\(label): unresolved")
                        untouched += 1
                    }
                }
            }
            // Nothing resolved: the document comes back byte for byte.
            let empty = FileManager.default.temporaryDirectory.appendingPathComponent("kscrash-empty-\(getpid())")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: empty) }
            let bare = try CLI.succeeding(["-q", "--format", "kscrash", "-d", empty.path, path])
            XCTAssertEqual(Data(bare.stdoutText.utf8), input, "\(name): nothing resolved, the input back")
            // Written back twice: the second run replaces the first's members, to the same bytes.
            let again = FileManager.default.temporaryDirectory.appendingPathComponent("kscrash-again-\(getpid()).json")
            defer { try? FileManager.default.removeItem(at: again) }
            try Data(written.stdoutText.utf8).write(to: again)
            XCTAssertEqual(try CLI.succeeding(["--format", "kscrash", "-d", macho, again.path]).stdoutText, written.stdoutText,
                           "\(name): a report written back is written back alike")
        }
        print("KSCrash write-back: \(resolved) frames resolved (\(inlined) with inlined frames), \(untouched) left as they were")
        XCTAssertGreaterThan(resolved, 50)
        XCTAssertGreaterThan(inlined, 10)
        XCTAssertGreaterThan(untouched, 10)
    }

    /// `-o DIR` and `--in-place` keep a KSCrash file KSCrash JSON in the text format: the
    /// document written back, as `--format kscrash` writes it.
    func testFilesOfTheirOwnStayKSCrashJSON() throws {
        let path = try KSCrashTests.directory().appendingPathComponent("App-arm64.json").path
        let macho = try Fixtures.path("macho")
        let expected = try CLI.succeeding(["--format", "kscrash", "-d", macho, path]).stdoutText
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kscrash-out-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent("report.json")
        try Data(contentsOf: URL(fileURLWithPath: path)).write(to: copy)
        _ = try CLI.succeeding(["-q", "-d", macho, "-o", folder.appendingPathComponent("out").path, copy.path])
        XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("out/report.json"), encoding: .utf8), expected, "-o DIR")
        _ = try CLI.succeeding(["-q", "--in-place", "-d", macho, copy.path])
        XCTAssertEqual(try String(contentsOf: copy, encoding: .utf8), expected, "--in-place")
        // Another report in the kscrash format is written as text.
        let crash = try Fixtures.path("reports/App-arm64.crash")
        XCTAssertEqual(try CLI.succeeding(["--format", "kscrash", "-d", macho, crash]).stdoutText,
                       try CLI.succeeding(["-d", macho, crash]).stdoutText)
    }

    /// The members written for each app frame, against llvm-symbolizer at the frame's lookup
    /// address (the fixtures' `expect.tsv`, written when the reports were made, names it for
    /// each frame of the `.crash` twin, whose threads and frames the KSCrash report has):
    /// `symbol_name`, `file` and `line` of the out-of-line function, `symbol_addr` its start
    /// moved to the image's load address, and the inlined frames innermost first.
    func testResolvedFramesAgreeWithLLVMSymbolizer() throws {
        let directory = try KSCrashTests.directory()
        let root = try Fixtures.root()
        let macho = try Fixtures.path("macho")
        let manifest = try Fixtures.manifest()
        var compared = 0, inlined = 0
        for crash in try Fixtures.reports() {
            let name = URL(fileURLWithPath: crash).deletingPathExtension().lastPathComponent
            let path = directory.appendingPathComponent(name + ".json").path
            let input = try XCTUnwrap(try Self.json(Data(contentsOf: URL(fileURLWithPath: path)), name) as? [String: Any])
            let written = try CLI.succeeding(["--format", "kscrash", "--no-demangle", "-d", macho, path])
            let frames = Self.frameObjects(try Self.json(Data(written.stdoutText.utf8), "\(name) written back"))
            // The report's images by UUID: their load addresses.
            var loads: [String: UInt64] = [:]
            for case let image as [String: Any] in input["binary_images"] as? [Any] ?? [] {
                if let uuid = image["uuid"] as? String, let load = (image["image_addr"] as? NSNumber)?.uint64Value {
                    loads[compactUUID(uuid)] = load
                }
            }
            for (debugFile, rows) in Dictionary(grouping: try Fixtures.expectRows(for: crash), by: \.debugFile) {
                let entry = try XCTUnwrap(manifest.first { $0.path == debugFile && loads[$0.compactIdentifier] != nil },
                                          "\(name): no image of the report is \(debugFile)")
                let load = loads[entry.compactIdentifier]!
                let oracle = try Oracle.symbolize(object: root.appendingPathComponent(debugFile).path, arch: entry.arch,
                                                  addresses: rows.map(\.lookup))
                for row in rows {
                    let label = "\(name), thread \(row.thread), frame \(row.frame) (\(hex(row.lookup)))"
                    let answer = oracle[row.lookup] ?? []
                    guard let concrete = answer.last else { continue }
                    guard frames.indices.contains(row.thread), frames[row.thread].indices.contains(row.frame) else {
                        XCTFail("\(label): no such frame object")
                        continue
                    }
                    let object = frames[row.thread][row.frame]
                    func place(_ frame: OracleFrame) -> [String: Any] {
                        frame.file.isEmpty ? [:] : frame.line > 0 ? ["file": basename(frame.file), "line": frame.line]
                            : ["file": basename(frame.file)]
                    }
                    var wanted = place(concrete)
                    wanted["symbol_name"] = concrete.function
                    if let start = concrete.startAddress { wanted["symbol_addr"] = Int(start - entry.textVMAddress + load) }
                    if answer.count > 1 {
                        wanted["inlined_frames"] = answer.dropLast().map { frame in
                            place(frame).merging(["symbol_name": frame.function]) { a, _ in a }
                        }
                        inlined += 1
                    }
                    for key in Self.added {
                        XCTAssertEqual(Self.canonical(object[key]), Self.canonical(wanted[key]), "\(label): \(key)")
                    }
                    compared += 1
                }
            }
        }
        print("KSCrash write-back against llvm-symbolizer: \(compared) frames, \(inlined) with inlined frames")
        XCTAssertGreaterThan(compared, 40)
        XCTAssertGreaterThan(inlined, 10)
    }
}
