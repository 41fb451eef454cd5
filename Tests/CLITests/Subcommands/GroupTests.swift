import Foundation
import TestSupport
import XCTest

/// `symbolicate group` end to end: the fixture reports made to fall into known groups
/// (Fixtures/build/group, groups.tsv) fall into exactly those; Linux logs of programs built
/// here; the HTML page in a real browser; memory that does not grow with the reports.
final class GroupTests: XCTestCase {
    // MARK: Known groups

    func testFixtureReportsFallIntoTheirKnownGroups() throws {
        let (folder, labels) = try groupFixtures()
        let arguments = ["group", "--format", "json", "--examples", "1000", "-d", macho(), folder.path]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        let groups = try parseGroups(result)
        XCTAssertEqual(groups.reports, labels.count)
        assertPartition(groups.idOf, labels)

        // The same groups and IDs in another order, one report at a time.
        let files = labels.keys.sorted().reversed().map { folder.appendingPathComponent($0).path }
        let again = try CLI.run(["group", "--format", "json", "--examples", "1000", "-j", "1", "-d", macho()] + files)
        XCTAssertEqual(again.status, .success, again.summary(arguments))
        let other = try parseGroups(again)
        for (path, id) in groups.idOf { XCTAssertEqual(other.idOf[path], id, path) }
        XCTAssertEqual(other.order, groups.order, "most reports first, ties by ID")
    }

    /// The frames of the null dereference's group are the inline chain llvm-symbolizer gives
    /// for the crash address, innermost first.
    func testTheSignatureIsTheInlineChainLLVMSymbolizerGives() throws {
        let (folder, labels) = try groupFixtures()
        guard let symbolizer = TestPaths.llvmSymbolizer else { throw XCTSkip("llvm-symbolizer is not installed") }
        let fixtures = try XCTUnwrap(TestPaths.fixtures)
        let expect = try String(contentsOf: fixtures.appendingPathComponent("reports/App-arm64.expect.tsv"), encoding: .utf8)
        let rows: [[Substring]] = expect.split(separator: "\n").map { $0.split(separator: "\t") }
        let crash = try XCTUnwrap(rows.first { (row: [Substring]) -> Bool in row[0] == "0" && row[1] == "0" })
        let oracle = try runProcess(symbolizer, ["--obj=" + fixtures.appendingPathComponent(String(crash[3])).path,
                                                 "-i", "-f", "-C", String(crash[4])])
        let lines: [Substring] = oracle.stdoutText.split(separator: "\n")
        var chain: [String] = []
        for (i, line) in lines.enumerated() where i % 2 == 0 { chain.append(String(line)) }

        let result = try CLI.run(["group", "--format", "json", "--examples", "1000", "-d", macho(), folder.path])
        let groups = try parseGroups(result)
        let name = try XCTUnwrap(labels.first { $0.value == "null-deref" }?.key)
        let id = try XCTUnwrap(groups.idOf[folder.appendingPathComponent(name).path])
        XCTAssertEqual(groups.frames[id], Array(chain.prefix(3)))
        XCTAssertEqual(groups.frames[id]?.count, 3)
    }

    /// Without debug files, reports of one build fall together by image offsets, whatever
    /// the load address; another build is another group.
    func testWithoutDebugFilesOneBuildStillGroupsByImageOffset() throws {
        let (folder, _) = try groupFixtures()
        let names = ["null-deref-1.crash", "null-deref-2.crash", "null-deref-3.crash", "null-deref-dwarf5.crash"]
        let arguments = ["group", "--format", "json", "--no-cache"] + names.map { folder.appendingPathComponent($0).path }
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        let groups = try parseGroups(result)
        let ids = names.map { groups.idOf[folder.appendingPathComponent($0).path] }
        XCTAssertEqual(ids[0], ids[1])
        XCTAssertEqual(ids[0], ids[2])
        XCTAssertNotEqual(ids[0], ids[3])
        let frames = try XCTUnwrap(groups.frames[try XCTUnwrap(ids[0])])
        XCTAssertEqual(frames.count, 3)
        XCTAssertTrue(frames.allSatisfy { $0.hasPrefix("App+0x") }, "\(frames)")
    }

    // MARK: Linux logs

