import Foundation
import TestSupport
import XCTest

/// The recipe of docs/usage.md for many machines ("GNU parallel over ssh"), run with GNU
/// parallel (Debian's `parallel`) and its workers on this machine (`--sshlogin :`): 1,000
/// reports cut in blocks, each block given to a `symbolicate` of its own with a fresh cache
/// and the shared prebuilt one, the outputs merged in input order — byte for byte what one
/// run prints.
final class ParallelRecipeTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeTemporaryDirectory("parallel-recipe")
    }

    override func tearDownWithError() throws {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    private static func parallel() throws -> String {
        let path = "/usr/bin/parallel"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw XCTSkip("GNU parallel is not installed (Debian's parallel, in the Makefile's PACKAGES)")
        }
        return path
    }

    /// 1,000 reports of every fixture kind (classic, .ips, MetricKit), listed one per line.
    private func makeReports() throws -> (list: String, count: Int) {
        let root = try Fixtures.root()
        var sources: [URL] = []
        for folder in ["reports", "ips", "metrickit"] {
            let url = root.appendingPathComponent(folder)
            sources += try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
                .filter { $0.hasSuffix(".crash") || $0.hasSuffix(".ips") || $0.hasSuffix(".json") }
                .map { url.appendingPathComponent($0) }
        }
        let folder = scratch.appendingPathComponent("crashes")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var paths: [String] = []
        for i in 0..<1000 {
            let source = sources[i % sources.count]
            let path = folder.appendingPathComponent(String(format: "%04d-", i) + source.lastPathComponent).path
            try FileManager.default.copyItem(atPath: source.path, toPath: path)
            paths.append(path)
        }
        let list = scratch.appendingPathComponent("reports.list").path
        try (paths.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        return (list, paths.count)
    }

    func testTheParallelRecipeMergesToOneRunsOutput() throws {
        let parallel = try Self.parallel()
        let debug = try Fixtures.root().path
        let (list, count) = try makeReports()
        let work = scratch.path
        // The prebuilt shared cache, as the indexer machine makes it.
        let indexed = try CLI.run(["index", "-d", debug, "--cache-dir", work + "/shared"])
        XCTAssertEqual(indexed.status, .success, indexed.summary([]))

        // One run: the reference.
        let one = try CLI.shell("\"$SYMBOLICATE\" -q --format frames -d '\(debug)' --reports-from '\(list)' > '\(work)/one.tsv'",
                                timeout: 300)
        XCTAssertEqual(one.status, .success, one.stderrText)

        // The recipe: blocks of 100 paths on the workers' standard input, each worker a
        // symbolicate with a fresh cache of its own ({%}: its job slot) and the shared one,
        // `-k` keeping the outputs in input order.
        let recipe = """
            '\(parallel)' --will-cite --pipe -N 100 -k -j 2 --sshlogin : \
              "$SYMBOLICATE" -q --cache-dir '\(work)/worker-{%}' --shared-cache '\(work)/shared' \
              -d '\(debug)' --format frames --reports-from - < '\(list)' > '\(work)/merged.tsv'
            """
        let merged = try CLI.shell(recipe, timeout: 300)
        XCTAssertEqual(merged.status, 0, merged.stderrText)
        let reference = try Data(contentsOf: URL(fileURLWithPath: work + "/one.tsv"))
        let output = try Data(contentsOf: URL(fileURLWithPath: work + "/merged.tsv"))
        XCTAssertGreaterThan(reference.count, 100_000)
        XCTAssertTrue(output == reference, "the merged output is one run's, byte for byte "
                      + "(\(output.count) and \(reference.count) bytes)")
        let lines = String(decoding: reference, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(Set(lines.map { $0.split(separator: "\t")[0] }).count, count - 0, "every report has frames")
        XCTAssertTrue(lines.contains { $0.contains("\tparse_record\t") && $0.contains("parser.c:27") }, "frames are resolved")
        // Every worker had its own cache and found every index in the shared one.
        let workers = try FileManager.default.contentsOfDirectory(atPath: work).filter { $0.hasPrefix("worker-") }
        XCTAssertEqual(workers.count, 2, "\(workers)")
        for worker in workers {
            let built = (try? FileManager.default.contentsOfDirectory(atPath: "\(work)/\(worker)/indexes")) ?? []
            XCTAssertEqual(built.filter { $0.hasSuffix(".index") }, [], "\(worker) built nothing")
        }

        // The same with one file per report (-o): the workers' folder is one run's folder.
        let files = try CLI.shell("""
            '\(parallel)' --will-cite --pipe -N 100 -k -j 2 --sshlogin : \
              "$SYMBOLICATE" -q --shared-cache '\(work)/shared' --cache-dir '\(work)/worker-{%}' \
              -d '\(debug)' -o '\(work)/out-parallel' --reports-from - < '\(list)' &&
            "$SYMBOLICATE" -q -d '\(debug)' -o '\(work)/out-one' --reports-from '\(list)' &&
            diff -r '\(work)/out-one' '\(work)/out-parallel' && ls '\(work)/out-one' | wc -l
            """, timeout: 300)
        XCTAssertEqual(files.status, 0, files.stderrText + files.stdoutText)
        XCTAssertEqual(files.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines), String(count))
    }
}
