import Foundation
import TestSupport
import XCTest

/// Debug files from symbol servers: the fixture dSYMs laid out as a unified (Sentry
/// symbolicator), LLDB (File Mapped UUID Directories) or GDB (build-id) tree, served by
/// Python's http.server on 127.0.0.1 or named as a `file://` folder. The fixture reports must
/// come out exactly as with `-d Fixtures/build/macho`. The failure cases: files no server has
/// (asked once per run, the next server asked), HTTP errors, a server that drops connections
/// or never answers, a file over the size limit, a file that is not the one asked for, and
/// two runs downloading into one cache at once. And no socket is opened when no server is
/// configured.
final class SymbolServerTests: XCTestCase {
    private var dir: URL!
    private var servers: [LoopbackServer] = []

    override func setUpWithError() throws {
        dir = try makeTemporaryDirectory("symbol-servers")
    }

    override func tearDown() {
        for server in servers { server.stop() }
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    // MARK: Layouts

    func testEachLayoutOverHTTPResolvesAsWithLocalFilesAndIsDownloadedOnce() throws {
        let (reports, oracle) = try reportsAndOracle(times: 2)
        for layout in ["unified", "lldb", "gdb"] {
            let tree = try makeTree(layout)
            let server = try httpServer(over: tree)
            let url = server.url + "#" + layout
            let cache = dir.appendingPathComponent("cache-\(layout)").path
            let arguments = ["--symbol-server", url] + reports + reports  // every report twice
            let result = try runTool(arguments, ["XDG_CACHE_HOME": cache])
            XCTAssertEqual(result.status, .success, result.summary(arguments))
            XCTAssertEqual(result.stdoutText, oracle, "\(layout): not as with -d: " + result.summary(arguments))
            XCTAssertEqual(result.problemLines, [], result.summary(arguments))
            let requests = server.requests(containing: "/")
            XCTAssertEqual(requests.count, Set(requests.map { $0.components(separatedBy: "\"")[1] }).count,
                           "\(layout): a file asked twice:\n" + requests.joined(separator: "\n"))
            for (uuid, _, _) in try SymbolServerFixtures.dSYMs() where SymbolServerFixtures.reportsName(uuid) {
                let downloaded = "\(cache)/symbolicate/downloads/\(uuid.prefix(2))/\(uuid.dropFirst(2))/debuginfo"
                XCTAssertTrue(FileManager.default.fileExists(atPath: downloaded), "\(layout): \(downloaded) not downloaded")
            }
            // The server gone, the next run finds every file in the download folder.
            server.stop()
            let again = try runTool(arguments, ["XDG_CACHE_HOME": cache])
            XCTAssertEqual(again.stdoutText, oracle, "\(layout), from the download folder: " + again.summary(arguments))
            XCTAssertEqual(again.problemLines.filter { !$0.contains("is not asked again") }, [], again.summary(arguments))
        }
    }

    func testAGDBServerMayNameItsBuildIDFolder() throws {
        let (reports, oracle) = try reportsAndOracle()
        let server = try httpServer(over: try makeTree("gdb"))
        let arguments = ["--symbol-server", server.url + "/.build-id/#gdb"] + reports
        let result = try runTool(arguments, ["XDG_CACHE_HOME": dir.appendingPathComponent("cache").path])
        XCTAssertEqual(result.stdoutText, oracle, result.summary(arguments))
        XCTAssertEqual(result.problemLines, [], result.summary(arguments))
    }

    func testFileURLsAreReadInPlace() throws {
        let (reports, oracle) = try reportsAndOracle()
        for layout in ["unified", "lldb", "gdb"] {
            // LLDB's folders hold symbolic links to the .dSYM bundles, one a property list.
            let tree = try makeTree(layout, links: true)
            let cache = dir.appendingPathComponent("cache-file-\(layout)").path
            let arguments = ["--symbol-server", "file://" + tree.path + "#" + layout] + reports
            let result = try runTool(arguments, ["XDG_CACHE_HOME": cache])
            XCTAssertEqual(result.status, .success, result.summary(arguments))
            XCTAssertEqual(result.stdoutText, oracle, "\(layout) over file://: " + result.summary(arguments))
            XCTAssertEqual(result.problemLines, [], result.summary(arguments))
            XCTAssertFalse(FileManager.default.fileExists(atPath: cache + "/symbolicate/downloads"),
                           "\(layout): files of a file:// server are not copied")
        }
    }

    // MARK: Misses and failures

    func testServersAreAskedInOrderAndAMissIsAskedOnce() throws {
        let (reports, oracle) = try reportsAndOracle(times: 2)
        let empty = try httpServer(over: try makeTree("unified", only: []))
        let full = try httpServer(over: try makeTree("unified"))
        let arguments = ["--symbol-server", empty.url, "--symbol-server", full.url] + reports + reports
        let result = try runTool(arguments, ["XDG_CACHE_HOME": dir.appendingPathComponent("cache").path])
        XCTAssertEqual(result.stdoutText, oracle, result.summary(arguments))
        XCTAssertEqual(result.problemLines, [], "a 404 is not a problem: " + result.summary(arguments))
        let missed = empty.requests(containing: "/debuginfo")
        XCTAssertEqual(missed.count, Set(missed.map { $0.components(separatedBy: "\"")[1] }).count,
                       "a file asked twice of the first server:\n" + missed.joined(separator: "\n"))
        for (uuid, _, _) in try SymbolServerFixtures.dSYMs() where SymbolServerFixtures.reportsName(uuid) {
            XCTAssertEqual(empty.requests(containing: "/\(uuid.prefix(2))/\(uuid.dropFirst(2))/").count, 1,
                           "\(uuid) not asked of the first server first")
            XCTAssertEqual(full.requests(containing: "/\(uuid.prefix(2))/\(uuid.dropFirst(2))/").count, 1)
        }
        // System libraries' UUIDs are asked too (one request each, to each server), and missed.
        XCTAssertGreaterThan(missed.count, try SymbolServerFixtures.dSYMs().filter { SymbolServerFixtures.reportsName($0.uuid) }.count)
    }

    func testHTTPErrorsDroppedConnectionsAndSilenceAreOneLineEachAndTheRunGoesOn() throws {
        let report = try Fixtures.path("reports/App-arm64.crash")
        let input = try String(contentsOfFile: report, encoding: .utf8)
        for mode in ["status:500", "status:403", "drop", "hang"] {
            let port = try Loopback.freePort()
            let server = try Loopback.misbehaving(mode, port: port, in: dir)
            servers.append(server)
            let arguments = ["--symbol-server", server.url, "--server-timeout", "1", report, report]
            let start = Date()
            let result = try runTool(arguments, ["XDG_CACHE_HOME": dir.appendingPathComponent("cache-\(port)").path])
            XCTAssertLessThan(Date().timeIntervalSince(start), 30, "\(mode): the run is not bounded")
            XCTAssertEqual(result.status, .success, result.summary(arguments))
            XCTAssertEqual(result.stdoutText, "==> \(report) <==\n" + input + "\n==> \(report) <==\n" + input,
                           "\(mode): " + result.summary(arguments))
            XCTAssertEqual(result.problemLines.count, 1, "\(mode): one line: " + result.summary(arguments))
            let line = result.problemLines.first ?? ""
            XCTAssertTrue(line.contains(server.url + "/"), "\(mode): the line names the URL: \(line)")
            if mode.hasPrefix("status:") {
                XCTAssertTrue(line.contains("HTTP \(mode.dropFirst(7))"), "\(mode): the line names the status: \(line)")
            } else {
                XCTAssertTrue(line.hasSuffix("\(server.url) is not asked again in this run"), "\(mode): \(line)")
                XCTAssertEqual(server.requests(containing: "GET ").count, 1, "\(mode): asked again:\n" + server.logText)
            }
        }
    }

    func testAFileOverTheSizeLimitIsNotKept() throws {
        let report = try Fixtures.path("reports/App-arm64.crash")
        let input = try String(contentsOfFile: report, encoding: .utf8)
        let server = try httpServer(over: try makeTree("unified"))
        let cache = dir.appendingPathComponent("cache").path
        let arguments = ["--symbol-server", server.url, "--max-download-size", "1K", report]
        let result = try runTool(arguments, ["XDG_CACHE_HOME": cache])
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        XCTAssertEqual(result.stdoutText, input, result.summary(arguments))
        XCTAssertFalse(result.problemLines.isEmpty, result.summary(arguments))
        for line in result.problemLines {
            XCTAssertTrue(line.hasSuffix(": larger than the download limit of 1 KiB (--max-download-size): passed over")
                          && line.contains(server.url + "/"), line)
        }
        XCTAssertEqual(try SymbolServerFixtures.filesUnder(cache + "/symbolicate/downloads"), [], "nothing kept of a file over the limit")
        let reason = result.stderrLines.first { $0.contains(": no debug file for App (") } ?? ""
        XCTAssertTrue(reason.contains("): the symbol server's file \(server.url)/")
                      && reason.contains(" cannot be used: larger than the download limit"), "the reason: \(reason)")
    }

    func testAFileThatIsNotTheOneAskedForIsPassedOver() throws {
        let report = try Fixtures.path("reports/App-arm64.crash")
        let input = try String(contentsOfFile: report, encoding: .utf8)
        let all = try SymbolServerFixtures.dSYMs()
        guard let app = all.first(where: { $0.dwarf.hasSuffix("/App-arm64") }),
              let other = all.first(where: { $0.dwarf.hasSuffix("/App-x86_64") }) else { throw FixtureError("no App-arm64 dSYM") }
        let tree = dir.appendingPathComponent("wrong")
        let place = tree.appendingPathComponent("\(app.uuid.prefix(2))/\(app.uuid.dropFirst(2))")
        try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: other.dwarf, toPath: place.appendingPathComponent("debuginfo").path)
        let server = try httpServer(over: tree)
        let cache = dir.appendingPathComponent("cache").path
        let arguments = ["--symbol-server", server.url, report]
        let result = try runTool(arguments, ["XDG_CACHE_HOME": cache])
        XCTAssertEqual(result.stdoutText.contains("parse_record"), false, result.summary(arguments))
        XCTAssertEqual(result.stdoutText, input, result.summary(arguments))
        XCTAssertEqual(result.problemLines, ["symbolicate: \(server.url)/\(app.uuid.prefix(2))/\(app.uuid.dropFirst(2))/debuginfo: "
                                             + "not the debug file of \(app.uuid) (it is \(other.uuid)): passed over"],
                       result.summary(arguments))
        XCTAssertEqual(try SymbolServerFixtures.filesUnder(cache + "/symbolicate/downloads"), [])
    }

