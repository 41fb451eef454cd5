import Foundation
import TestSupport
import XCTest

/// One command over a folder of 1,000 reports, in every output form: standard output, `-o DIR`,
/// `--in-place`, `--format frames` and JSON; a run killed midway; the progress line and the
/// summary.
///
/// The oracle of each report in a batch is the same report symbolicated on its own, one
/// process, one thread — whose output `TextOutputTests` and `JSONOutputTests` check against
/// llvm-symbolizer. A batch must give exactly that, whatever the order the threads finish in.
final class BatchTests: XCTestCase {
    /// A folder tree of `count` reports: copies of the fixture reports (.crash and .ips) under
    /// nested folders, with their sources.
    struct Batch {
        var root: URL
        var reports: [(path: String, relative: String, source: String)]
    }

    func makeBatch(_ count: Int, label: String) throws -> Batch {
        let sources = try Fixtures.reports() + [try Fixtures.path("ips/App-arm64.ips"), try Fixtures.path("ips/App-x86_64.ips")]
        let root = try makeTemporaryDirectory(label)
        var reports: [(String, String, String)] = []
        for i in 0..<count {
            let source = sources[i % sources.count]
            let ext = (source as NSString).pathExtension
            let relative = "group\(i % 7)/day\(i % 3)/report-\(String(format: "%04d", i)).\(ext)"
            let path = root.appendingPathComponent(relative).path
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: source, toPath: path)
            reports.append((path, relative, source))
        }
        reports.sort { $0.0 < $1.0 }
        return Batch(root: root, reports: reports)
    }

    /// Each source report symbolicated on its own, in `format`.
    static func singles(_ batch: Batch, _ extra: [String]) throws -> [String: Data] {
        let macho = try Fixtures.path("macho")
        var result: [String: Data] = [:]
        for source in Set(batch.reports.map(\.source)) {
            let arguments = ["-d", macho, "-j", "1"] + extra + [source]
            let run = try CLI.run(arguments)
            XCTAssertEqual(run.status, .success, run.summary(arguments))
            result[source] = run.stdout
        }
        return result
    }

    func testAThousandReportsOnStandardOutputInInputOrder() throws {
        let batch = try makeBatch(1000, label: "batch-stdout")
        defer { try? FileManager.default.removeItem(at: batch.root) }
        let singles = try Self.singles(batch, [])
        var expected = Data()
        for (k, report) in batch.reports.enumerated() {
            if k > 0 { expected.append(0x0a) }
            expected.append(Data("==> \(report.path) <==\n".utf8))
            expected.append(singles[report.source]!)
        }
        let arguments = ["-d", try Fixtures.path("macho"), batch.root.path]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        XCTAssertEqual(result.problemLines, [], result.stderrText)
        XCTAssert(result.stdout == expected, "the batch output should be each report's own output, in path order; "
                  + CorpusTests.firstDifference(expected, result.stdout))
    }

    /// Reports finished ahead of a writer that cannot go on (a reader that does not read yet)
    /// wait within a budget: 24 reports of 8 MB each, read after a pause, take a peak RSS
    /// far below what 16 waiting reports would (128 MB of output alone), and come out whole.
    func testReportsWaitingForASlowReaderStayWithinTheBudget() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else { throw XCTSkip("GNU time is not installed") }
        let root = try makeTemporaryDirectory("batch-budget")
        defer { try? FileManager.default.removeItem(at: root) }
        var report = try String(contentsOfFile: try Fixtures.path("reports/App-arm64.crash"), encoding: .utf8)
        let filler = String(repeating: "Filler line of a large report, kept as it is by the symbolicator.\n", count: 125_000)
        report += "\n" + filler
        for i in 0..<24 {
            try report.write(to: root.appendingPathComponent(String(format: "big-%02d.crash", i)), atomically: false, encoding: .utf8)
        }
        let macho = try Fixtures.path("macho")
        let result = try CLI.shell("""
            /usr/bin/time -f '%M' -o '\(root.path)/rss' "$SYMBOLICATE" -j 2 -q -d '\(macho)' '\(root.path)' \
                | { sleep 3; wc -c; }
            """)
        XCTAssertEqual(result.status, 0, result.stderrText)
        let written = Int(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        XCTAssertGreaterThan(written, 24 * filler.utf8.count, "every report written whole")
        let peak = try String(contentsOfFile: root.appendingPathComponent("rss").path, encoding: .utf8)
            .split(separator: "\n").last.flatMap { Int($0) } ?? 0
        print("batch of 24 reports of 8 MB behind a reader paused 3 s: peak RSS \(peak / 1024) MB")
        XCTAssertGreaterThan(peak, 0)
        XCTAssertLessThan(peak, 140 * 1024, "peak RSS \(peak) KB")
    }

    func testOutputFolderMirrorsTheTree() throws {
        let batch = try makeBatch(1000, label: "batch-o")
        defer { try? FileManager.default.removeItem(at: batch.root) }
        let singles = try Self.singles(batch, [])
        let singlesIPS = try Self.singles(batch, ["--format", "ips"])
        let out = batch.root.deletingLastPathComponent().appendingPathComponent(batch.root.lastPathComponent + "-out")
        defer { try? FileManager.default.removeItem(at: out) }
        let arguments = ["-d", try Fixtures.path("macho"), "-o", out.path, batch.root.path]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        XCTAssertEqual(result.stdout.count, 0, "nothing on stdout with -o")
        var wrong = 0
        for report in batch.reports {
            let written = try? Data(contentsOf: out.appendingPathComponent(report.relative))
            // An .ips report stays an .ips file.
            let expected = report.source.hasSuffix(".ips") ? singlesIPS[report.source] : singles[report.source]
            if written != expected {
                wrong += 1
                if wrong <= 3 { XCTFail("\(report.relative): the file written differs from the report symbolicated alone") }
            }
        }
        XCTAssertEqual(wrong, 0)
        let files = FileManager.default.enumerator(atPath: out.path)?.allObjects.compactMap { $0 as? String }
            .filter { !$0.hasSuffix("/") && $0.contains(".") && !($0 as NSString).lastPathComponent.hasPrefix(".") } ?? []
        XCTAssertEqual(Set(files), Set(batch.reports.map(\.relative)), "exactly one file per report, same tree")
    }

    /// A folder's reports are its `*.crash` and `*.ips` files and its Android tombstones as the
    /// device names them (`tombstone_NN`, and `tombstone_NN.pb`, read by content: here text);
    /// a tombstone with another suffix and other files are passed over.
    func testAFolderHoldsCrashIPSAndTombstoneFiles() throws {
        let root = try makeTemporaryDirectory("batch-names")
        defer { try? FileManager.default.removeItem(at: root) }
        let crash = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.path("reports/App-arm64.crash")))
        let ips = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.path("ips/App-arm64.ips")))
        let tombstone = Data("""
            *** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***
            ABI: 'arm64'
            pid: 4242, tid: 4242, name: example  >>> com.example <<<
            signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0

            backtrace:
                  #00 pc 0000000000001234  /data/app/lib/arm64/libexample.so

            """.utf8)
        let files: [(String, Data, Bool)] = [
            ("a.crash", crash, true), ("b/c.ips", ips, true), ("tombstones/tombstone_00", tombstone, true),
            ("tombstones/tombstone_31", tombstone, true), ("tombstones/tombstone_00.pb", tombstone, true),
            ("tombstones/tombstone_00.pbx", tombstone, false),
            ("tombstone_", tombstone, false), ("tombstone_1x", tombstone, false), ("notes.txt", crash, false),
        ]
        for (name, data, _) in files {
            let url = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
        let out = root.deletingLastPathComponent().appendingPathComponent(root.lastPathComponent + "-out")
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try CLI.run(["-q", "-o", out.path, root.path])
        XCTAssertEqual(result.status, .success, result.stderrText)
        for (name, _, read) in files {
            XCTAssertEqual(FileManager.default.fileExists(atPath: out.appendingPathComponent(name).path), read, name)
        }
    }

    func testInPlaceReplacesEachReport() throws {
        let batch = try makeBatch(1000, label: "batch-in-place")
        defer { try? FileManager.default.removeItem(at: batch.root) }
        let singles = try Self.singles(batch, [])
        let singlesIPS = try Self.singles(batch, ["--format", "ips"])
        chmod(batch.reports[0].path, 0o600)
        let arguments = ["-d", try Fixtures.path("macho"), "--in-place", batch.root.path]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        var wrong = 0
        for report in batch.reports {
            let expected = report.source.hasSuffix(".ips") ? singlesIPS[report.source] : singles[report.source]
            if (try? Data(contentsOf: URL(fileURLWithPath: report.path))) != expected { wrong += 1 }
        }
        XCTAssertEqual(wrong, 0, "reports replaced by something else than their symbolicated selves")
        var info = stat()
        stat(batch.reports[0].path, &info)
        XCTAssertEqual(info.st_mode & 0o777, 0o600, "a report replaced in place keeps its permissions")
        let hidden = FileManager.default.enumerator(atPath: batch.root.path)?.allObjects.compactMap { $0 as? String }
            .filter { ($0 as NSString).lastPathComponent.hasPrefix(".") } ?? []
        XCTAssertEqual(hidden, [], "no temporary files left")
    }

    /// A run killed midway leaves every report either as it was or wholly symbolicated — in
    /// place and in an output folder — never cut short.
    ///
    /// Midway is a known moment, not a delay a test could only hope would fall inside the run:
    /// strace sends SIGKILL when a worker asks to rename its 50th report into place (and fails
    /// that rename), so some reports are done and most are not, whatever the machine's speed,
    /// while the other worker may be anywhere in a report of its own.
    func testARunKilledMidwayLeavesNoHalfWrittenReport() throws {
        guard let strace = ["/usr/bin/strace", "/bin/strace"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw XCTSkip("strace is not installed (make setup-test installs it): no way to stop the run at a known moment")
        }
        let binary = try CLI.binary()
        let macho = try Fixtures.path("macho")
        let batch = try makeBatch(1000, label: "batch-kill")
        defer { try? FileManager.default.removeItem(at: batch.root) }
        let singles = try Self.singles(batch, [])
        let singlesIPS = try Self.singles(batch, ["--format", "ips"])
        let originals = try Dictionary(uniqueKeysWithValues: Set(batch.reports.map(\.source)).map {
            ($0, try Data(contentsOf: URL(fileURLWithPath: $0)))
        })
        let out = batch.root.appendingPathComponent("out")
        let renames = "rename,renameat,renameat2"
        for mode in [["--in-place"], ["-o", out.path]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: strace)
            process.environment = CLI.environment
            process.arguments = ["-f", "-qq", "-o", "/dev/null", "-e", "trace=\(renames)",
                                 "-e", "inject=\(renames):signal=SIGKILL:error=EINTR:when=50", binary,
                                 "--no-cache", "-j", "2", "-d", macho, "-q"] + mode
                + ["group0", "group1", "group2"].map { batch.root.appendingPathComponent($0).path }
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationReason == .uncaughtSignal else {
                throw XCTSkip("strace cannot trace the tool here (no ptrace?): it exited \(process.terminationStatus)")
            }
            XCTAssertEqual(process.terminationStatus, SIGKILL, "\(mode[0]): killed")
            var done = 0, untouched = 0, broken: [String] = []
            for report in batch.reports where ["group0", "group1", "group2"].contains(where: report.relative.hasPrefix) {
                let expected = report.source.hasSuffix(".ips") ? singlesIPS[report.source]! : singles[report.source]!
                // -o mirrors each named folder's tree: group0/day1/r.crash is out/day1/r.crash.
                let mirrored = String(report.relative.drop { $0 != "/" }.dropFirst())
                let path = mode[0] == "--in-place" ? report.path : out.appendingPathComponent(mirrored).path
                guard let bytes = FileManager.default.contents(atPath: path) else {
                    if mode[0] == "--in-place" { broken.append(report.relative + " (gone)") } else { untouched += 1 }
                    continue
                }
                if bytes == expected {
                    done += 1
                } else if mode[0] == "--in-place" && bytes == originals[report.source] {
                    untouched += 1
                } else {
                    broken.append(report.relative)
                }
            }
            XCTAssertEqual(broken, [], "\(mode[0]) killed midway: reports neither whole nor untouched")
            XCTAssertGreaterThanOrEqual(done, 49, "\(mode[0]): the reports renamed before the kill are whole")
            XCTAssertGreaterThan(untouched, 0, "\(mode[0]): the run was killed before its end")
        }
    }

    func testFramesFormatHasOneLinePerFrame() throws {
        let batch = try makeBatch(200, label: "batch-frames")
        defer { try? FileManager.default.removeItem(at: batch.root) }
        let macho = try Fixtures.path("macho")
        let arguments = ["-d", macho, "--format", "frames", batch.root.path]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        let lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertFalse(lines.isEmpty)
        let fields = lines.map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        XCTAssert(fields.allSatisfy { $0.count == 8 }, "eight tab-separated fields on every line")
        XCTAssertEqual(Set(fields.map { $0[0] }), Set(batch.reports.map(\.path)), "every report has frame lines")

        // Against JSON for one report: the same frames, function and file:line.
        let one = batch.reports[0]
        let json = try CLI.run(["-d", macho, "--format", "json", one.path])
        let document = try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any]
        let threads = ((document?["reports"] as? [[String: Any]])?.first?["threads"] as? [[String: Any]]) ?? []
        var expected: [String] = []
        for thread in threads {
            let number: String
            switch thread["kind"] as? String {
            case "last_exception_backtrace": number = "exception"
            case "application_specific_backtrace": number = "asi-\(thread["index"] as? Int ?? 0)"
            default: number = "\(thread["index"] as? Int ?? -1)"
            }
            for frame in thread["frames"] as? [[String: Any]] ?? [] {
                let file = (frame["file"] as? String).map(basename) ?? ""
                let location = file.isEmpty ? "" : file + ((frame["line"] as? Int).map { ":\($0)" } ?? "")
                let address = (frame["address"] as? String) ?? ""
                expected.append([one.path, number, "\(frame["index"] as? Int ?? -1)", frame["image"] as? String ?? "",
                                 address, frame["symbol"] as? String ?? "", location,
                                 (frame["inlined"] as? Bool ?? false) ? "[inlined]" : ""].joined(separator: "\t"))
            }
        }
        XCTAssertEqual(fields.filter { $0[0] == one.path }.map { $0.joined(separator: "\t") }, expected)

        // The pipeline the format is for: which functions, how often.
        let counts = Dictionary(grouping: fields.filter { $0[7].isEmpty && !$0[5].isEmpty }, by: { $0[5] }).mapValues(\.count)
        XCTAssertGreaterThan(counts["parse_record"] ?? 0, 0, "the crashing function is counted")
    }

    func testJSONIsOneDocumentWithEveryReport() throws {
        let batch = try makeBatch(300, label: "batch-json")
        defer { try? FileManager.default.removeItem(at: batch.root) }
        let macho = try Fixtures.path("macho")
        let result = try CLI.run(["-d", macho, "--format", "json", batch.root.path])
        XCTAssertEqual(result.status, .success, result.stderrText)
        let document = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let reports = document?["reports"] as? [[String: Any]] ?? []
        XCTAssertEqual(reports.map { $0["path"] as? String ?? "" }, batch.reports.map(\.path))
        // Each report as it is alone.
        let singles = try Self.singles(batch, ["--format", "json"])
        for (k, report) in batch.reports.enumerated().prefix(20) {
            let alone = try JSONSerialization.jsonObject(with: singles[report.source]!) as? [String: Any]
            let threadsAlone = ((alone?["reports"] as? [[String: Any]])?.first?["threads"] as? NSArray)
            XCTAssertEqual(reports[k]["threads"] as? NSArray, threadsAlone, report.relative)
        }
    }

    /// The summary on stderr: reports, frames resolved and not, and the app images that had no
    /// debug file with the frames they cost and why — counted independently from the frame lines.
    func testSummaryCountsFramesAndMissingImages() throws {
        let batch = try makeBatch(50, label: "batch-summary")
        defer { try? FileManager.default.removeItem(at: batch.root) }
        let frames = try CLI.run(["--format", "frames", "-q", batch.root.path])
        XCTAssertFalse(frames.stderrText.contains(" reports, "), "--quiet: no summary")
        let lines = frames.stdoutText.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        let concrete = lines.filter { $0[7].isEmpty }
        let appFrames = concrete.filter { $0[3] == "App" || $0[3] == "com.example.App" }.count
        let result = try CLI.run([batch.root.path])
        let summary = result.stderrLines.filter(ProcessResult.isSummaryLine)
        XCTAssertEqual(summary.first, "symbolicate: 50 reports, \(concrete.count) frames: 0 resolved, \(concrete.count) unresolved")
        // "  UUID ARCH NAME: FRAMES: WHY"
        let costs = summary.dropFirst(2).compactMap { line -> (String, Int)? in
            let fields = line.dropFirst("symbolicate:   ".count).components(separatedBy: ": ")
            let parts = fields[0].split(separator: " ")
            guard fields.count >= 3, parts.count == 3, let count = Int(fields[1]) else { return nil }
            return (String(parts[2]), count)
        }
        XCTAssert(summary.dropFirst(2).allSatisfy { $0.hasSuffix(": no debug file or folder was given (-d PATH, or SYMBOLICATE_PATH)") },
                  "each image line says why: \(summary)")
        XCTAssertEqual(costs.filter { $0.0 == "App" || $0.0 == "com.example.App" }.map(\.1).reduce(0, +), appFrames,
                       "the App images' cost is their frames: \(summary)")
        XCTAssert(summary.dropFirst(2).allSatisfy { $0.range(of: #"^symbolicate:   [0-9A-F-]{36} [a-z0-9_]+ "#, options: .regularExpression) != nil },
                  "each image line gives UUID, arch and name: \(summary)")
    }

    /// On a terminal, a progress line (redrawn with `\r`) for runs of several reports; none
    /// with `--quiet`, none when stderr is not a terminal.
    func testProgressLineOnlyOnATerminal() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            throw XCTSkip("script(1) is not installed: cannot give the tool a terminal")
        }
        let batch = try makeBatch(40, label: "batch-progress")
        defer { try? FileManager.default.removeItem(at: batch.root) }
        let binary = try CLI.binary()
        let macho = try Fixtures.path("macho")
        // stdout to /dev/null, stderr on the terminal `script` provides.
        func onTerminal(_ extra: String) throws -> String {
            let command = "\(binary) -d \(macho) \(extra) \(batch.root.path) >/dev/null"
            return try runProcess("/usr/bin/script", ["-qec", command, "/dev/null"], environment: CLI.environment).stdoutText
        }
        let shown = try onTerminal("")
        XCTAssert(shown.contains("/40 reports, "), "a progress line: \(shown.debugDescription)")
        XCTAssert(shown.contains("40/40 reports"), "the line reaches the total: \(shown.debugDescription)")
        XCTAssert(shown.contains("symbolicate: 40 reports, "), "the summary: \(shown.debugDescription)")
        let quiet = try onTerminal("--quiet")
        XCTAssertFalse(quiet.contains("reports"), "--quiet: no progress, no summary: \(quiet.debugDescription)")
        let piped = try CLI.run(["-d", macho, batch.root.path])
        XCTAssertFalse(piped.stderrText.contains("\r") || piped.stderrText.contains("\u{1B}"),
                       "no progress line or terminal codes when stderr is not a terminal")
    }
}