    /// The glibc-backtrace program built by gcc and clang, and by gcc from sources whose lines
    /// all moved: its NULL read is one group, its abort another, the crash handler in neither.
    func testLinuxLogsOfOneBugFromSeveralBuildsAreOneGroup() throws {
        let compilers = try LinuxToolchain.compilers()
        let dir = try makeTemporaryDirectory("group-linux")
        defer { try? FileManager.default.removeItem(at: dir) }
        // A copy of the sources with three lines added at the top of each file.
        let shifted = dir.appendingPathComponent("shifted")
        try FileManager.default.createDirectory(at: shifted, withIntermediateDirectories: true)
        for file in ["backtrace_main.c", "inventory.c", "inventory.h"] {
            let text = try String(contentsOf: LinuxToolchain.sources.appendingPathComponent(file), encoding: .utf8)
            try ("/* moved\n * three lines\n */\n" + text).write(to: shifted.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
        var programs: [String] = []
        for compiler in compilers {
            let binary = dir.appendingPathComponent("backtrace-\(compiler.name)").path
            try LinuxToolchain.compile(compiler.c, compiler.linkerFlags, sources: ["backtrace_main.c", "inventory.c"], output: binary)
            programs.append(binary)
        }
        let moved = dir.appendingPathComponent("backtrace-moved").path
        let build = try runProcess(compilers[0].c, ["-O2", "-g"] + compilers[0].linkerFlags
                                   + ["-o", moved, shifted.appendingPathComponent("backtrace_main.c").path,
                                      shifted.appendingPathComponent("inventory.c").path])
        XCTAssertEqual(build.status, 0, build.stderrText)
        programs.append(moved)

        var logs: [String: String] = [:]  // path → bug
        for program in programs {
            for bug in ["segv", "abort"] {
                let log = try LinuxToolchain.crashLog(program, [bug], label: bug)
                let path = dir.appendingPathComponent("\(Path(program).name)-\(bug).log").path
                try log.write(toFile: path, atomically: true, encoding: .utf8)
                logs[path] = bug
            }
        }
        let arguments = ["group", "--format", "json", "--examples", "100"] + logs.keys.sorted()
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        let groups = try parseGroups(result)
        XCTAssertEqual(groups.order.count, 2, result.stdoutText)
        assertPartition(groups.idOf, logs)
        for (id, frames) in groups.frames {
            XCTAssertEqual(frames.count, 3, "\(id): \(frames)")
            XCTAssertFalse(frames.contains("crash_handler"), "the handler's frames are left out: \(frames)")
            XCTAssertFalse(frames.contains("abort"), "\(frames)")
        }
        let segv = try XCTUnwrap(groups.idOf[try XCTUnwrap(logs.first { $0.value == "segv" }?.key)])
        XCTAssertTrue(["item_weight", "shelf_weight"].contains(groups.frames[segv]?.first ?? ""),
                      "the interrupted instruction, in the inlined function that read through NULL: \(groups.frames[segv] ?? [])")
    }

    // MARK: The page

    /// The page in headless Chromium: its script runs without errors, it shows every group,
    /// and a screenshot is left in .build/test-output/group.png (docs/grouping.md, "The HTML page").
    func testTheHTMLPageLoadsInChromium() throws {
        guard let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first(where: FileManager.default.isExecutableFile) else {
            print("GroupTests: chromium is not installed (Debian package chromium; make setup-test installs it): the page's browser test is skipped")
            throw XCTSkip("chromium is not installed")
        }
        let (folder, _) = try groupFixtures()
        let dir = try makeTemporaryDirectory("group-page")
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.appendingPathComponent("groups.html")
        let arguments = ["group", "--format", "json", "--html", page.path, "-d", macho(), folder.path]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        let groups = try parseGroups(result)
        let html = try String(contentsOf: page, encoding: .utf8)
        for remote in ["http://", "https://", "//cdn"] where html.contains("src=\"\(remote)") || html.contains("href=\"\(remote)") {
            XCTFail("the page loads \(remote)")
        }

        let browser = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                       "--user-data-dir=" + dir.appendingPathComponent("profile").path, "--enable-logging=stderr", "--v=0"]
        let dump = try runProcess("/usr/bin/timeout", ["120", chromium] + browser + ["--dump-dom", page.absoluteString])
        XCTAssertEqual(dump.status, 0, dump.stderrText)
        let dom = dump.stdoutText
        let body = try XCTUnwrap(dom.range(of: "<body[^>]*>", options: .regularExpression).map { String(dom[$0]) }, dom)
        XCTAssertTrue(body.contains("data-ready=\"yes\""), "the page's script ran: \(body)")
        XCTAssertTrue(body.contains("data-errors=\"0\""), "no script error: \(body)")
        XCTAssertTrue(body.contains("data-shown=\"\(groups.order.count)\""), body)
        XCTAssertEqual(dom.components(separatedBy: "<section class=\"group\"").count - 1, groups.order.count)
        for id in groups.order { XCTAssertTrue(dom.contains("id=\"g-\(id)\""), id) }
        // Each group's trend charts, drawn in the page (the fixtures give every report a version and a date).
        XCTAssertEqual(dom.components(separatedBy: "<div class=\"trend\">").count - 1, groups.order.count, "a trend per group")
        XCTAssertEqual(dom.components(separatedBy: "<figure class=\"trend-versions\">").count - 1, groups.order.count)
        XCTAssertEqual(dom.components(separatedBy: "<figure class=\"trend-days\">").count - 1, groups.order.count)
        let newest = try XCTUnwrap(groups.newestVersion)
        XCTAssertEqual(dom.components(separatedBy: "data-new-in=\"\(newest)\"").count - 1, groups.newIn.count, "the new groups are marked")
        let consoleErrors = dump.stderrText.split(separator: "\n").filter { $0.contains("CONSOLE") || $0.contains("Uncaught") }
        XCTAssertEqual(consoleErrors, [], "console messages of the page")

        let output = TestPaths.packageRoot.appendingPathComponent(".build/test-output")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let screenshot = output.appendingPathComponent("group.png")
        try? FileManager.default.removeItem(at: screenshot)
        let shot = try runProcess("/usr/bin/timeout", ["120", chromium] + browser
                                  + ["--hide-scrollbars", "--window-size=1280,1600", "--screenshot=" + screenshot.path, page.absoluteString])
        XCTAssertEqual(shot.status, 0, shot.stderrText)
        let png = try Data(contentsOf: screenshot)
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "a PNG file")
        XCTAssertGreaterThan(png.count, 10_000)
        print("GroupTests: screenshot of the page in \(screenshot.path)")
    }

