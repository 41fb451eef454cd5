import CrashReport
import TestSupport
import XCTest

/// `LinuxLogParser` over handwritten lines of every variant: glibc `backtrace_symbols(_fd)`,
/// sanitizer frames (raw and symbolized), LLVM's PrintStackTrace, and the text around them.
final class LinuxLogParserTests: XCTestCase {
    private func parseLog(_ text: String) throws -> CrashReport {
        try LinuxLogParser.parse(Array(text.utf8), path: "test.log")
    }

    private func frames(_ report: CrashReport) -> [Frame] {
        report.threads.flatMap(\.frames)
    }

    private func image(_ report: CrashReport, _ frame: Frame) -> BinaryImage? {
        frame.image.map { report.images[$0] }
    }

    /// The bytes of a frame's line before `restStart`.
    private func prefix(_ report: CrashReport, _ frame: Frame) -> String {
        let range = report.lines[frame.line]
        return String(decoding: report.bytes[range.lowerBound..<(range.lowerBound + frame.restStart!)], as: UTF8.self)
    }

    // MARK: Swift's "Current stack trace:"

    /// `<unavailable> + OFFSET` is an offset from the module's base: it places the module;
    /// `SYMBOL + OFFSET` names a symbol. All are return addresses (`backtrace()`).
    func testSwiftCurrentStackTrace() throws {
        let text = """
            Fatal error: Index out of range
            Current stack trace:
            0    libswiftCore.so                    0x00007fe4b8b5f130 swift_reportError + 33
            2    libswiftCore.so                    0x00007fe4b8b6df7b <unavailable> + 1499003
            5    inventory                          0x0000557fa3a3b7e4 <unavailable> + 6116
            6    inventory                          0x0000557fa3a3b31c <unavailable> + 4892
            9    libc.so.6                          0x00007fd7ba998bf7 __libc_start_main + 231
            Illegal instruction (core dumped)

            """
        XCTAssertTrue(LinuxLogParser.looksLikeLinuxLog(Array(text.utf8)))
        let report = try ReportParser.parse(Array(text.utf8), path: "swift.log")
        XCTAssertEqual(report.source.kind, .linuxLog)
        XCTAssertEqual(report.threads.count, 1)
        XCTAssertEqual(report.threads[0].name, "Current stack trace:")
        let f = frames(report)
        XCTAssertEqual(f.map(\.index), [0, 2, 5, 6, 9])
        XCTAssertEqual(f.map { image(report, $0)?.name }, ["libswiftCore.so", "libswiftCore.so", "inventory", "inventory", "libc.so.6"])
        XCTAssertEqual(report.images.map(\.loadAddress), [0x7fe4b8b6df7b - 1499003,
                                                          0x557fa3a3b7e4 - 6116, 0])
        XCTAssertEqual(f[0].form, .symbol(name: "swift_reportError", offset: 33))
        XCTAssertEqual(f.map(\.returnAddress), [true, true, true, true, true])
        XCTAssertEqual(f.map { prefix(report, $0).hasSuffix("0x") }, [false, false, false, false, false])
    }

    /// The same shape in an Apple report's thread, without a shared library or
    /// `<unavailable>`, is not a Linux log.
    func testAppleShapedFrameLinesAloneAreNotALinuxLog() {
        let text = """
            0   libsystem_kernel.dylib        0x000000018da6eec4 __pthread_kill + 8
            1   App                           0x0000000104a3c5e0 main + 40

            """
        XCTAssertFalse(LinuxLogParser.looksLikeLinuxLog(Array(text.utf8)))
    }

    // MARK: ThreadSanitizer

    /// ThreadSanitizer prints no address: the module offset is the frame's address, the text
    /// from the function on is what a resolution replaces, and `<null>` means unknown.
    func testThreadSanitizerLinesWithoutAddresses() throws {
        let text = """
            WARNING: ThreadSanitizer: data race (pid=19278)
              Write of size 4 at 0x560cc70e605c by main thread:
                #0 <null> <null> (race+0x1272)
                #1 <null> <null> (libc.so.6+0x27249) (BuildId: 93ac61ec)

              Previous write of size 4 at 0x560cc70e605c by thread T1:
                #0 add_to_counter /src/race.c:9 (race+0x11e7)
                #1 pthread_create ../tsan_interceptors_posix.cpp:1001 (libtsan.so.2+0x5e686)
                #2 operator new(unsigned long) <null> (libtsan.so.2+0x8c8d5)
              Location is global '<null>' at 0x000000000000 (race+0x405c)

            """
        let report = try parseLog(text)
        XCTAssertEqual(report.source.kind, .linuxLog)
        XCTAssertEqual(report.threads.count, 2)
        XCTAssertEqual(report.threads.map(\.name), ["Write of size 4 at 0x560cc70e605c by main thread:",
                                                    "Previous write of size 4 at 0x560cc70e605c by thread T1:"])
        let f = frames(report)
        XCTAssertEqual(f.map(\.address), [0x1272, 0x27249, 0x11e7, 0x5e686, 0x8c8d5])
        XCTAssertEqual(f.map(\.imageOffset), [0x1272, 0x27249, 0x11e7, 0x5e686, 0x8c8d5])
        XCTAssertEqual(f.map { image(report, $0)?.name }, ["race", "libc.so.6", "race", "libtsan.so.2", "libtsan.so.2"])
        XCTAssertEqual(image(report, f[1])?.uuid, "93ac61ec")
        XCTAssertEqual(f.map(\.returnAddress), [false, false, false, false, false], "symbolized as printed")
        XCTAssertEqual(f.map { prefix(report, $0).trimmingCharacters(in: .whitespaces) }, ["#0", "#1", "#0", "#1", "#2"])
        XCTAssertEqual(f[0].form, .unknown)
        XCTAssertEqual(f[2].form, .symbolicated(name: "add_to_counter", offset: nil, file: "/src/race.c", line: 9))
        XCTAssertEqual(f[4].form, .unknown, "a function without a location is not a location")
    }

