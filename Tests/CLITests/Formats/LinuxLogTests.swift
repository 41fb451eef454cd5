import Foundation
import TestSupport
import XCTest

/// Linux crash-style logs end to end: the programs of `Fixtures/src/linux` are compiled into a
/// temporary folder (gcc and clang, PIE and not), run to a crash, and their logs symbolicated
/// with `symbolicate -d <binary> log`. Each frame's output lines are compared, whole inline
/// chain, with llvm-symbolizer at the module offset (moved to the call site for glibc's return
/// addresses) and, for AddressSanitizer logs, with the sanitizer's own symbolized log.
///
/// Frames in the fixture program must all resolve and agree. Frames in system libraries are
/// compared when the tool resolves them (llvm-symbolizer finds libc's separate debug file by
/// build-id under /usr/lib/debug). Each test prints its agreement counts.
final class LinuxLogTests: XCTestCase {
    // MARK: glibc backtrace_symbols_fd

    /// Whether the distribution's debug files for libc are installed (`make setup-test` installs
    /// libc6-dbg): then libc's unnamed `__restore_rt` frames are known to be signal
    /// trampolines, and the frame after one must be looked up as the PC it is.
    static let systemDebugSymbols = FileManager.default.fileExists(atPath: "/usr/share/doc/libc6-dbg")

    func testGlibcBacktracesAgreeWithLLVMSymbolizer() throws {
        let compilers = try LinuxToolchain.compilers()
        let dir = try makeTemporaryDirectory("linux-glibc")
        defer { try? FileManager.default.removeItem(at: dir) }
        var tally = Tally()
        for compiler in compilers {
            for variant in GlibcVariant.allCases {
                let binary = dir.appendingPathComponent("backtrace-\(compiler.name)-\(variant.rawValue)").path
                try LinuxToolchain.compile(compiler.c, variant.flags + compiler.linkerFlags,
                                           sources: ["backtrace_main.c", "inventory.c"], output: binary)
                for mode in ["segv", "abort"] {
                    let label = "\(compiler.name) \(variant.rawValue) \(mode)"
                    let log = try LinuxToolchain.crashLog(binary, [mode], label: label)
                    try compareGlibc(log: log, binary: binary, debugArgument: binary, label: label, in: dir, tally: &tally)
                }
            }
        }
        tally.report("glibc backtraces vs llvm-symbolizer")
    }

