import Foundation
import TestSupport
import XCTest

/// A Linux module without a build-id in the log is resolved through the file found by its path
/// (or named with `-d` by its file name), which nothing checks. Many logs name their frames
/// already; the file is used only when those names agree with it, and a module whose file
/// contradicts one is left as the log has it, with one line naming the frame and both names.
/// Here the file is another build of the program (glibc's `backtrace_symbols`, the Swift
/// runtime's backtraces), or this machine's libc under another machine's log; the build that
/// crashed must still resolve as the oracles do (`OwnLogEvidenceTests`: this machine's own logs).
final class ReportEvidenceTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeTemporaryDirectory("report-evidence")
    }

    override func tearDownWithError() throws {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    // MARK: Another build at the module's path

    /// A program that prints glibc's `backtrace_symbols_fd` on a fault; `-DREBUILT` is a later
    /// build of it: a function added before `crash_here`, and `crash_here` and `middle` shorter.
    private static let rebuiltProgram = """
        #include <execinfo.h>
        #include <signal.h>
        #include <stdlib.h>
        #include <unistd.h>

        int *volatile target;

        static void on_signal(int sig) {
            void *frames[64];
            int count = backtrace(frames, 64);
            backtrace_symbols_fd(frames, count, 2);
            _exit(128 + sig);
        }

        #ifdef REBUILT
        int checksum(const char *text) {
            int sum = 0;
            while (*text) sum = sum * 31 + *text++;
            return sum;
        }
        #endif

        int crash_here(int *slot, int value) {
        #ifndef REBUILT
            for (int i = 0; i < value * 3; i++) value ^= (value << 3) + i;
            if (value == 12345) return slot[value] + crash_here(slot, value - 1);
        #endif
            *slot = value;
            return value;
        }

        int middle(int value) {
        #ifndef REBUILT
            if (value < 0) return middle(value + 1) * 2;
            value = value * 5 + (value >> 2);
        #endif
            return crash_here(target, value) + 1;
        }

        int main(int argc, char **argv) {
            signal(SIGSEGV, on_signal);
            signal(SIGILL, on_signal);
        #ifdef REBUILT
            return middle(checksum(argv[0]) & 1);
        #else
            (void)argv;
            return middle(argc);
        #endif
        }
        """

    /// The two builds and the log of the first: (log path, module path the log names, the
    /// build that crashed, the later build). Nothing is left at the module's path.
    private func rebuiltProgramLog() throws -> (log: String, module: String, crashed: String, rebuilt: String) {
        let source = scratch.appendingPathComponent("prog.c")
        try Self.rebuiltProgram.write(to: source, atomically: true, encoding: .utf8)
        let builds = ["a", "b"].map { scratch.appendingPathComponent($0) }
        for build in builds { try FileManager.default.createDirectory(at: build, withIntermediateDirectories: true) }
        let crashed = builds[0].appendingPathComponent("prog").path
        let rebuilt = builds[1].appendingPathComponent("prog").path
        try Evidence.compile("/usr/bin/gcc", ["-O1", "-g", "-fno-inline", "-rdynamic", "-o", crashed, source.path])
        try Evidence.compile("/usr/bin/gcc", ["-O1", "-g", "-fno-inline", "-rdynamic", "-DREBUILT", "-o", rebuilt, source.path])
        let run = scratch.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        let module = run.appendingPathComponent("prog").path
        try FileManager.default.copyItem(atPath: crashed, toPath: module)
        let log = try LinuxToolchain.crashLog(module, [], label: "prog")
        try FileManager.default.removeItem(atPath: module)
        let path = scratch.appendingPathComponent("prog.log").path
        try log.write(toFile: path, atomically: true, encoding: .utf8)
        let named = GlibcLog.frames(log).filter { $0.module == module && $0.symbol != nil }
        XCTAssertTrue(named.contains { $0.symbol == "crash_here" }, "the log names crash_here:\n\(log)")
        // The premise: the later build has another function where the log's crash_here+0xNN falls.
        let crash = try XCTUnwrap(named.first { $0.symbol == "crash_here" })
        let start = try XCTUnwrap(try SymbolAddresses.address(of: "crash_here", in: rebuilt))
        let there = try LLVMSymbolizer.frames(object: rebuilt, address: start + crash.offset!).last?.function
        XCTAssertNotEqual(there, "crash_here", "the rebuilt program still has crash_here at crash_here+\(hex(crash.offset!))")
        return (path, module, crashed, rebuilt)
    }

    /// The rebuilt program at the module's path gives another function where the log names
    /// `crash_here` (or `middle`, `main`): resolving through it would replace the log's right
    /// names with wrong ones, so the module is left byte for byte as the log has it, and one
    /// line names a frame, the log's name and the file's (llvm-symbolizer's function there).
    func testAFrameTheFileAtTheModulePathNamesOtherwiseLeavesTheModuleAsTheLogHasIt() throws {
        let (log, module, _, rebuilt) = try rebuiltProgramLog()
        try FileManager.default.copyItem(atPath: rebuilt, toPath: module)
        let arguments = [log]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        let logText = try String(contentsOfFile: log, encoding: .utf8)
        let output = OutputLines.split(result.stdoutText)
        for (line, got) in zip(OutputLines.split(logText), output) where line.contains(module + "(") {
            XCTAssertEqual(got, line, "a frame of the contradicted module was changed\n" + result.summary(arguments))
        }
        let said = Evidence.contradictionLines(result)
        XCTAssertEqual(said.count, 1, result.summary(arguments))
        try assertNamesAFrame(said.first ?? "", of: logText, report: log, module: module, file: module, object: rebuilt)
        XCTAssertFalse(result.stderrLines.contains { $0.contains(": \(module): no build-id in the log; resolved through") },
                       "the contradicted module is not said to be resolved\n" + result.summary(arguments))
        // libc, whose names agree, is still resolved.
        XCTAssertNotEqual(result.stdoutText, logText, result.summary(arguments))
        // JSON gives the module the reason `contradicted`, naming the file.
        let jsonArguments = ["--format", "json", "-q", log]
        let json = try CLI.run(jsonArguments)
        let object = try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any]
        let images = ((object?["reports"] as? [[String: Any]])?.first?["images"] as? [[String: Any]]) ?? []
        let entry = images.first { ($0["path"] as? String) == module || ($0["name"] as? String) == basename(module) }
        let unresolved = try XCTUnwrap(entry?["unresolved"] as? [String: Any], json.summary(jsonArguments))
        XCTAssertEqual(unresolved["reason"] as? String, "contradicted")
        XCTAssertEqual(unresolved["file"] as? String, module)
        XCTAssertTrue(JSONOutputTests.schemaProblems(json.stdout).isEmpty, "\(JSONOutputTests.schemaProblems(json.stdout))")
    }

    /// A file named with `-d` that has the module's file name is matched by name alone: the
    /// log's names check it as they check the file at the path.
    func testAFileNamedWithDByTheModulesFileNameIsCheckedByTheLogsNames() throws {
        let (log, module, _, rebuilt) = try rebuiltProgramLog()
        let arguments = ["-d", rebuilt, log]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        let logText = try String(contentsOfFile: log, encoding: .utf8)
        for (line, got) in zip(OutputLines.split(logText), OutputLines.split(result.stdoutText)) where line.contains(module + "(") {
            XCTAssertEqual(got, line, result.summary(arguments))
        }
        let said = Evidence.contradictionLines(result)
        XCTAssertEqual(said.count, 1, result.summary(arguments))
        XCTAssertTrue(said.first?.contains("named with -d, by the module's file name") ?? false, result.summary(arguments))
        try assertNamesAFrame(said.first ?? "", of: logText, report: log, module: module, file: rebuilt, object: rebuilt)
    }

    /// The build that crashed at the module's path agrees with every name the log gives: its
    /// frames resolve as llvm-symbolizer resolves them, and only the unchecked match is said.
    func testTheBuildThatCrashedAtTheModulePathResolvesAsTheOracleDoes() throws {
        let (log, module, crashed, _) = try rebuiltProgramLog()
        try FileManager.default.copyItem(atPath: crashed, toPath: module)
        let arguments = [log]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        XCTAssertEqual(Evidence.contradictionLines(result), [], result.summary(arguments))
        XCTAssertTrue(result.stderrLines.contains { $0.contains(": \(module): no build-id in the log; resolved through") },
                      result.summary(arguments))
        try Evidence.assertProgramFramesAgreeWithTheOracle(log: try String(contentsOfFile: log, encoding: .utf8),
                                                  output: result.stdoutText, module: module, object: crashed,
                                                  arguments: arguments)
    }

    /// `line` says: the report, the module, then `frame N at 0xADDR is NAME+0xOFF in the log
    /// but FOUND in FILE`, where frame N of the log is at ADDR and named NAME+0xOFF, and FOUND
    /// is another function, the one llvm-symbolizer gives in `object` (the file's copy) there.
    private func assertNamesAFrame(_ line: String, of log: String, report: String, module: String, file: String,
                                   object: String, caller: StaticString = #filePath, callerLine: UInt = #line) throws {
        let pattern = try Regex(#"^symbolicate: (.+): (.+): frame (\d+) at 0x([0-9a-f]+) is (\S+) in the log but (\S+) in (\S+) \("#)
        guard let match = line.firstMatch(of: pattern) else {
            return XCTFail("not a contradiction line: \(line)", file: caller, line: callerLine)
        }
        let field = { (i: Int) in String(match.output[i].substring ?? "") }
        XCTAssertEqual(field(1), report, line, file: caller, line: callerLine)
        XCTAssertEqual(field(2), module, line, file: caller, line: callerLine)
        XCTAssertEqual(field(7), file, line, file: caller, line: callerLine)
        let frames = GlibcLog.frames(log).filter { $0.module != nil || $0.symbol != nil }
        let index = try XCTUnwrap(Int(field(3)))
        guard let frame = GlibcLog.frames(log).dropFirst(index).first, frames.count > index else {
            return XCTFail("the log has no frame \(index): \(line)", file: caller, line: callerLine)
        }
        XCTAssertEqual(hex(frame.address), "0x" + field(4), line, file: caller, line: callerLine)
        let symbol = try XCTUnwrap(frame.symbol, line)
        XCTAssertEqual(field(5), "\(symbol)+\(hex(frame.offset!))", line, file: caller, line: callerLine)
        let found = field(6).split(separator: "+").first.map(String.init) ?? ""
        XCTAssertNotEqual(found, symbol, line, file: caller, line: callerLine)
        // At the frame's address or its call site, as the frame is a return address or the PC.
        let start = try XCTUnwrap(try SymbolAddresses.address(of: symbol, in: object))
        let oracle = try [0, 1].compactMap { try LLVMSymbolizer.frames(object: object, address: start + frame.offset! - $0).last?.function }
        XCTAssertTrue(oracle.contains(found), "\(line)\nllvm-symbolizer: \(oracle)", file: caller, line: callerLine)
    }

    // MARK: Swift runtime backtraces

    /// The Swift runtime names every frame in its simplified style (`element(_:_:) + 47 in
    /// swiftcrash at ...`), counting a return address's offset from the byte before it. A log
    /// whose image list gives the program no build-id (`<no build ID>`) is checked by those
    /// names: the program that crashed agrees, and `--force` gives back the runtime's own
    /// lines; the program built with `-O` at that path does not, and the log is left as it is.
    func testASwiftBacktraceWithoutABuildIDIsCheckedByTheRuntimesNames() throws {
        let swiftc = SwiftBacktraceTests.swiftc
        guard FileManager.default.isExecutableFile(atPath: swiftc) else { throw XCTSkip("no Swift toolchain at \(swiftc)") }
        let sources = try FileManager.default.contentsOfDirectory(
            at: TestPaths.packageRoot.appendingPathComponent("Fixtures/src/swiftcrash"), includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" }.map(\.path).sorted()
        let program = scratch.appendingPathComponent("swiftcrash").path
        let optimized = scratch.appendingPathComponent("swiftcrash-o").path
        try Evidence.compile(swiftc, ["-g", "-Onone"] + sources + ["-o", program])
        try Evidence.compile(swiftc, ["-g", "-O"] + sources + ["-o", optimized])
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=yes,symbolicate=full,format=text,interactive=no,color=no"
        let run = try runProcess(program, ["generic"], environment: environment)
        let imageLine = try Regex(#"(?m)^(0x[0-9a-f]+\S+0x[0-9a-f]+) [0-9a-f]+ (swiftcrash +\#(program))$"#)
        let log = run.stderrText.replacing(imageLine) { "\($0.output[1].substring!) <no build ID> \($0.output[2].substring!)" }
        XCTAssertTrue(log.contains("<no build ID> swiftcrash"), "the program's image line:\n\(run.stderrText)")
        XCTAssertTrue(log.contains(" in swiftcrash at "), "the runtime names the program's frames:\n\(log)")

        let (agreeing, arguments) = try Evidence.symbolicate(log, name: "swiftcrash.log", in: scratch, extra: ["--force"])
        XCTAssertEqual(Evidence.contradictionLines(agreeing), [], agreeing.summary(arguments))
        XCTAssertTrue(agreeing.stderrLines.contains { $0.contains(": \(program): no build-id in the log; resolved through") },
                      agreeing.summary(arguments))
        XCTAssertEqual(agreeing.stdoutText, log, "the runtime's own lines\n" + agreeing.summary(arguments))

        try FileManager.default.removeItem(atPath: program)
        try FileManager.default.copyItem(atPath: optimized, toPath: program)
        let (contradicted, _) = try Evidence.symbolicate(log, name: "swiftcrash.log", in: scratch, extra: ["--force"])
        XCTAssertEqual(contradicted.stdoutText, log, contradicted.summary(arguments))
        let said = Evidence.contradictionLines(contradicted)
        XCTAssertEqual(said.count, 1, contradicted.summary(arguments))
        XCTAssertTrue(said.first?.contains(": \(program): frame ") ?? false, contradicted.summary(arguments))
    }

    // MARK: Another machine's library

    /// The log of another machine names `gsignal` at an offset of its own libc, where this
    /// machine's libc has another function (here `abort`'s body, the log's frame having no
    /// build-id): this machine's libc is not the one that crashed, and the log keeps its names.
    func testALibcFrameThisMachinesLibcNamesOtherwiseIsLeftAsTheLogHasIt() throws {
        let libc = try XCTUnwrap(["/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6", "/lib64/libc.so.6",
                                  "/usr/lib/libc.so.6"].first { FileManager.default.fileExists(atPath: $0) },
                                 "no libc.so.6 in the usual places")
        let abort = try XCTUnwrap(try SymbolAddresses.address(of: "abort", in: libc))
        let gsignal = try XCTUnwrap(try SymbolAddresses.address(of: "gsignal", in: libc))
        XCTAssertNotEqual(abort, gsignal)
        let inAbort = abort + 0x20
        let oracle = try XCTUnwrap(try LLVMSymbolizer.frames(object: libc, address: inAbort).last?.function)
        XCTAssertTrue(oracle.hasSuffix("abort"), "llvm-symbolizer puts \(hex(inAbort)) in \(oracle)")
        let text = """
            ==4242==ERROR: AddressSanitizer: ABRT on unknown address 0x000000001092 (pc 0x7faed4efa417 bp 0x7ffd5c3e1b30 sp 0x7ffd5c3e1a08 T0)
                #0 0x7faed4efa417 in gsignal (\(libc)+\(hex(inAbort)))
                #1 0x7faed4ee57ff in abort (\(libc)+\(hex(abort + 0x40)))
                #2 0x55d0c0a011a9 in crash_here (/nonexistent/app+0x11a9)

            SUMMARY: AddressSanitizer: ABRT (\(libc)+\(hex(inAbort))) in gsignal

            """
        let log = scratch.appendingPathComponent("gsignal.log").path
        try text.write(toFile: log, atomically: true, encoding: .utf8)
        let arguments = [log]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        XCTAssertEqual(result.stdoutText, text, result.summary(arguments))
        let said = Evidence.contradictionLines(result)
        XCTAssertEqual(said.count, 1, result.summary(arguments))
        XCTAssertTrue(said.first?.hasPrefix("symbolicate: \(log): \(libc): frame 0 at 0x7faed4efa417 is gsignal in the log but ") ?? false,
                      result.summary(arguments))
        XCTAssertTrue(said.first?.contains(" but abort in ") ?? false, result.summary(arguments))
        XCTAssertFalse(result.stderrLines.contains { $0.contains(": \(libc): no build-id in the log; resolved through") },
                       result.summary(arguments))
    }
}

/// What the tests of the report's evidence share: building, running, reading stderr.
enum Evidence {
    /// The lines that say a module's file contradicts the log.
    static func contradictionLines(_ result: ProcessResult) -> [String] {
        result.stderrLines.filter { $0.contains(" in the log but ") }
    }

    /// Runs the tool on `text` written to `name` in `folder`; it must succeed.
    static func symbolicate(_ text: String, name: String, in folder: URL, extra: [String] = []) throws
        -> (ProcessResult, [String]) {
        let path = folder.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let arguments = extra + [path]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        return (result, arguments)
    }

    static func compile(_ compiler: String, _ arguments: [String]) throws {
        guard FileManager.default.isExecutableFile(atPath: compiler) else { throw XCTSkip("\(compiler) is not installed") }
        let result = try runProcess(compiler, arguments)
        guard result.status == 0 else {
            throw FixtureError("\(compiler) \(arguments.joined(separator: " ")) failed:\n\(result.stderrText)")
        }
    }

    /// Every named glibc frame of `module` is resolved, its function (the last line of its
    /// chain) llvm-symbolizer's at the frame's call site or address.
    static func assertProgramFramesAgreeWithTheOracle(log: String, output: String, module: String, object: String,
                                                      arguments: [String]) throws {
        let lines = OutputLines.split(output)
        var cursor = 0
        var checked = 0
        for frame in GlibcLog.frames(log) where frame.module == module {
            let got = OutputLines.take(frame.line, kept: frame.line, glibc: true, from: lines, cursor: &cursor)
            guard let symbol = frame.symbol, let offset = frame.offset else { continue }
            guard let last = got.last, last != frame.line else {
                XCTFail("\(frame.line) is left unresolved\n" + CLI.describe(arguments))
                continue
            }
            let start = try XCTUnwrap(try SymbolAddresses.address(of: symbol, in: object))
            let oracle = try [0, 1].compactMap { try LLVMSymbolizer.frames(object: object, address: start + offset - $0).last?.function }
            XCTAssertTrue(oracle.contains { last.hasPrefix(frame.line + " in \($0) ") || last == frame.line + " in \($0)" },
                          "\(last)\nllvm-symbolizer: \(oracle)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 0, "no named frame of \(module) in\n\(log)")
    }
}
