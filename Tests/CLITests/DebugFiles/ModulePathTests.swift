import Foundation
import TestSupport
import XCTest

/// A Linux log that names a module by its path and not by build-id is resolved through the
/// file now at that path — which may be another build than the one that crashed — so each such
/// module is named once on stderr, and `--no-module-paths` turns the matching off.
final class ModulePathTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeTemporaryDirectory("module-paths")
    }

    override func tearDownWithError() throws {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    /// Copies of two fixture programs under the scratch folder, so that the logs name paths
    /// the test owns: (clang DWARF 5 program, gcc DWARF 4 program).
    private func modules() throws -> (String, String) {
        let first = scratch.appendingPathComponent("server").path
        let second = scratch.appendingPathComponent("worker").path
        try FileManager.default.copyItem(atPath: try Fixtures.path("elf/app-clang-dwarf5"), toPath: first)
        try FileManager.default.copyItem(atPath: try Fixtures.path("elf/app-gcc-dwarf4"), toPath: second)
        return (first, second)
    }

    private func writeLog(_ name: String, _ lines: [String]) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func pathLines(_ result: ProcessResult) -> [String] {
        result.stderrLines.filter { $0.contains("no build-id in the log; resolved through the file at that path") }
    }

    func testEachModuleMatchedByPathIsSaidOnceAndResolved() throws {
        let (server, worker) = try modules()
        let frames = [
            "==77==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000",
            "    #0 0x555555554cc4  (\(server)+0xcc4)",
            "    #1 0x555555554904  (\(server)+0x904)",
            "    #2 0x555555561240  (\(worker)+0x1240)",
        ]
        let logs = [try writeLog("a.log", frames), try writeLog("b.log", frames)]
        let arguments = ["-q"] + logs
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        let said = pathLines(result)
        XCTAssertEqual(said.count, 2, result.summary(arguments))
        for module in [server, worker] {
            XCTAssertEqual(said.filter { $0.contains(": \(module): ") }.count, 1, "\(module)\n" + result.summary(arguments))
        }
        XCTAssertTrue(said.allSatisfy { $0.contains("--no-module-paths") }, result.summary(arguments))
        XCTAssertTrue(result.stdoutText.contains("in engine::Scheduler::run(int) "), result.summary(arguments))
        XCTAssertFalse(result.stdoutText.contains("(\(worker)+0x1240)\n"), "the second module is resolved too\n"
                       + result.summary(arguments))
    }

    func testNoModulePathsLeavesTheFramesAsTheyAre() throws {
        let (server, _) = try modules()
        let log = try writeLog("asan.log", ["    #0 0x555555554cc4  (\(server)+0xcc4)", "    #1 0x555555554904  (\(server)+0x904)"])
        let arguments = ["--no-module-paths", log]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        XCTAssertEqual(result.stdout, try Data(contentsOf: URL(fileURLWithPath: log)), result.summary(arguments))
        XCTAssertEqual(pathLines(result), [], result.summary(arguments))
        let missing = result.stderrLines.filter { $0.contains("no debug file for") }
        XCTAssertEqual(missing.count, 1, result.summary(arguments))
        XCTAssertTrue(missing.first?.contains("--no-module-paths") ?? false, result.summary(arguments))
    }

    /// A build-id in the log is checked: the module is found by it, not by its path, and
    /// nothing is said about paths.
    func testAModuleWithABuildIDInTheLogIsNotMatchedByPath() throws {
        let (server, _) = try modules()
        let buildID = try XCTUnwrap(Fixtures.manifest().first { $0.path == "elf/app-clang-dwarf5" }).identifier
        let log = try writeLog("asan.log", ["    #0 0x555555554cc4  (\(server)+0xcc4) (BuildId: \(buildID))"])
        for extra in [[], ["--no-module-paths"]] {
            let arguments = extra + ["-d", server, log]
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, .success, result.summary(arguments))
            XCTAssertEqual(pathLines(result), [], result.summary(arguments))
            XCTAssertTrue(result.stdoutText.contains("#0 0x555555554cc4 in "), result.summary(arguments))
        }
    }

    /// The file at the path is another build than the log's program: the frames still resolve
    /// (there is nothing to check them against), and the line about it is what tells the user.
    func testAnotherBuildAtThePathIsStillSaid() throws {
        let (server, worker) = try modules()
        try FileManager.default.removeItem(atPath: server)
        try FileManager.default.copyItem(atPath: worker, toPath: server)
        let log = try writeLog("asan.log", ["    #0 0x555555554cc4  (\(server)+0xcc4)"])
        let result = try CLI.run([log])
        XCTAssertEqual(pathLines(result).count, 1, result.summary([log]))
        XCTAssertTrue(pathLines(result).first?.contains("it may not be the one that crashed") ?? false, result.summary([log]))
    }
}