/// The persistent caches (identities, indexes) under `XDG_CACHE_HOME`: a warm run answers as a
/// cold one and as `--no-cache`; `--no-cache` writes nothing.
final class CacheTests: XCTestCase {
    func testWarmCacheAnswersAsColdAndNoCache() throws {
        let binary = try CLI.binary()
        let macho = try Fixtures.path("macho")
        let reports = try Fixtures.reports()
        let home = try makeTemporaryDirectory("cache-home")
        defer { try? FileManager.default.removeItem(at: home) }
        var environment = CLI.environment
        environment["XDG_CACHE_HOME"] = home.path
        let arguments = ["-d", macho, "-q"] + reports
        let cold = try runProcess(binary, arguments, environment: environment)
        XCTAssertEqual(cold.status, .success, cold.stderrText)
        let indexes = home.appendingPathComponent("symbolicate/indexes").path
        let stored = (try? FileManager.default.contentsOfDirectory(atPath: indexes)) ?? []
        XCTAssertFalse(stored.isEmpty, "the cold run stores the indexes it built")
        let warm = try runProcess(binary, arguments, environment: environment)
        XCTAssertEqual(warm.stdout, cold.stdout, "a warm run answers exactly as a cold one")
        XCTAssertEqual(warm.stderr, cold.stderr)

        let other = try makeTemporaryDirectory("cache-none")
        defer { try? FileManager.default.removeItem(at: other) }
        environment["XDG_CACHE_HOME"] = other.path
        let uncached = try runProcess(binary, ["--no-cache"] + arguments, environment: environment)
        XCTAssertEqual(uncached.stdout, cold.stdout)
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: other.path)) ?? [], [],
                       "--no-cache writes no cache")
    }
}
