import CrashReport
import XCTest

/// `TombstoneParser` over handwritten tombstones: what is a frame and what is not, threads and
/// their headers, images by build-id and APK, the header's facts, logcat and CRLF forms, damaged
/// lines, and reading back what the tool wrote.
final class TombstoneParserTests: XCTestCase {
    static let buildID = "5f0e3a1c9b7d2e4f6a8b0c1d2e3f4a5b6c7d8e9f"
    static let app = "/data/app/~~x==/com.example-y==/lib/arm64/libcrashy.so"

    static let tombstone = """
        *** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***
        Build fingerprint: 'google/redfin/redfin:13/TQ3A.230805.001/10316531:user/release-keys'
        Revision: '0'
        ABI: 'arm64'
        Timestamp: 2023-11-20 10:00:00.123456789+0100
        Cmdline: com.example
        pid: 4242, tid: 4242, name: example  >>> com.example <<<
        uid: 10123
        signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0000000000000000
        Cause: null pointer dereference
            x0  0000000000000000  x1  0000007fd2c1a1b8  x2  000000000000433c
        backtrace:
              #00 pc 000000000000433c  \(app) (cart_total+36) (BuildId: \(buildID))
              #01 pc 00000000000043d8  \(app) (checkout+32) (BuildId: \(buildID))
              #02 pc 000000000000c8c8  /data/app/~~x==/com.example-y==/base.apk!libcrashy.so (offset 0x4000) (Java_x+24) (BuildId: \(buildID))
              #03 pc 00000000002d8b14  /apex/com.android.art/lib64/libart.so (art_quick_generic_jni_trampoline+148) (BuildId: 0a1b)
              #04 pc 0000000000001234  <anonymous:7b4f2a1000>
        deallocated by thread 4242:
              #00 pc 000000000004a7f8  /apex/com.android.runtime/lib64/bionic/libc.so (scudo::free(void*)+72)
        stack:
                 0000007fd2c1a0b0  0000000000000000
            #00  0000007fd2c1a0f0  000000000000433c  \(app) (cart_total+36)
              #00 pc 000000000000433c  \(app)
        memory near x1 ([stack]):
            0000007fd2c1a1b0 000000000000433c 0000000000000000  ................
        --- --- --- --- --- --- --- --- --- --- --- --- --- --- --- ---
        pid: 4242, tid: 4250, name: RenderThread  >>> com.example <<<
            x0  0000000000000000
        backtrace:
              #00 pc 00000000000044c0  \(app) (worker_wait+12) (BuildId: \(buildID))
              #01 pc 0000000000004410  \(app) (worker_main+24) (BuildId: \(buildID))
        memory map (1 entry):
            00000074'fa700000-00000074'fa7fffff r-x  0  100000  \(app) (BuildId: \(buildID))
              #00 pc 000000000000433c  \(app)
        open files:
            fd 0: /dev/null (unowned)
        --------- log main
        11-20 10:00:00.100  4242  4242 F DEBUG   :       #00 pc 000000000000433c  \(app)
        *** not the header: stars of another width
              #00 pc 000000000000433c  \(app)

        """

    private func parse(_ text: String) throws -> CrashReport {
        try TombstoneParser.parse(Array(text.utf8), path: "tombstone.txt")
    }

    private func lineText(_ report: CrashReport, _ line: Int) -> String {
        String(decoding: report.bytes[report.lines[line]], as: UTF8.self)
    }