    func testTwoRunsDownloadIntoOneCacheAtOnce() throws {
        let (reports, oracle) = try reportsAndOracle()
        let server = try httpServer(over: try makeTree("unified"))
        let cache = dir.appendingPathComponent("cache").path
        let out = dir.appendingPathComponent("out").path
        let list = reports.map { "'\($0)'" }.joined(separator: " ")
        let script = """
            export XDG_CACHE_HOME='\(cache)'
            for k in 1 2 3 4; do "$SYMBOLICATE" --symbol-server \(server.url) \(list) > '\(out)'$k 2> '\(out)'$k.err & done
            wait
            """
        let result = try CLI.shell(script)
        XCTAssertEqual(result.status, 0, result.summary([script]))
        for k in 1...4 {
            XCTAssertEqual(try String(contentsOfFile: out + "\(k)", encoding: .utf8), oracle, "run \(k)")
            let errors = try String(contentsOfFile: out + "\(k).err", encoding: .utf8)
            let problems = errors.split(separator: "\n").map(String.init)
                .filter { !$0.contains(": no debug file for ") && !ProcessResult.isSummaryLine($0) }
            XCTAssertEqual(problems, [], "run \(k)")
        }
        let kept = try SymbolServerFixtures.filesUnder(cache + "/symbolicate/downloads")
        XCTAssertEqual(Set(kept), Set(try SymbolServerFixtures.dSYMs().filter { SymbolServerFixtures.reportsName($0.uuid) }.map {
            "\($0.uuid.prefix(2))/\($0.uuid.dropFirst(2))/debuginfo"
        }), "only whole files, no temporary file left")
    }