    /// The glibc program stripped, its DWARF in a `.debug` file named by `.gnu_debuglink`;
    /// `-d` names the `.debug` file, and the program's frames resolve as in the unstripped copy.
    func testGlibcBacktraceWithSeparateDebugFile() throws {
        let compilers = try LinuxToolchain.compilers()
        guard let gcc = compilers.first(where: { $0.name == "gcc" }) ?? compilers.first else {
            throw XCTSkip("no C compiler")
        }
        let objcopy = try LinuxToolchain.tool("objcopy", ["/usr/bin/objcopy", "/opt/swift/usr/bin/llvm-objcopy"])
        let dir = try makeTemporaryDirectory("linux-debuglink")
        defer { try? FileManager.default.removeItem(at: dir) }
        let binary = dir.appendingPathComponent("backtrace-split").path
        let debug = binary + ".debug"
        try LinuxToolchain.compile(gcc.c, gcc.linkerFlags, sources: ["backtrace_main.c", "inventory.c"], output: binary)
        let unstripped = dir.appendingPathComponent("unstripped").path
        try FileManager.default.copyItem(atPath: binary, toPath: unstripped)
        for arguments in [["--only-keep-debug", binary, debug], ["--strip-debug", "--add-gnu-debuglink=\(debug)", binary]] {
            let result = try runProcess(objcopy, arguments)
            guard result.status == 0 else { throw FixtureError("objcopy \(arguments) failed: \(result.stderrText)") }
        }
        let log = try LinuxToolchain.crashLog(binary, ["segv"], label: "split segv")
        let logPath = dir.appendingPathComponent("split.log").path
        try log.write(toFile: logPath, atomically: true, encoding: .utf8)
        let arguments = ["-d", debug, logPath]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        guard result.stdoutText != log else {
            return XCTFail("`\(CLI.describe(arguments))` resolved nothing in a glibc log of the stripped program: "
                + result.stderrText.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        var tally = Tally()
        // llvm-symbolizer reads the unstripped copy: the same code, the same DWARF.
        try compareGlibc(log: log, binary: binary, oracleObject: unstripped, debugArgument: debug, label: "split segv",
                         in: dir, tally: &tally)
        tally.report("glibc backtrace, separate debug file")
    }

    private func compareGlibc(log: String, binary: String, oracleObject: String? = nil, debugArgument: String,
                              label: String, in dir: URL, tally: inout Tally) throws {
        let frames = GlibcLog.frames(log)
        XCTAssertGreaterThanOrEqual(frames.count, 5, "\(label): too few frames in the log:\n\(log)")
        guard frames.contains(where: { $0.module == binary }) else {
            return XCTFail("\(label): no frame of \(binary) in the log:\n\(log)")
        }
        let (arguments, output) = try symbolicate(log: log, debug: debugArgument, label: label, in: dir)

        // The handler's backtrace is crash_handler, the signal trampoline, then the interrupted PC.
        let trampoline = frames.firstIndex { $0.module != binary && $0.module != nil }
        var unresolved: [String] = []
        defer { assertNoneUnresolved(unresolved, label: label, arguments: arguments) }
        var cursor = 0
        for (k, frame) in frames.enumerated() {
            let inFixture = frame.module == binary
            guard let module = frame.module else { continue }
            let object = inFixture ? (oracleObject ?? binary) : module
            let isPC = trampoline.map { k == $0 + 1 } ?? false
            guard let offset = try frame.moduleOffset(object: object) else {
                if inFixture { XCTFail("\(label): cannot place \(frame.line) in \(object)") }
                continue
            }
            let expected = try LLVMSymbolizer.frames(object: object, address: isPC ? offset : offset - 1)
            let got = OutputLines.take(frame.line, kept: frame.line, glibc: true, from: output, cursor: &cursor)
            let rendered = expected.enumerated().map { i, source in
                frame.line + " " + source.sanitizerText + (i < expected.count - 1 ? " [inlined]" : "")
            }
            if got == [frame.line] {
                // Left as it was.
                if inFixture { unresolved.append(frame.line) }
                tally.count(inFixture: inFixture, agreed: nil)
                continue
            }
            if got == rendered {
                tally.count(inFixture: inFixture, agreed: true)
                continue
            }
            if isPC && !Self.systemDebugSymbols {
                // The trampoline is printed without a name (libc's local __restore_rt); without
                // libc's debug file (libc6-dbg) the tool cannot know it is one, and looks the PC
                // up as a return address. Say so visibly rather than fail.
                let asReturn = try LLVMSymbolizer.frames(object: object, address: offset - 1)
                let renderedAsReturn = asReturn.enumerated().map { i, source in
                    frame.line + " " + source.sanitizerText + (i < asReturn.count - 1 ? " [inlined]" : "")
                }
                if got == renderedAsReturn {
                    let says = { (frames: [SymbolizedFrame]) in frames.map(\.sanitizerText).joined(separator: " / ") }
                    tally.note("\(label): frame \(k), the PC after the unnamed signal trampoline, was looked up at PC-1 "
                        + "(as a return address)" + (expected == asReturn ? "; same answer"
                            : ": \(says(asReturn)) instead of \(says(expected))"))
                    tally.count(inFixture: inFixture, agreed: expected == asReturn, pcAfterTrampoline: true)
                    continue
                }
            }
            tally.disagree(inFixture: inFixture, "\(label), frame \(k) (\(frame.line)):\n  llvm-symbolizer:\n    "
                + rendered.joined(separator: "\n    ") + "\n  symbolicate:\n    " + got.joined(separator: "\n    "))
        }
    }

    /// Writes `log` into `dir` and runs `symbolicate -d DEBUG LOG`; checks that the run succeeds
    /// and that its output, symbolicated again, comes back unchanged. Returns the arguments, for
    /// messages, and the output's lines.
    private func symbolicate(log: String, debug: String, label: String,
                             in dir: URL) throws -> (arguments: [String], output: [String]) {
        let logPath = dir.appendingPathComponent("\(label.replacingOccurrences(of: " ", with: "-")).log").path
        try log.write(toFile: logPath, atomically: true, encoding: .utf8)
        let arguments = ["-d", debug, logPath]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        try assertReadingBackChangesNothing(result.stdoutText, debugArgument: debug, label: label, in: dir)
        return (arguments, OutputLines.split(result.stdoutText))
    }

    /// Fails, listing them, when frames of the program were left unresolved.
    private func assertNoneUnresolved(_ unresolved: [String], label: String, arguments: [String]) {
        guard !unresolved.isEmpty else { return }
        XCTFail("\(label): \(unresolved.count) frames of the program left unresolved by "
            + "`\(CLI.describe(arguments))`:\n  " + unresolved.joined(separator: "\n  "))
    }

    /// The tool's output, symbolicated again (also with --force), comes back unchanged.
    private func assertReadingBackChangesNothing(_ output: String, debugArgument: String, label: String,
                                                 in dir: URL) throws {
        let path = dir.appendingPathComponent("\(label.replacingOccurrences(of: " ", with: "-"))-out.log").path
        try output.write(toFile: path, atomically: true, encoding: .utf8)
        for extra in [[], ["--force"]] {
            let arguments = extra + ["-d", debugArgument, path]
            let again = try CLI.run(arguments)
            XCTAssertEqual(again.status, .success, again.summary(arguments))
            XCTAssertEqual(again.stdoutText, output, "\(label): `\(CLI.describe(arguments))` changed the output")
        }
    }

    // MARK: AddressSanitizer

    func testAddressSanitizerLogsAgreeWithTheSanitizerAndLLVMSymbolizer() throws {
        let compilers = try LinuxToolchain.asanCompilers()
        let dir = try makeTemporaryDirectory("linux-asan")
        defer { try? FileManager.default.removeItem(at: dir) }
        var tally = Tally()
        var oracleTally = Tally()
        for compiler in compilers {
            for variant in ASanVariant.allCases {
                let binary = dir.appendingPathComponent("asan-\(compiler.name)-\(variant.rawValue)").path
                try LinuxToolchain.compile(compiler.cxx, ["-fsanitize=address"] + variant.flags(compiler) + compiler.linkerFlags,
                                           sources: ["asan_main.cpp", "ledger.cpp"], output: binary)
                for mode in ["use-after-free", "stack-overflow"] {
                    let label = "\(compiler.name) \(variant.rawValue) \(mode)"
                    let raw = try LinuxToolchain.crashLog(binary, [mode], environment: ["ASAN_OPTIONS": "symbolize=0"],
                                                          label: label)
                    let symbolized = try LinuxToolchain.crashLog(binary, [mode], environment: [
                        "ASAN_OPTIONS": "symbolize=1", "ASAN_SYMBOLIZER_PATH": try Oracle.symbolizer(),
                    ], label: label)
                    try compareASan(raw: raw, symbolized: symbolized, binary: binary, label: label, in: dir,
                                    tally: &tally, oracleTally: &oracleTally)
                    if variant == .pieBuildID, compiler.name == "clang" {
                        // GCC 12's libasan prints no build-ids; clang's runtime does.
                        XCTAssertTrue(raw.contains("(BuildId: "), "\(label): no build-id in\n\(raw)")
                    }
                }
            }
        }
        tally.report("ASan raw logs vs the sanitizer's own symbolized logs")
        oracleTally.report("ASan raw logs vs llvm-symbolizer at the printed module offset")
    }

    private func compareASan(raw: String, symbolized: String, binary: String, label: String, in dir: URL,
                             tally: inout Tally, oracleTally: inout Tally) throws {
        let rawRuns = SanitizerLog.rawRuns(raw)
        let ownRuns = SanitizerLog.symbolizedRuns(symbolized)
        XCTAssertFalse(rawRuns.isEmpty, "\(label): no frames in\n\(raw)")
        guard rawRuns.joined().contains(where: { $0.module == binary }) else {
            return XCTFail("\(label): no frame of \(binary) in the log:\n\(raw)")
        }
        guard rawRuns.map(\.count) == ownRuns.map(\.count) else {
            return XCTFail("\(label): the raw and symbolized logs differ in shape: \(rawRuns.map(\.count)) frames "
                + "vs \(ownRuns.map(\.count)) inline chains\n\(raw)\n\(symbolized)")
        }
        let (arguments, output) = try symbolicate(log: raw, debug: binary, label: label, in: dir)

        var unresolved: [String] = []
        defer { assertNoneUnresolved(unresolved, label: label, arguments: arguments) }
        // Frames of the program the tool resolved and that were compared with the sanitizer's.
        var comparedInFixture = 0
        defer {
            XCTAssertGreaterThan(comparedInFixture, 0, "\(label): no frame of the program was compared: "
                + "`\(CLI.describe(arguments))` resolved none")
        }
        var cursor = 0
        for (run, frames) in rawRuns.enumerated() {
            for (k, frame) in frames.enumerated() {
                let inFixture = frame.module == binary
                let own = ownRuns[run][k]
                let got = OutputLines.take(frame.line, kept: frame.prefix, glibc: false, from: output, cursor: &cursor)
                let gotTexts = got.map { String($0.dropFirst(frame.prefix.count)) }
                guard got != [frame.line] else {
                    if inFixture { unresolved.append(frame.line) }
                    tally.count(inFixture: inFixture, agreed: nil)
                    continue
                }
                // What the sanitizer prints after the address, "(module+offset)" included where it
                // has a function but no file.
                let expected = own
                if inFixture { comparedInFixture += 1 }
                let agreement = SanitizerLog.agreement(gotTexts, expected)
                if agreement != .different {
                    tally.count(inFixture: inFixture, agreed: true, loosely: agreement == .libbacktraceStyle)
                } else {
                    tally.disagree(inFixture: inFixture, "\(label), run \(run) frame \(k) (\(frame.line)):\n  the sanitizer:\n   "
                        + expected.joined(separator: "\n   ") + "\n  symbolicate:\n   " + gotTexts.joined(separator: "\n   "))
                }
                guard let module = frame.module, let offset = frame.offset else { continue }
                let oracle = try LLVMSymbolizer.frames(object: module, address: offset).map { " " + $0.sanitizerText }
                guard !oracle.isEmpty else { continue }
                if gotTexts.map(SanitizerLog.withoutModuleOffset) == oracle {
                    oracleTally.count(inFixture: inFixture, agreed: true)
                } else {
                    oracleTally.disagree(inFixture: inFixture, "\(label), run \(run) frame \(k) (\(frame.line)):\n  llvm-symbolizer at \(hex(offset)):\n   "
                        + oracle.joined(separator: "\n   ") + "\n  symbolicate:\n   " + gotTexts.joined(separator: "\n   "))
                }
            }
        }
    }

    /// What the sanitizer prints is the address it symbolizes: looking its module offset up
    /// as printed gives the sanitizer's own answer, which is why the parser marks sanitizer
    /// frames as not return addresses. One byte further (the raw return address) does not.
    func testSanitizersPrintTheAddressTheySymbolize() throws {
        let compilers = try LinuxToolchain.asanCompilers()
        let dir = try makeTemporaryDirectory("linux-asan-addresses")
        defer { try? FileManager.default.removeItem(at: dir) }
        var counts: [String: (same: Int, total: Int)] = [:]
        for compiler in compilers {
            let binary = dir.appendingPathComponent("asan-\(compiler.name)").path
            try LinuxToolchain.compile(compiler.cxx, ["-fsanitize=address"] + compiler.linkerFlags,
                                       sources: ["asan_main.cpp", "ledger.cpp"], output: binary)
            for mode in ["use-after-free", "stack-overflow"] {
                let label = "\(compiler.name) \(mode)"
                let raw = try LinuxToolchain.crashLog(binary, [mode], environment: ["ASAN_OPTIONS": "symbolize=0"], label: label)
                let symbolized = try LinuxToolchain.crashLog(binary, [mode], environment: [
                    "ASAN_OPTIONS": "symbolize=1", "ASAN_SYMBOLIZER_PATH": try Oracle.symbolizer(),
                ], label: label)
                let rawRuns = SanitizerLog.rawRuns(raw)
                let ownRuns = SanitizerLog.symbolizedRuns(symbolized)
                guard rawRuns.map(\.count) == ownRuns.map(\.count) else {
                    XCTFail("\(label): the raw and symbolized logs differ in shape")
                    continue
                }
                for (run, frames) in rawRuns.enumerated() {
                    for (k, frame) in frames.enumerated() where frame.module == binary {
                        let own = ownRuns[run][k].map(SanitizerLog.withoutModuleOffset)
                        for (name, delta) in [("as printed", 0), ("printed - 1", -1), ("printed + 1", 1)] {
                            let answer = try LLVMSymbolizer.frames(object: binary, address: UInt64(Int64(frame.offset!) + Int64(delta)))
                                .map { " " + $0.sanitizerText }
                            var count = counts[name] ?? (0, 0)
                            count.total += 1
                            let same = SanitizerLog.agreement(answer, own) != .different
                            if same { count.same += 1 }
                            counts[name] = count
                            if delta == 0 {
                                XCTAssertTrue(same, "\(label) run \(run) frame \(k): llvm-symbolizer at the printed offset "
                                    + "says \(answer), the sanitizer \(own)")
                            }
                        }
                    }
                }
            }
        }
        let summary = ["as printed", "printed - 1", "printed + 1"].map { name in
            "\(name): \(counts[name]?.same ?? 0)/\(counts[name]?.total ?? 0)"
        }.joined(separator: ", ")
        print("LinuxLogTests: frames whose llvm-symbolizer chain equals the sanitizer's own, looked up \(summary)")
        XCTAssertLessThan(counts["printed + 1"]?.same ?? 0, counts["printed + 1"]?.total ?? 0,
                          "the raw return address should differ from the call site somewhere in the fixture")
    }
}

// MARK: - Building and running the fixture programs

enum GlibcVariant: String, CaseIterable {
    case pie, nopie, rdynamic

    var flags: [String] {
        switch self {
        case .pie: return ["-fPIE", "-pie"]
        case .nopie: return ["-fno-pie", "-no-pie"]
        case .rdynamic: return ["-fPIE", "-pie", "-rdynamic"]
        }
    }
}

enum ASanVariant: String, CaseIterable {
    /// PIE with a GNU build-id, which clang's ASan prints after each frame.
    case pieBuildID = "pie-buildid"
    /// Not PIE, and without a build-id: found by module path only.
    case nopie

    func flags(_ compiler: LinuxToolchain.Compiler) -> [String] {
        switch self {
        case .pieBuildID: return ["-fPIE", "-pie", "-Wl,--build-id"]
        case .nopie: return ["-fno-pie", "-no-pie", "-Wl,--build-id=none"]
        }
    }
}

enum LinuxToolchain {
    struct Compiler {
        var name: String
        var c: String
        var cxx: String
        var linkerFlags: [String]
    }

    static let sources = TestPaths.packageRoot.appendingPathComponent("Fixtures/src/linux")

    /// gcc and the Swift toolchain's clang, those that are installed; skips when neither is.
    static func compilers() throws -> [Compiler] {
        var found: [Compiler] = []
        if isExecutable("/usr/bin/gcc"), isExecutable("/usr/bin/g++") {
            found.append(Compiler(name: "gcc", c: "/usr/bin/gcc", cxx: "/usr/bin/g++", linkerFlags: []))
        }
        if isExecutable("/opt/swift/usr/bin/clang"), isExecutable("/opt/swift/usr/bin/clang++") {
            let lld = isExecutable("/opt/swift/usr/bin/ld.lld") ? ["-fuse-ld=lld"] : []
            found.append(Compiler(name: "clang", c: "/opt/swift/usr/bin/clang", cxx: "/opt/swift/usr/bin/clang++",
                                  linkerFlags: lld))
        }
        guard !found.isEmpty else {
            throw XCTSkip("no C compiler (looked for /usr/bin/gcc and /opt/swift/usr/bin/clang): the Linux-log programs cannot be built")
        }
        return found
    }

    /// The compilers whose AddressSanitizer runtime links and runs here; skips when none does.
    static func asanCompilers() throws -> [Compiler] {
        let dir = try makeUnownedTemporaryDirectory("asan-probe")
        defer { try? FileManager.default.removeItem(at: dir) }
        let probe = dir.appendingPathComponent("probe.cpp")
        try "int main() { return 0; }\n".write(to: probe, atomically: true, encoding: .utf8)
        var working: [Compiler] = []
        var reasons: [String] = []
        for compiler in try compilers() {
            let output = dir.appendingPathComponent("probe-\(compiler.name)").path
            let build = try runProcess(compiler.cxx, ["-fsanitize=address"] + compiler.linkerFlags + ["-o", output, probe.path])
            guard build.status == 0 else {
                reasons.append("\(compiler.name): \(build.stderrText.split(separator: "\n").first ?? "link failed")")
                continue
            }
            let run = try runProcess(output, [])
            guard run.status == 0 else {
                reasons.append("\(compiler.name): the ASan runtime does not start: \(run.stderrText.prefix(200))")
                continue
            }
            working.append(compiler)
        }
        if !reasons.isEmpty { print("LinuxLogTests: no AddressSanitizer with \(reasons.joined(separator: "; "))") }
        guard !working.isEmpty else {
            throw XCTSkip("no working AddressSanitizer runtime: \(reasons.joined(separator: "; "))")
        }
        return working
    }

    static func tool(_ name: String, _ candidates: [String]) throws -> String {
        guard let path = candidates.first(where: isExecutable) else {
            throw XCTSkip("\(name) is not installed (looked in \(candidates.joined(separator: ", ")))")
        }
        return path
    }

    static func compile(_ compiler: String, _ flags: [String], sources: [String], output: String) throws {
        let arguments = ["-O2", "-g"] + flags + ["-o", output] + sources.map { Self.sources.appendingPathComponent($0).path }
        let result = try runProcess(compiler, arguments)
        guard result.status == 0 else {
            throw FixtureError("\(compiler) \(arguments.joined(separator: " ")) failed:\n\(result.stderrText)")
        }
    }

    /// Runs `binary` (by absolute path, which glibc and the sanitizers then print as the
    /// module), expects it to fail, and returns its stderr. A program that ends well is run
    /// again, up to `attempts` times in all: ThreadSanitizer may say nothing of a race whose
    /// first access it can no longer place (its trace of a thread is bounded, and a machine
    /// busy with other tests can stretch a thread's wait past it), and the test is of the
    /// report, not of the sanitizer's luck.
    static func crashLog(_ binary: String, _ arguments: [String], environment: [String: String] = [:],
                         label: String, attempts: Int = 1) throws -> String {
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        var result = try runProcess(binary, arguments, environment: env)
        for _ in 1..<max(attempts, 1) where result.status == 0 {
            result = try runProcess(binary, arguments, environment: env)
        }
        guard result.status != 0 else {
            throw FixtureError("\(label): \(binary) \(arguments.joined(separator: " ")) did not crash:\n\(result.stderrText)")
        }
        return result.stderrText
    }

    /// How often a ThreadSanitizer fixture is run before it counts as having missed its race
    /// (``crashLog(_:_:environment:label:attempts:)``).
    static let threadSanitizerAttempts = 5

    private static func isExecutable(_ path: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: path)
    }
}

// MARK: - Reading the logs, independently of the tool

/// One frame line of a glibc `backtrace_symbols_fd` log.
struct GlibcFrame {
    var line: String
    var module: String?
    var symbol: String?
    /// The printed offset: from the load bias without a symbol, into the symbol with one.
    var offset: UInt64?
    var address: UInt64

