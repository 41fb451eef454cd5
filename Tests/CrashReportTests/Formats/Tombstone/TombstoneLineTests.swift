@testable import CrashReport
import XCTest

/// `TombstoneLineReader` on single lines: logcat's prefixes, the kinds of lines, and the parts
/// of frame lines in every variant Android prints, damaged ones included.
final class TombstoneLineTests: XCTestCase {
    private func read(_ text: String) -> TombstoneLine? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { TombstoneLineReader($0).read(0..<bytes.count) }
    }

    private func frame(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> TombstoneFrameLine? {
        guard case .frame(let frame)? = read(text)?.kind else {
            XCTFail("not a frame line: \(text)", file: file, line: line)
            return nil
        }
        return frame
    }

    // MARK: Logcat prefixes

    /// Every logcat layout's prefix is passed over; the tombstone's text starts after it.
    func testLogcatPrefixesOfEveryLayout() {
        let text = "      #00 pc 000000000000433c  /data/app/lib/arm64/libcrashy.so (cart_total+36)"
        for prefix in [
            "I/DEBUG   (  135): ",
            "11-20 10:00:00.456 I/DEBUG   (  135): ",
            "11-20 10:00:00.456  4242  4242 F DEBUG   : ",
            "11-20 10:00:00.456  4242  4242 A DEBUG   : ",
            "2023-11-20 10:00:00.456  4242  4242 F DEBUG   : ",
            "11-20 10:00:00.456 u0_a123  4242  4242 F DEBUG   : ",
            "1700000000.456  4242  4242 F DEBUG   : ",
        ] {
            let line = read(prefix + text + "\n")
            XCTAssertEqual(line?.prefixed, true, prefix)
            XCTAssertEqual(line?.textStart, prefix.utf8.count, prefix)
            guard case .frame(let frame)? = line?.kind else { return XCTFail("no frame behind \(prefix)") }
            XCTAssertEqual(frame.pc, 0x433c, prefix)
            XCTAssertEqual(frame.restStart, (prefix + text).utf8.count, "the end of the line's text, before its newline")
        }
    }

    /// A logcat line of another tag is another program's: no part of the tombstone.
    func testLogcatLinesOfOtherTagsAreNotTheTombstones() {
        XCTAssertNil(read("11-20 10:00:00.456  4242  4242 F libc    : Fatal signal 11 (SIGSEGV)"))
        XCTAssertNil(read("W/ActivityManager(  500):   #00 pc 000000000000433c  /data/app/libcrashy.so"))
        XCTAssertEqual(read("11-20 10:00:00.456  4242  4242 F DEBUGGER: backtrace:").map(\.prefixed), nil)
    }

    /// Lines of the tombstone itself that begin like a prefix are read as they are.
    func testTombstoneLinesAreNotTakenForPrefixes() {
        XCTAssertEqual(read("ABI: 'arm64'")?.kind, .field(key: "ABI", value: "arm64"))
        XCTAssertEqual(read("ABI: 'arm64'")?.prefixed, false)
        XCTAssertEqual(read("         0000007fd2c1a0b0  0000000000000000")?.kind, .text)
        XCTAssertEqual(read("    00000074'fa700000-00000074'fa7fffff r-x  /system/lib64/libc.so")?.kind, .text)
    }

    // MARK: Kinds

    func testKindsOfLines() {
        XCTAssertEqual(read("*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***")?.kind, .start)
        XCTAssertEqual(read("pid: 4242, tid: 4250, name: RenderThread  >>> com.example <<<")?.kind,
                       .thread(process: "com.example"))
        XCTAssertEqual(read("pid: 341, tid: 341  >>> /system/bin/app_process <<<")?.kind,
                       .thread(process: "/system/bin/app_process"))
        XCTAssertEqual(read("pid: 341, tid: 341, name: x")?.kind, .thread(process: nil))
        XCTAssertEqual(read("pid: 341")?.kind, .text)
        XCTAssertEqual(read("backtrace:")?.kind, .backtrace)
        XCTAssertEqual(read("deallocated by thread 4242:")?.kind, .otherBacktrace)
        XCTAssertEqual(read("allocated by thread 4242:")?.kind, .otherBacktrace)
        XCTAssertEqual(read("--- --- --- --- --- --- --- --- --- --- --- --- --- --- --- ---")?.kind, .separator)
        for section in ["stack:", "memory near x0 ([anon:scudo:primary]):", "code around pc:", "memory map (12 entries):",
                        "memory map: (fault address prefixed with --->)", "open files:"] {
            XCTAssertEqual(read(section)?.kind, .section, section)
        }
        XCTAssertEqual(read("--------- log main")?.kind, .log)
        XCTAssertEqual(read("--------- tail end of log system")?.kind, .log)
        XCTAssertEqual(read("--------- beginning of crash")?.kind, .text, "adb logcat's own marker")
        XCTAssertEqual(read("Build fingerprint: 'google/redfin/redfin:13/TQ3A:user/release-keys'")?.kind,
                       .field(key: "Build fingerprint", value: "google/redfin/redfin:13/TQ3A:user/release-keys"))
        XCTAssertEqual(read("Abort message: 'boom'")?.kind, .field(key: "Abort message", value: "boom"))
        XCTAssertEqual(read("Cause: null pointer dereference")?.kind, .field(key: "Cause", value: "null pointer dereference"))
        XCTAssertEqual(read("Causes: 2")?.kind, .text)
        XCTAssertEqual(read("signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0000000000000000")?.kind,
                       .signal(name: "SIGSEGV", code: "SEGV_MAPERR"))
        XCTAssertEqual(read("signal 11 (SIGSEGV), fault addr deadbaad")?.kind, .signal(name: "SIGSEGV", code: nil))
        XCTAssertEqual(read("signal 6 (SIGABRT), code -1 (SI_QUEUE), fault addr --------")?.kind,
                       .signal(name: "SIGABRT", code: "SI_QUEUE"))
    }

    // MARK: Frame lines

    func testFrameLineOfAndroid12() {
        let f = frame("      #00 pc 00000000000a1b2c  /data/app/~~x==/com.example-y==/lib/arm64/libfoo.so "
                      + "(Foo::bar(int)+44) (BuildId: 0123ABCDef)")
        XCTAssertEqual(f?.number, 0)
        XCTAssertEqual(f?.pc, 0xa1b2c)
        XCTAssertEqual(f?.map, "/data/app/~~x==/com.example-y==/lib/arm64/libfoo.so")
        XCTAssertEqual(f?.function, "Foo::bar(int)")
        XCTAssertEqual(f?.functionOffset, 44)
        XCTAssertEqual(f?.buildID, "0123abcdef")
        XCTAssertNil(f?.elfOffset)
        XCTAssertFalse(f?.damaged ?? true)
    }

    func testFrameLinesWithoutSymbolBuildIDOrMap() {
        let bare = frame("    #03 pc 0000e968  /system/lib/libc.so")
        XCTAssertEqual(bare?.pc, 0xe968)
        XCTAssertEqual(bare?.map, "/system/lib/libc.so")
        XCTAssertNil(bare?.function)
        XCTAssertNil(bare?.buildID)
        let old = frame("         #01  pc 0000c1f8  /system/lib/libc.so (tgkill+12)")
        XCTAssertEqual(old?.number, 1)
        XCTAssertEqual(old?.function, "tgkill")
        let noOffset = frame("    #02 pc 00000000000172e8  /system/lib64/libc.so (tgkill)")
        XCTAssertEqual(noOffset?.function, "tgkill")
        XCTAssertNil(noOffset?.functionOffset)
        XCTAssertNil(frame("    #04 pc 0000000000001234  <unknown>")?.map)
        XCTAssertNil(frame("    #04 pc 0000000000001234  <anonymous:7b4f2a1000>")?.map)
        XCTAssertNil(frame("    #04 pc 0000000000001234  ")?.map)
        XCTAssertEqual(frame("    #05 pc 0000000000000754  [vdso] (__kernel_rt_sigreturn)")?.map, "[vdso]")
    }

    func testFrameLinesOfLibrariesInAnAPK() {
        let bang = frame("    #02 pc 000000000000c8c8  /data/app/~~a==/com.x-b==/base.apk!libnative.so (offset 0x4000) "
                         + "(Java_com_x_Main_crash+24) (BuildId: 1b2c)")
        XCTAssertEqual(bang?.map, "/data/app/~~a==/com.x-b==/base.apk!libnative.so")
        XCTAssertEqual(bang?.elfOffset, 0x4000)
        XCTAssertEqual(bang?.function, "Java_com_x_Main_crash")
        XCTAssertEqual(bang?.buildID, "1b2c")
        let old = frame("    #02 pc 000000000000c8c8  /data/app/com.x-1/base.apk (offset 0x2a4000)")
        XCTAssertEqual(old?.map, "/data/app/com.x-1/base.apk")
        XCTAssertEqual(old?.elfOffset, 0x2a4000)
        XCTAssertNil(old?.function)
    }

    /// A function name may hold parentheses and blanks; `(deleted)` is part of a map's name.
    func testGroupsAreReadFromTheEndBack() {
        let cxx = frame("    #01 pc 0000000000004438  /l/libcrashy.so ((anonymous namespace)::run(int) const+20)")
        XCTAssertEqual(cxx?.function, "(anonymous namespace)::run(int) const")
        XCTAssertEqual(cxx?.functionOffset, 20)
        let jit = frame("    #05 pc 000000000003e0a4  /memfd:jit-cache (deleted) (offset 0x2000000) (com.example.Foo.bar+212)")
        XCTAssertEqual(jit?.map, "/memfd:jit-cache (deleted)")
        XCTAssertEqual(jit?.elfOffset, 0x2000000)
        XCTAssertEqual(jit?.function, "com.example.Foo.bar")
        XCTAssertEqual(frame("    #05 pc 000000000003e0a4  /memfd:jit-cache (deleted)")?.map, "/memfd:jit-cache (deleted)")
        XCTAssertNil(frame("    #05 pc 000000000003e0a4  /memfd:jit-cache (deleted)")?.function)
    }

    // MARK: Damaged lines

    /// A pc of another width than 8 or 16 digits, of other characters, or none; a number past
    /// 32 bits: the frame is kept without a pc, and nothing else of the line stands in for it.
    func testUnreadablePCsAndNumbers() {
        for text in ["    #01 pc 000000000000433", "    #01 pc 1000000000000433c  /l/libcrashy.so",
                     "    #01 pc 00000000000z433c  /l/libcrashy.so", "    #01 pc", "    #01 pc   /l/libcrashy.so 0x433c",
                     "    #99999999999 pc 000000000000433c  /l/libcrashy.so",
                     "    #99999999999999999999999 pc 000000000000433c  /l/libcrashy.so"] {
            XCTAssertNil(frame(text)?.pc, text)
        }
        XCTAssertNil(frame("    #99999999999 pc 000000000000433c  /l/libcrashy.so")?.number)
        XCTAssertEqual(frame("    #1000 pc 000000000000433c  /l/libcrashy.so")?.number, 1000)
    }

    /// A line cut short inside a group names its map up to the group, and is damaged.
    func testGroupsCutShortDamageTheLine() {
        for text in ["    #00 pc 000000000000433c  /l/libcrashy.so (cart_total+36) (BuildId: 0123",
                     "    #00 pc 000000000000433c  /l/libcrashy.so (Foo::bar(int",
                     "    #00 pc 000000000000433c  /l/libcrashy.so (Foo::bar(int)",
                     "    #00 pc 000000000000433c  /l/libcrashy.so (cart_total+36) (BuildId: xyz)",
                     "    #00 pc 000000000000433c  /l/libcrashy.so (offset 0x1ffffffffffffffffff)"] {
            let f = frame(text)
            XCTAssertEqual(f?.damaged, true, text)
            XCTAssertEqual(f?.map, "/l/libcrashy.so", text)
            XCTAssertNil(f?.buildID, text)
            XCTAssertEqual(f?.pc, 0x433c, text)
        }
    }

    /// `#00  7fd2c1a0f0` (a stack dump's) and `#0 0x...` (a sanitizer's) are not tombstone frames.
    func testOtherNumberedLinesAreNotFrames() {
        XCTAssertEqual(read("    #00  0000007fd2c1a0f0  0000007fd2c1a110  /system/lib64/libc.so (abort+164)")?.kind, .text)
        XCTAssertEqual(read("    #0 0x55c9f9e4943d  (/tmp/prog+0x17443d)")?.kind, .text)
        XCTAssertEqual(read("    #00 pcx 000000000000433c")?.kind, .text)
        XCTAssertEqual(read("#")?.kind, .text)
    }

    // MARK: Earlier resolutions

    /// What this tool wrote after a frame is read back: not part of the map or groups, and
    /// where a new resolution's text goes.
    func testAnEarlierResolutionIsReadBack() {
        let line = "    #00 pc 000000000000433c  /l/libcrashy.so (cart_total+36) (BuildId: 0a)"
        let f = frame(line + " in unit_price /src/native-lib.c:20:19")
        XCTAssertEqual(f?.resolved, .init(function: "unit_price", file: "/src/native-lib.c", line: 20))
        XCTAssertEqual(f?.restStart, line.utf8.count)
        XCTAssertEqual(f?.function, "cart_total")
        XCTAssertEqual(f?.buildID, "0a")
        let spaced = frame(line + " in (anonymous namespace)::run(int) const /src/a.cpp:7")
        XCTAssertEqual(spaced?.resolved, .init(function: "(anonymous namespace)::run(int) const", file: "/src/a.cpp", line: 7))
        let nameOnly = frame("    #01 pc 0000000000004338  /l/libcrashy.so in cart_total")
        XCTAssertEqual(nameOnly?.resolved, .init(function: "cart_total", file: nil, line: 0))
        XCTAssertEqual(nameOnly?.map, "/l/libcrashy.so")
        XCTAssertNil(frame(line)?.resolved)
        XCTAssertNil(frame("    #00 pc 000000000000433c  /l/libcrashy.so (closure #1 in run()+8)")?.resolved,
                     "inside parentheses, ` in ` is the device's name")
        let oddMap = frame("    #00 pc 000000000000433c  /data/my files in x/libcrashy.so (run+8) (BuildId: 0a)")
        XCTAssertNil(oddMap?.resolved, "a build-id group follows: the map's own ` in `")
        XCTAssertEqual(oddMap?.map, "/data/my files in x/libcrashy.so")
        XCTAssertEqual(oddMap?.buildID, "0a")
    }
}
