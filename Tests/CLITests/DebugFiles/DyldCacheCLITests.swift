import Foundation
import TestSupport
import XCTest

/// System frames from dyld shared caches, end to end: the reports Fixtures/dyld makes (a
/// classic `.crash` and an `.ips` per cache, frames left as `0x… + offset`) symbolicated with
/// the cache given with `-d`, its folder, or the dylibs split out of it, and compared with
/// `system.expect.tsv`: the functions llvm-nm names in the dylibs before they went into the
/// cache, never the tool's own reading.
final class DyldCacheCLITests: XCTestCase {
    static let caches = [("ios14", "dyld_shared_cache_arm64"), ("ios15", "dyld_shared_cache_arm64"),
                         ("macos13", "dyld_shared_cache_x86_64"), ("ios16e", "dyld_shared_cache_arm64e"),
                         ("iossim17", "dyld_shared_cache_arm64")]

    struct Expected {
        var frame: Int
        var image: String
        var function: String
        var offset: Int
    }

    static func folder(_ name: String) throws -> String {
        let path = try Fixtures.path("dyld/\(name)")
        guard FileManager.default.fileExists(atPath: path + "/system.expect.tsv") else {
            throw XCTSkip("\(path) is absent: Fixtures/build.sh (make fixtures) builds the dyld caches")
        }
        return path
    }

    static func expected(_ folder: String) throws -> [Expected] {
        try String(contentsOfFile: folder + "/system.expect.tsv", encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("#") }
            .map { line in
                let f = line.split(separator: "\t").map(String.init)
                return Expected(frame: Int(f[1])!, image: f[2], function: f[3], offset: Int(f[4])!)
            }
    }

    /// Every raw system frame of the three reports of every cache (classic, `.ips`, MetricKit:
    /// images named by binaryUUID) gets the function llvm-nm names there, through the cache's
    /// main file and through its folder, in the frames, text and JSON formats; the frame the
    /// report already names comes back as it was.
    func testRawSystemFramesGetTheCacheSymbolInEveryFormat() throws {
        for (name, main) in Self.caches {
            let folder = try Self.folder(name)
            let expected = try Self.expected(folder)
            XCTAssertGreaterThan(expected.count, 20)
            for report in ["system.crash", "system.ips", "system.metrickit.json"] {
                for given in [folder + "/" + main, folder] {
                    let frames = try CLI.run(["--no-demangle", "-d", given, "--format", "frames", folder + "/" + report])
                    XCTAssertEqual(frames.status, .success, frames.stderrText)
                    let rows = frames.stdoutText.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
                    for e in expected {
                        let row = rows.first { $0.count > 5 && $0[1] == "0" && $0[2] == String(e.frame) }
                        XCTAssertEqual(row?[5], e.function, "\(name) \(report) -d \(given) frame \(e.frame)")
                    }
                }
                let text = try CLI.run(["--no-demangle", "-d", folder, folder + "/" + report])
                XCTAssertEqual(text.status, .success, text.stderrText)
                let json = try CLI.run(["--no-demangle", "-d", folder, "--format", "json", folder + "/" + report])
                for e in expected {
                    XCTAssertTrue(text.stdoutText.contains("\(e.function) + \(e.offset)"), "\(name) \(report): \(e.function) + \(e.offset)")
                    XCTAssertTrue(json.stdoutText.contains("\"\(e.function)\""), "\(name) \(report) JSON: \(e.function)")
                }
            }
            // The one frame the report names is printed as it was, byte for byte.
            let original = try String(contentsOfFile: folder + "/system.crash", encoding: .utf8)
            let named = original.split(separator: "\n").first { $0.hasPrefix("3   ") }!
            let output = try CLI.run(["-d", folder, folder + "/system.crash"]).stdoutText
            XCTAssertTrue(output.split(separator: "\n").contains(named), "\(name): \(named)")
        }
    }