    /// The frame's link-time address in `object`: the printed module offset; for
    /// `symbol+offset`, the symbol's address (from llvm-nm) plus the offset; for
    /// `module[0xADDR]` (a load bias of 0), the address itself.
    func moduleOffset(object: String) throws -> UInt64? {
        guard let symbol else { return offset ?? address }
        guard let start = try SymbolAddresses.address(of: symbol, in: object), let offset else { return nil }
        return start + offset
    }
}

enum GlibcLog {
    static func frames(_ log: String) -> [GlibcFrame] {
        log.split(separator: "\n").compactMap { parse(String($0)) }
    }

    /// `MODULE(SYMBOL+0xOFF)[0xADDR]`, `MODULE(+0xOFF)[0xADDR]`, `MODULE[0xADDR]`, `[0xADDR]`.
    static func parse(_ line: String) -> GlibcFrame? {
        guard line.hasSuffix("]"), let open = line.lastIndex(of: "["),
              let address = parseHex(String(line[line.index(after: open)..<line.index(before: line.endIndex)]))
        else { return nil }
        let head = line[..<open]
        guard !head.isEmpty else { return GlibcFrame(line: line, address: address) }
        guard head.hasSuffix(")"), let paren = head.lastIndex(of: "(") else {
            return GlibcFrame(line: line, module: String(head), address: address)
        }
        let inner = head[head.index(after: paren)..<head.index(before: head.endIndex)]
        guard let plus = inner.lastIndex(of: "+") else { return nil }
        let symbol = inner[..<plus]
        return GlibcFrame(line: line, module: String(head[..<paren]), symbol: symbol.isEmpty ? nil : String(symbol),
                          offset: parseHex(String(inner[inner.index(after: plus)...])), address: address)
    }
}

/// A frame line of a sanitizer log.
struct SanitizerFrame {
    var line: String
    /// The line up to the end of the address.
    var prefix: String
    var module: String?
    var offset: UInt64?
}

enum SanitizerLog {
    private static let rawFrame = try! Regex(#"^(\s*#(\d+) 0x[0-9a-f]+)  \((?:(.+)\+(0x[0-9a-f]+)|<unknown module>)\)( \(BuildId: [0-9a-f]+\))?$"#)
    private static let symbolizedFrame = try! Regex(#"^\s*#(\d+) (0x[0-9a-f]+)( .*)$"#)

    /// The runs of `#N` lines of a raw log (a new run at each `#0`).
    static func rawRuns(_ log: String) -> [[SanitizerFrame]] {
        var runs: [[SanitizerFrame]] = []
        for line in log.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            guard let match = line.wholeMatch(of: rawFrame) else { continue }
            let number = Int(match.output[2].substring!)!
            if number == 0 || runs.isEmpty { runs.append([]) }
            runs[runs.count - 1].append(SanitizerFrame(
                line: line, prefix: String(match.output[1].substring!), module: match.output[3].substring.map(String.init),
                offset: match.output[4].substring.flatMap { parseHex(String($0)) }))
        }
        return runs
    }

    /// The runs of a symbolized log, each frame the text after the address of each line of
    /// its inline chain (consecutive lines with the same address), innermost first.
    static func symbolizedRuns(_ log: String) -> [[[String]]] {
        var runs: [[[String]]] = []
        var lastAddress: String?
        for line in log.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            guard let match = line.wholeMatch(of: symbolizedFrame) else {
                lastAddress = nil
                continue
            }
            let number = Int(match.output[1].substring!)!
            let address = String(match.output[2].substring!)
            let text = String(match.output[3].substring!)
            if number == 0 || runs.isEmpty {
                runs.append([])
                lastAddress = nil
            }
            if address == lastAddress {
                runs[runs.count - 1][runs[runs.count - 1].count - 1].append(text)
            } else {
                runs[runs.count - 1].append([text])
            }
            lastAddress = address
        }
        return runs
    }