    // MARK: glibc

    func testGlibcFdLinesOfAPIEProgram() throws {
        let text = """
            backtrace:
            ./prog(+0x1279)[0x55fd7aec4279]
            /lib/x86_64-linux-gnu/libc.so.6(+0x3c050)[0x7f69c0e67050]
            ./prog(+0x1388)[0x55fd7aec4388]
            /lib/x86_64-linux-gnu/libc.so.6(__libc_start_main+0x85)[0x7f69c0e52305]

            """
        let report = try parseLog(text)
        XCTAssertEqual(report.source.kind, .linuxLog)
        XCTAssertEqual(report.threads.count, 1)
        let thread = report.threads[0]
        XCTAssertEqual(thread.kind, .thread(0))
        XCTAssertTrue(thread.crashed)
        XCTAssertEqual(thread.name, "backtrace:")
        XCTAssertEqual(thread.headerLine, 0)
        XCTAssertEqual(report.crashedThread, 0)

        XCTAssertEqual(report.images.count, 2)
        XCTAssertEqual(report.images[0], BinaryImage(loadAddress: 0, endAddress: 0, name: "prog", path: "./prog",
                                                     line: 1, format: .elf))
        XCTAssertEqual(report.images[1].name, "libc.so.6")
        XCTAssertEqual(report.images[1].path, "/lib/x86_64-linux-gnu/libc.so.6")
        XCTAssertNil(report.images[1].uuid)

        let f = thread.frames
        XCTAssertEqual(f.map(\.index), [0, 1, 2, 3])
        XCTAssertEqual(f.map(\.line), [1, 2, 3, 4])
        XCTAssertEqual(f.map(\.image), [0, 1, 0, 1])
        XCTAssertEqual(f.map(\.imageName), ["./prog", "/lib/x86_64-linux-gnu/libc.so.6", "./prog",
                                            "/lib/x86_64-linux-gnu/libc.so.6"])
        XCTAssertEqual(f.map(\.address), [0x55fd7aec4279, 0x7f69c0e67050, 0x55fd7aec4388, 0x7f69c0e52305])
        XCTAssertEqual(f.map(\.imageOffset), [0x1279, 0x3c050, 0x1388, nil])
        XCTAssertEqual(f.map(\.form), [.unknown, .unknown, .unknown, .symbol(name: "__libc_start_main", offset: 0x85)])
        // The unnamed __restore_rt cannot be told from other libc frames: every frame is a return address.
        XCTAssertEqual(f.map(\.returnAddress), [true, true, true, true])
        // The symbolication goes after "[0x...]".
        XCTAssertEqual(prefix(report, f[0]), "./prog(+0x1279)[0x55fd7aec4279]")
        XCTAssertEqual(prefix(report, f[3]), "/lib/x86_64-linux-gnu/libc.so.6(__libc_start_main+0x85)[0x7f69c0e52305]")
        XCTAssertEqual(renderedUnchanged(report), Array(text.utf8))
    }

    func testGlibcBacktraceSymbolsLinesWithPrefixes() throws {
        let text = """
            2024-05-01T12:00:00Z app[123]: ./prog(main+0x1b) [0x55d0c0a01234]
            2024-05-01T12:00:00Z app[123]: ./prog(+0x1234) [0x55d0c0a01234]
            2024-05-01T12:00:00Z app[123]: ./prog() [0x401136]
            2024-05-01T12:00:00Z app[123]: /usr/lib/libfoo.so(_ZN3foo3barEv-0x10) [0x7f0000001000]
            """
        let report = try parseLog(text)
        XCTAssertEqual(report.threads.count, 1)
        let f = report.threads[0].frames
        XCTAssertEqual(f.count, 4)
        XCTAssertEqual(f.map(\.imageName), ["./prog", "./prog", "./prog", "/usr/lib/libfoo.so"])
        XCTAssertEqual(f.map(\.form), [.symbol(name: "main", offset: 0x1b), .unknown, .unknown, .unknown])
        // "()" means no symbol and a load bias of 0 (glibc prints the group only otherwise):
        // the absolute address is the link-time address.
        XCTAssertEqual(f.map(\.imageOffset), [nil, 0x1234, 0x401136, nil])
        XCTAssertEqual(f.map(\.address), [0x55d0c0a01234, 0x55d0c0a01234, 0x401136, 0x7f0000001000])
        XCTAssertEqual(prefix(report, f[2]), "2024-05-01T12:00:00Z app[123]: ./prog() [0x401136]")
        XCTAssertNil(report.threads[0].name)
        XCTAssertEqual(report.images.map(\.name), ["prog", "libfoo.so"])
    }

