import Foundation
import TestSupport
import XCTest

/// `-o` and `--in-place`: never a partial or temporary file left behind, never two reports
/// written to one file, never an output folder inside the reports or reached through a link.
final class OutputFolderTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try makeTemporaryDirectory("output-folder")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    private func copyReport(to relative: String, _ fixture: String = "reports/App-arm64.crash") throws {
        let target = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path(fixture), toPath: target.path)
    }

    private func hiddenFiles(under relative: String) -> [String] {
        (FileManager.default.enumerator(atPath: path(relative))?.allObjects as? [String] ?? [])
            .filter { ($0 as NSString).lastPathComponent.hasPrefix(".") }
    }

    /// Two reports of one name named from two folders, and one report named twice: the first
    /// is written, the second is not (one line each, exit 74), never one over the other.
    func testTwoReportsForOneOutputFileAreNotWrittenOverEachOther() throws {
        try copyReport(to: "a/x.crash", "reports/App-arm64.crash")
        try copyReport(to: "b/x.crash", "reports/App-x86_64.crash")
        let arguments = ["-q", "-o", path("out"), path("a/x.crash"), path("b/x.crash")]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, 74, result.summary(arguments))
        XCTAssertEqual(result.problemLines.count, 1, result.summary(arguments))
        XCTAssert(result.stderrText.contains(path("b/x.crash")) && result.stderrText.contains(path("a/x.crash")),
                  "the line names both reports: \(result.stderrText)")
        XCTAssertEqual(FileManager.default.contents(atPath: path("out/x.crash")),
                       FileManager.default.contents(atPath: path("a/x.crash")), "the first report's output stays")

        let twice = ["-q", "-o", path("out2"), path("a/x.crash"), path("a/./x.crash")]
        let again = try CLI.run(twice)
        XCTAssertEqual(again.status, 74, again.summary(twice))
        XCTAssertEqual(again.problemLines.count, 1, again.summary(twice))
    }

    /// The output folder may be neither a folder of reports nor inside one, however spelled;
    /// `-o ""` is refused rather than taken as the current folder.
    func testAnOutputFolderInsideTheReportsIsRefused() throws {
        try copyReport(to: "in/x.crash")
        try FileManager.default.createSymbolicLink(atPath: path("link"), withDestinationPath: path("in"))
        for output in [path("in/out"), path("in"), path("link"), path("link/deeper/out"), path("in/../in/out")] {
            let arguments = ["-q", "-o", output, path("in")]
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, 64, result.summary(arguments))
            XCTAssert(result.stderrText.contains("inside") || result.stderrText.contains(" is the folder"),
                      result.summary(arguments))
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("in")), ["x.crash"], "nothing written")

        try copyReport(to: "in/unique-\(getpid()).crash")
        let arguments = ["-q", "-o", "", path("in/unique-\(getpid()).crash")]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, 64, result.summary(arguments))
        let stray = FileManager.default.currentDirectoryPath + "/unique-\(getpid()).crash"
        XCTAssertFalse(FileManager.default.fileExists(atPath: stray), "nothing written in the current folder")
        try? FileManager.default.removeItem(atPath: stray)
    }

    /// A symbolic link planted in the output tree is not followed out of it.
    func testALinkedFolderInTheOutputIsNotFollowed() throws {
        try copyReport(to: "in/sub/x.crash")
        try FileManager.default.createDirectory(atPath: path("out"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: path("elsewhere"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path("out/sub"), withDestinationPath: path("elsewhere"))
        let arguments = ["-q", "-o", path("out"), path("in")]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, 74, result.summary(arguments))
        XCTAssertEqual(result.problemLines.count, 1, result.summary(arguments))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("elsewhere")), [],
                       "nothing written through the link: \(result.summary(arguments))")
    }

    /// Temporaries a killed run left (`.NAME.symbolicate-<pid>-XXXXXX` of a process that is
    /// gone) are removed by the next run that writes in their folder; those of a live process
    /// are not.
    func testAKilledRunsTemporariesAreRemovedByTheNextRun() throws {
        try copyReport(to: "in/x.crash")
        try FileManager.default.createDirectory(atPath: path("out"), withIntermediateDirectories: true)
        let gone = try runProcess("/bin/sh", ["-c", "echo $$"]).stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        let stale = path("out/.x.crash.symbolicate-\(gone)-a1B2c3")
        let live = path("out/.x.crash.symbolicate-\(getpid())-a1B2c3")
        let other = path("out/.x.crash.keep")
        for file in [stale, live, other] { try Data("partial".utf8).write(to: URL(fileURLWithPath: file)) }
        let arguments = ["-q", "-o", path("out"), path("in")]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, 0, result.summary(arguments))
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale), "the dead run's temporary is removed")
        XCTAssert(FileManager.default.fileExists(atPath: live), "a live process's temporary is kept")
        XCTAssert(FileManager.default.fileExists(atPath: other), "a file that is not ours is kept")
    }

    /// SIGTERM, SIGINT or SIGHUP while a large report is being written with -o or in place:
    /// the process ends by the signal, and no temporary file is left.
    func testASignalLeavesNoTemporaryFile() throws {
        let binary = try CLI.binary()
        let report = try String(contentsOfFile: Fixtures.path("reports/App-arm64.crash"), encoding: .utf8)
        // Some 40 MB of lines that are not frames: quick to parse, long enough to write that
        // a signal lands while the temporary file is there.
        let parts = report.components(separatedBy: "Binary Images:")
        let padding = (0..<800_000).map { "Application Specific Information: line \($0)\n" }.joined()
        let big = parts[0] + padding + "Binary Images:" + parts[1]
        try FileManager.default.createDirectory(atPath: path("in"), withIntermediateDirectories: true)
        try Data(big.utf8).write(to: URL(fileURLWithPath: path("in/big.crash")))
        var caught = 0
        for (signal, inPlace) in [(SIGTERM, false), (SIGINT, true), (SIGHUP, false)] {
            let folder = inPlace ? "in" : "out"
            let arguments = inPlace ? ["-q", "--in-place", path("in")] : ["-q", "-o", path("out"), path("in")]
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
            process.environment = CLI.environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(60)
            while process.isRunning, hiddenFiles(under: folder).isEmpty, Date() < deadline { usleep(500) }
            let writing = process.isRunning && !hiddenFiles(under: folder).isEmpty
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            guard writing else { continue }  // finished before a temporary was seen: nothing to check
            caught += 1
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, "signal \(signal) ends the run")
            XCTAssertEqual(hiddenFiles(under: folder), [], "signal \(signal): no temporary file is left in \(folder)")
        }
        XCTAssertGreaterThan(caught, 0, "a signal should have landed while a temporary file was there")
    }
}
