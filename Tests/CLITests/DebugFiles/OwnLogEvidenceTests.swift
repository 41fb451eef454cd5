import Foundation
import TestSupport
import XCTest

/// Logs made on this machine by programs built here must meet no contradiction from the files
/// at their modules' paths, and resolve as the oracles (llvm-symbolizer, the sanitizers' own
/// symbolization) do: glibc's aliases (`gsignal`/`raise`, `__libc_start_main`), C++ and Rust
/// names as each tool spells them, GCC's clones (`.isra.0`, `.constprop.0`, `.cold`,
/// `.part.0`). A false contradiction would leave a module of the machine's own log unresolved
/// (see `ReportEvidenceTests` for the contradictions that must be found).
final class OwnLogEvidenceTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeTemporaryDirectory("own-log-evidence")
    }

    override func tearDownWithError() throws {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    /// A C++ program built with `-rdynamic` that aborts: glibc names libc's frames by their
    /// dynamic symbols (`gsignal+0x12`, `abort+0xd3`, `__libc_start_main+0x85`, aliases of what
    /// the debug file's index keeps) and the program's by their mangled names. Nothing
    /// contradicts, and the program's frames resolve as llvm-symbolizer resolves them.
    func testAGlibcLogOfThisMachineMeetsNoContradiction() throws {
        let source = scratch.appendingPathComponent("books.cpp")
        try Self.booksProgram.write(to: source, atomically: true, encoding: .utf8)
        let binary = scratch.appendingPathComponent("books").path
        try Evidence.compile("/usr/bin/g++", ["-O2", "-g", "-rdynamic", "-DGLIBC_BACKTRACE", "-o", binary, source.path])
        let log = try LinuxToolchain.crashLog(binary, ["30", "60", "90"], label: "books")
        let path = scratch.appendingPathComponent("books.log").path
        try log.write(toFile: path, atomically: true, encoding: .utf8)
        let frames = GlibcLog.frames(log)
        XCTAssertTrue(frames.contains { $0.symbol == "abort" }, "libc's abort is named:\n\(log)")
        XCTAssertTrue(frames.contains { $0.symbol?.hasPrefix("_ZN5books") ?? false }, "C++ names:\n\(log)")
        let arguments = [path]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        XCTAssertEqual(Evidence.contradictionLines(result), [], result.summary(arguments))
        try Evidence.assertProgramFramesAgreeWithTheOracle(log: log, output: result.stdoutText, module: binary, object: binary,
                                                  arguments: arguments)
        // libc's named frames resolve too.
        let lines = OutputLines.split(result.stdoutText)
        for frame in frames where frame.symbol != nil && frame.module?.contains("libc.so") == true {
            XCTAssertFalse(lines.contains(frame.line), "\(frame.line) is left unresolved\n" + result.summary(arguments))
        }
    }

    /// A C++ program with GCC clones on its crash path (`-O2`): `audit_entry.isra.0` (and
    /// `.constprop.0`, `.cold`), `settle.part.0`. With `GLIBC_BACKTRACE`, it prints glibc's
    /// backtrace on SIGABRT; with `RUST`, the ledger is audited by a Rust function.
    private static let booksProgram = """
        #include <cstdio>
        #include <cstdlib>
        #include <cstring>
        #include <vector>
        #ifdef GLIBC_BACKTRACE
        #include <csignal>
        #include <execinfo.h>
        #include <unistd.h>
        static void on_signal(int sig) {
            void *frames[64];
            int count = backtrace(frames, 64);
            backtrace_symbols_fd(frames, count, 2);
            _exit(128 + sig);
        }
        #endif
        #ifdef RUST
        extern "C" int rust_audit(const int *values, int count, int limit);
        #endif

        namespace books {
        struct Entry { int amount; const char *why; long stamp; char note[48]; };

        struct Ledger {
            std::vector<Entry> entries;
            int post(int amount, const char *why);
            int total() const;
        };

        // Only one field is read: GCC passes it alone, as audit_entry.isra.0.
        static __attribute__((noinline)) int audit_entry(const Entry &entry, int limit) {
            if (entry.amount > limit) abort();
            return entry.amount;
        }

        // A short fast path and a long slow one, called twice: GCC splits the slow one off
        // as settle.part.0 (not when it instruments it for AddressSanitizer).
        static int settle(const Entry *entries, int count, int limit) {
            if (count < 3) return 0;
            int sum = 0;
            for (int i = 0; i < count; i++) {
                const Entry &entry = entries[i];
                sum += audit_entry(entry, limit);
                if (entry.why && strlen(entry.why) > 40) sum -= entry.amount;
            }
        #ifdef RUST
            std::vector<int> amounts;
            for (int i = 0; i < count; i++) amounts.push_back(entries[i].amount);
            sum += rust_audit(amounts.data(), (int)amounts.size(), limit / 2);
        #endif
            for (int i = 0; i < count; i++) sum ^= (int)entries[i].stamp;
            return sum;
        }

        __attribute__((noinline)) int Ledger::post(int amount, const char *why) {
            entries.push_back(Entry{amount, why, (long)entries.size() * 17, {0}});
            int settled = settle(entries.data(), (int)entries.size(), 100);
            entries.back().stamp += settled;
            return settled;
        }

        __attribute__((noinline)) int Ledger::total() const {
            int sum = 0;
            for (const Entry &entry : entries) sum += entry.amount;
            return sum + settle(entries.data(), (int)entries.size(), 1000);
        }
        }

        int main(int argc, char **argv) {
        #ifdef GLIBC_BACKTRACE
            signal(SIGABRT, on_signal);
        #endif
            books::Ledger ledger;
            for (int i = 1; i < argc; i++) ledger.post(std::atoi(argv[i]) + i * 20, argv[i]);
            std::printf("%d\\n", ledger.total());
            return 0;
        }
        """

    /// The Rust half of the books program: the ledger's amounts audited, the process aborted
    /// from Rust on one over the limit.
    private static let rustAudit = """
        #[inline(never)]
        fn check(values: &[i32], limit: i32) -> i32 {
            let mut sum = 0;
            for v in values {
                if *v > limit { std::process::abort(); }
                sum += v;
            }
            sum
        }

        #[no_mangle]
        pub extern "C" fn rust_audit(values: *const i32, count: i32, limit: i32) -> i32 {
            let values = unsafe { std::slice::from_raw_parts(values, count as usize) };
            check(values, limit)
        }
        """

    /// GCC's AddressSanitizer names the frames of a program without DWARF by its symbol
    /// table, demangled its own way: C++ (`books::Ledger::post(int, char const*)`), GCC clones
    /// (`books::audit_entry(books::Entry const&, int) [clone .isra.0] [clone .cold]`), Rust
    /// (`rtally::check::h0123456789abcdef`, and `_RNv...` left mangled). The program that ran had its DWARF stripped; the
    /// same build with it is at the module's path, and its inline chains must agree with those
    /// names: nothing contradicts, and every frame resolves as llvm-symbolizer resolves it.
    func testASanitizerLogOfCPlusPlusRustAndClonesMeetsNoContradiction() throws {
        guard let gcc = try LinuxToolchain.asanCompilers().first(where: { $0.name == "gcc" }) else {
            throw XCTSkip("GCC's AddressSanitizer does not run here")
        }
        let source = scratch.appendingPathComponent("books.cpp")
        try Self.booksProgram.write(to: source, atomically: true, encoding: .utf8)
        var flags = ["-O2", "-g", "-fsanitize=address"]
        var libraries: [String] = []
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/rustc") {
            let rust = scratch.appendingPathComponent("rtally.rs")
            try Self.rustAudit.write(to: rust, atomically: true, encoding: .utf8)
            let library = scratch.appendingPathComponent("librtally.a").path
            try Evidence.compile("/usr/bin/rustc", ["--crate-type=staticlib", "-O", "-C", "panic=abort", "--crate-name", "rtally",
                                           "-o", library, rust.path])
            flags.append("-DRUST")
            libraries = [library, "-lpthread", "-ldl"]
        }
        let full = scratch.appendingPathComponent("books-full").path
        try Evidence.compile(gcc.cxx, flags + ["-o", full, source.path] + libraries)
        let module = scratch.appendingPathComponent("books").path
        let objcopy = try LinuxToolchain.tool("objcopy", ["/usr/bin/objcopy", "/opt/swift/usr/bin/llvm-objcopy"])
        let strip = try runProcess(objcopy, ["--strip-debug", full, module])
        XCTAssertEqual(strip.status, 0, strip.stderrText)
        // Rust aborts on 60 (over its limit of 50); C++ on 150 (over 100).
        for arguments in libraries.isEmpty ? [["30", "60", "90"]] : [["0", "0", "0"], ["30", "60", "90"]] {
            let log = try LinuxToolchain.crashLog(module, arguments, environment: ["ASAN_OPTIONS": "handle_abort=1"],
                                                  label: "books \(arguments)")
            try FileManager.default.removeItem(atPath: module)
            try FileManager.default.copyItem(atPath: full, toPath: module)
            defer {
                try? FileManager.default.removeItem(atPath: module)
                _ = try? runProcess(objcopy, ["--strip-debug", full, module])
            }
            let frames = NamedSanitizerFrame.frames(log).filter { $0.module == module }
            if arguments == ["30", "60", "90"] {
                XCTAssertTrue(frames.contains { $0.name.hasPrefix("books::") }, "C++ names:\n\(log)")
                XCTAssertTrue(frames.contains { $0.name.contains("[clone .") }, "GCC clones:\n\(log)")
            } else {
                // The sanitizer's unwinder stops in Rust's frames, which keep no frame pointer.
                XCTAssertTrue(frames.contains { $0.name.hasPrefix("std::") || $0.name.hasPrefix("rtally::") },
                              "Rust names:\n\(log)")
            }
            try assertSanitizerFramesAgreeWithTheOracle(log: log, frames: frames, object: full)
        }
    }

    /// Clang's AddressSanitizer, whose symbolizer is kept from libc's debug file, names libc's
    /// frames by its dynamic symbols — `raise` where this machine's index keeps `gsignal`,
    /// `__libc_start_main` where it keeps `__libc_start_main_impl` — and the log is written
    /// without build-ids, as GCC's runtime writes it. Nothing contradicts, and the frames
    /// resolve to llvm-symbolizer's file and line (which reads the debug file).
    func testLibcFramesASanitizerNamesByAliasesMeetNoContradiction() throws {
        guard let clang = try LinuxToolchain.asanCompilers().first(where: { $0.name == "clang" }) else {
            throw XCTSkip("clang's AddressSanitizer does not run here")
        }
        let source = scratch.appendingPathComponent("books.cpp")
        try Self.booksProgram.write(to: source, atomically: true, encoding: .utf8)
        let binary = scratch.appendingPathComponent("books").path
        try Evidence.compile(clang.cxx, ["-O2", "-fsanitize=address"] + clang.linkerFlags + ["-o", binary, source.path])
        // A symbolizer that looks for no debug files: the sanitizer's runtime recognizes it by its name.
        let wrapperFolder = scratch.appendingPathComponent("symbolizer")
        try FileManager.default.createDirectory(at: wrapperFolder, withIntermediateDirectories: true)
        let wrapper = wrapperFolder.appendingPathComponent("llvm-symbolizer").path
        try "#!/bin/sh\nexec \(try Oracle.symbolizer()) --debug-file-directory=\(wrapperFolder.path) \"$@\"\n"
            .write(toFile: wrapper, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper)
        let raw = try LinuxToolchain.crashLog(binary, ["30", "60", "90"], environment: [
            "ASAN_OPTIONS": "handle_abort=1", "ASAN_SYMBOLIZER_PATH": wrapper,
        ], label: "books clang")
        let log = raw.replacing(try Regex(#" \(BuildId: [0-9a-f]+\)"#), with: "")
        let libcFrames = NamedSanitizerFrame.frames(log).filter { $0.module.hasSuffix("/libc.so.6") }
        XCTAssertTrue(libcFrames.contains { $0.name == "raise" || $0.name == "gsignal" }, "libc's raise is named:\n\(log)")
        XCTAssertTrue(libcFrames.contains { $0.name == "abort" }, "libc's abort is named:\n\(log)")
        let (result, arguments) = try Evidence.symbolicate(log, name: "books-clang.log", in: scratch)
        XCTAssertEqual(Evidence.contradictionLines(result), [], result.summary(arguments))
        let lines = OutputLines.split(result.stdoutText)
        var cursor = 0
        for frame in libcFrames {
            let got = OutputLines.take(frame.line, kept: frame.prefix, glibc: false, from: lines, cursor: &cursor)
            guard let last = got.last, last != frame.line else {
                XCTFail("\(frame.line) is left unresolved\n" + result.summary(arguments))
                continue
            }
            let oracle = try XCTUnwrap(try LLVMSymbolizer.frames(object: frame.module, address: frame.offset).last)
            let place = " \(oracle.file):\(oracle.line)"
            XCTAssertTrue(last.contains(place + ":") || last.hasSuffix(place), "\(last)\nllvm-symbolizer: \(oracle)")
        }
    }

    /// ThreadSanitizer names a frame without DWARF `#0 bump <null> (race+0x11e7)`; the module is
    /// a file name, matched to the file named with `-d` (the same build, with its DWARF).
    /// Nothing contradicts, and each frame's chain is the sanitizer's own for that build.
    func testAThreadSanitizerLogNamingFramesWithoutLinesMeetsNoContradiction() throws {
        let run = scratch.appendingPathComponent("run")
        let built = scratch.appendingPathComponent("built")
        for folder in [run, built] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        let full = built.appendingPathComponent("race").path
        let probe = try runProcess("/usr/bin/gcc", ["-fsanitize=thread", "-O1", "-g", "-o", full,
                                                     LinuxToolchain.sources.appendingPathComponent("race.c").path])
        guard probe.status == 0 else { throw XCTSkip("gcc's ThreadSanitizer does not link here: \(probe.stderrText)") }
        let stripped = run.appendingPathComponent("race").path
        let objcopy = try LinuxToolchain.tool("objcopy", ["/usr/bin/objcopy", "/opt/swift/usr/bin/llvm-objcopy"])
        XCTAssertEqual(try runProcess(objcopy, ["--strip-debug", full, stripped]).status, 0)
        let log = try LinuxToolchain.crashLog(stripped, [], label: "tsan names",
                                              attempts: LinuxToolchain.threadSanitizerAttempts)
        XCTAssertTrue(log.contains(" <null> (race+0x"), "frames named without a location:\n\(log)")
        let symbolized = try LinuxToolchain.crashLog(full, [], label: "tsan symbolized",
                                                     attempts: LinuxToolchain.threadSanitizerAttempts)
        let (result, arguments) = try Evidence.symbolicate(log, name: "race.log", in: scratch, extra: ["-d", full])
        XCTAssertEqual(Evidence.contradictionLines(result), [], result.summary(arguments))
        let expected = ThreadSanitizerTests.framesByModuleOffset(symbolized, module: "race")
        let got = ThreadSanitizerTests.framesByModuleOffset(result.stdoutText, module: "race")
        let compared = expected.filter { log.contains("(race+\($0.key))") }
        XCTAssertFalse(compared.isEmpty, "the two runs share no frame of the program:\n\(log)\n\(symbolized)")
        for (offset, chain) in compared {
            XCTAssertEqual(got[offset], chain, "race+\(offset)\n" + result.summary(arguments))
        }
    }

    /// Every frame of `frames` is resolved, and its chain is llvm-symbolizer's at its module
    /// offset as printed (sanitizer addresses are the call's).
    private func assertSanitizerFramesAgreeWithTheOracle(log: String, frames: [NamedSanitizerFrame], object: String)
        throws {
        XCTAssertFalse(frames.isEmpty, "no named frame of the program in\n\(log)")
        let (result, arguments) = try Evidence.symbolicate(log, name: "books.log", in: scratch)
        XCTAssertEqual(Evidence.contradictionLines(result), [], result.summary(arguments))
        let lines = OutputLines.split(result.stdoutText)
        var cursor = 0
        let rustHash = try Regex(#"::h[0-9a-f]{16}( |$)"#)
        for frame in frames {
            let got = OutputLines.take(frame.line, kept: frame.prefix, glibc: false, from: lines, cursor: &cursor)
            // A frame the oracle knows no file for is printed as the sanitizer printed it.
            let texts = got.map { SanitizerLog.withoutModuleOffset(String($0.dropFirst(frame.prefix.count))) }
            // Rust names as Rust's backtraces spell them, without their hash.
            let oracle = try LLVMSymbolizer.frames(object: object, address: frame.offset)
                .map { " " + $0.sanitizerText.replacing(rustHash) { String($0.output[1].substring ?? "") } }
            XCTAssertEqual(texts, oracle, "\(frame.line)\n" + result.summary(arguments))
        }
    }
}

/// A sanitizer frame line that names its function and its module: `#3 0x55... in NAME (MODULE+0xOFF)`.
struct NamedSanitizerFrame {
    var line: String
    /// The line up to the end of the address.
    var prefix: String
    var name: String
    var module: String
    var offset: UInt64

    private static let pattern = try! Regex(#"^(\s*#\d+ 0x[0-9a-f]+) in (.+) \(([^ ()]+)\+(0x[0-9a-f]+)\)( \(BuildId: [0-9a-f]+\))?$"#)

    static func frames(_ log: String) -> [NamedSanitizerFrame] {
        log.split(separator: "\n").compactMap { line in
            guard let match = String(line).wholeMatch(of: pattern) else { return nil }
            return NamedSanitizerFrame(line: String(line), prefix: String(match.output[1].substring!),
                                       name: String(match.output[2].substring!), module: String(match.output[3].substring!),
                                       offset: parseHex(String(match.output[4].substring!))!)
        }
    }
}