    func testGlibcFdLinesOfANonPIEProgram() throws {
        // backtrace_symbols_fd leaves the parentheses out when there is no symbol and the load
        // bias is 0.
        let text = """
            ./prog-nopie[0x401269]
            /lib/x86_64-linux-gnu/libc.so.6(+0x3c050)[0x7fccc4385050]
            ./prog-nopie[0x401378]
            [0x7fccc4370305]
            """
        let report = try parseLog(text)
        let f = report.threads[0].frames
        XCTAssertEqual(f.count, 4)
        XCTAssertEqual(f.map(\.imageOffset), [0x401269, 0x3c050, 0x401378, nil])
        XCTAssertEqual(f.map(\.imageName), ["./prog-nopie", "/lib/x86_64-linux-gnu/libc.so.6", "./prog-nopie", nil])
        XCTAssertNil(f[3].image)
        XCTAssertEqual(f.map(\.index), [0, 1, 2, 3])
    }

    func testWeakGlibcLinesCountOnlyNextToClearerOnes() throws {
        // "prog[0x...]" without a slash, and "[0x...]", could be anything on their own.
        let alone = try parseLog("note: table[0x10]\nprog[0x401269]\n[0x7f00]\nthe end\n")
        XCTAssertTrue(alone.threads.isEmpty)
        XCTAssertFalse(LinuxLogParser.looksLikeLinuxLog(Array("prog[0x401269]\n[0x7f00]\n".utf8)))

        // Before a clearer line they join its run, and the line before them names it.
        let joined = try parseLog("backtrace:\nprog[0x401269]\n[0x7f00]\n/lib/libc.so.6(abort+0xd3)[0x7f01]\n")
        XCTAssertEqual(joined.threads.count, 1)
        XCTAssertEqual(joined.threads[0].name, "backtrace:")
        XCTAssertEqual(joined.threads[0].frames.map(\.imageName), ["prog", nil, "/lib/libc.so.6"])
        XCTAssertEqual(joined.threads[0].frames.map(\.index), [0, 1, 2])
        XCTAssertEqual(joined.threads[0].frames.map(\.line), [1, 2, 3])
    }

    func testFrameAfterANamedSignalTrampolineIsThePC() throws {
        let text = """
            ./prog(handler+0x20)[0x55d0c0a01020]
            /lib/x86_64-linux-gnu/libc.so.6(__restore_rt+0x0)[0x7f69c0e67050]
            ./prog(+0x1388)[0x55d0c0a01388]
            ./prog(+0x1324)[0x55d0c0a01324]
            backtrace of another crash:
            ./prog(handler+0x20)[0x55d0c0a01020]
            linux-vdso.so.1(__kernel_rt_sigreturn+0x0)[0xffff8e5f07a0]
            ./prog(+0x1388)[0x55d0c0a01388]
            ./prog(+0x1324)[0x55d0c0a01324]
            a vDSO frame without a name, after the vDSO named before:
            ./prog(handler+0x20)[0x55d0c0a01020]
            linux-vdso.so.1(+0x7a0)[0xffff8e5f07a0]
            ./prog(+0x1388)[0x55d0c0a01388]
            ./prog(+0x1324)[0x55d0c0a01324]
            and by its other name, first met here:
            ./prog(handler+0x20)[0x55d0c0a01020]
            [vdso](+0x7a0)[0xffff8e5f07a0]
            ./prog(+0x1388)[0x55d0c0a01388]
            ./prog(+0x1324)[0x55d0c0a01324]
            """
        let report = try parseLog(text)
        XCTAssertEqual(report.threads.count, 4)
        XCTAssertEqual(report.threads[1].name, "backtrace of another crash:")
        XCTAssertFalse(report.threads[1].crashed)
        for thread in report.threads {
            XCTAssertEqual(thread.frames.map(\.returnAddress), [true, true, false, true])
        }
    }