    /// How far the tool's chain says what the sanitizer's does.
    enum Agreement {
        /// Line for line the same text.
        case exact
        /// The same, once what GCC's libasan leaves out is left out of the tool's lines too:
        /// it symbolizes with libbacktrace, which prints no column and names a function by its
        /// DWARF name (`audit`, not `(anonymous namespace)::audit(ledger::Ledger&, bool)`).
        case libbacktraceStyle
        case different
    }

    static func agreement(_ got: [String], _ sanitizer: [String]) -> Agreement {
        guard got.count == sanitizer.count else { return .different }
        if got == sanitizer { return .exact }
        // Sanitizers print "csu/../x.c" where the debug information says "./csu/../x.c".
        if got.map(withoutLeadingDotSlash) == sanitizer { return .exact }
        let loose = zip(got, sanitizer).allSatisfy { tool, own in
            let tool = droppingColumn(own) == own ? droppingColumn(withoutLeadingDotSlash(tool)) : tool
            if tool == own { return true }
            // " in NAME LOCATION": the sanitizer's name, qualified and with parameters in the tool's.
            guard let toolSplit = tool.range(of: " ", options: .backwards),
                  let ownSplit = own.range(of: " ", options: .backwards),
                  tool[toolSplit.upperBound...] == own[ownSplit.upperBound...]
            else { return false }
            let toolName = tool[..<toolSplit.lowerBound].dropFirst(" in ".count)
            let ownName = own[..<ownSplit.lowerBound].dropFirst(" in ".count)
            return toolName.hasPrefix(ownName + "(") || toolName.contains("::" + ownName + "(")
        }
        return loose ? .libbacktraceStyle : .different
    }

