import Foundation
import TestSupport
import XCTest

/// Debug files from debuginfod servers: Debian's `debuginfod` serves a folder of the fixture
/// ELF files on 127.0.0.1, and sanitizer logs naming their build-ids — at paths that do not
/// exist here, so that nothing local can match — are symbolicated with `--debuginfod URL` or
/// `DEBUGINFOD_URLS`. The oracle is the tool's own answer with the same file named with `-d`.
/// The failure cases: a build-id no server has (asked once per run), several servers (the
/// first without the file), a server that is gone, and one that accepts and never answers.
final class DebuginfodTests: XCTestCase {
    /// The fixture ELF files with DWARF that the server gets, by build-id.
    private static let served = ["elf/app-gcc-dwarf4.debug", "elf/app-clang-dwarf5", "elf/libgreeter.so"]

    private var dir: URL!
    private var servers: [LoopbackServer] = []

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/debuginfod") else {
            throw XCTSkip("Debian's debuginfod is not installed (make setup-test installs it): the debuginfod tests are skipped")
        }
        dir = try makeTemporaryDirectory("debuginfod")
    }

    override func tearDown() {
        for server in servers { server.stop() }
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    // MARK: Cases

    func testABuildIDIsFetchedAndResolvesAsWithTheLocalFile() throws {
        let server = try debuginfod(serving: Self.served)
        let (log, oracle) = try logAndOracle(["elf/app-gcc-dwarf4.debug", "elf/libgreeter.so"])
        for viaEnvironment in [false, true] {
            let cache = dir.appendingPathComponent("client-cache-\(viaEnvironment)")
            let arguments = viaEnvironment ? [log] : ["--debuginfod", server.url, log]
            var environment: [String: String?] = ["DEBUGINFOD_CACHE_PATH": cache.path, "XDG_CACHE_HOME": cacheHome()]
            if viaEnvironment { environment["DEBUGINFOD_URLS"] = server.url }
            let result = try runTool(arguments, environment)
            XCTAssertEqual(result.status, .success, result.summary(arguments))
            XCTAssertEqual(result.stdoutText, oracle, "through debuginfod, not as with -d: " + result.summary(arguments))
            XCTAssertEqual(result.problemLines, [], result.summary(arguments))
            for file in ["elf/app-gcc-dwarf4.debug", "elf/libgreeter.so"] {
                let id = try buildID(of: file)
                let cached = cache.appendingPathComponent(id).appendingPathComponent("debuginfo").path
                XCTAssertTrue(FileManager.default.fileExists(atPath: cached), "\(cached) is not in DEBUGINFOD_CACHE_PATH")
            }
        }
        XCTAssertEqual(try metric(server, #"http_responses_transfer_bytes_count{code="200",type="debuginfo"}"#), 4,
                       "each of 2 build-ids downloaded once in each of 2 runs")
    }

    func testABuildIDNoServerHasIsAskedOncePerRun() throws {
        let server = try debuginfod(serving: Self.served)
        let unknown = String(repeating: "5a", count: 20)
        let lines = (0..<6).map { "    #\($0) 0x55555555\(4000 + $0 * 16)  (/srv/gone/unknown+0x\(4000 + $0 * 16)) (BuildId: \(unknown))" }
        let log = try write("miss.log", "==1==ERROR: AddressSanitizer: SEGV\n" + lines.joined(separator: "\n") + "\n")
        let cache = dir.appendingPathComponent("client-cache")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        // libdebuginfod remembers a miss in its cache for cache_miss_s seconds (600), within
        // the same second when 0, as here: the second report, which comes through a pipe 1.5 s
        // later, would be asked again but for the tool's own memory of the miss.
        try "0\n".write(to: cache.appendingPathComponent("cache_miss_s"), atomically: true, encoding: .utf8)
        let script = "exec \"$SYMBOLICATE\" --debuginfod \(server.url) -j 1 '\(log)' <(sleep 1.5; cat '\(log)') '\(log)'"
        let counter = #"http_responses_transfer_bytes_count{code="404",type="debuginfo"}"#
        for run in 1...2 {
            if run == 2 { usleep(1_100_000) }  // past libdebuginfod's memory of the miss
            let result = try CLI.shell("export DEBUGINFOD_CACHE_PATH='\(cache.path)' XDG_CACHE_HOME='\(cacheHome())'; " + script)
            XCTAssertEqual(result.status, .success, result.summary([script]))
            XCTAssertEqual(result.problemLines, [], "a miss is not a problem: " + result.summary([script]))
            XCTAssertEqual(result.stdoutText.components(separatedBy: lines[0]).count - 1, 3,
                           "the frames are left as they were: " + result.summary([script]))
            XCTAssertEqual(try metric(server, counter), run, "run \(run): the build-id is asked once in each run")
        }
    }

    func testSeveralServersAreAskedAndTheOneWithTheFileAnswers() throws {
        let empty = try debuginfod(serving: ["elf/app-clang-dwarf5"])
        let full = try debuginfod(serving: Self.served)
        let (log, oracle) = try logAndOracle(["elf/app-gcc-dwarf4.debug"])
        for order in [[empty.url, full.url], [full.url, empty.url]] {
            let arguments = order.flatMap { ["--debuginfod", $0] } + [log]
            let cache = dir.appendingPathComponent("client-cache-\(order[0] == empty.url)")
            let result = try runTool(arguments, ["DEBUGINFOD_CACHE_PATH": cache.path, "XDG_CACHE_HOME": cacheHome()])
            XCTAssertEqual(result.status, .success, result.summary(arguments))
            XCTAssertEqual(result.stdoutText, oracle, result.summary(arguments))
            XCTAssertEqual(result.problemLines, [], result.summary(arguments))
        }
        XCTAssertEqual(try metric(full, #"http_responses_transfer_bytes_count{code="200",type="debuginfo"}"#), 2)
        XCTAssertEqual(try metric(empty, #"http_responses_transfer_bytes_count{code="200",type="debuginfo"}"#), 0)
    }

    func testAServerThatIsGoneIsSaidOnceAndTheRunGoesOn() throws {
        let port = try Loopback.freePort()  // nothing listens there
        let (log, _) = try logAndOracle(["elf/app-gcc-dwarf4.debug", "elf/libgreeter.so"])
        let input = try String(contentsOfFile: log, encoding: .utf8)
        let arguments = ["--debuginfod", "http://127.0.0.1:\(port)", log]
        let start = Date()
        let result = try runTool(arguments, ["DEBUGINFOD_CACHE_PATH": dir.appendingPathComponent("c").path,
                                             "XDG_CACHE_HOME": cacheHome()])
        XCTAssertLessThan(Date().timeIntervalSince(start), 30, "a refused connection is not waited for")
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        XCTAssertEqual(result.stdoutText, input, result.summary(arguments))
        XCTAssertEqual(result.problemLines, ["symbolicate: debuginfod: http://127.0.0.1:\(port): connection refused; "
                                             + "debuginfod is not asked again in this run"], result.summary(arguments))
    }

    func testAServerThatNeverAnswersTimesOutOnceAndTheRunGoesOn() throws {
        let port = try Loopback.freePort()
        let silent = try Loopback.misbehaving("hang", port: port, in: dir)
        servers.append(silent)
        // Two reports at once, each with build-ids of its own: the one that waits for the
        // other's request does not wait again after it timed out.
        let (first, _) = try logAndOracle(["elf/app-gcc-dwarf4.debug"])
        let (second, _) = try logAndOracle(["elf/libgreeter.so", "elf/app-clang-dwarf5"])
        let input = try [first, second].map { "==> \($0) <==\n" + (try String(contentsOfFile: $0, encoding: .utf8)) }
        let arguments = ["--debuginfod", silent.url, "-j", "2", first, second]
        let start = Date()
        let result = try runTool(arguments, ["DEBUGINFOD_CACHE_PATH": dir.appendingPathComponent("c").path,
                                             "DEBUGINFOD_TIMEOUT": "1", "XDG_CACHE_HOME": cacheHome()])
        let seconds = Date().timeIntervalSince(start)
        XCTAssertLessThan(seconds, 30, "DEBUGINFOD_TIMEOUT=1 bounds the run")
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        XCTAssertEqual(result.stdoutText, input.joined(separator: "\n"), result.summary(arguments))
        XCTAssertEqual(result.problemLines.count, 1, result.summary(arguments))
        XCTAssertTrue(result.problemLines.first?.contains("no answer within DEBUGINFOD_TIMEOUT") == true, result.summary(arguments))
        // One build-id asked (libdebuginfod tries a request DEBUGINFOD_RETRY_LIMIT more
        // times), not one per image.
        XCTAssertEqual(Set(silent.requests(containing: "/buildid/")).count, 1, silent.logText)
        print("a debuginfod server that never answers, DEBUGINFOD_TIMEOUT=1: the run took \(String(format: "%.1f", seconds)) s")
    }

    // MARK: Helpers

    /// Starts debuginfod over copies of the fixture `files` and waits until it has scanned them.
    private func debuginfod(serving files: [String]) throws -> LoopbackServer {
        let folder = dir.appendingPathComponent("served-\(servers.count)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for file in files {
            try FileManager.default.copyItem(atPath: try Fixtures.path(file),
                                             toPath: folder.appendingPathComponent((file as NSString).lastPathComponent).path)
        }
        let port = try Loopback.freePort()
        let server = try LoopbackServer.start("/usr/bin/debuginfod",
                                              ["-F", folder.path, "-p", String(port), "-t", "0", "-g", "0",
                                               "-d", dir.appendingPathComponent("db-\(port).sqlite").path],
                                              port: port, in: dir)
        servers.append(server)
        let deadline = Date().addingTimeInterval(60)
        while try metric(server, #"scanned_files_total{source="file"}"#) < files.count {
            guard Date() < deadline else { throw FixtureError("debuginfod did not scan \(folder.path): \(server.logText)") }
            usleep(100_000)
        }
        return server
    }

    /// A metric of debuginfod's /metrics (0 when absent).
    private func metric(_ server: LoopbackServer, _ name: String) throws -> Int {
        guard let (status, body) = Loopback.get(port: server.port, "/metrics"), status == 200 else {
            throw FixtureError("no /metrics from debuginfod on port \(server.port)")
        }
        for line in body.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Int(Double(line.dropFirst(name.count + 1)) ?? 0)
        }
        return 0
    }

    /// A sanitizer log with frames in each of `files` (at function starts + 4, the module at
    /// a path that does not exist here), and the tool's output for it with the files named
    /// with `-d`, which must resolve every frame.
    private func logAndOracle(_ files: [String]) throws -> (String, String) {
        var lines = ["==7==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000"]
        for file in files {
            let id = try buildID(of: file)
            let name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
            for (k, start) in try functionStarts(file).prefix(6).enumerated() {
                let offset = String(start + 4, radix: 16)
                lines.append("    #\(lines.count - 1) 0x5555\(String(repeating: "0", count: 8 - offset.count))\(offset)  "
                             + "(/srv/gone/\(name)+0x\(offset)) (BuildId: \(id))")
                _ = k
            }
        }
        let label = files.map { ($0 as NSString).lastPathComponent }.joined(separator: "+")
        let log = try write("asan-\(label).log", lines.joined(separator: "\n") + "\n")
        let arguments = files.flatMap { ["-d", (try? Fixtures.path($0)) ?? $0] } + [log]
        let result = try runTool(arguments, ["XDG_CACHE_HOME": cacheHome()])
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        let unresolved = result.stdoutText.split(separator: "\n").filter { $0.contains("/srv/gone/") }
        XCTAssertEqual(unresolved, [], "the oracle run leaves frames unresolved: " + result.summary(arguments))
        return (log, result.stdoutText)
    }

    /// The build-id of a fixture file, as the manifest gives it.
    private func buildID(of file: String) throws -> String {
        let manifest = try String(contentsOfFile: try Fixtures.path("manifest.txt"), encoding: .utf8)
        for line in manifest.split(separator: "\n") {
            let fields = line.split(separator: "\t")
            if fields.count >= 2, fields[0] == file { return String(fields[1]).lowercased() }
        }
        throw FixtureError("\(file) is not in the manifest")
    }

    /// The addresses of the defined functions of a fixture ELF file, from `nm`.
    private func functionStarts(_ file: String) throws -> [Int] {
        let result = try runProcess("/usr/bin/nm", ["--defined-only", try Fixtures.path(file)])
        guard result.status == 0 else { throw FixtureError("nm \(file): \(result.stderrText)") }
        let starts = result.stdoutText.split(separator: "\n").compactMap { line -> Int? in
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[1] == "T" || fields[1] == "t", !fields[2].hasPrefix("_"),
                  let address = Int(fields[0], radix: 16), address > 0 else { return nil }
            return address
        }
        guard starts.count >= 2 else { throw FixtureError("too few functions in \(file)") }
        return starts.sorted()
    }

    private func write(_ name: String, _ text: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A cache folder of this test's own: identities and indexes from no other run.
    private func cacheHome() -> String {
        dir.appendingPathComponent("xdg").path
    }
}
