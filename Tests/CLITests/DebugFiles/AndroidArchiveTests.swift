import Foundation
import TestSupport
import XCTest

/// Debug files inside APKs and app bundles: the fixtures' libcrashy.so of each ABI (arm64 and
/// Thumb among them) packed as an APK with `zip -0` (stored, as Android loads libraries in
/// place) and `zip -9` (deflated), and as an app bundle (`base/lib/ABI/`) by Python's zipfile,
/// named with `-d` alone. Tombstones whose frames name `base.apk!libcrashy.so` and its build-id
/// must resolve, every frame and its inline chain, as llvm-symbolizer-19 resolves the library
/// extracted from the archive (`unzip -p`). Damaged and hostile archives give one line naming
/// the file, and the run goes on.
final class AndroidArchiveTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try makeTemporaryDirectory("android-archives")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// Runs `python3 -c SCRIPT ARGS`, which must succeed.
    private func python(_ script: String, _ arguments: [String]) throws {
        let result = try runProcess("/usr/bin/python3", ["-c", script] + arguments)
        guard result.status == 0 else { throw FixtureError("python3: \(result.stderrText)") }
    }

    /// The archives of one ABI's library: an APK stored, one deflated, an app bundle.
    private func archives(of library: AndroidLibrary) throws -> [(label: String, path: String, entry: String)] {
        let tree = path("tree-\(library.abi)")
        let entry = "lib/\(library.abi)/libcrashy.so"
        try FileManager.default.createDirectory(atPath: tree + "/lib/\(library.abi)", withIntermediateDirectories: true)
        _ = try? FileManager.default.removeItem(atPath: tree + "/" + entry)
        try FileManager.default.copyItem(atPath: library.path, toPath: tree + "/" + entry)
        try "<manifest/>".write(toFile: tree + "/AndroidManifest.xml", atomically: true, encoding: .utf8)
        let zip = try LinuxToolchain.tool("zip", ["/usr/bin/zip"])
        var made: [(String, String, String)] = []
        for (label, level) in [("stored", "-0"), ("deflated", "-9")] {
            let apk = path("\(library.abi)-\(label).apk")
            let result = try runProcess("/bin/sh", ["-c", "cd '\(tree)' && '\(zip)' -q -X \(level) -r '\(apk)' AndroidManifest.xml lib"])
            guard result.status == 0 else { throw FixtureError("zip: \(result.stderrText)") }
            made.append(("\(library.abi) APK \(label)", apk, entry))
        }
        let aab = path("\(library.abi).aab")
        try python("""
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("BundleConfig.pb", b"\\x0a\\x05\\x0a\\x031.0")
                z.writestr("base/manifest/AndroidManifest.xml", b"<manifest/>")
                z.write(sys.argv[2], "base/" + sys.argv[3])
            """, [aab, library.path, entry])
        made.append(("\(library.abi) AAB", aab, "base/" + entry))
        return made
    }

    /// The library as `unzip -p` takes it out of `archive`, read as the oracle reads it.
    private func extracted(_ library: AndroidLibrary, from archive: String, entry: String) throws -> AndroidLibrary {
        let out = archive + ".extracted.so"
        let unzip = try LinuxToolchain.tool("unzip", ["/usr/bin/unzip"])
        let result = try runProcess("/bin/sh", ["-c", "'\(unzip)' -p '\(archive)' '\(entry)' > '\(out)'"])
        guard result.status == 0 else { throw FixtureError("unzip: \(result.stderrText)") }
        return AndroidLibrary(abi: library.abi, path: out, buildID: library.buildID, functions: library.functions,
                              instructions: library.instructions)
    }

    func testLibrariesInsideAPKsAndBundlesAgreeWithLLVMSymbolizerOnTheExtractedLibrary() throws {
        var tally = TombstoneTests.Tally()
        var archivesRead = 0
        for abi in AndroidLibrary.abis {
            let library = try AndroidLibrary.load(abi)
            let threads = try TombstoneWriter.threads(library, faultPC: try TombstoneTests.faultPC(library))
            let pcs = library.functions.flatMap { library.instructions(of: $0) }.map(\.address)
            for archive in try archives(of: library) {
                let inside = try extracted(library, from: archive.path, entry: archive.entry)
                let everyPC = abi == "armeabi-v7a" ? pcs + pcs.map { $0 | 1 } : pcs
                let chains = try TombstoneTests.symbolize(inside, threads.joined().compactMap { $0 } + everyPC)
                for (name, frames) in [("crash", threads), ("every instruction", [everyPC])] {
                    let tombstone = TombstoneWriter.write(library, threads: frames, layout: .apk)
                    let report = path("\(abi)-\(name).txt")
                    try tombstone.text.write(toFile: report, atomically: true, encoding: .utf8)
                    let result = try CLI.run(["-d", archive.path, report])
                    XCTAssertEqual(result.status, .success, result.summary(["-d", archive.path, report]))
                    XCTAssertFalse(result.stderrText.contains("no debug file for libcrashy.so"), "\(archive.label): \(result.stderrText)")
                    TombstoneTests.compare(tombstone, output: result.stdoutText, chains: chains, label: "\(archive.label) \(name)", tally: &tally)
                }
                archivesRead += 1
            }
        }
        tally.report("libraries inside \(archivesRead) APKs and app bundles")
        XCTAssertGreaterThan(tally.compared, 1000)
        XCTAssertEqual(tally.agreed, tally.compared)
    }

    /// A folder holding the archive is searched as well: the APK is found by its name.
    func testAnAPKInASearchedFolderIsFound() throws {
        let library = try AndroidLibrary.load("arm64-v8a")
        let apk = try archives(of: library)[1].path
        let folder = path("outputs/apk/release")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: apk, toPath: folder + "/app-release.apk")
        let threads = try TombstoneWriter.threads(library, faultPC: try TombstoneTests.faultPC(library))
        let tombstone = TombstoneWriter.write(library, threads: threads, layout: .apk)
        let result = try CLI.run(["-d", path("outputs")], input: Data(tombstone.text.utf8))
        XCTAssertEqual(result.status, .success, result.stderrText)
        XCTAssertTrue(result.stdoutText.contains(" in cart_total "), result.stdoutText)
    }

    // MARK: Hostile archives

    /// Writes the hostile archives (Python), each a variant of an APK holding the library.
    private func hostileArchives(_ library: AndroidLibrary) throws -> [String: String] {
        let names = ["truncated", "overlapping", "size-too-small", "size-too-large", "ratio-lie", "crc", "zip64", "not-deflate"]
        try python("""
            import sys, struct, zipfile, zlib, io
            out, lib = sys.argv[1], open(sys.argv[2], "rb").read()
            def apk(method=zipfile.ZIP_DEFLATED):
                b = io.BytesIO()
                with zipfile.ZipFile(b, "w", method) as z:
                    z.writestr("AndroidManifest.xml", b"<manifest/>")
                    z.writestr("lib/arm64-v8a/libcrashy.so", lib)
                return bytearray(b.getvalue())
            def central(data, name):
                at = data.find(b"PK\\x01\\x02")
                while True:
                    n = struct.unpack_from("<H", data, at + 28)[0]
                    if data[at + 46:at + 46 + n] == name: return at
                    at = data.find(b"PK\\x01\\x02", at + 4)
            def write(name, data): open(out + "/" + name + ".apk", "wb").write(data)
            data = apk(); write("truncated", data[:len(data) * 2 // 3])
            # Fifield's overlapping bomb: a second directory entry names the first entry's bytes.
            data = apk(); so = central(data, b"lib/arm64-v8a/libcrashy.so")
            mf = central(data, b"AndroidManifest.xml")
            struct.pack_into("<I", data, mf + 42, struct.unpack_from("<I", data, so + 42)[0])
            write("overlapping", data)
            for name, field, value in [("size-too-small", 24, 4096), ("size-too-large", 24, len(lib) + 4096),
                                       ("ratio-lie", 24, 0xfffffff0), ("crc", 16, 0x12345678), ("zip64", 24, 0xffffffff)]:
                data = apk(); so = central(data, b"lib/arm64-v8a/libcrashy.so")
                struct.pack_into("<I", data, so + field, value)
                write(name, data)
            data = apk(); so = central(data, b"lib/arm64-v8a/libcrashy.so")
            local = struct.unpack_from("<I", data, so + 42)[0]
            n, e = struct.unpack_from("<HH", data, local + 26)
            data[local + 30 + n + e] = 0xff; write("not-deflate", data)
            """, [dir.path, library.path])
        return Dictionary(uniqueKeysWithValues: names.map { ($0, path("\($0).apk")) })
    }

    func testDamagedAndHostileArchivesGiveOneLineAndTheRunGoesOn() throws {
        let library = try AndroidLibrary.load("arm64-v8a")
        let good = try archives(of: library)[0].path
        let threads = try TombstoneWriter.threads(library, faultPC: try TombstoneTests.faultPC(library))
        let tombstone = TombstoneWriter.write(library, threads: threads, layout: .apk)
        let expected = [
            "truncated": "no end of central directory record",
            "overlapping": "overlap",
            "size-too-small": "inflates past the 4096 bytes",
            "size-too-large": "inflates to",
            "ratio-lie": "more than deflate makes",
            "crc": "CRC-32",
            "zip64": "ZIP64",
            "not-deflate": "not a deflate stream",
        ]
        for (name, archive) in try hostileArchives(library).sorted(by: { $0.key < $1.key }) {
            // The damaged archive first, then a good one: the run goes on and resolves.
            let arguments = ["-d", archive, "-d", good]
            let result = try CLI.run(arguments, input: Data(tombstone.text.utf8))
            let lines = result.stderrText.split(separator: "\n").filter { $0.contains(archive) }
            XCTAssertEqual(lines.count, 1, "\(name): \(result.stderrText)")
            XCTAssertTrue(lines.first?.contains("damaged zip archive") == true && lines.first?.contains(expected[name]!) == true,
                          "\(name): \(result.stderrText)")
            XCTAssertTrue(result.stdoutText.contains(" in cart_total "), "\(name): the good archive still resolves")
        }
    }

    /// An entry of a quarter GiB of zeros behind an ELF header (deflate makes it of some
    /// 250 KiB): read with the memory of a small run, not its size.
    func testAZipBombTakesBoundedMemory() throws {
        let library = try AndroidLibrary.load("arm64-v8a")
        let bomb = path("bomb.apk")
        try python("""
            import sys, zipfile
            head = open(sys.argv[2], "rb").read()[:64]
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                with z.open("lib/arm64-v8a/libbomb.so", "w", force_zip64=False) as f:
                    f.write(head)
                    zeros = bytes(1 << 20)
                    for _ in range(255): f.write(zeros)
            """, [bomb, library.path])
        let tombstone = TombstoneWriter.write(library, threads: [[0x1000]], layout: .apk)
        let report = path("bomb.txt")
        try tombstone.text.write(toFile: report, atomically: true, encoding: .utf8)
        let measure = path("peak")
        let result = try runProcess("/usr/bin/time", ["-f", "%M", "-o", measure, try CLI.binary(), "-d", bomb, report],
                                    environment: CLI.environment)
        let peak = try XCTUnwrap(Int(try String(contentsOfFile: measure, encoding: .utf8)
            .split(separator: "\n").last?.trimmingCharacters(in: .whitespaces) ?? ""))
        print("AndroidArchiveTests: a 255 MiB entry of zeros read with a peak of \(peak) KiB")
        XCTAssertLessThan(peak, 64 * 1024, "peak \(peak) KiB: \(result.stderrText)")
        XCTAssertTrue(result.stderrText.contains(bomb), result.stderrText)
    }
}