    /// The dylibs split out of a cache (Xcode's `iOS DeviceSupport/…/Symbols`, `ipsw dyld
    /// split`) are ordinary Mach-O files with symbol tables: found by UUID in a folder and
    /// answering as the cache does.
    func testDeviceSupportSymbolsTreeResolvesAsOrdinaryMachO() throws {
        for (name, _) in Self.caches {
            let folder = try Self.folder(name)
            let scratch = try makeTemporaryDirectory("devicesupport")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let tree = scratch.appendingPathComponent("iOS DeviceSupport/15.0 (19A346) arm64e")
            try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: folder + "/Symbols", toPath: tree.appendingPathComponent("Symbols").path)
            let result = try CLI.run(["--no-demangle", "-d", scratch.appendingPathComponent("iOS DeviceSupport").path,
                                      "--format", "frames", folder + "/system.crash"])
            let rows = result.stdoutText.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
            for e in try Self.expected(folder) {
                XCTAssertEqual(rows.first { $0.count > 5 && $0[2] == String(e.frame) }?[5], e.function, "\(name) frame \(e.frame)")
            }
        }
    }

    /// A report whose system images are in none of the caches given says which OS build it
    /// needs and what the cache given is: a cache of another build can never answer.
    func testReportOfAnotherBuildSaysWhichCacheItNeeds() throws {
        let ios14 = try Self.folder("ios14"), ios15 = try Self.folder("ios15")
        let result = try CLI.run(["-d", ios14 + "/dyld_shared_cache_arm64", ios15 + "/system.crash"])
        XCTAssertTrue(result.stderrText.contains("the report is of iPhone OS 15.0 (19A346)"), result.stderrText)
        XCTAssertTrue(result.stderrText.contains("dyld_shared_cache_arm64 is of iOS"), result.stderrText)
        XCTAssertFalse(result.stderrText.contains("matches no image"), "a cache's images are not named one by one")
        XCTAssertEqual(try String(contentsOfFile: ios15 + "/system.crash", encoding: .utf8), result.stdoutText)
        // An .ips report names its cache by UUID too.
        let ips = try CLI.run(["-d", ios14 + "/dyld_shared_cache_arm64", ios15 + "/system.ips"])
        let body = try String(contentsOfFile: ios15 + "/system.ips", encoding: .utf8).split(separator: "\n", maxSplits: 1)[1]
        let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as! [String: Any]
        let needed = ((json["sharedCache"] as! [String: Any])["uuid"] as! String).uppercased()
        XCTAssertTrue(ips.stderrText.contains("(cache UUID \(needed))"), ips.stderrText)
        // JSON gives each such system image the same reason, and no other image one.
        let expectedImages = Set(try Self.expected(ios15).map(\.image))
        for (report, words) in [("system.crash", "the report is of iPhone OS 15.0 (19A346)"), ("system.ips", "(cache UUID \(needed))")] {
            let run = try CLI.run(["--format", "json", "-d", ios14 + "/dyld_shared_cache_arm64", ios15 + "/" + report])
            let document = try JSONSerialization.jsonObject(with: Data(run.stdoutText.utf8)) as! [String: Any]
            let images = ((document["reports"] as! [[String: Any]])[0]["images"] as! [[String: Any]])
            var explained: Set<String> = []
            for image in images {
                guard let unresolved = image["unresolved"] as? [String: Any] else { continue }
                XCTAssertEqual(unresolved["reason"] as? String, "other_os_build", report)
                let message = unresolved["message"] as? String ?? ""
                XCTAssertTrue(message.contains(words) && message.contains("dyld_shared_cache_arm64 is of iOS"), message)
                explained.insert(image["name"] as! String)
            }
            XCTAssertEqual(explained, expectedImages, "\(report): every system image with a raw frame, and only those")
            // The cache of the report's own build gives them their names: no reason is left.
            let own = try CLI.run(["--format", "json", "-d", ios15 + "/dyld_shared_cache_arm64", ios15 + "/" + report])
            XCTAssertFalse(own.stdoutText.contains("other_os_build"), report)
        }
    }

    /// `check` describes a cache in one line: its architecture, OS version where the header
    /// has it, its images, its sub-caches and which are missing, and its local symbols.
    func testCheckDescribesEachCacheAndWhatIsMissing() throws {
        let cases = [("ios14", "arch=arm64\tplatform=iOS\tos=unknown", "subcaches=none\tmissing=none\tlocal_symbols=main("),
                     ("ios15", "arch=arm64\tplatform=iOS\tos=15.0", "subcaches=.1,.2\tmissing=none\tlocal_symbols=.symbols("),
                     ("macos13", "arch=x86_64\tplatform=macOS\tos=13.0", "subcaches=.01,.02\tmissing=none\tlocal_symbols=none")]
        for (name, head, parts) in cases {
            let folder = try Self.folder(name)
            let main = Self.caches.first { $0.0 == name }!.1
            let result = try CLI.run(["check", folder + "/" + main])
            XCTAssertEqual(result.status, .success, result.stderrText)
            XCTAssertTrue(result.stdoutText.contains(head), result.stdoutText)
            XCTAssertTrue(result.stdoutText.contains("images=6\t" + parts), result.stdoutText)
            XCTAssertTrue(result.stdoutText.hasSuffix("\tusable\n"), result.stdoutText)
        }
        let scratch = try makeTemporaryDirectory("check-cache")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let folder = try Self.folder("ios15")
        for suffix in ["", ".2"] {
            try FileManager.default.copyItem(atPath: folder + "/dyld_shared_cache_arm64" + suffix,
                                             toPath: scratch.path + "/dyld_shared_cache_arm64" + suffix)
        }
        let partial = try CLI.run(["check", scratch.path + "/dyld_shared_cache_arm64"])
        XCTAssertTrue(partial.stdoutText.contains("missing=.1,.symbols\tlocal_symbols=none"), partial.stdoutText)
        XCTAssertTrue(partial.stdoutText.contains("partly usable: 3 of 6 images lie in missing files"), partial.stdoutText)
    }

    /// `index` builds one content-keyed index per image of a cache into a folder other
    /// machines read with `--shared-cache`; a run there builds nothing and answers the same.
    func testIndexPrebuildsEveryImageForASharedCache() throws {
        let folder = try Self.folder("ios15")
        let scratch = try makeTemporaryDirectory("index-cache")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let shared = scratch.appendingPathComponent("shared").path
        let built = try CLI.run(["index", "-d", folder + "/dyld_shared_cache_arm64", "--cache-dir", shared])
        XCTAssertEqual(built.status, .success, built.stderrText)
        XCTAssertEqual(built.stdoutText.split(separator: "\n").filter { $0.hasSuffix("\tbuilt") }.count, 6, built.stdoutText)
        let own = scratch.appendingPathComponent("own").path
        let result = try CLI.run(["--no-demangle", "--shared-cache", shared, "--cache-dir", own, "-d", folder + "/dyld_shared_cache_arm64",
                                  "--format", "frames", folder + "/system.ips"])
        for e in try Self.expected(folder) {
            XCTAssertTrue(result.stdoutText.contains("\t\(e.function)\t"), e.function)
        }
        let ownIndexes = (try? FileManager.default.contentsOfDirectory(atPath: own + "/indexes")) ?? []
        XCTAssertTrue(ownIndexes.filter { $0.hasSuffix(".index") }.isEmpty, "\(ownIndexes)")
    }

    /// With `SYMBOLICATE_TEST_DYLD_CACHE` naming a real cache's main file, a report of frames
    /// in three of its images (the UUIDs the cache gives, addresses four bytes into functions
    /// DyldExtractor and LIEF find there) is symbolicated to those functions.
    func testRealCacheFromEnvironment() throws {
        guard let cache = ProcessInfo.processInfo.environment["SYMBOLICATE_TEST_DYLD_CACHE"] else {
            throw XCTSkip("SYMBOLICATE_TEST_DYLD_CACHE names no real dyld shared cache: test skipped")
        }
        let scratch = try makeTemporaryDirectory("real-cache")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let check = try CLI.run(["check", cache])
        XCTAssertTrue(check.stdoutText.contains("format=dyld_shared_cache"), check.stdoutText + check.stderrText)
        let script = TestPaths.packageRoot.appendingPathComponent("Fixtures/dyld/oracle.py").path
        let oracle = try runProcess("/usr/bin/env", ["python3", script, "--only", "libsystem_c.dylib,libsystem_kernel.dylib,CoreFoundation",
                                                     cache, scratch.appendingPathComponent("out").path])
        if oracle.status == 3 { throw XCTSkip("the oracle cannot run: \(oracle.stderrText)") }
        XCTAssertEqual(oracle.status, 0, oracle.stderrText)
        var lines = ["Incident Identifier: 00000000-0000-0000-0000-000000000000", "Code Type:           ARM-64 (Native)",
                     "OS Version:          iPhone OS", "", "Thread 0 Crashed:"]
        var images: [String] = [], expected: [String] = []
        for (n, line) in oracle.stdoutText.split(separator: "\n").enumerated() {
            let image = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            let path = image["path"] as! String, uuid = image["uuid"] as! String
            let symbols = (image["symbols"] as! [[Any]]).compactMap { entry -> (UInt64, String)? in
                guard let address = entry[0] as? NSNumber, let name = entry[1] as? String else { return nil }
                return (address.uint64Value, name)
            }.sorted { $0.0 < $1.0 }
            guard let text = image["text"] as? NSNumber, symbols.count > 10 else { continue }
            let base = text.uint64Value
            let pick = symbols.count / 2
            let address = symbols[pick].0 + 4
            let imageName = (path as NSString).lastPathComponent
            lines.append("\(n)   \(imageName)   0x\(String(address, radix: 16)) 0x\(String(base, radix: 16)) + \(address - base)")
            images.append("0x\(String(base, radix: 16)) - 0x\(String(base + 0xfff, radix: 16)) \(imageName) arm64e  <\(uuid)> \(path)")
            expected.append(String(symbols[pick].1.dropFirst()))
        }
        lines += ["", "Binary Images:"] + images + [""]
        let report = scratch.appendingPathComponent("real.crash")
        try lines.joined(separator: "\n").write(to: report, atomically: true, encoding: .utf8)
        let result = try CLI.run(["--no-demangle", "-d", cache, "--format", "frames", report.path])
        for name in expected { XCTAssertTrue(result.stdoutText.contains("\t\(name)\t"), "\(name): \(result.stdoutText)") }
        XCTAssertFalse(expected.isEmpty)
    }
}