    /// A module is one image however its path is spelled: in UTF-8, in ASCII, or in bytes
    /// that are not UTF-8 (which two frames of one module spell alike), and two paths that
    /// differ only in such bytes are one path as the report holds them.
    func testFramesOfOneModuleShareItsImageWhateverItsBytes() throws {
        var bytes: [UInt8] = []
        for (k, module) in ["/srv/ünïcode/app", "/srv/app", "/srv/\u{FFFD}/app"].enumerated() {
            for n in 0..<3 {
                var path = Array(module.utf8)
                if k == 2 { path = Array("/srv/".utf8) + [n == 2 ? 0xFE : 0xFF] + Array("/app".utf8) }
                bytes += Array("    #\(n) 0x55c9f9e4943d  (".utf8) + path + Array("+0x17443\(n)) (BuildId: ab)\n".utf8)
            }
            bytes += Array("\n".utf8)
        }
        let report = try LinuxLogParser.parse(bytes, path: "test.log")
        XCTAssertEqual(report.threads.count, 3)
        XCTAssertEqual(report.images.map(\.path), ["/srv/ünïcode/app", "/srv/app", "/srv/\u{FFFD}/app"])
        XCTAssertEqual(report.threads.map { $0.frames.map(\.image) }, [[0, 0, 0], [1, 1, 1], [2, 2, 2]])
        XCTAssertEqual(frames(report).map(\.imageName), report.threads.indices.flatMap { t in
            Array(repeating: report.images[t].path, count: 3)
        })
    }

    func testCRLFAndAByteOrderMark() throws {
        let text = "\u{FEFF}./prog(+0x1279)[0x55fd7aec4279]\r\n./prog(+0x1388) [0x55fd7aec4388]  \r\n"
        let report = try parseLog(text)
        let f = report.threads[0].frames
        XCTAssertEqual(f.map(\.imageOffset), [0x1279, 0x1388])
        XCTAssertEqual(prefix(report, f[0]), "\u{FEFF}./prog(+0x1279)[0x55fd7aec4279]")
        XCTAssertEqual(prefix(report, f[1]), "./prog(+0x1388) [0x55fd7aec4388]")
        XCTAssertEqual(renderedUnchanged(report), Array(text.utf8))
    }

    // MARK: Sanitizers

    static let asanLog = """
        =================================================================
        ==12138==ERROR: AddressSanitizer: heap-use-after-free on address 0x7b6b565e0028 at pc 0x55c9f9e4943e bp 0x7ffc9b6476b0 sp 0x7ffc9b6476a8
        READ of size 4 at 0x7b6b565e0028 thread T0
            #0 0x55c9f9e4943d  (/tmp/lx/asan-clang+0x17443d)
            #1 0x55c9f9e48eee  (/tmp/lx/asan-clang+0x173eee) (BuildId: 4F2C0A1B)
            #2 0x7f0b57245249  (/lib/x86_64-linux-gnu/libc.so.6+0x27249) (BuildId: 93ac61ec5a8eb1396f9fbd350e3169a558528a40)

        0x7b6b565e0028 is located 8 bytes inside of 64-byte region [0x7b6b565e0020,0x7b6b565e0060)
        freed by thread T0 here:
            #0 0x7fedd0aba038  (/lib/x86_64-linux-gnu/libasan.so.8+0xba038)
            #1 0x5650dead04cc  (/tmp/lx/asan-clang+0x14cc)
            #2 0x400000002  (<unknown module>)

        SUMMARY: AddressSanitizer: heap-use-after-free (/tmp/lx/asan-clang+0x17443d)
        """

    func testUnsymbolizedSanitizerFrames() throws {
        let report = try parseLog(Self.asanLog)
        XCTAssertEqual(report.threads.count, 2)
        XCTAssertEqual(report.threads.map(\.kind), [.thread(0), .thread(1)])
        XCTAssertEqual(report.threads.map(\.crashed), [true, false])
        XCTAssertEqual(report.threads.map(\.name), ["READ of size 4 at 0x7b6b565e0028 thread T0", "freed by thread T0 here:"])
        XCTAssertEqual(report.threads.map(\.headerLine), [2, 8])

        XCTAssertEqual(report.images.map(\.path), ["/tmp/lx/asan-clang", "/lib/x86_64-linux-gnu/libc.so.6",
                                                   "/lib/x86_64-linux-gnu/libasan.so.8"])
        XCTAssertEqual(report.images.map(\.name), ["asan-clang", "libc.so.6", "libasan.so.8"])
        // The build-id of a later line fills in the image's; lowercase.
        XCTAssertEqual(report.images.map(\.uuid), ["4f2c0a1b", "93ac61ec5a8eb1396f9fbd350e3169a558528a40", nil])
        XCTAssertTrue(report.images.allSatisfy { $0.format == .elf && $0.loadAddress == 0 && $0.endAddress == 0 })

        let first = report.threads[0].frames
        XCTAssertEqual(first.map(\.index), [0, 1, 2])
        XCTAssertEqual(first.map(\.address), [0x55c9f9e4943d, 0x55c9f9e48eee, 0x7f0b57245249])
        XCTAssertEqual(first.map(\.imageOffset), [0x17443d, 0x173eee, 0x27249])
        XCTAssertEqual(first.map(\.image), [0, 0, 1])
        XCTAssertEqual(first.map(\.form), [.unknown, .unknown, .unknown])
        // Sanitizers print the address they symbolize: already moved to the call.
        XCTAssertEqual(first.map(\.returnAddress), [false, false, false])
        // The text after the address is replaced, from right after it.
        XCTAssertEqual(prefix(report, first[0]), "    #0 0x55c9f9e4943d")

        let freed = report.threads[1].frames
        XCTAssertEqual(freed.map(\.image), [2, 0, nil])
        XCTAssertEqual(freed.map(\.imageName), ["/lib/x86_64-linux-gnu/libasan.so.8", "/tmp/lx/asan-clang", nil])
        XCTAssertEqual(freed.map(\.imageOffset), [0xba038, 0x14cc, nil])
        XCTAssertEqual(freed.map(\.returnAddress), [false, false, false])
        XCTAssertEqual(renderedUnchanged(report), Array(Self.asanLog.utf8))
    }

