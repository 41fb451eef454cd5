import Foundation
import TestSupport
import XCTest

/// The cache past one machine: `index` builds a cache other machines can read, `--cache-dir`
/// and SYMBOLICATE_CACHE_DIR name a run's cache, `--shared-cache` reads another one — also
/// from a read-only mount — without writing it, and `cache list` / `cache prune` look after it.
final class CacheCommandTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeTemporaryDirectory("cache-commands")
    }

    override func tearDownWithError() throws {
        if let scratch {
            _ = try? runProcess("/bin/chmod", ["-R", "u+w", scratch.path])
            try? FileManager.default.removeItem(at: scratch)
        }
    }

    private func folder(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    private func indexFiles(_ cache: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cache + "/indexes")) ?? []).filter { $0.hasSuffix(".index") }.sorted()
    }

    /// The fixture report and its debug folder, and the report symbolicated without any cache:
    /// what every cached run must print.
    private func reference() throws -> (report: String, debug: String, output: Data) {
        let report = try Fixtures.path("reports/App-arm64.crash"), debug = try Fixtures.path("macho")
        let plain = try CLI.run(["--no-cache", "-d", debug, report])
        XCTAssertEqual(plain.status, .success, plain.summary([]))
        XCTAssertTrue(plain.stdoutText.contains("parse_record + 28 (parser.c:27)"))
        return (report, debug, plain.stdout)
    }

    // MARK: - index

    /// Every debug file with DWARF is indexed and said in one line; a second run finds them
    /// all; the summary counts them.
    func testIndexBuildsEveryDebugFileAndSaysSo() throws {
        let root = try Fixtures.root().path
        let cache = folder("built")
        let arguments = ["index", "-d", root + "/macho", "-d", root + "/elf", "--cache-dir", cache, "-j", "2"]
        let first = try CLI.run(arguments)
        XCTAssertEqual(first.status, .success, first.summary(arguments))
        let lines = first.stdoutText.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        let withDWARF = try Self.filesWithDWARF(under: [root + "/macho", root + "/elf"])
        XCTAssertEqual(lines.map { $0[0] }.sorted(), withDWARF, "every debug file with DWARF, each slice")
        for line in lines {
            XCTAssertEqual(line.count, 6, "\(line)")
            XCTAssertTrue(line[3].hasPrefix("index=") && Int(line[3].dropFirst(6))! > 0, "\(line)")
            XCTAssertTrue(line[4].hasPrefix("time="), "\(line)")
            XCTAssertTrue(["built", "already indexed"].contains(line[5]), "\(line)")
        }
        // Copies of one contents (app-gcc-dwarf4.debug is the program's debug part, as
        // app.debug) share one index: as many files as distinct lines built.
        XCTAssertEqual(indexFiles(cache).count, lines.filter { $0[5] == "built" }.count)
        XCTAssertTrue(first.stderrText.hasPrefix("symbolicate: \(withDWARF.count) debug files: "), first.stderrText)

        let second = try CLI.run(arguments)
        XCTAssertEqual(second.status, .success, second.summary(arguments))
        XCTAssertTrue(second.stdoutText.split(separator: "\n").allSatisfy { $0.hasSuffix("\talready indexed") }, second.stdoutText)

        let missing = try CLI.run(["index", "-d", folder("nothing-here"), "--cache-dir", cache])
        XCTAssertEqual(missing.status, .unusableDebugPath, missing.stderrText)
    }

    /// The files under `folders` with DWARF, once per slice, as readelf (ELF: a .debug_info
    /// section) and llvm-dwarfdump (Mach-O: a UUID line per slice of a dSYM) say. Sorted.
    static func filesWithDWARF(under folders: [String]) throws -> [String] {
        var result: [String] = []
        for folder in folders {
            for relative in try FileManager.default.subpathsOfDirectory(atPath: folder) {
                let path = folder + "/" + relative
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
                let sections = try runProcess("/usr/bin/readelf", ["-S", "-W", path])
                if sections.status == 0 {
                    if sections.stdoutText.contains(" .debug_info ") || sections.stdoutText.contains(" .zdebug_info ") { result.append(path) }
                } else if relative.contains(".dSYM/Contents/Resources/DWARF/") {
                    let uuids = try runProcess("/usr/bin/llvm-dwarfdump-19", ["--uuid", path])
                    result += uuids.stdoutText.split(separator: "\n").filter { $0.hasPrefix("UUID: ") }.map { _ in path }
                }
            }
        }
        return result.sorted()
    }

    // MARK: - --cache-dir, SYMBOLICATE_CACHE_DIR

    func testTheCacheFolderIsTheOneNamed() throws {
        let (report, debug, output) = try reference()
        let named = folder("named")
        let run = try CLI.run(["--cache-dir", named, "-d", debug, report])
        XCTAssertEqual(run.stdout, output)
        XCTAssertEqual(indexFiles(named).count, 2, "App and libGreeter.dylib: \(indexFiles(named))")
        XCTAssertTrue(FileManager.default.fileExists(atPath: named + "/identities"))

        let fromEnvironment = folder("environment")
        let shell = try CLI.shell("SYMBOLICATE_CACHE_DIR='\(fromEnvironment)' \"$SYMBOLICATE\" -d '\(debug)' '\(report)' > /dev/null")
        XCTAssertEqual(shell.status, .success, shell.stderrText)
        XCTAssertEqual(indexFiles(fromEnvironment).count, 2)

        let atos = try CLI.run(["atos", "--cache-dir", folder("atos"), "-o", debug + "/App-arm64.dSYM", "0x100004204"])
        XCTAssertEqual(atos.status, .success, atos.stderrText)
        XCTAssertEqual(indexFiles(folder("atos")).count, 1)

        let both = try CLI.run(["--no-cache", "--cache-dir", named, report])
        XCTAssertEqual(both.status, .usage, both.stderrText)
    }

    // MARK: - Shared caches

    /// A cache built by `index` is read by a run with a fresh cache of its own: the same
    /// output, nothing built, nothing written to the shared folder — which is mounted
    /// read-only (a private mount namespace: root ignores file permissions), else made
    /// read-only by its permissions when not root.
    func testAReadOnlySharedCacheIsReadAndNotWritten() throws {
        let (report, debug, output) = try reference()
        let shared = folder("shared")
        let built = try CLI.run(["index", "-d", debug, "--cache-dir", shared])
        XCTAssertEqual(built.status, .success, built.summary([]))
        let before = try snapshot(shared)

        let fresh = folder("fresh")
        let run = "\"$SYMBOLICATE\" --cache-dir '\(fresh)' --shared-cache '\(shared)' -d '\(debug)' '\(report)'"
        let script: String
        if getuid() == 0 {
            let probe = try runProcess("/usr/bin/unshare", ["-m", "/bin/sh", "-c",
                                                            "mount --bind -o ro '\(shared)' '\(shared)' && ! touch '\(shared)/probe' 2>/dev/null"])
            guard probe.status == 0 else {
                throw XCTSkip("no private read-only mount here (unshare -m, mount --bind -o ro): \(probe.stderrText)")
            }
            script = "exec unshare -m /bin/sh -c \"mount --bind -o ro '\(shared)' '\(shared)' && \(run.replacingOccurrences(of: "\"", with: "\\\""))\""
        } else {
            XCTAssertEqual(try runProcess("/bin/chmod", ["-R", "a-w", shared]).status, 0)
            script = run
        }
        let result = try CLI.shell(script)
        XCTAssertEqual(result.status, .success, result.stderrText)
        XCTAssertEqual(result.stdout, output, "the same output as without a cache")
        XCTAssertEqual(result.problemLines, [], "no warning: \(result.stderrText)")
        XCTAssertEqual(indexFiles(fresh), [], "every index came from the shared cache")
        XCTAssertTrue(FileManager.default.fileExists(atPath: fresh + "/identities"), "identities are kept in the own cache")
        XCTAssertEqual(try snapshot(shared), before, "the shared cache is not written")

        // A damaged index in a shared cache (a copy, writable here) is said, passed over, and
        // the index is built into the own cache; the answers do not change.
        let copy = folder("shared-copy")
        try FileManager.default.copyItem(atPath: shared, toPath: copy)
        _ = try runProcess("/bin/chmod", ["-R", "u+w", copy])
        let app = try Fixtures.uuid("App-arm64", arch: "arm64").lowercased().replacingOccurrences(of: "-", with: "")
        let victim = try XCTUnwrap(indexFiles(copy).first { $0.hasPrefix(app) })
        let victimPath = copy + "/indexes/" + victim
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: victimPath)))
        bytes[bytes.count - 100] ^= 0xff
        try Data(bytes).write(to: URL(fileURLWithPath: victimPath))
        let other = folder("other")
        let damaged = try CLI.run(["--cache-dir", other, "--shared-cache", copy, "-d", debug, report])
        XCTAssertEqual(damaged.stdout, output)
        XCTAssertEqual(damaged.problemLines.count, 1, damaged.stderrText)
        XCTAssertTrue(damaged.problemLines.first?.contains(victimPath + ": damaged index cache file") ?? false, damaged.stderrText)
        XCTAssertEqual(indexFiles(other).count, 1, "the damaged one built into the own cache")
        XCTAssertEqual(try [UInt8](Data(contentsOf: URL(fileURLWithPath: victimPath))), bytes, "the shared copy is left as it is")
    }

    /// Names, sizes and times of every file under `folder`.
    private func snapshot(_ folder: String) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: folder).sorted().map { path in
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + path)
            return "\(path) \(attributes[.size] ?? 0) \((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        }
    }

    // MARK: - cache list, cache prune

    func testCacheListAndPrune() throws {
        let (report, debug, _) = try reference()
        let cache = folder("kept")
        _ = try CLI.run(["--cache-dir", cache, "-d", debug, report])
        let indexed = try CLI.run(["index", "--cache-dir", cache, "-d", try Fixtures.path("elf/app-nopie")])
        XCTAssertEqual(indexed.status, .success, indexed.stderrText)
        let list = try CLI.run(["cache", "list", "--cache-dir", cache])
        XCTAssertEqual(list.status, .success, list.stderrText)
        let lines = list.stdoutText.split(separator: "\n").map(String.init)
        let indexes = lines.filter { $0.contains(".index\t") }
        XCTAssertEqual(indexes.count, 3, list.stdoutText)
        XCTAssertEqual(indexes.filter { $0.contains("\tkey=local\t") && $0.hasSuffix("\tok") }.count, 2, list.stdoutText)
        let nopie = try Fixtures.path("elf/app-nopie")
        XCTAssertEqual(indexes.filter { $0.contains("\tkey=content\t") && $0.contains("debug-file=\(nopie)") }.count, 1)
        XCTAssertTrue(lines.contains { $0.hasPrefix(cache + "/identities\t") }, list.stdoutText)
        XCTAssertTrue(lines.last?.hasPrefix("total\t3 index files\t") ?? false, list.stdoutText)

        let pruneNothing = try CLI.run(["cache", "prune", "--cache-dir", cache])
        XCTAssertEqual(pruneNothing.status, .success, pruneNothing.stderrText)
        XCTAssertEqual(pruneNothing.stdoutText.split(separator: "\n").count, 1, "nothing to remove: the total only")
        let prune = try CLI.run(["cache", "prune", "--cache-dir", cache, "--max-size", "1"])
        XCTAssertEqual(prune.status, .success, prune.stderrText)
        let removed = prune.stdoutText.split(separator: "\n").filter { $0.hasPrefix("removed\t") }
        XCTAssertEqual(removed.count, 3, prune.stdoutText)
        XCTAssertTrue(removed.allSatisfy { $0.hasSuffix("\tthe least recently used, over the size bound") })
        XCTAssertEqual(indexFiles(cache), [])
    }
}
