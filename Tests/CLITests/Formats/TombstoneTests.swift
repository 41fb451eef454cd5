import Foundation
import TestSupport
import XCTest

/// Android tombstones end to end: for each ABI's libcrashy.so of the fixtures, tombstones are
/// written in every layout (`TombstoneWriter`) at pcs Android would print — a faulting pc,
/// then call sites moved back as libunwindstack moves return addresses — and symbolicated with
/// `symbolicate -d`. Every frame line of the library must come back followed by llvm-symbolizer-19's
/// inline chain at the same printed pc (no adjustment), one line per frame, innermost first,
/// as `in FUNCTION FILE:LINE:COLUMN`; every other line (system libraries' frames, stack and
/// memory dumps, maps, logcat) must come back byte for byte. Each test prints its counts.
final class TombstoneTests: XCTestCase {
    /// llvm-symbolizer-19, the oracle the brief of the format names; the toolchain's without it.
    private static func oracle() throws -> String {
        if let path = TestPaths.llvm19("llvm-symbolizer") { return path }
        return try Oracle.symbolizer()
    }

    /// `llvm-symbolizer-19 --obj=LIBRARY --inlining` at each address (stdin, one process): the
    /// chain innermost first, without `??` functions.
    static func symbolize(_ library: AndroidLibrary, _ addresses: [UInt64]) throws -> [UInt64: [SymbolizedFrame]] {
        let unique = Array(Set(addresses)).sorted()
        let arguments = ["--obj=\(library.path)", "--inlining", "--output-style=JSON"]
        let result = try runProcess(try oracle(), arguments, input: Data(unique.map { hex($0) + "\n" }.joined().utf8))
        let lines = result.stdoutText.split(separator: "\n")
        guard result.status == 0, lines.count == unique.count else {
            throw FixtureError("llvm-symbolizer \(arguments.joined(separator: " ")): \(result.stderrText)")
        }
        var answers: [UInt64: [SymbolizedFrame]] = [:]
        for (address, line) in zip(unique, lines) {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let symbols = object["Symbol"] as? [[String: Any]]
            else { throw FixtureError("llvm-symbolizer: unexpected answer \(line)") }
            answers[address] = symbols.compactMap { symbol in
                guard let function = symbol["FunctionName"] as? String, !function.isEmpty, function != "??" else { return nil }
                return SymbolizedFrame(function: function, file: symbol["FileName"] as? String ?? "",
                                       line: symbol["Line"] as? Int ?? 0, column: symbol["Column"] as? Int ?? 0)
            }
        }
        return answers
    }

    /// The faulting pc of the crash: the first instruction of cart_total that llvm-symbolizer
    /// places in unit_price, two inlined frames deep.
    static func faultPC(_ library: AndroidLibrary) throws -> UInt64 {
        let instructions = library.instructions(of: try library.function(named: "cart_total"))
        let chains = try symbolize(library, instructions.map(\.address))
        guard let fault = instructions.first(where: { chains[$0.address]?.first?.function == "unit_price" }) else {
            throw FixtureError("no instruction of cart_total in unit_price in \(library.path)")
        }
        return fault.address
    }

    /// Counts of the frame lines compared.
    struct Tally {
        var compared = 0, agreed = 0, system = 0, outside = 0

        func report(_ title: String) {
            print("TombstoneTests: \(title): \(agreed)/\(compared) frames of libcrashy.so agree with llvm-symbolizer-19 "
                  + "at the printed pc; \(system) frames of system libraries left as they are"
                  + (outside > 0 ? "; \(outside) pcs where llvm-symbolizer names no function, left as they are" : ""))
        }
    }