    func testSymbolizedSanitizerFrames() throws {
        let text = """
                #0 0x5607584d843d in ledger::Ledger::balance(int) const::$_0::operator()(ledger::Entry const&) const /src/ledger.cpp:24:82
                #1 0x5607584d843d in long ledger::sum_if<ledger::Ledger::balance(int) const::$_0>(ledger::Entry const*, int, ledger::Ledger::balance(int) const::$_0) /src/ledger.hpp:21:13
                #2 0x55d0c0a01234 in foo /src/a.c:10
                #3 0x7f0b57245304 in __libc_start_main (/lib/x86_64-linux-gnu/libc.so.6+0x2409a)
                #4 0x4f7a3e in foo (/path/prog+0x4f7a3e)
                #5 0x10bd5c1e4 in bar+0x24 (/path with blanks/prog+0x11e4) (BuildId: ab)
                #6 0x5607583e4260 in operator delete[](void*)
            """
        let report = try parseLog(text)
        XCTAssertEqual(report.threads.count, 1)
        let f = report.threads[0].frames
        XCTAssertEqual(f.map(\.index), [0, 1, 2, 3, 4, 5, 6])
        XCTAssertEqual(f[0].form, .symbolicated(
            name: "ledger::Ledger::balance(int) const::$_0::operator()(ledger::Entry const&) const",
            offset: nil, file: "/src/ledger.cpp", line: 24))
        XCTAssertEqual(f[1].form, .symbolicated(
            name: "long ledger::sum_if<ledger::Ledger::balance(int) const::$_0>(ledger::Entry const*, int, ledger::Ledger::balance(int) const::$_0)",
            offset: nil, file: "/src/ledger.hpp", line: 21))
        XCTAssertEqual(f[2].form, .symbolicated(name: "foo", offset: nil, file: "/src/a.c", line: 10))
        XCTAssertEqual(f[3].form, .unknown)
        XCTAssertEqual(f[4].form, .unknown)
        XCTAssertEqual(f[5].form, .symbol(name: "bar", offset: 0x24))
        XCTAssertEqual(f[6].form, .unknown)
        XCTAssertEqual(f.map(\.imageName), [nil, nil, nil, "/lib/x86_64-linux-gnu/libc.so.6", "/path/prog",
                                            "/path with blanks/prog", nil])
        XCTAssertEqual(f.map(\.imageOffset), [nil, nil, nil, 0x2409a, 0x4f7a3e, 0x11e4, nil])
        XCTAssertEqual(f.map(\.address), [0x5607584d843d, 0x5607584d843d, 0x55d0c0a01234, 0x7f0b57245304, 0x4f7a3e,
                                          0x10bd5c1e4, 0x5607583e4260])
        XCTAssertEqual(report.images.map(\.name), ["libc.so.6", "prog", "prog"])
        XCTAssertEqual(report.images.map(\.uuid), [nil, nil, "ab"])
        XCTAssertTrue(f.allSatisfy { $0.returnAddress == false })
        XCTAssertEqual(prefix(report, f[4]), "    #4 0x4f7a3e")
    }

    func testInlinedFramesOfASymbolizedLog() throws {
        let text = """
                #0 0x562904bdf666 in ledger::read_slot(long const*, int) /src/ledger.cpp:29:12
                #1 0x562904bdf666 in ledger::window_sum(long const*, int, int) /src/ledger.cpp:36:18
                #2 0x562904bdf666 in ledger::peek_window(int, int) /src/ledger.cpp:45:12
                #3 0x562904bdef40 in fact(int) /src/fact.cpp:3:12
                #4 0x562904bdef40 in fact(int) /src/fact.cpp:3:12
                #5 0x562904bdef60 in main /src/main.cpp:9:3
            """
        let report = try parseLog(text)
        // A recursive call repeats the address but also the function: not inlined.
        XCTAssertEqual(report.threads[0].frames.map(\.inlined), [true, true, false, false, false, false])
    }

    func testOwnOutputReadBack() throws {
        // This tool repeats a frame's number on its inlined lines, "#0" included.
        let text = """
                #0 0x55c9f9e4943d in item_weight /src/inventory.h:25:12
                #0 0x55c9f9e4943d in inventory_total /src/inventory.c:10:18
                #1 0x55c9f9e48eee in main /src/main.c:39
                #0 0x55c9f9e4835d in operator delete[](void*) /src/asan_new_delete.cpp:179:46
            """
        let report = try parseLog(text)
        XCTAssertEqual(report.threads.map { $0.frames.map(\.index) }, [[0, 0, 1], [0]])
        XCTAssertEqual(report.threads[0].frames.map(\.inlined), [true, false, false])
    }