    func testFramesThreadsAndImages() throws {
        let report = try parse(Self.tombstone)
        XCTAssertEqual(report.source.kind, .tombstone)
        XCTAssertEqual(report.threads.count, 3, "the crashed thread, the deallocation's backtrace, RenderThread")
        XCTAssertEqual(report.threads.map(\.crashed), [true, false, false])
        XCTAssertEqual(report.crashedThread, 0)
        XCTAssertEqual(report.threads.map(\.kind), [.thread(0), .thread(1), .thread(2)])
        XCTAssertEqual(report.threads.map(\.name), ["pid: 4242, tid: 4242, name: example  >>> com.example <<<",
                                                    "deallocated by thread 4242:",
                                                    "pid: 4242, tid: 4250, name: RenderThread  >>> com.example <<<"])
        XCTAssertEqual(report.threads.map { $0.headerLine.map { lineText(report, $0).hasPrefix("pid:") || lineText(report, $0).hasPrefix("dealloc") } },
                       [true, true, true])
        let crashed = report.threads[0].frames
        XCTAssertEqual(crashed.map(\.index), [0, 1, 2, 3, 4])
        XCTAssertEqual(crashed.map(\.address), [0x433c, 0x43d8, 0xc8c8, 0x2d8b14, 0x1234])
        XCTAssertEqual(crashed.map(\.imageOffset), [0x433c, 0x43d8, 0xc8c8, 0x2d8b14, nil])
        XCTAssertEqual(crashed.map(\.returnAddress), [false, false, false, false, false], "every pc is looked up as printed")
        XCTAssertEqual(crashed[0].form, .symbol(name: "cart_total", offset: 36))
        XCTAssertEqual(crashed[4].form, .unknown)
        XCTAssertNil(crashed[4].image)
        XCTAssertEqual(report.threads[2].frames.map(\.address), [0x44c0, 0x4410])
        // Every frame's text ends its line: a resolution adds to the line.
        for thread in report.threads {
            for frame in thread.frames {
                let range = report.lines[frame.line]
                XCTAssertEqual(frame.restStart, range.count - 1, lineText(report, frame.line))
            }
        }

        let images = report.images
        XCTAssertEqual(images.map(\.name), ["libcrashy.so", "libcrashy.so", "libart.so", "libc.so"])
        XCTAssertEqual(images.map(\.path), [Self.app, "/data/app/~~x==/com.example-y==/base.apk!libcrashy.so",
                                            "/apex/com.android.art/lib64/libart.so", "/apex/com.android.runtime/lib64/bionic/libc.so"])
        XCTAssertEqual(images.map(\.uuid), [Self.buildID, Self.buildID, "0a1b", nil])
        XCTAssertEqual(images.map(\.arch), ["arm64", "arm64", "arm64", "arm64"])
        XCTAssertEqual(images.map(\.format), [.elf, .elf, .elf, .elf])
        XCTAssertEqual(images.map(\.loadAddress), [0, 0, 0, 0])
        XCTAssertEqual(crashed.map(\.image), [0, 0, 1, 2, nil])
        XCTAssertEqual(crashed[2].imageName, "/data/app/~~x==/com.example-y==/base.apk!libcrashy.so")
    }

    /// Android 12 and later print the tail end of the log right after the crashed thread, then
    /// the other threads: a `--- --- ---` ends the log, and their frames are read; the full log
    /// at the end still holds none.
    func testTheOtherThreadsAfterTheTailEndOfTheLogAreRead() throws {
        let text = """
            *** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***
            ABI: 'arm64'
            pid: 4242, tid: 4242, name: example  >>> com.example <<<
            signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0000000000000000
            backtrace:
                  #00 pc 000000000000433c  \(Self.app) (cart_total+36) (BuildId: \(Self.buildID))
            --------- tail end of log main
            11-20 10:00:00.100  4242  4242 I example : about to crash
            11-20 10:00:00.101  4242  4242 I example : --- --- --- a logged separator is the log's
                  #00 pc 0000000000004999  \(Self.app)
            --- --- --- --- --- --- --- --- --- --- --- --- --- --- --- ---
            pid: 4242, tid: 4250, name: RenderThread  >>> com.example <<<
            backtrace:
                  #00 pc 00000000000044c0  \(Self.app) (worker_wait+12) (BuildId: \(Self.buildID))
                  #01 pc 0000000000004410  \(Self.app) (worker_main+24) (BuildId: \(Self.buildID))
            memory map (1 entry):
                00000074'fa700000-00000074'fa7fffff r-x  0  100000  \(Self.app) (BuildId: \(Self.buildID))
            --------- log main
            11-20 10:00:00.100  4242  4242 I example : about to crash
                  #00 pc 0000000000004888  \(Self.app)

            """
        let report = try parse(text)
        XCTAssertEqual(report.threads.map { $0.frames.map(\.address) }, [[0x433c], [0x44c0, 0x4410]])
    }

    /// Stack dumps, memory, maps, open files and the logcat section hold no frames, even lines
    /// shaped like frame lines.
    func testSectionsHoldNoFrames() throws {
        let report = try parse(Self.tombstone)
        let frameLines = Set(report.threads.flatMap { $0.frames.map(\.line) })
        for (k, _) in report.lines.enumerated() where !frameLines.contains(k) {
            let text = lineText(report, k)
            if text.contains("#00 pc"), !text.contains("scudo") {
                let before = (0..<k).last { lineText(report, $0).hasPrefix("stack:") || lineText(report, $0).hasPrefix("memory map")
                    || lineText(report, $0).hasPrefix("--------- log") }
                XCTAssertNotNil(before, "a frame line outside the sections was not read: \(text)")
            }
        }
        XCTAssertEqual(report.threads.flatMap(\.frames).count, 8)
    }

