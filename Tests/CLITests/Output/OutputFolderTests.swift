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
        XCTAssertEqual(result.status, .outputFailed, result.summary(arguments))
        XCTAssertEqual(result.problemLines.count, 1, result.summary(arguments))
        XCTAssert(result.stderrText.contains(path("b/x.crash")) && result.stderrText.contains(path("a/x.crash")),
                  "the line names both reports: \(result.stderrText)")
        XCTAssertEqual(FileManager.default.contents(atPath: path("out/x.crash")),
                       FileManager.default.contents(atPath: path("a/x.crash")), "the first report's output stays")

        let twice = ["-q", "-o", path("out2"), path("a/x.crash"), path("a/./x.crash")]
        let again = try CLI.run(twice)
        XCTAssertEqual(again.status, .outputFailed, again.summary(twice))
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
            XCTAssertEqual(result.status, .usage, result.summary(arguments))
            XCTAssert(result.stderrText.contains("inside") || result.stderrText.contains(" is the folder"),
                      result.summary(arguments))
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("in")), ["x.crash"], "nothing written")

        try copyReport(to: "in/unique-\(getpid()).crash")
        let arguments = ["-q", "-o", "", path("in/unique-\(getpid()).crash")]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .usage, result.summary(arguments))
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
        XCTAssertEqual(result.status, .outputFailed, result.summary(arguments))
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
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale), "the dead run's temporary is removed")
        XCTAssert(FileManager.default.fileExists(atPath: live), "a live process's temporary is kept")
        XCTAssert(FileManager.default.fileExists(atPath: other), "a file that is not ours is kept")
    }

    /// SIGTERM, SIGINT or SIGHUP while a report is being written with -o or in place: the
    /// process ends by the signal, and no temporary file is left.
    ///
    /// The signal lands at a known moment, not at one a test could only hope to hit: strace
    /// sends it when the tool asks to rename its finished temporary file into place, and
    /// fails that rename (EINTR), so the temporary file is there when the signal comes. With
    /// SIGKILL, which no handler sees, the same moment leaves the temporary file behind: the
    /// proof that the moment is the one meant.
    func testASignalLeavesNoTemporaryFile() throws {
        guard let strace = ["/usr/bin/strace", "/bin/strace"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw XCTSkip("strace is not installed (make setup-test installs it): no way to land a signal at a known moment")
        }
        let binary = try CLI.binary()
        try copyReport(to: "in/x.crash")
        let renames = "rename,renameat,renameat2"
        /// The tool under strace, sent `signal` at its first rename; whether it ended by a
        /// signal (strace ends by the one that ended the tool), and the folder it wrote to.
        func run(_ signal: Int32, inPlace: Bool) throws -> (bySignal: Bool, status: Int32, folder: String) {
            let folder = inPlace ? "in" : "out-\(signal)"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: strace)
            // --no-cache: the first rename is the report's, not a cache file's.
            process.arguments = ["-f", "-qq", "-o", "/dev/null", "-e", "trace=\(renames)",
                                 "-e", "inject=\(renames):signal=\(signal):error=EINTR:when=1", binary,
                                 "--no-cache", "-q", "-d", try Fixtures.path("macho")]
                + (inPlace ? ["--in-place", path("in")] : ["-o", path(folder), path("in")])
            process.environment = CLI.environment
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return (process.terminationReason == .uncaughtSignal, process.terminationStatus, folder)
        }
        let killed = try run(SIGKILL, inPlace: false)
        guard killed.bySignal else {
            throw XCTSkip("strace cannot trace the tool here (no ptrace?): it exited \(killed.status)")
        }
        XCTAssertEqual(killed.status, SIGKILL)
        XCTAssertEqual(hiddenFiles(under: killed.folder).count, 1, "SIGKILL at the rename leaves the temporary file")
        for (signal, inPlace) in [(SIGTERM, false), (SIGINT, true), (SIGHUP, false)] {
            let (bySignal, status, folder) = try run(signal, inPlace: inPlace)
            XCTAssertTrue(bySignal && status == signal, "signal \(signal) ends the run (\(bySignal ? "signal" : "exit") \(status))")
            XCTAssertEqual(hiddenFiles(under: folder), [], "signal \(signal): no temporary file is left in \(folder)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("in")), ["x.crash"], "signal \(signal)")
            XCTAssertEqual(FileManager.default.contents(atPath: path("in/x.crash")),
                           FileManager.default.contents(atPath: try Fixtures.path("reports/App-arm64.crash")),
                           "signal \(signal): the report is as it was")
        }
    }
}