    func testEachFrameZeroStartsANewThread() throws {
        let text = """
                #0 0x1000  (/p+0x1000)
                #1 0x2000  (/p+0x2000)
                #0 0x3000  (/p+0x3000)
                #1 0x4000  (/p+0x4000)
            Address 0x7b7c9c800060 is located in stack of thread T0 at offset 96 in frame
                #0 0x562904bdf45f in ledger::peek_window(int, int) /src/ledger.cpp:41
            """
        let report = try parseLog(text)
        XCTAssertEqual(report.threads.map(\.kind), [.thread(0), .thread(1), .thread(2)])
        XCTAssertEqual(report.threads.map { $0.frames.map(\.address) }, [[0x1000, 0x2000], [0x3000, 0x4000], [0x562904bdf45f]])
        XCTAssertEqual(report.threads.map(\.name), [nil, nil, "Address 0x7b7c9c800060 is located in stack of thread T0 at offset 96 in frame"])
        XCTAssertEqual(report.images.count, 1)
        XCTAssertEqual(report.threads[2].frames[0].form,
                       .symbolicated(name: "ledger::peek_window(int, int)", offset: nil, file: "/src/ledger.cpp", line: 41))
    }

    // MARK: LLVM

    func testLLVMPrintStackTraceFrames() throws {
        let text = """
            Stack dump:
            0.	Program arguments: clang -c a.c
             #0 0x000055d0c0a01234 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/usr/bin/clang+0x1234)
             #1 0x000055d0c0a01300 SignalHandler(int) Signals.cpp:0:0
             #2 0x00007f0b57245249 (/lib/x86_64-linux-gnu/libc.so.6+0x3c050)
             #3 0x000055d0c0a01500 foo /src/a.c:10:5
             #4 0x000055d0c0a01600 (/usr/bin/clang+0x1600)
             #5 0x00007f0b57245304
            """
        let report = try parseLog(text)
        XCTAssertEqual(report.threads.count, 1)
        XCTAssertEqual(report.threads[0].name, "0.\tProgram arguments: clang -c a.c")
        let f = report.threads[0].frames
        XCTAssertEqual(f.map(\.index), [0, 1, 2, 3, 4, 5])
        XCTAssertEqual(f.map(\.imageName), ["/usr/bin/clang", nil, "/lib/x86_64-linux-gnu/libc.so.6", nil,
                                            "/usr/bin/clang", nil])
        XCTAssertEqual(f.map(\.imageOffset), [0x1234, nil, 0x3c050, nil, 0x1600, nil])
        XCTAssertEqual(f[0].form, .unknown)
        XCTAssertEqual(f[1].form, .symbolicated(name: "SignalHandler(int)", offset: nil, file: "Signals.cpp", line: 0))
        XCTAssertEqual(f[3].form, .symbolicated(name: "foo", offset: nil, file: "/src/a.c", line: 10))
        // LLVM prints backtrace()'s return addresses unchanged.
        XCTAssertTrue(f.allSatisfy { $0.returnAddress == true })
        XCTAssertEqual(prefix(report, f[4]), " #4 0x000055d0c0a01600")
    }

    /// A function a line names without a source location or an offset leaves the form unknown,
    /// and is kept as the frame's `loggedName` (what a frame's file is checked by): a
    /// sanitizer's `in NAME`, LLVM's `NAME`, ThreadSanitizer's `NAME <null>`. Lines that name
    /// none, name `<null>`, or name a symbol the address lies before (glibc's `NAME-0xOFF`)
    /// keep none, and forms with a name of their own keep it there.
    func testNameOfAnUnknownFormIsKeptAsTheLoggedName() throws {
        let sanitizer = try parseLog("""
                #0 0x7f0b5725a26c in gsignal (/lib/x86_64-linux-gnu/libc.so.6+0x3c26c) (BuildId: 93ac61ec)
                #1 0x55c9f9e4943d  (/tmp/lx/asan-clang+0x17443d)
                #2 0x55c9f9e48eee in main+0x12 (/tmp/lx/asan-clang+0x173eee)
                #3 0x55c9f9e48f00 in crash_here /src/a.c:10:5
            """)
        XCTAssertEqual(frames(sanitizer).map(\.loggedName), ["gsignal", nil, nil, nil])
        XCTAssertEqual(frames(sanitizer)[2].form, .symbol(name: "main", offset: 0x12))
        let llvm = try parseLog("""
             #0 0x000055d0c0a01234 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/usr/bin/clang+0x1234)
             #1 0x00007f0b57245249 (/lib/x86_64-linux-gnu/libc.so.6+0x3c050)
            """)
        XCTAssertEqual(frames(llvm).map(\.loggedName), ["llvm::sys::PrintStackTrace(llvm::raw_ostream&, int)", nil])
        let threadSanitizer = try parseLog("""
            WARNING: ThreadSanitizer: data race (pid=19278)
              Write of size 4 at 0x560cc70e605c by main thread:
                #0 <null> <null> (race+0x1272)
                #1 operator new(unsigned long) <null> (libtsan.so.2+0x8c8d5)
                #2 add_to_counter /src/race.c:9 (race+0x11e7)
            """)
        XCTAssertEqual(frames(threadSanitizer).map(\.loggedName), [nil, "operator new(unsigned long)", nil])
        let glibc = try parseLog("./prog(helper-0x10)[0x1010]\n./prog(main+0x20)[0x1020]\n")
        XCTAssertEqual(frames(glibc).map(\.loggedName), [nil, nil])
        // Setting the form clears it; another form takes none.
        var frame = frames(sanitizer)[0]
        frame.form = .symbol(name: "raise", offset: 4)
        frame.loggedName = "gsignal"
        XCTAssertNil(frame.loggedName)
        frame.form = .unknown
        XCTAssertNil(frame.loggedName)
        XCTAssertNotEqual(frame, frames(sanitizer)[0])
    }