    func testHeaderFacts() throws {
        let report = try parse(Self.tombstone)
        let header = Dictionary(report.header.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(header["Exception Type"], "SIGSEGV (SEGV_MAPERR)")
        XCTAssertEqual(header["Signal"], "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0000000000000000")
        XCTAssertEqual(header["OS Version"], "google/redfin/redfin:13/TQ3A.230805.001/10316531:user/release-keys")
        XCTAssertEqual(header["Timestamp"], "2023-11-20 10:00:00.123456789+0100")
        XCTAssertEqual(header["ABI"], "arm64")
        XCTAssertEqual(header["Cause"], "null pointer dereference")
        XCTAssertEqual(header["Process"], "com.example")
        XCTAssertNil(header["Path"], "the process is not a path")
        let native = try parse("pid: 341, tid: 341  >>> /system/bin/surfaceflinger <<<\n    #00 pc 00001234  /system/lib/libc.so\n")
        XCTAssertEqual(native.header.first { $0.key == "Path" }?.value, "/system/bin/surfaceflinger")
    }

    func testEveryABINamesAnArchitecture() throws {
        for (abi, arch) in [("arm64", "arm64"), ("arm", "armv7"), ("x86", "i386"), ("x86_64", "x86_64"), ("riscv64", "riscv64")] {
            let report = try parse("ABI: '\(abi)'\npid: 1, tid: 1, name: x  >>> x <<<\n    #00 pc 00001234  /data/local/tmp/libx.so\n")
            XCTAssertEqual(report.images.first?.arch, arch, abi)
        }
    }

    /// The same tombstone behind logcat's prefixes, among other programs' lines, with CRLF
    /// line ends: the same frames, and the input back byte for byte.
    func testLogcatAndCRLFForms() throws {
        let plain = try parse(Self.tombstone)
        let lines = Self.tombstone.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            .prefix { !$0.hasPrefix("stack:") }
        for (name, prefix) in [("brief", "I/DEBUG   (  135): "), ("threadtime", "11-20 10:00:00.456  4242  4242 F DEBUG   : ")] {
            var text = "--------- beginning of crash\r\n"
            for (k, line) in lines.enumerated() {
                text += prefix + line + "\r\n"
                if k % 4 == 2 { text += "11-20 10:00:00.457   500   520 I ActivityManager:       #00 pc 0000000000001111  /x.so\r\n" }
            }
            let report = try parse(text)
            XCTAssertTrue(TombstoneParser.looksLikeTombstone(Array(text.utf8)), name)
            XCTAssertEqual(report.threads.map { $0.frames.map(\.address) }, plain.threads.prefix(2).map { $0.frames.map(\.address) },
                           name)
            XCTAssertEqual(report.images.map(\.uuid), plain.images.map(\.uuid), name)
            XCTAssertEqual(String(decoding: renderedUnchanged(report), as: UTF8.self), text, name)
            XCTAssertEqual(report.threads[0].frames[0].restStart, report.lines[report.threads[0].frames[0].line].count - 2,
                           "\(name): before the CRLF")
        }
    }

    // MARK: Detection

    func testDetection() {
        XCTAssertTrue(TombstoneParser.looksLikeTombstone(Array(Self.tombstone.utf8)))
        XCTAssertTrue(TombstoneParser.looksLikeTombstone(Array("pid: 1, tid: 1, name: x  >>> x <<<\n  #00 pc 00001234  /x.so\n".utf8)))
        XCTAssertTrue(TombstoneParser.looksLikeTombstone(Array(
            "*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***\npid: 1, tid: 1\n".utf8)))
        for text in [
            "backtrace:\n./prog(+0x1388)[0x55fd7aec4388]\n",
            "    #0 0x55c9f9e4943d  (/tmp/prog+0x17443d)\n",
            "*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***\nnothing else\n",
            "  #00 pc 00001234  /x.so\n",
            "Thread 0 Crashed:\n0   App   0x0000000104a3c5e0 main + 40\n",
            "*** Program crashed: Bad pointer dereference at 0x0000000000000000 ***\n",
        ] {
            XCTAssertFalse(TombstoneParser.looksLikeTombstone(Array(text.utf8)), text)
        }
        XCTAssertEqual(try ReportParser.parse(Array(Self.tombstone.utf8), path: "t").source.kind, .tombstone)
    }

    // MARK: Odd input

    /// Damaged frame lines are frames of their backtrace, without an image or a pc: left as
    /// they are; a huge frame number does not start a new backtrace.
    func testDamagedFramesAreKeptWithoutImages() throws {
        let text = """
            pid: 1, tid: 1, name: x  >>> x <<<
            backtrace:
                #00 pc 000000000000433c  \(Self.app) (BuildId: \(Self.buildID))
                #01 pc 000000000000433  \(Self.app) (BuildId: \(Self.buildID))
                #02 pc
                #99999999999 pc 000000000000433c  \(Self.app) (BuildId: \(Self.buildID))
                #04 pc 000000000000433c  \(Self.app) (cart_total+36) (BuildId: \(Self.buildID.prefix(9))
                #05 pc 00000000000043d8  \(Self.app) (BuildId: \(Self.buildID))

            """
        let report = try parse(text)
        XCTAssertEqual(report.threads.count, 1)
        let frames = report.threads[0].frames
        XCTAssertEqual(frames.map(\.index), [0, 1, 2, 3, 4, 5])
        XCTAssertEqual(frames.map(\.addressUnknown), [false, true, true, true, false, false])
        XCTAssertEqual(frames.map(\.image), [0, nil, nil, nil, nil, 0])
        XCTAssertEqual(frames.map(\.restStart).map { $0 != nil }, [true, false, false, false, true, true])
        XCTAssertEqual(report.images.count, 1)
        XCTAssertEqual(String(decoding: renderedUnchanged(report), as: UTF8.self), text)
    }

    /// A line with a NUL byte is kept, never read; an empty input is no report.
    func testNULLinesAndEmptyInput() throws {
        let text = "pid: 1, tid: 1, name: x  >>> x <<<\n    #00 pc 000000000000433c  /x.so\u{0}\n    #01 pc 000000000000433c  /x.so\n"
        let report = try parse(text)
        XCTAssertEqual(report.threads.flatMap(\.frames).map(\.index), [1])
        XCTAssertThrowsError(try parse(""))
    }

    // MARK: Reading back

    /// A tombstone this tool symbolicated: the text after each frame line is an earlier
    /// resolution (a frame with a source location is not resolved again), and lines repeating
    /// a frame's number and pc are its inlined frames.
    func testAnEarlierResolutionIsReadBack() throws {
        let line = "      #00 pc 000000000000433c  \(Self.app) (cart_total+36) (BuildId: \(Self.buildID))"
        let text = """
            pid: 1, tid: 1, name: x  >>> x <<<
            \(line) in unit_price /src/native-lib.c:20:19
            \(line) in line_price /src/native-lib.c:25:12
            \(line) in cart_total /src/native-lib.c:32:18
                  #01 pc 00000000000043d8  \(Self.app) (checkout+32) (BuildId: \(Self.buildID)) in checkout
                  #00 pc 00000000000044c0  \(Self.app) (worker_wait+12) (BuildId: \(Self.buildID))

            """
        let report = try parse(text)
        XCTAssertEqual(report.threads.count, 2, "a #00 after #01 starts the next backtrace")
        let frames = report.threads[0].frames
        XCTAssertEqual(frames.map(\.inlined), [true, true, false, false])
        XCTAssertEqual(frames[2].form, .symbolicated(name: "cart_total", offset: nil, file: "/src/native-lib.c", line: 32))
        XCTAssertEqual(frames[3].form, .symbol(name: "checkout", offset: 32), "a name alone is resolved again")
        XCTAssertEqual(frames.map(\.restStart), [line.utf8.count, line.utf8.count, line.utf8.count,
                                                 lineText(report, frames[3].line).utf8.count - 1 - " in checkout".utf8.count])
        XCTAssertEqual(report.images.count, 1)
    }

    /// A line repeated whole, resolution included, is no inlined frame: a debug file resolves
    /// one pc alike, and an inlined chain says something else on each line (a recursive call
    /// inlined into itself: another line).
    func testARepeatedLineIsNotAnInlinedFrame() throws {
        let line = "      #01 pc 00000000000043d8  \(Self.app) (BuildId: \(Self.buildID))"
        let text = "pid: 1, tid: 1\n\(line) in f /a.c:3\n\(line) in f /a.c:3\n\(line) in f /a.c:7\n"
        let frames = try parse(text).threads[0].frames
        XCTAssertEqual(frames.map(\.inlined), [false, true, false])
    }

    /// Lines of one number and pc in two maps are two frames, whatever their resolutions: an
    /// earlier resolution repeats the whole line, map included, for each inlined frame. (A
    /// frame whose map had no debug file keeps its old text while the next one, in another
    /// map, is resolved anew; read back, the two must stay two frames.)
    func testLinesInTwoMapsAreNotAnInlinedChain() throws {
        let first = "      #01 pc 00000000000043d8  /data/app/a/lib/arm64/liba.so"
        let second = "      #01 pc 00000000000043d8  /data/app/b/lib/arm64/libb.so"
        let text = "pid: 1, tid: 1\n\(first) in f /a.c:3\n\(second) in g /b.c:9\n\(second) in h /b.c:4\n"
        let frames = try parse(text).threads[0].frames
        XCTAssertEqual(frames.map(\.inlined), [false, true, false], "only the second map's lines are one chain")
        XCTAssertEqual(frames.map(\.image), [0, 1, 1])
    }
}