    // MARK: Inputs, errors, memory

    func testUnreadableReportsAreCountedAndSaid() throws {
        let (folder, _) = try groupFixtures()
        let dir = try makeTemporaryDirectory("group-bad")
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.ips")
        try Data("{\"bug_type\":\"309\"}\n{ cut short".utf8).write(to: bad)
        let arguments = ["group", "-d", macho(), bad.path, folder.appendingPathComponent("greeter.crash").path,
                         dir.appendingPathComponent("missing.crash").path]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .reportFailed, result.summary(arguments))
        XCTAssertTrue(result.stdoutText.hasPrefix("1 group in 1 report (2 could not be read)\n"), result.stdoutText)
        XCTAssertTrue(result.stderrText.contains(bad.path), result.stderrText)
        XCTAssertTrue(result.stderrText.contains("missing.crash"), result.stderrText)
        for line in result.stdoutText.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 100, String(line)) }
    }

    func testReportsFromAListAndStandardInput() throws {
        let (folder, labels) = try groupFixtures()
        let list = labels.keys.sorted().map { folder.appendingPathComponent($0).path }.joined(separator: "\0")
        let arguments = ["group", "--format", "tsv", "-d", macho(), "--reports-from", "-"]
        let result = try CLI.run(arguments, input: Data(list.utf8))
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        let lines = result.stdoutText.split(separator: "\n")
        XCTAssertEqual(lines.count, 1 + Set(labels.values).count, result.stdoutText)
        XCTAssertEqual(lines.dropFirst().map { Int($0.split(separator: "\t")[1]) ?? 0 }.reduce(0, +), labels.count)

        let report = try Data(contentsOf: folder.appendingPathComponent("greeter.crash"))
        let piped = try CLI.run(["group", "--format", "json", "-d", macho()], input: report)
        XCTAssertEqual(try parseGroups(piped).idOf.keys.sorted(), ["<stdin>"])
    }

    /// The memory of a run does not grow with its reports: ten times as many reports (the
    /// same files listed again) cost at most a few megabytes more at peak.
    func testMemoryDoesNotGrowWithTheNumberOfReports() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else { throw XCTSkip("GNU time is not installed") }
        let (folder, labels) = try groupFixtures()
        let dir = try makeTemporaryDirectory("group-memory")
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = labels.keys.sorted().map { folder.appendingPathComponent($0).path }
        var peaks: [Int] = []
        for count in [150, 1500] {
            let list = dir.appendingPathComponent("list-\(count)")
            try (0..<count).map { files[$0 % files.count] }.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
            let result = try CLI.shell("/usr/bin/time -f '%M' -o \(dir.path)/rss-\(count) \"$SYMBOLICATE\" group -q -d '\(macho())' --reports-from '\(list.path)' > /dev/null",
                                       timeout: 600)
            XCTAssertEqual(result.status, .success, result.stderrText)
            let rss = try String(contentsOf: dir.appendingPathComponent("rss-\(count)"), encoding: .utf8)
            peaks.append(Int(rss.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0)
        }
        print("GroupTests: peak RSS for 150 and 1500 reports: \(peaks[0]) KB, \(peaks[1]) KB")
        XCTAssertGreaterThan(peaks[0], 0)
        XCTAssertLessThan(peaks[1] - peaks[0], 8 * 1024, "peak RSS grew by more than 8 MB for 1,350 more reports")
    }

    /// `--members`: every report in its group, in TSV one line each, in JSON a list per group.
    func testMembersListEveryReportInItsGroup() throws {
        let (folder, labels) = try groupFixtures()
        let json = try CLI.run(["group", "--format", "json", "--members", "-d", macho(), folder.path])
        XCTAssertEqual(json.status, .success, json.stderrText)
        let groups = try parseGroups(json)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        var memberOf: [String: String] = [:]
        for group in try XCTUnwrap(object["groups"] as? [[String: Any]]) {
            for path in try XCTUnwrap(group["members"] as? [String]) { memberOf[path] = group["id"] as? String }
            XCTAssertEqual((group["members"] as? [String])?.count, group["reports"] as? Int)
        }
        XCTAssertEqual(memberOf.count, labels.count)
        assertPartition(memberOf, labels)
        for (path, id) in groups.idOf { XCTAssertEqual(memberOf[path], id, path) }

        let tsv = try CLI.run(["group", "--format", "tsv", "--members", "-d", macho(), folder.path])
        let rows = tsv.stdoutText.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        XCTAssertEqual(rows.first, ["id", "path"])
        XCTAssertEqual(rows.count, labels.count + 1)
        for row in rows.dropFirst() { XCTAssertEqual(memberOf[row[1]], row[0], row[1]) }
    }

    func testHelpDocumentsTheSignatureRules() throws {
        let result = try CLI.run(["help", "group"])
        XCTAssertEqual(result.status, .success)
        let help = result.stdoutText.replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: "  ", with: " ")
        for word in ["SIGNATURE", "abort", "__pthread_kill", "objc_exception_throw", "__cxa_throw", "_assertionFailure",
                     "fatalError", "Last Exception Backtrace", "signal trampoline", "SHA-256", "--html", "IMAGE+0xOFFSET", "--members", "stack destroyed", "Simulator"] {
            XCTAssertTrue(help.contains(word), word)
        }
    }

    // MARK: Helpers

    /// The Mach-O fixtures' folder (``groupFixtures()`` skips the test when it is absent).
    private func macho() -> String {
        TestPaths.packageRoot.appendingPathComponent("Fixtures/build/macho").path
    }

    /// Fixtures/build/group and its labels: report file name → group label.
    private func groupFixtures() throws -> (URL, [String: String]) {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        let folder = fixtures.appendingPathComponent("group")
        let tsv = try String(contentsOf: folder.appendingPathComponent("groups.tsv"), encoding: .utf8)
        var labels: [String: String] = [:]
        for line in tsv.split(separator: "\n") {
            let fields = line.split(separator: "\t")
            labels[String(fields[0])] = String(fields[1])
        }
        XCTAssertGreaterThan(labels.count, 20)
        return (folder, labels)
    }

    struct Groups {
        var reports = 0
        var idOf: [String: String] = [:]   // report path → group ID
        var frames: [String: [String]] = [:]
        var order: [String] = []
        var newestVersion: String?
        var newIn: [String] = []   // IDs of the groups new in the newest version
    }

    private func parseGroups(_ result: ProcessResult) throws -> Groups {
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], result.stdoutText)
        var groups = Groups()
        groups.reports = try XCTUnwrap(json["reports"] as? Int)
        groups.newestVersion = json["newest_version"] as? String
        for group in try XCTUnwrap(json["groups"] as? [[String: Any]]) {
            let id = try XCTUnwrap(group["id"] as? String)
            XCTAssertEqual(id.count, 12)
            groups.order.append(id)
            if group["new_in"] is String { groups.newIn.append(id) }
            groups.frames[id] = (group["signature"] as? [String: Any])?["frames"] as? [String]
            for path in try XCTUnwrap(group["examples"] as? [String]) {
                XCTAssertNil(groups.idOf[path], "\(path) in two groups")
                groups.idOf[path] = id
            }
        }
        return groups
    }

    /// Two reports share a group exactly when they share a label.
    private func assertPartition(_ idOf: [String: String], _ labels: [String: String], file: StaticString = #filePath, line: UInt = #line) {
        var idsOfLabel: [String: Set<String>] = [:], labelsOfID: [String: Set<String>] = [:]
        for (name, label) in labels {
            guard let id = idOf[name] ?? idOf.first(where: { $0.key.hasSuffix("/" + name) })?.value else {
                XCTFail("\(name) is in no group", file: file, line: line)
                continue
            }
            idsOfLabel[label, default: []].insert(id)
            labelsOfID[id, default: []].insert(label)
        }
        for (label, ids) in idsOfLabel where ids.count != 1 { XCTFail("\(label) is split over \(ids.sorted())", file: file, line: line) }
        for (id, labels) in labelsOfID where labels.count != 1 { XCTFail("\(id) joins \(labels.sorted())", file: file, line: line) }
    }
}

/// A path's last component, for naming files after programs.
private struct Path {
    var name: String
    init(_ path: String) { name = (path as NSString).lastPathComponent }
}