    func testLLVMFrameAfterANamedTrampolineIsThePC() throws {
        let text = """
            #0 0x000055d0c0a01234 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/usr/bin/clang+0x1234)
            #1 0x00007f0b57245249 __restore_rt (/lib/x86_64-linux-gnu/libc.so.6+0x3c050)
            #2 0x000055d0c0a01500 (/usr/bin/clang+0x1500)
            #3 0x000055d0c0a01600 (/usr/bin/clang+0x1600)
            """
        let report = try parseLog(text)
        XCTAssertEqual(report.threads[0].frames.map(\.returnAddress), [true, true, false, true])
    }

    /// A run is a sanitizer's when any of its lines has a sanitizer's marks, the first or a
    /// later one: every frame of it is looked up as printed, those before that line too, and
    /// a frame whose address cannot be read among them.
    func testARunIsASanitizersFromAnyOfItsLines() throws {
        let text = """
            #0 0x000055d0c0a01234 (/usr/bin/prog+0x1234)
            #1 0x1ffffffffffffffffff (/usr/bin/prog+0x1300)
            #2 0x000055d0c0a01500 (/usr/bin/prog+0x1500)
            #3 0x000055d0c0a01600  (/usr/bin/prog+0x1600) (BuildId: 4f2c0a1b)
            #4 0x000055d0c0a01700 (/usr/bin/prog+0x1700)
            """
        let report = try parseLog(text)
        XCTAssertEqual(report.threads.count, 1)
        XCTAssertEqual(report.threads[0].frames.map(\.returnAddress), [false, false, false, false, false])
        XCTAssertEqual(report.threads[0].frames.map(\.addressUnknown), [false, true, false, false, false])
        // Without the sanitizer's line, LLVM's return addresses.
        let llvm = try parseLog(text.split(separator: "\n").filter { !$0.contains("BuildId") }.joined(separator: "\n"))
        XCTAssertEqual(llvm.threads[0].frames.map(\.returnAddress), [true, true, true, true])
    }

    // MARK: Text, detection, damage

    func testMixedRunsAndVerbatimText() throws {
        let text = "start\n./prog(+0x10)[0x1010]\n    #0 0x2000  (/p+0x2000)\n./prog(+0x20)[0x1020]\n\nend"
        let report = try parseLog(text)
        XCTAssertEqual(report.threads.count, 3)
        XCTAssertEqual(report.threads.map(\.name), ["start", nil, nil])
        XCTAssertEqual(report.threads.map { $0.frames.map(\.returnAddress) }, [[true], [false], [true]])
        XCTAssertEqual(report.lines.count, 6)
        XCTAssertEqual(report.lines.last, (text.utf8.count - 3)..<text.utf8.count)
        XCTAssertEqual(renderedUnchanged(report), Array(text.utf8))
    }

    func testDetection() {
        let linux = [
            "./prog(+0x1279)[0x55fd7aec4279]\n",
            "x: /lib/libc.so.6(abort+0x12b) [0x7f0000000000]\n",
            "./prog() [0x401136]\n",
            "/opt/app/prog[0x401136]\n",
            "    #0 0x55c9f9e4943d  (/tmp/a+0x17443d)\n",
            "    #3 0x55d0c0a01234 in foo /src/a.c:10:5\n",
            " #1 0x000055d0c0a01300 SignalHandler(int) Signals.cpp:0:0\n",
        ]
        for text in linux {
            XCTAssertTrue(LinuxLogParser.looksLikeLinuxLog(Array(text.utf8)), text)
        }
        let other = [
            "", "hello\n", "#1 0x10\n", "prog[0x10]\n", "# 0x10 in foo\n", "issue#3 0x10 in foo\n",
            "0   libsystem_kernel.dylib        0x000000018da6eec4 __pthread_kill + 8\n",
            // An Apple report quoting a sanitizer's frames in its Application Specific Information.
            "Incident Identifier: 6156848E-344E-4D9E-84E0-87AFD0D0AE7B\nApplication Specific Information:\n    #0 0x1000 in foo /a.c:1:2\n",
            "    #0 0x1000 in foo /a.c:1:2\nThread 0 Crashed:\n0   App   0x1000 foo + 1\n",
        ]
        for text in other {
            XCTAssertFalse(LinuxLogParser.looksLikeLinuxLog(Array(text.utf8)), text)
        }
    }