    /// ` in f ./a.c:10:5` → ` in f a.c:10:5`.
    static func withoutLeadingDotSlash(_ text: String) -> String {
        guard let space = text.range(of: " ", options: .backwards), text[space.upperBound...].hasPrefix("./") else {
            return text
        }
        return String(text[..<space.upperBound]) + text[text.index(space.upperBound, offsetBy: 2)...]
    }

    /// ` in f /a.c:10:5` → ` in f /a.c:10`.
    static func droppingColumn(_ text: String) -> String {
        guard let match = text.firstMatch(of: try! Regex(#":\d+:\d+$"#)) else { return text }
        let colon = text[match.range].dropFirst().firstIndex(of: ":")!
        return String(text[..<colon])
    }

    /// ` in _start (/path/prog+0x80260) (BuildId: 4f2c)` → ` in _start`: the module, offset
    /// and build-id a sanitizer prints when it has a function but no file.
    static func withoutModuleOffset(_ text: String) -> String {
        var text = text
        if let buildID = text.range(of: " (BuildId: ", options: .backwards), text.hasSuffix(")") {
            text = String(text[..<buildID.lowerBound])
        }
        guard text.hasSuffix(")"), let open = text.range(of: " (", options: .backwards),
              text[open.upperBound...].contains("+0x")
        else { return text }
        return String(text[..<open.lowerBound])
    }
}

enum OutputLines {
    /// The output lines of one input frame line, from `cursor` on: the line itself when the
    /// tool left it unresolved, else the lines that begin with the part it keeps (`kept`)
    /// followed by ` in `, one per source frame (for glibc, up to the first not marked
    /// ` [inlined]`). Lines before it, which come back unchanged, are passed over; `cursor`
    /// ends after the lines taken. Empty when the frame's line is missing from the output.
    static func take(_ line: String, kept: String, glibc: Bool, from output: [String], cursor: inout Int) -> [String] {
        while cursor < output.count, !output[cursor].hasPrefix(kept) { cursor += 1 }
        guard cursor < output.count else { return [] }
        if output[cursor] == line {
            cursor += 1
            return [line]
        }
        var taken: [String] = []
        while cursor < output.count, output[cursor].hasPrefix(kept + " in ") {
            taken.append(output[cursor])
            cursor += 1
            if glibc, !output[cursor - 1].hasSuffix(" [inlined]") { break }
        }
        return taken
    }

    /// The lines of `text` without their terminators.
    static func split(_ text: String) -> [String] {
        ReportText(text).lines.map { $0.trimmingCharacters(in: .newlines) }
    }
}

// MARK: - llvm-symbolizer and llvm-nm

struct SymbolizedFrame: Equatable {
    var function: String
    var file: String
    var line: Int
    var column: Int

    /// `in FUNCTION FILE:LINE:COLUMN`, the way the sanitizers print it.
    var sanitizerText: String {
        var text = "in \(function)"
        if !file.isEmpty {
            text += " \(file)"
            if line > 0 {
                text += ":\(line)"
                if column > 0 { text += ":\(column)" }
            }
        }
        return text
    }
}

enum LLVMSymbolizer {
    nonisolated(unsafe) private static var cache: [String: [SymbolizedFrame]] = [:]
    private static let lock = NSLock()

    /// `llvm-symbolizer --obj=OBJECT -i -f -C ADDRESS`: the inline chain, innermost first;
    /// empty when it knows nothing.
    static func frames(object: String, address: UInt64) throws -> [SymbolizedFrame] {
        let key = "\(object)@\(address)"
        lock.lock()
        let cached = cache[key]
        lock.unlock()
        if let cached { return cached }
        let arguments = ["--obj=\(object)", "-i", "-f", "-C", "--output-style=JSON", hex(address)]
        let result = try runProcess(try Oracle.symbolizer(), arguments)
        guard result.status == 0,
              let object = try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]],
              let symbols = object.first?["Symbol"] as? [[String: Any]]
        else { throw FixtureError("llvm-symbolizer \(arguments.joined(separator: " ")): \(result.stderrText)\(result.stdoutText)") }
        let frames = symbols.compactMap { symbol -> SymbolizedFrame? in
            guard let function = symbol["FunctionName"] as? String, !function.isEmpty, function != "??" else { return nil }
            return SymbolizedFrame(function: function, file: symbol["FileName"] as? String ?? "",
                                   line: symbol["Line"] as? Int ?? 0, column: symbol["Column"] as? Int ?? 0)
        }
        lock.lock()
        cache[key] = frames
        lock.unlock()
        return frames
    }
}

enum SymbolAddresses {
    /// The address of the defined symbol `name` in `object` (static or dynamic table).
    static func address(of name: String, in object: String) throws -> UInt64? {
        let nm = try LinuxToolchain.tool("llvm-nm", ["/opt/swift/usr/bin/llvm-nm", "/usr/bin/llvm-nm", "/usr/bin/nm"])
        for extra in [[], ["-D"]] {
            let result = try runProcess(nm, extra + ["--defined-only", object])
            for line in result.stdoutText.split(separator: "\n") {
                let fields = line.split(separator: " ")
                guard fields.count == 3 else { continue }
                // Dynamic symbols may carry a version: "abort@@GLIBC_2.2.5".
                let symbol = fields[2].split(separator: "@", maxSplits: 1).first.map(String.init) ?? ""
                if symbol == name, let address = parseHex(String(fields[0])) { return address }
            }
        }
        return nil
    }
}

// MARK: - Counting

struct Tally {
    var fixture = (compared: 0, agreed: 0, unresolved: 0)
    var system = (compared: 0, agreed: 0, unresolved: 0)
    var pcAfterTrampoline = 0
    var loose = 0
    var notes: [String] = []

