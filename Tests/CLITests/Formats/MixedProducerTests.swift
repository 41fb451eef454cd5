import Foundation
import TestSupport
import XCTest

/// Logs that hold several producers' backtraces, made here by crashing real programs:
///
/// - an LLVM tool's crash (a program linked with Debian's libLLVM 19, stripped, its debug file
///   kept, crashing under `InitLLVM`: LLVM's `Stack dump:` with `#N 0xADDR (path+0xOFF)` lines),
///   then a Swift program's crash under `SWIFT_BACKTRACE=enable=yes,symbolicate=no`, with lines
///   of a build log around them;
/// - a C program built with AddressSanitizer that prints a glibc `backtrace_symbols_fd`
///   backtrace before its heap overflow.
///
/// Every frame of the programs, in either producer's backtrace, must come back resolved as
/// llvm-symbolizer-19 resolves the module offset (return addresses one byte back, but for the
/// frame a signal interrupted), its whole inline chain in order; frames of system libraries
/// may be resolved or not; every other line must come back byte for byte.
final class MixedProducerTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try makeTemporaryDirectory("mixed-producers")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    private static func oracle() throws -> String {
        if let path = TestPaths.llvm19("llvm-symbolizer") { return path }
        return try Oracle.symbolizer()
    }

    /// llvm-symbolizer's inline chain at each offset of `object`, innermost first.
    private static func symbolize(_ object: String, _ offsets: [UInt64]) throws -> [UInt64: [SymbolizedFrame]] {
        let unique = Array(Set(offsets)).sorted()
        guard !unique.isEmpty else { return [:] }
        let result = try runProcess(try oracle(), ["--obj=\(object)", "--inlining", "--output-style=JSON"],
                                    input: Data(unique.map { "0x" + String($0, radix: 16) + "\n" }.joined().utf8))
        let lines = result.stdoutText.split(separator: "\n")
        guard result.status == 0, lines.count == unique.count else { throw FixtureError("llvm-symbolizer: \(result.stderrText)") }
        var answers: [UInt64: [SymbolizedFrame]] = [:]
        for (offset, line) in zip(unique, lines) {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            answers[offset] = (object?["Symbol"] as? [[String: Any]] ?? []).compactMap { symbol in
                guard let function = symbol["FunctionName"] as? String, !function.isEmpty, function != "??" else { return nil }
                return SymbolizedFrame(function: function, file: symbol["FileName"] as? String ?? "",
                                       line: symbol["Line"] as? Int ?? 0, column: symbol["Column"] as? Int ?? 0)
            }
        }
        return answers
    }

    /// The separate debug file of `module` by its build-id under /usr/lib/debug (libc6-dbg's,
    /// which names glibc's signal trampoline), else the module itself.
    private static func debugObject(_ module: String) throws -> String {
        let notes = try runProcess("/usr/bin/readelf", ["-n", module]).stdoutText
        guard let id = notes.split(separator: "\n").first(where: { $0.contains("Build ID:") })?.split(separator: " ").last
        else { return module }
        let debug = "/usr/lib/debug/.build-id/\(id.prefix(2))/\(id.dropFirst(2)).debug"
        return FileManager.default.fileExists(atPath: debug) ? debug : module
    }

    /// What a frame line must become.
    private enum Expected {
        /// These lines, in place of the frame's.
        case lines([String])
        /// A system library's frame: lines that start with this prefix (or the line itself).
        case anyWithPrefix(String)
    }

    /// Compares `output` with `input` line by line: frame lines as `expected` says, every other
    /// line unchanged. Returns how many frames were compared with the oracle.
    @discardableResult
    private func compare(_ input: String, _ output: String, _ expected: [Int: Expected], label: String) -> Int {
        let inputLines = input.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let got = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var j = 0, compared = 0
        for (i, line) in inputLines.enumerated() {
            switch expected[i] {
            case .lines(let want)?:
                let taken = Array(got[min(j, got.count)..<min(j + want.count, got.count)])
                XCTAssertEqual(taken, want, "\(label): the frame line \(line.debugDescription)")
                j += want.count
                compared += 1
            case .anyWithPrefix(let prefix)?:
                if j < got.count, got[j] == line {
                    j += 1
                } else {
                    while j < got.count, got[j].hasPrefix(prefix) { j += 1 }
                }
            case nil:
                guard j < got.count, got[j] == line else {
                    XCTFail("\(label): expected the line \(line.debugDescription) unchanged, found "
                            + (j < got.count ? got[j].debugDescription : "the end of the output"))
                    return compared
                }
                j += 1
            }
        }
        XCTAssertEqual(j, got.count, "\(label): more lines in the output than in the log")
        return compared
    }

    private static func hex(_ text: Substring) -> UInt64? {
        UInt64(text.hasPrefix("0x") ? text.dropFirst(2) : text, radix: 16)
    }

    /// Runs the tool as ``CLI/run(_:input:file:line:)`` does, in the test's folder.
    private func runInTestFolder(_ arguments: [String]) throws -> ProcessResult {
        let quoted = ([try CLI.binary()] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        return try runProcess("/bin/sh", ["-c", "cd '\(dir.path)' && exec " + quoted.joined(separator: " ")], environment: CLI.environment)
    }

    // MARK: LLVM and the Swift runtime

    /// The LLVM tool: a null dereference two calls deep, one of them inlined, under a pretty
    /// stack trace entry, as a compiler pass would crash.
    private func llvmTool() throws -> (program: String, debug: String) {
        let source = path("llvmtool.cpp")
        try """
            #include "llvm/Support/InitLLVM.h"
            #include "llvm/Support/PrettyStackTrace.h"
            struct Node { int value; Node *next; };
            static inline int first_value(Node *n) { return n->next->value; }
            __attribute__((noinline)) int parse_module(Node *n) { return first_value(n) + 1; }
            __attribute__((noinline)) int run_pass(int argc) {
              llvm::PrettyStackTraceString pass("Running pass 'demo'");
              Node head{argc, nullptr};
              return parse_module(&head) + argc;
            }
            int main(int argc, char **argv) {
              llvm::InitLLVM x(argc, argv);
              return run_pass(argc);
            }
            """.write(toFile: source, atomically: true, encoding: .utf8)
        guard FileManager.default.fileExists(atPath: "/usr/lib/llvm-19/include/llvm/Support/InitLLVM.h"),
              FileManager.default.isExecutableFile(atPath: "/usr/bin/clang++-19") else {
            throw XCTSkip("no clang++-19 and llvm-19-dev to build an LLVM tool")
        }
        let debug = path("llvmtool.debug"), program = path("llvmtool")
        let build = try runProcess("/usr/bin/clang++-19", ["-g", "-O1", "-fno-omit-frame-pointer", "-Wl,--build-id=sha1",
                                                           "-I/usr/lib/llvm-19/include", source, "-o", debug,
                                                           "-L/usr/lib/llvm-19/lib", "-lLLVM-19", "-Wl,-rpath,/usr/lib/llvm-19/lib"])
        guard build.status == 0 else { throw FixtureError("clang++-19: \(build.stderrText)") }
        let strip = try runProcess("/usr/bin/strip", ["-o", program, debug])
        guard strip.status == 0 else { throw FixtureError("strip: \(strip.stderrText)") }
        return (program, debug)
    }

    /// The Swift program: an index out of range two calls deep.
    private func swiftProgram() throws -> String {
        let swiftc = SwiftBacktraceTests.swiftc
        guard FileManager.default.isExecutableFile(atPath: swiftc) else { throw XCTSkip("no Swift toolchain at \(swiftc)") }
        let source = path("crash.swift"), program = path("crash")
        try """
            @inline(never) func level3(_ xs: [Int], _ i: Int) -> Int { return xs[i] * 2 }
            @inline(never) func level2(_ n: Int) -> Int { return level3([1, 2, 3], n + 5) }
            @inline(never) func level1() -> Int { return level2(Int(CommandLine.arguments.count)) }
            print(level1())
            """.write(toFile: source, atomically: true, encoding: .utf8)
        let build = try runProcess(swiftc, ["-g", "-Onone", source, "-o", program])
        guard build.status == 0 else { throw FixtureError("swiftc: \(build.stderrText)") }
        return program
    }

    /// Runs `command` in the test's folder through the shell; what it printed on both streams.
    private func crash(_ command: String) throws -> String {
        try runProcess("/bin/sh", ["-c", "cd '\(dir.path)' && \(command) 2>&1"]).stdoutText
    }

    func testAnLLVMStackDumpAndASwiftBacktraceInOneLogBothResolve() throws {
        let tool = try llvmTool()
        let swift = try swiftProgram()
        let llvmLog = try crash("LLVM_SYMBOLIZER_PATH='\(try Self.oracle())' ./llvmtool")
        let swiftLog = try crash("SWIFT_BACKTRACE=enable=yes,symbolicate=no ./crash")
        XCTAssertTrue(llvmLog.contains("Stack dump:") && llvmLog.contains("(./llvmtool+0x"), llvmLog)
        XCTAssertTrue(swiftLog.contains("*** Program crashed:"), swiftLog)
        let log = "[12/40] Compiling Demo llvmtool.cpp\n" + llvmLog + "\n[13/40] Testing Demo\n" + swiftLog
            + "error: 2 commands failed\n"
        let logPath = path("build.log")
        try log.write(toFile: logPath, atomically: true, encoding: .utf8)
        let lines = log.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)

        // LLVM's frames: `#N 0xADDR [NAME] (PATH+0xOFF)`, return addresses but for the frame
        // after the signal trampoline.
        var expected: [Int: Expected] = [:]
        var llvmFrames: [(line: Int, prefix: String, offset: UInt64)] = []
        var afterTrampoline = false
        for (i, line) in lines.enumerated() {
            let fields = line.split(separator: " ")
            guard fields.count >= 3, fields[0].hasPrefix("#"), fields[1].hasPrefix("0x"), line.hasSuffix(")"),
                  let open = line.lastIndex(of: "("), let plus = line[open...].lastIndex(of: "+"),
                  let offset = Self.hex(line[line.index(after: plus)..<line.index(before: line.endIndex)])
            else { continue }
            let module = String(line[line.index(after: open)..<plus])
            let prefix = String(line[..<line.range(of: String(fields[1]))!.upperBound])
            let interrupted = afterTrampoline
            afterTrampoline = try Self.symbolize(Self.debugObject(module.hasPrefix("./") ? path(String(module.dropFirst(2))) : module),
                                                 [offset])[offset]?
                .last?.function == "__restore_rt"
            if module == "./llvmtool" {
                llvmFrames.append((i, prefix, interrupted ? offset : offset - 1))
            } else {
                expected[i] = .anyWithPrefix(prefix)
            }
        }
        let llvmChains = try Self.symbolize(tool.debug, llvmFrames.map(\.offset))
        for frame in llvmFrames {
            let chain = llvmChains[frame.offset] ?? []
            // `_start` has no source: its line keeps the module group (not compared).
            expected[frame.line] = chain.allSatisfy({ !$0.file.isEmpty }) && !chain.isEmpty
                ? .lines(chain.map { frame.prefix + " " + $0.sanitizerText }) : .anyWithPrefix(frame.prefix)
        }

        // The Swift runtime's: `N [ra] 0xADDR`, placed by the image list's `crash` line.
        guard let imageLine = lines.first(where: { $0.hasSuffix(" \(swift)") && $0.contains("–") }),
              let base = Self.hex(imageLine.split(separator: "–")[0])
        else { return XCTFail("no image line of \(swift):\n\(swiftLog)") }
        var swiftFrames: [(line: Int, prefix: String, offset: UInt64)] = []
        var inThread = false
        for (i, line) in lines.enumerated() {
            if line.hasPrefix("Thread ") { inThread = true }
            if line.hasPrefix("Registers:") { inThread = false }
            let fields = line.split(separator: " ")
            guard inThread, fields.count >= 2, Int(fields[0]) != nil, let address = fields.last.flatMap({ Self.hex($0) }),
                  fields.last!.hasPrefix("0x")
            else { continue }
            if address >= base, address < base + 0x10_0000 {
                swiftFrames.append((i, line, address - base - (fields.contains("[ra]") ? 1 : 0)))
            } else {
                expected[i] = .anyWithPrefix(line)
            }
        }
        let swiftChains = try Self.symbolize(swift, swiftFrames.map(\.offset))
        // The log names `./llvmtool`: the tool runs where the log was made, as it would in a build folder.
        let result = try runInTestFolder(["-d", dir.path, logPath])
        XCTAssertEqual(result.status, 0, result.stderrText)
        // The runtime's names are its own simplified ones: file, line and column are compared,
        // and the number of inlined calls.
        var outputLines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var swiftCompared = 0
        for frame in swiftFrames.reversed() {
            let chain = swiftChains[frame.offset] ?? []
            let number = frame.prefix.split(separator: " ")[0]
            guard let at = outputLines.firstIndex(where: { $0.hasPrefix(frame.prefix + " ") }) else {
                XCTFail("the Swift frame \(frame.prefix) is not resolved:\n\(result.stdoutText)")
                continue
            }
            var first = at
            while first > 0, outputLines[first - 1].hasPrefix("\(number) "), outputLines[first - 1].contains("[inlined]") { first -= 1 }
            let got = outputLines[first...at].map { $0.components(separatedBy: " at ").last ?? "" }
            XCTAssertEqual(got, chain.map { "\($0.file):\($0.line):\($0.column)" }, "Swift frame \(frame.prefix)")
            outputLines.replaceSubrange(first...at, with: [frame.prefix])
            swiftCompared += 1
        }
        let compared = compare(log, outputLines.joined(separator: "\n"), expected, label: "LLVM and Swift")
        print("MixedProducerTests: \(compared) LLVM frames of the tool and \(swiftCompared) Swift frames of the program "
              + "agree with llvm-symbolizer in one log")
        XCTAssertGreaterThanOrEqual(compared, 3)
        XCTAssertGreaterThanOrEqual(swiftCompared, 4)

        let json = try runInTestFolder(["-d", dir.path, "--format", "json", logPath])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdoutText.utf8)) as? [String: Any]
        let threads = (object?["reports"] as? [[String: Any]])?.first?["threads"] as? [[String: Any]] ?? object?["threads"] as? [[String: Any]] ?? []
        XCTAssertEqual(threads.count, 2, "the Swift thread and LLVM's stack dump, each a backtrace: \(json.stdoutText)")
    }

    // MARK: A sanitizer and glibc

    func testASanitizerReportAndAGlibcBacktraceInOneLogBothResolve() throws {
        let source = path("app.c"), program = path("app")
        try """
            #include <execinfo.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <string.h>
            static inline int item_weight(const int *items, int i) { return items[i] * 3; }
            __attribute__((noinline)) void report_progress(void) {
                void *frames[16];
                int n = backtrace(frames, 16);
                fprintf(stderr, "progress backtrace:\\n");
                backtrace_symbols_fd(frames, n, 2);
            }
            __attribute__((noinline)) int inventory_total(int *items, int count) {
                int total = 0;
                report_progress();
                for (int i = 0; i <= count; i++) total += item_weight(items, i);
                return total;
            }
            __attribute__((noinline)) int run(int count) {
                int *items = malloc(sizeof(int) * count);
                memset(items, 0, sizeof(int) * count);
                int total = inventory_total(items, count);
                free(items);
                return total;
            }
            int main(int argc, char **argv) { (void)argv; return run(argc + 3); }
            """.write(toFile: source, atomically: true, encoding: .utf8)
        let build = try runProcess("/usr/bin/gcc", ["-g", "-O1", "-fno-omit-frame-pointer", "-fsanitize=address", "-rdynamic",
                                                    "-Wl,--build-id", source, "-o", program])
        guard build.status == 0 else { throw XCTSkip("gcc -fsanitize=address: \(build.stderrText)") }
        let log = try crash("ASAN_OPTIONS=symbolize=0 ./app")
        XCTAssertTrue(log.contains("AddressSanitizer") && log.contains("./app(report_progress+"), log)
        let logPath = path("app.log")
        try log.write(toFile: logPath, atomically: true, encoding: .utf8)
        let lines = log.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)

        // Symbol addresses for glibc's `FUNCTION+0xOFF` frames.
        let nm = try runProcess("/usr/bin/nm", [program]).stdoutText
        var symbols: [String: UInt64] = [:]
        for line in nm.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 3, let address = UInt64(fields[0], radix: 16) { symbols[String(fields[2])] = address }
        }
        var frames: [(line: Int, prefix: String, offset: UInt64, glibc: Bool)] = []
        var expected: [Int: Expected] = [:]
        for (i, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#"), let open = line.lastIndex(of: "("), let plus = line[open...].lastIndex(of: "+") {
                // `#N 0xADDR  (MODULE+0xOFF)`: looked up as printed.
                let fields = trimmed.split(separator: " ")
                let prefix = String(line[..<line.range(of: String(fields[1]))!.upperBound])
                let module = line[line.index(after: open)..<plus]
                if module == program, let offset = Self.hex(line[line.index(after: plus)..<line.index(before: line.endIndex)]) {
                    frames.append((i, prefix, offset, false))
                } else {
                    expected[i] = .anyWithPrefix(prefix)
                }
            } else if line.hasSuffix("]"), line.contains(")[0x") {
                // `MODULE(FUNCTION+0xOFF)[0xADDR]`: a return address.
                let open = line.firstIndex(of: "(")!, close = line.firstIndex(of: ")")!
                let group = line[line.index(after: open)..<close].split(separator: "+")
                if line.hasPrefix("./app("), group.count == 2, let symbol = symbols[String(group[0])],
                   let offset = Self.hex(group[1]) {
                    frames.append((i, line, symbol + offset - 1, true))
                } else {
                    expected[i] = .anyWithPrefix(line)
                }
            }
        }
        XCTAssertTrue(frames.contains { $0.glibc } && frames.contains { !$0.glibc }, log)
        let chains = try Self.symbolize(program, frames.map(\.offset))
        for frame in frames {
            let chain = chains[frame.offset] ?? []
            guard !chain.isEmpty, chain.allSatisfy({ !$0.file.isEmpty }) else {
                expected[frame.line] = .anyWithPrefix(frame.prefix)
                continue
            }
            expected[frame.line] = .lines(chain.enumerated().map { k, source in
                frame.prefix + " " + source.sanitizerText + (frame.glibc && k < chain.count - 1 ? " [inlined]" : "")
            })
        }
        let result = try CLI.run(["-d", program, logPath])
        XCTAssertEqual(result.status, .success, result.stderrText)
        let compared = compare(log, result.stdoutText, expected, label: "sanitizer and glibc")
        print("MixedProducerTests: \(compared) frames of a sanitizer report and a glibc backtrace in one log agree with llvm-symbolizer")
        XCTAssertGreaterThanOrEqual(compared, 8)
    }
}