    func testAppleReportsAreNotLinuxLogs() throws {
        var checked = 0
        var directories: [URL] = [Corpus.directory]
        if let fixtures = TestPaths.fixtures { directories.append(fixtures.appendingPathComponent("reports")) }
        for directory in directories {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { continue }
            for name in names.sorted() where !name.hasPrefix(".") && !name.hasSuffix(".tsv") {
                let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))
                XCTAssertFalse(LinuxLogParser.looksLikeLinuxLog(bytes), "\(directory.lastPathComponent)/\(name)")
                checked += 1
            }
        }
        if checked == 0 { throw XCTSkip("neither the shared corpus nor Fixtures/build/reports is present") }
    }

    func testEmptyAndBinaryInput() {
        XCTAssertThrowsError(try LinuxLogParser.parse([], path: "e.log")) {
            XCTAssertEqual($0 as? ReportError, .empty("e.log"))
        }
        XCTAssertThrowsError(try LinuxLogParser.parse(Array(" \n\t\r\n".utf8), path: "e.log")) {
            XCTAssertEqual($0 as? ReportError, .empty("e.log"))
        }
        XCTAssertThrowsError(try LinuxLogParser.parse([0x2E, 0x00, 0x41], path: "b.log")) {
            XCTAssertEqual($0 as? ReportError, .notAReport("b.log"))
        }
    }

    func testOddLinesAreNotFrames() throws {
        let text = """
            ./prog(+0x)[0x10]
            ./prog(+0x10)[0x]
            ./prog(+0x10)[]
            ./prog(+0x10)[0x10 ]
            ./prog(+0x10)[0x11111111111111111]
            ./prog(foo)[0x10]
            (+0x10)[0x10]
            #x 0x10 in foo
            #1 0x in foo
            #1 0x10in foo
            #99999999999999999999 0x10 in foo
            """
        let report = try parseLog(text)
        XCTAssertTrue(report.threads.isEmpty, "\(report.threads)")
        XCTAssertTrue(report.images.isEmpty)
    }

    /// Random bytes, and random damage to a real log, never crash the parser, and what it
    /// returns stays inside the input.
    func testRandomInputs() throws {
        var random = SplitMix64(seed: 0x11C0_FFEE)
        let alphabet = Array("#0x123456789abcdef()[]+-. /\tin:_BuildId<>unknown module\n\r".utf8)
        let sample = Array((Self.asanLog + "\n./prog(+0x1279)[0x55fd7aec4279]\n/lib/libc.so.6(abort+0xd3) [0x7f]\nprog[0x401269]\n[0x7f00]\n").utf8)
        var parsed = 0, withFrames = 0
        for round in 0..<3000 {
            var bytes: [UInt8]
            switch round % 3 {
            case 0:
                bytes = (0..<Int.random(in: 0...200, using: &random)).map { _ in UInt8.random(in: 1...255, using: &random) }
            case 1:
                bytes = (0..<Int.random(in: 0...300, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            default:
                bytes = sample
                for _ in 0..<Int.random(in: 1...20, using: &random) {
                    let at = Int.random(in: 0..<bytes.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: bytes[at] = alphabet.randomElement(using: &random)!
                    case 1: bytes.remove(at: at)
                    default: bytes.insert(alphabet.randomElement(using: &random)!, at: at)
                    }
                }
            }
            _ = LinuxLogParser.looksLikeLinuxLog(bytes)
            guard let report = try? LinuxLogParser.parse(bytes, path: "fuzz.log") else { continue }
            parsed += 1
            if !report.threads.isEmpty { withFrames += 1 }
            XCTAssertEqual(report.lines.map { bytes[$0] }.joined().count, bytes.count)
            for thread in report.threads {
                XCTAssertFalse(thread.frames.isEmpty)
                for frame in thread.frames {
                    XCTAssertTrue(report.lines.indices.contains(frame.line))
                    let range = report.lines[frame.line]
                    // Only a frame whose address cannot be read has no rest to replace.
                    XCTAssertTrue((0...range.count).contains(frame.restStart ?? -1) || frame.addressUnknown)
                    if let image = frame.image { XCTAssertTrue(report.images.indices.contains(image)) }
                }
            }
            XCTAssertEqual(renderedUnchanged(report), bytes)
        }
        // So that the checks above run: most inputs parse, and most damaged logs (a third of
        // the inputs) keep frames whose lines and images are checked.
        XCTAssertGreaterThan(parsed, 1500, "inputs parsed, of 3000")
        XCTAssertGreaterThan(withFrames, 900, "inputs parsed with frames, of 3000 (1000 of them damaged logs)")
    }
}