    mutating func count(inFixture: Bool, agreed: Bool?, pcAfterTrampoline: Bool = false, loosely: Bool = false) {
        if pcAfterTrampoline { self.pcAfterTrampoline += 1 }
        if loosely { loose += 1 }
        if inFixture {
            if let agreed { fixture.compared += 1; if agreed { fixture.agreed += 1 } } else { fixture.unresolved += 1 }
        } else {
            if let agreed { system.compared += 1; if agreed { system.agreed += 1 } } else { system.unresolved += 1 }
        }
    }

    mutating func note(_ text: String) { notes.append(text) }

    /// Counts a frame the tool resolved differently: a failure in the fixture program; in a
    /// system library (whose debug files come from the distribution) a note, the first few shown.
    mutating func disagree(inFixture: Bool, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        count(inFixture: inFixture, agreed: false)
        if inFixture {
            XCTFail(message, file: file, line: line)
        } else if system.compared - system.agreed <= 4 {
            note("system library: " + message)
        }
    }

    func report(_ title: String) {
        print("LinuxLogTests: \(title): fixture frames \(fixture.agreed)/\(fixture.compared) agree"
            + (fixture.unresolved > 0 ? " (\(fixture.unresolved) unresolved)" : "")
            + "; system-library frames \(system.agreed)/\(system.compared) agree, \(system.unresolved) left unresolved"
            + (loose > 0 ? "; \(loose) of the agreeing frames only in libbacktrace style (GCC's libasan: no columns, DWARF names)" : "")
            + (pcAfterTrampoline > 0 ? "; \(pcAfterTrampoline) PCs after an unnamed signal trampoline looked up as return addresses" : ""))
        for note in notes { print("LinuxLogTests: note: \(note)") }
    }
}