    /// Without a server named (and DEBUGINFOD_URLS unset) no socket is opened and neither
    /// libcurl nor libdebuginfod is loaded; with one, the same trace shows both, so that the
    /// test can see them.
    func testNoServerNoSocket() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") else {
            throw XCTSkip("strace is not installed (make setup-test installs it): the no-network test is skipped")
        }
        let report = try Fixtures.path("reports/App-arm64.crash")
        let linuxLog = dir.appendingPathComponent("asan.log").path
        try "    #0 0x555555555498  (/srv/gone/app+0x1498) (BuildId: f57e472e15f03cefee56329a207d4d7ba9d22962)\n"
            .write(toFile: linuxLog, atomically: true, encoding: .utf8)
        let port = try Loopback.freePort()
        for configured in [false, true] {
            let trace = dir.appendingPathComponent("trace-\(configured)").path
            let servers = configured ? ["--symbol-server", "http://127.0.0.1:\(port)", "--debuginfod", "http://127.0.0.1:\(port)"] : []
            let arguments = ["-f", "-qq", "-o", trace, "-e", "trace=socket,connect,openat", try CLI.binary()]
                + servers + ["-d", try Fixtures.path("macho"), report, linuxLog]
            var environment = CLI.environment
            environment["XDG_CACHE_HOME"] = dir.appendingPathComponent("cache").path
            let result = try runProcess("/usr/bin/strace", arguments, environment: environment)
            XCTAssertEqual(result.status, .success, result.stderrText)
            let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
            let network = lines.filter { $0.contains("AF_INET") }
            let libraries = lines.filter { ($0.contains("libcurl") || $0.contains("libdebuginfod")) && !$0.contains("ENOENT") }
            if configured {
                XCTAssertFalse(network.isEmpty, "the trace shows no socket even with servers: the test sees nothing")
                XCTAssertFalse(libraries.isEmpty, "the trace shows no library loaded even with servers")
            } else {
                XCTAssertEqual(network, [], "a socket without a server configured")
                XCTAssertEqual(libraries, [], "a network library loaded without a server configured")
            }
        }
    }

    // MARK: Helpers

    /// The fixture reports, and the tool's output for them (each `times` times) with
    /// `-d Fixtures/build/macho`.
    private func reportsAndOracle(times: Int = 1) throws -> ([String], String) {
        let reports = try Fixtures.reports()
        let arguments = ["-d", try Fixtures.path("macho")] + Array(repeating: reports, count: times).flatMap { $0 }
        let result = try runTool(arguments, ["XDG_CACHE_HOME": dir.appendingPathComponent("cache-oracle").path])
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        XCTAssertTrue(result.stdoutText.contains("parse_record"), "the oracle resolves nothing: " + result.summary(arguments))
        return (reports, result.stdoutText)
    }

    /// A symbol-server tree of the fixture dSYMs (those of `only` when given) in `layout`:
    /// copies of their DWARF files, or with `links` (LLDB) symbolic links to the bundles and,
    /// for the first, a property list naming it.
    private func makeTree(_ layout: String, links: Bool = false, only: [String]? = nil) throws -> URL {
        let tree = dir.appendingPathComponent("tree-\(layout)-\(links)-\(only?.count ?? -1)")
        let manager = FileManager.default
        try manager.createDirectory(at: tree, withIntermediateDirectories: true)
        for (k, (uuid, dwarf, bundle)) in try SymbolServerFixtures.dSYMs().enumerated() where only.map({ $0.contains(uuid) }) ?? true {
            let relative: String
            switch layout {
            case "unified": relative = "\(uuid.prefix(2))/\(uuid.dropFirst(2))/debuginfo"
            case "gdb": relative = ".build-id/\(uuid.prefix(2))/\(uuid.dropFirst(2)).debug"
            default:
                let upper = Array(uuid.uppercased())
                relative = [0..<4, 4..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(upper[$0]) }.joined(separator: "/")
            }
            let target = tree.appendingPathComponent(relative)
            try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            if manager.fileExists(atPath: target.path) { continue }  // a universal dSYM's second UUID
            if links && layout == "lldb" && k == 0 {
                try """
                    <?xml version="1.0" encoding="UTF-8"?>
                    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                    <plist version="1.0">
                    <dict>
                        <key>DBGArchitecture</key>
                        <string>arm64</string>
                        <key>DBGDSYMPath</key>
                        <string>\(bundle.replacingOccurrences(of: "&", with: "&amp;"))</string>
                    </dict>
                    </plist>
                    """.write(to: target, atomically: true, encoding: .utf8)
            } else if links && layout == "lldb" {
                try manager.createSymbolicLink(atPath: target.path, withDestinationPath: bundle)
            } else if links {
                try manager.createSymbolicLink(atPath: target.path, withDestinationPath: dwarf)
            } else {
                try manager.copyItem(atPath: dwarf, toPath: target.path)
            }
        }
        return tree
    }

    private func httpServer(over tree: URL) throws -> LoopbackServer {
        let server = try Loopback.httpServer(over: tree, port: try Loopback.freePort(), in: dir)
        servers.append(server)
        return server
    }
}
