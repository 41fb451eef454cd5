import Foundation
import TestSupport
import XCTest

/// Symbol servers whose files are zstd-compressed, as Sentry's `symsorter -z` keeps them: the
/// fixture dSYMs compressed by the `zstd` tool (one frame at `-19`; two frames of their halves,
/// concatenated; without content size; without checksum), laid out in the unified layout and
/// served by Python's http.server on 127.0.0.1 or named as a `file://` folder. The fixture
/// reports must come out exactly as with `-d Fixtures/build/macho`. Then what a server may
/// send instead: a frame cut short, damaged bytes, a zstd bomb (with and without its size in
/// the frame header) under a lowered `--max-download-size`: each is one line naming the URL
/// and what is wrong, the image's reason for being left unresolved, and leaves nothing in the
/// download folder; the run goes on.
final class CompressedSymbolServerTests: XCTestCase {
    private var dir: URL!
    private var servers: [LoopbackServer] = []

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.zstd) else {
            throw XCTSkip("the zstd tool is not installed (make setup-test installs it)")
        }
        dir = try makeTemporaryDirectory("compressed-symbol-servers")
    }

    override func tearDown() {
        for server in servers { server.stop() }
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    func testCompressedFilesResolveAsUncompressedOnesOverHTTPAndFile() throws {
        let reports = try Fixtures.reports()
        let oracle = try runTool(["-d", try Fixtures.path("macho")] + reports,
                                 ["XDG_CACHE_HOME": dir.appendingPathComponent("cache-oracle").path])
        XCTAssertTrue(oracle.stdoutText.contains("parse_record"), "the oracle resolves nothing: " + oracle.summary(reports))
        for form in ["-19", "two-frames", "--no-content-size", "--no-check"] {
            let tree = try makeTree(named: form) { try self.compressed($0, form) }
            let http = try httpServer(over: tree)
            for url in [http.url, "file://" + tree.path] {
                let cache = dir.appendingPathComponent("cache-\(servers.count)-\(url.hasPrefix("file") ? "file" : "http")").path
                let arguments = ["--symbol-server", url] + reports
                let result = try runTool(arguments, ["XDG_CACHE_HOME": cache])
                XCTAssertEqual(result.status, .success, result.summary(arguments))
                XCTAssertEqual(result.stdoutText, oracle.stdoutText, "\(form), \(url): not as with -d: " + result.summary(arguments))
                XCTAssertEqual(result.problemLines, [], "\(form), \(url): " + result.summary(arguments))
                // What is kept is the debug file itself, inflated, and nothing else.
                let kept = try SymbolServerFixtures.filesUnder(cache + "/symbolicate/downloads")
                let asked = try SymbolServerFixtures.dSYMs().filter { SymbolServerFixtures.reportsName($0.uuid) }
                XCTAssertEqual(Set(kept), Set(asked.map { SymbolServerFixtures.unifiedPath($0.uuid) }), "\(form), \(url)")
                for (uuid, dwarf, _) in asked {
                    let inflated = cache + "/symbolicate/downloads/" + SymbolServerFixtures.unifiedPath(uuid)
                    XCTAssertEqual(FileManager.default.contents(atPath: inflated), FileManager.default.contents(atPath: dwarf),
                                   "\(form), \(url): \(uuid) is not the dSYM's DWARF file")
                }
            }
        }
    }

    func testAFileThatCannotBeInflatedIsOneLineAndTheReasonAndTheRunGoesOn() throws {
        let report = try Fixtures.path("reports/App-arm64.crash")
        let input = try String(contentsOfFile: report, encoding: .utf8)
        let app = try XCTUnwrap(try SymbolServerFixtures.dSYMs().first { $0.dwarf.hasSuffix("/App-arm64") })
        let whole = try compressed(app.dwarf, "-19")
        var damaged = whole
        for offset in (whole.count / 2)..<(whole.count / 2 + 8) { damaged[offset] ^= 0x5A }
        let zeros = dir.appendingPathComponent("zeros")
        try Data(count: 64 << 20).write(to: zeros)
        let cases: [(name: String, bytes: Data, limit: String?, words: String)] = [
            ("cut short", whole.prefix(whole.count * 2 / 3), nil, "zstd-compressed, but cut short (its last frame is incomplete)"),
            ("damaged", damaged, nil, "zstd-compressed, but it cannot be inflated ("),
            ("a bomb that says its size", try zstd(["-19", "-c", zeros.path]), "1M",
             "zstd-compressed, and its frame says it holds \(64 << 20) bytes, more than the limit of 1 MiB (--max-download-size)"),
            ("a bomb that does not", try zstd(["-19", "-c", "-"], input: Data(count: 64 << 20)), "1M",
             "zstd-compressed, and it inflates to more than the limit of 1 MiB (--max-download-size)"),
        ]
        for (k, (name, bytes, limit, words)) in cases.enumerated() {
            let tree = try makeTree(named: "hostile-\(k)", only: [app.uuid]) { _ in bytes }
            let server = try httpServer(over: tree)
            let cache = dir.appendingPathComponent("cache-hostile-\(k)").path
            let location = "\(server.url)/\(SymbolServerFixtures.unifiedPath(app.uuid))"
            let arguments = ["--symbol-server", server.url] + (limit.map { ["--max-download-size", $0] } ?? []) + [report]
            let result = try runTool(arguments, ["XDG_CACHE_HOME": cache])
            XCTAssertEqual(result.status, .success, "\(name): " + result.summary(arguments))
            XCTAssertEqual(result.stdoutText, input, "\(name): " + result.summary(arguments))
            XCTAssertEqual(result.problemLines.count, 1, "\(name): one line: " + result.summary(arguments))
            let line = result.problemLines.first ?? ""
            XCTAssertTrue(line.hasPrefix("symbolicate: \(location): \(words)") && line.hasSuffix(": passed over"), "\(name): \(line)")
            let reason = try XCTUnwrap(result.stderrLines.first { $0.contains(": no debug file for App (") }, result.summary(arguments))
            XCTAssertTrue(reason.contains("): the symbol server's file \(location) cannot be used: \(words)"), "\(name): \(reason)")
            XCTAssertEqual(try SymbolServerFixtures.filesUnder(cache + "/symbolicate/downloads"), [], "\(name): a file was kept")

            // JSON gives the same reason, with its own word.
            let json = try runTool(["--format", "json", "-q"] + arguments, ["XDG_CACHE_HOME": cache])
            let object = try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any]
            let images = ((object?["reports"] as? [[String: Any]])?.first?["images"] as? [[String: Any]]) ?? []
            let unresolved = try XCTUnwrap(images.first { $0["name"] as? String == "App" }?["unresolved"] as? [String: Any],
                                           json.summary(arguments))
            XCTAssertEqual(unresolved["reason"] as? String, "unusable_server_file", name)
            XCTAssertEqual(unresolved["file"] as? String, location, name)
            XCTAssertTrue((unresolved["message"] as? String)?.contains("cannot be used: " + words) == true, "\(name): \(unresolved)")
            XCTAssertTrue(JSONOutputTests.schemaProblems(json.stdout).isEmpty, "\(JSONOutputTests.schemaProblems(json.stdout))")
        }
    }

    // MARK: Helpers

    static let zstd = "/usr/bin/zstd"

    /// `zstd -q ARGUMENTS`: its output, with `input` on stdin when given.
    private func zstd(_ arguments: [String], input: Data? = nil) throws -> Data {
        let result = try runProcess(Self.zstd, ["-q"] + arguments, input: input ?? Data())
        guard result.status == 0 else { throw FixtureError("zstd \(arguments): \(result.stderrText)") }
        return result.stdout
    }

    /// The file at `path` compressed in `form`: a `zstd` option, or `two-frames` (its two
    /// halves compressed one by one, concatenated, the second without its size).
    private func compressed(_ path: String, _ form: String) throws -> Data {
        guard form == "two-frames" else { return try zstd(["-19"] + (form == "-19" ? [] : [form]) + ["-c", path]) }
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: path))
        return try zstd(["-19", "-c", "-"], input: bytes.prefix(bytes.count / 2))
            + zstd(["-19", "--no-content-size", "-c", "-"], input: bytes.dropFirst(bytes.count / 2))
    }

    /// A unified-layout tree of the fixture dSYMs (those of `only` when given), each file
    /// what `content` makes of the dSYM's DWARF file.
    private func makeTree(named name: String, only: [String]? = nil, _ content: (String) throws -> Data) throws -> URL {
        let tree = dir.appendingPathComponent("tree-\(name)")
        for (uuid, dwarf, _) in try SymbolServerFixtures.dSYMs() where only.map({ $0.contains(uuid) }) ?? true {
            let target = tree.appendingPathComponent(SymbolServerFixtures.unifiedPath(uuid))
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try content(dwarf).write(to: target)
        }
        return tree
    }

    private func httpServer(over tree: URL) throws -> LoopbackServer {
        let server = try Loopback.httpServer(over: tree, port: try Loopback.freePort(), in: dir)
        servers.append(server)
        return server
    }
}