    /// Checks `output` against `tombstone` line by line (see the class's comment); counts into `tally`.
    static func compare(_ tombstone: WrittenTombstone, output: String, chains: [UInt64: [SymbolizedFrame]],
                         label: String, tally: inout Tally) {
        let crlf = tombstone.text.unicodeScalars.contains("\r")
        // By scalars: "\r\n" is one Character of a String.
        func lines(_ text: String) -> [String] {
            text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.unicodeScalars.last == "\n" ? 1 : 0)
                .map { String(String.UnicodeScalarView($0)) }
        }
        let input = lines(tombstone.text)
        let got = lines(output)
        if crlf {
            XCTAssertTrue(got.allSatisfy { $0.hasSuffix("\r") }, "\(label): a line of the output lost its CRLF")
        }
        let strip = { (line: String) in crlf && line.hasSuffix("\r") ? String(line.dropLast()) : line }
        var j = 0
        var next = 0
        for raw in input {
            let line = strip(raw)
            guard next < tombstone.frames.count, tombstone.frames[next].line == line else {
                guard j < got.count, strip(got[j]) == line else {
                    return XCTFail("\(label): expected the line \(line.debugDescription) unchanged, found "
                                   + (j < got.count ? got[j].debugDescription : "the end of the output"))
                }
                j += 1
                continue
            }
            let frame = tombstone.frames[next]
            next += 1
            var taken: [String] = []
            while j < got.count, strip(got[j]).hasPrefix(line + " in ") {
                taken.append(strip(got[j]))
                j += 1
            }
            if taken.isEmpty, j < got.count, strip(got[j]) == line {
                taken = [line]
                j += 1
            }
            guard frame.inLibrary else {
                tally.system += 1
                XCTAssertEqual(taken, [line], "\(label): a system library's frame changed")
                continue
            }
            let chain = chains[frame.pc] ?? []
            let expected = chain.isEmpty ? [line] : chain.map { line + " " + $0.sanitizerText }
            if chain.isEmpty { tally.outside += 1 } else { tally.compared += 1 }
            if taken == expected {
                if !chain.isEmpty { tally.agreed += 1 }
            } else {
                XCTFail("\(label): frame at pc \(hex(frame.pc)):\n  llvm-symbolizer:\n    "
                        + expected.joined(separator: "\n    ") + "\n  symbolicate:\n    " + taken.joined(separator: "\n    "))
            }
        }
        XCTAssertEqual(j, got.count, "\(label): the output has more lines than the tombstone's")
    }

    /// Runs the tool on `text` written to `dir`; the run must succeed. Returns the output and the
    /// file's path.
    private func run(_ text: String, named name: String, in dir: URL, _ arguments: [String]) throws
        -> (output: String, stderr: String, path: String) {
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let all = arguments + [path]
        let result = try CLI.run(all)
        XCTAssertEqual(result.status, .success, result.summary(all))
        return (result.stdoutText, result.stderrText, path)
    }

    /// The output, symbolicated again (also with `--force`), comes back unchanged.
    private func assertReadingBackChangesNothing(_ output: String, in dir: URL, _ arguments: [String], label: String) throws {
        for extra in [[], ["--force"]] {
            let again = try run(output, named: "again.txt", in: dir, extra + arguments)
            XCTAssertEqual(again.output, output, "\(label): symbolicated again \(extra) changed the output")
        }
    }

    // MARK: Layouts

    func testTombstonesOfEveryLayoutAgreeWithLLVMSymbolizer() throws {
        let dir = try makeTemporaryDirectory("tombstone-layouts")
        defer { try? FileManager.default.removeItem(at: dir) }
        var tally = Tally()
        for abi in AndroidLibrary.abis {
            let library = try AndroidLibrary.load(abi)
            let threads = try TombstoneWriter.threads(library, faultPC: try Self.faultPC(library))
            let chains = try Self.symbolize(library, threads.joined().compactMap { $0 })
            for layout in TombstoneLayout.allCases {
                let label = "\(abi) \(layout.rawValue)"
                let tombstone = TombstoneWriter.write(library, threads: threads, layout: layout)
                // Without a build-id only a file named with -d is the library, by its file name.
                let arguments = ["-d", layout == .noBuildID ? library.path : folder(of: library.path)]
                let (output, _, _) = try run(tombstone.text, named: "\(abi)-\(layout.rawValue).txt", in: dir, arguments)
                Self.compare(tombstone, output: output, chains: chains, label: label, tally: &tally)
                try assertReadingBackChangesNothing(output, in: dir, arguments, label: label)
            }
        }
        tally.report("every layout, \(AndroidLibrary.abis.count) ABIs")
        XCTAssertGreaterThan(tally.compared, 0)
    }

    /// Every instruction of every function of the library, as frames of one thread: each is
    /// looked up as printed, whatever its place.
    func testEveryInstructionAgreesWithLLVMSymbolizer() throws {
        let dir = try makeTemporaryDirectory("tombstone-instructions")
        defer { try? FileManager.default.removeItem(at: dir) }
        var tally = Tally()
        for abi in AndroidLibrary.abis {
            let library = try AndroidLibrary.load(abi)
            let pcs = library.functions.flatMap { library.instructions(of: $0) }.map(\.address)
            // On Thumb, also every odd pc: the pcs Android prints after a call.
            let all = abi == "armeabi-v7a" ? pcs + pcs.map { $0 | 1 } : pcs
            let chains = try Self.symbolize(library, all)
            let tombstone = TombstoneWriter.write(library, threads: [all], layout: .plain)
            let (output, _, _) = try run(tombstone.text, named: "\(abi)-all.txt", in: dir, ["-d", library.path])
            Self.compare(tombstone, output: output, chains: chains, label: "\(abi) every instruction", tally: &tally)
        }
        tally.report("every instruction, \(AndroidLibrary.abis.count) ABIs")
        XCTAssertGreaterThan(tally.compared, 100)
    }

    /// With no debug file, the tombstone is recognized and comes back byte for byte.
    func testWithoutDebugFilesEveryLayoutComesBackUnchanged() throws {
        let dir = try makeTemporaryDirectory("tombstone-unchanged")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = try AndroidLibrary.load("arm64-v8a")
        let threads = try TombstoneWriter.threads(library, faultPC: try Self.faultPC(library))
        for layout in TombstoneLayout.allCases {
            let tombstone = TombstoneWriter.write(library, threads: threads, layout: layout)
            let (output, stderr, _) = try run(tombstone.text, named: "\(layout.rawValue).txt", in: dir, [])
            XCTAssertEqual(output, tombstone.text, layout.rawValue)
            let image = layout == .apkOffset ? "base.apk (offset 0x2a4000)" : "libcrashy.so"
            XCTAssertTrue(stderr.contains("no debug file for \(image) ("),
                          "\(layout.rawValue): the library left unresolved is named: \(stderr)")
            let json = try run(tombstone.text, named: "\(layout.rawValue).txt", in: dir, ["--format", "json"]).output
            XCTAssertEqual(try Self.jsonFrames(json).count, tombstone.frames.count, "\(layout.rawValue): JSON frames")
        }
    }

    // MARK: JSON, frame lines, grouping

    /// The frames of the JSON output, concrete ones only (inlined ones are part of them).
    private static func jsonFrames(_ json: String) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let reports = object?["reports"] as? [[String: Any]] ?? []
        return reports.flatMap { ($0["threads"] as? [[String: Any]] ?? []).flatMap { $0["frames"] as? [[String: Any]] ?? [] } }
            .filter { $0["inlined"] as? Bool == false }
    }

    func testJSONAndFrameLinesGiveTheOraclesFrames() throws {
        let dir = try makeTemporaryDirectory("tombstone-json")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = try AndroidLibrary.load("armeabi-v7a")
        let threads = try TombstoneWriter.threads(library, faultPC: try Self.faultPC(library))
        let chains = try Self.symbolize(library, threads.joined().compactMap { $0 })
        let tombstone = TombstoneWriter.write(library, threads: threads, layout: .apk)
        let arguments = ["-d", folder(of: library.path)]
        let json = try run(tombstone.text, named: "apk.txt", in: dir, ["--format", "json"] + arguments).output
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let report = try XCTUnwrap((object["reports"] as? [[String: Any]])?.first)
        let jsonThreads = try XCTUnwrap(report["threads"] as? [[String: Any]])
        XCTAssertEqual(jsonThreads.count, threads.count)
        XCTAssertEqual(jsonThreads.map { $0["crashed"] as? Bool }, [true] + Array(repeating: false, count: threads.count - 1))
        XCTAssertEqual(jsonThreads.first?["name"] as? String, "pid: 4242, tid: 4242, name: example  >>> com.example.crashy <<<")
        XCTAssertEqual(try Self.jsonFrames(json).count, tombstone.frames.count, "every frame line is a frame of the JSON")
        let images = try XCTUnwrap(report["images"] as? [[String: Any]])
        let crashy = try XCTUnwrap(images.first { $0["name"] as? String == "libcrashy.so" })
        XCTAssertEqual(crashy["uuid"] as? String, library.buildID)
        XCTAssertEqual(crashy["arch"] as? String, "armv7")
        XCTAssertEqual(crashy["debug_file"] as? String, library.path)
        // The crashed thread's frames, inlined ones included, are the oracle's chains in order.
        let crashedFrames = try XCTUnwrap(jsonThreads.first?["frames"] as? [[String: Any]])
        let expected = threads[0].compactMap { $0 }.flatMap { chains[$0] ?? [] }
        let got = crashedFrames.filter { $0["image"] as? String != nil && ($0["image"] as! String).hasSuffix("libcrashy.so") }
        XCTAssertEqual(got.map { $0["symbol"] as? String }, expected.map(\.function))
        XCTAssertEqual(got.map { $0["line"] as? Int }, expected.map(\.line))
        XCTAssertEqual(got.map { $0["column"] as? Int }, expected.map(\.column))
        XCTAssertEqual(got.map { $0["address"] as? String }.first, hex(threads[0][0]!))

        let frames = try run(tombstone.text, named: "apk.txt", in: dir, ["--format", "frames"] + arguments).output
        let rows = frames.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        XCTAssertTrue(rows.allSatisfy { $0.count == 8 }, "eight fields on every line")
        let crashed = rows.filter { $0[1] == "0" && $0[3] == "libcrashy.so" }
        XCTAssertEqual(crashed.map { String($0[5]) }, expected.map(\.function))
        XCTAssertEqual(crashed.map { String($0[6]) }, expected.map { "\(($0.file as NSString).lastPathComponent):\($0.line)" })
        XCTAssertEqual(crashed.map { $0[7] == "[inlined]" }, expected.indices.map { k in
            // Inlined: every frame of a chain but its last.
            var remaining = k
            for pc in threads[0].compactMap({ $0 }) {
                let count = chains[pc]?.count ?? 0
                if remaining < count { return remaining < count - 1 }
                remaining -= count
            }
            return false
        })
    }

    /// Tombstones of the one crash — written for Android 13 and 10, behind logcat's prefixes,
    /// from inside the APK — fall into one group, named by the app's inline chain at the fault.
    func testTombstonesOfOneCrashGroupTogether() throws {
        let dir = try makeTemporaryDirectory("tombstone-group")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = try AndroidLibrary.load("arm64-v8a")
        let threads = try TombstoneWriter.threads(library, faultPC: try Self.faultPC(library))
        var paths: [String] = []
        for layout in [TombstoneLayout.plain, .legacy, .logcatThreadtime, .apk] {
            let path = dir.appendingPathComponent("\(layout.rawValue).txt").path
            try TombstoneWriter.write(library, threads: threads, layout: layout).text.write(toFile: path, atomically: true,
                                                                                           encoding: .utf8)
            paths.append(path)
        }
        let arguments = ["group", "--format", "json", "-d", folder(of: library.path)] + paths
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let groups = try XCTUnwrap(object["groups"] as? [[String: Any]], result.stdoutText)
        XCTAssertEqual(groups.count, 1, result.stdoutText)
        let signature = groups.first?["signature"] as? [String: Any]
        XCTAssertEqual(signature?["frames"] as? [String], ["unit_price", "line_price", "cart_total"], result.stdoutText)
        XCTAssertEqual(signature?["kind"] as? String, "bad access", result.stdoutText)
        XCTAssertTrue(result.stdoutText.contains("SIGSEGV (SEGV_MAPERR)"), result.stdoutText)
    }

    // MARK: Without build-ids

    /// A library without a build-id in the tombstone is resolved only through a file named
    /// with `-d` that has its file name (the rule of Linux modules without one), said to be
    /// unchecked; a folder alone resolves nothing, and says why.
    func testWithoutBuildIDsOnlyAFileNamedWithDResolves() throws {
        let dir = try makeTemporaryDirectory("tombstone-nobuildid")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = try AndroidLibrary.load("x86_64")
        let threads = try TombstoneWriter.threads(library, faultPC: try Self.faultPC(library))
        let tombstone = TombstoneWriter.write(library, threads: threads, layout: .noBuildID)
        let folder = try run(tombstone.text, named: "folder.txt", in: dir, ["-d", folder(of: library.path)])
        XCTAssertEqual(folder.output, tombstone.text)
        XCTAssertTrue(folder.stderr.contains("libcrashy.so (no build-id in the log"), folder.stderr)
        let named = try run(tombstone.text, named: "named.txt", in: dir, ["-d", library.path])
        XCTAssertNotEqual(named.output, tombstone.text)
        XCTAssertTrue(named.stderr.contains("no build-id in the log; resolved through \(library.path), named with -d"),
                      named.stderr)
        XCTAssertTrue(named.stderr.contains("unchecked"), named.stderr)
        let apk = TombstoneWriter.write(library, threads: threads, layout: .apk).text
            .replacingOccurrences(of: " (BuildId: \(library.buildID))", with: "")
        let fromAPK = try run(apk, named: "apk.txt", in: dir, ["-d", library.path])
        XCTAssertTrue(fromAPK.output.contains("base.apk!libcrashy.so (offset 0x2a4000) (cart_total+"), fromAPK.output)
        XCTAssertTrue(fromAPK.output.contains(" in cart_total "), "base.apk!libcrashy.so is libcrashy.so: \(fromAPK.stderr)")
    }

    /// The names the device gave the frames are the tombstone's evidence: a file named with
    /// `-d` that has other functions at those pcs is not the build that crashed, and the
    /// library is left as the tombstone has it.
    func testNamesTheDeviceGaveContradictingTheFileLeaveTheLibraryAsItIs() throws {
        let dir = try makeTemporaryDirectory("tombstone-evidence")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = try AndroidLibrary.load("arm64-v8a")
        let threads = try TombstoneWriter.threads(library, faultPC: try Self.faultPC(library))
        let text = TombstoneWriter.write(library, threads: threads, layout: .noBuildID).text
            .replacingOccurrences(of: "(cart_total+", with: "(worker_wait+")
        let result = try run(text, named: "other-build.txt", in: dir, ["-d", library.path])
        XCTAssertEqual(result.output, text, "no frame of the library resolved from a file its names contradict")
        XCTAssertTrue(result.stderr.contains("is worker_wait+0x") && result.stderr.contains("but cart_total+0x"), result.stderr)
        XCTAssertTrue(result.stderr.contains("not the build that crashed"), result.stderr)
    }

    // MARK: Hostile lines

    /// Frame lines cut short or damaged — a pc of another width, more than 64 bits, none at
    /// all, a frame number past 32 bits, a build-id group that does not close — are frames
    /// left as they are, never resolved from another number of their line; the others resolve.
    func testDamagedFrameLinesAreLeftAsTheyAre() throws {
        let dir = try makeTemporaryDirectory("tombstone-hostile")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = try AndroidLibrary.load("arm64-v8a")
        let fault = try Self.faultPC(library)
        let map = "/data/app/com.example.crashy-1/lib/arm64/libcrashy.so"
        let pc = String(format: "%016llx", fault)
        let damaged = [
            "    #01 pc \(pc.prefix(11))",
            "    #02 pc 1\(pc)  \(map) (BuildId: \(library.buildID))",
            "    #03 pc   \(map) (BuildId: \(library.buildID)) 0x\(pc)",
            "    #04 pc",
            "    #99999999999 pc \(pc)  \(map) (BuildId: \(library.buildID))",
            "    #06 pc \(pc)  \(map) (cart_total+36) (BuildId: \(library.buildID.prefix(12))",
            "    #07 pc \(pc.prefix(8))zz\(pc.dropFirst(10))  \(map) (BuildId: \(library.buildID))",
        ]
        let good = "    #00 pc \(pc)  \(map) (BuildId: \(library.buildID))"
        let text = (["*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***", "ABI: 'arm64'",
                     "pid: 1, tid: 1, name: x  >>> x <<<", "backtrace:", good] + damaged).joined(separator: "\n") + "\n"
        let result = try run(text, named: "hostile.txt", in: dir, ["-d", library.path])
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertTrue(lines.contains { $0.hasPrefix(good + " in unit_price ") }, result.output)
        for line in damaged {
            XCTAssertTrue(lines.contains(line), "left as it is: \(line)\n\(result.output)")
            XCTAssertFalse(lines.contains { $0.hasPrefix(line + " in ") }, line)
        }
        let json = try run(text, named: "hostile.txt", in: dir, ["--format", "json", "-d", library.path]).output
        XCTAssertEqual(try Self.jsonFrames(json).count, 1 + damaged.count, "each damaged line is a frame of its backtrace")
    }
}

/// The folder of a file's path.
private func folder(of path: String) -> String {
    (path as NSString).deletingLastPathComponent
}
