import CrashReport
import XCTest

/// The variants of the classic format that the corpus does not cover, on small inline reports.
final class ClassicReportParserTests: XCTestCase {
    /// An iOS 15-style report: tabs, unpadded addresses, arm64e, dashed uppercase UUIDs, a
    /// parenthesized Last Exception Backtrace over two lines, `::` headers and the macOS 12
    /// `???` placeholder image.
    static let modern = """
        Incident Identifier: 0D3E5A8C-2D6B-4E0A-9E39-71B0C3F4A2D1
        Hardware Model:      iPhone14,2
        Process:             Sample [4242]
        Code Type:           ARM-64 (Native)
        Exception Type:  EXC_CRASH (SIGABRT)
        Triggered by Thread:  0

        Application Specific Information:
        abort() called
        reason: not a header key

        Last Exception Backtrace:
        (0x18eee41c0 0x18d91c55c
        0x104a3c5e0 0x7777)

        Thread 0 name:  Dispatch queue: com.apple.main-thread
        Thread 0 Crashed::  Dispatch queue: com.apple.main-thread
        0\tlibsystem_kernel.dylib\t0x18da6eec4 __pthread_kill + 8
        1   App                           \t0x0000000104a3c5e0 0x104a30000 + 50656
        2   App                           \t0x0000000104a3c600 App + 50688
        3   App                           \t0x0000000104a3c620 <6B0A6A3F-1BDE-3C4A-9E2D-5F0A1B2C3D4E> + 50720
        4   App                           \t0x0000000104a3c640 -[AppDelegate application:didFinishLaunchingWithOptions:] + 12 (AppDelegate.m:42)
        5   libdyld.dylib                 \t0x000000018d91c55c <redacted> + 4
        6   ???                           \t0x0000000000007777 ???
        7   App                           \t0x0000000104a3c700 closure #1 in ViewController.viewDidLoad() + 36
        8   App                           \t0x0000000104a3c720 Sample.swift:12 stuff
        9   App                           \t0x0000000104a3c740 compute (Compute.swift:42:7)

        Thread 1:: com.apple.NSEventThread
        0   libsystem_kernel.dylib        \t0x18da6a000 mach_msg_trap + 8

        Thread 2 name:  Dispatch queue: com.apple.root.default-qos
        Thread 2:
        0   CoreFoundation                \t0x18edc1000 0x18edc0000 + 4096

        Thread 0 crashed with ARM Thread State (64-bit):
            x0: 0x0000000000000000   x1: 0x0000000000000000   x2: 0x0000000000000000

        Binary Images:
        0x104a30000 - 0x104a3ffff App arm64  <6B0A6A3F-1BDE-3C4A-9E2D-5F0A1B2C3D4E> /private/var/containers/Bundle/Application/5A1B/App.app/App
        0x18da6b000 - 0x18da9ffff libsystem_kernel.dylib arm64e  <D2F1B2C3A4B54C6D8E9F0A1B2C3D4E5F> /usr/lib/system/libsystem_kernel.dylib
        0x18d91a000 - 0x18d91dfff libdyld.dylib arm64e  <c0ffee00-1234-5678-9abc-def012345678> /usr/lib/system/libdyld.dylib
        0x18edc0000 - 0x18f000fff CoreFoundation arm64e  <0123456789ABCDEF0123456789ABCDEF> /System/Library/Frameworks/CoreFoundation.framework/CoreFoundation
        0x0 - 0xffffffffffffffff ??? (*) <00000000-0000-0000-0000-000000000000> ???

        """

    func testModernHeader() throws {
        let report = try parse(Self.modern)
        XCTAssertEqual(report.header.map(\.key), [
            "Incident Identifier", "Hardware Model", "Process", "Code Type", "Exception Type",
            "Triggered by Thread", "Application Specific Information",
        ])
        XCTAssertEqual(report.header.last?.value, "abort() called", "the first line of the block, not the next ones")
        XCTAssertEqual(report.codeType, "ARM-64 (Native)")
        XCTAssertEqual(report.crashedThread, 0)
    }

    func testParenthesizedLastExceptionBacktrace() throws {
        let report = try parse(Self.modern)
        let backtrace = report.threads[0]
        XCTAssertEqual(backtrace.kind, .lastExceptionBacktrace)
        XCTAssertFalse(backtrace.crashed)
        XCTAssertEqual(backtrace.headerLine, 11)
        XCTAssertEqual(backtrace.frames, [
            Frame(index: 0, imageName: nil, address: 0x18eee41c0, form: .addressOnly, image: 3, line: 12, restStart: nil),
            Frame(index: 1, imageName: nil, address: 0x18d91c55c, form: .addressOnly, image: 2, line: 12, restStart: nil),
            Frame(index: 2, imageName: nil, address: 0x104a3c5e0, form: .addressOnly, image: 0, line: 13, restStart: nil),
            // Outside every real image: only the 0x0 - 0xffffffffffffffff placeholder contains it.
            Frame(index: 3, imageName: nil, address: 0x7777, form: .addressOnly, image: 4, line: 13, restStart: nil),
        ])
    }

    func testThreadHeaders() throws {
        let report = try parse(Self.modern)
        XCTAssertEqual(report.threads.count, 4, "the register block is not a thread")
        XCTAssertEqual(report.threads.map(\.kind), [.lastExceptionBacktrace, .thread(0), .thread(1), .thread(2)])

        let main = report.threads[1]
        XCTAssertTrue(main.crashed)
        XCTAssertEqual(main.name, "Dispatch queue: com.apple.main-thread")
        XCTAssertEqual(main.headerLine, 16)
        XCTAssertEqual(main.frames.count, 10)

        XCTAssertEqual(report.threads[2].name, "com.apple.NSEventThread")
        XCTAssertFalse(report.threads[2].crashed)
        XCTAssertEqual(report.threads[2].frames.count, 1)

        XCTAssertEqual(report.threads[3].name, "Dispatch queue: com.apple.root.default-qos", "from the name line")
        XCTAssertEqual(report.threads[3].frames.count, 1)
    }

    func testFrameForms() throws {
        let report = try parse(Self.modern)
        let frames = report.threads[1].frames

        // Tabs around the image name, unpadded address.
        XCTAssertEqual(frames[0], Frame(
            index: 0, imageName: "libsystem_kernel.dylib", address: 0x18da6eec4,
            form: .symbol(name: "__pthread_kill", offset: 8), image: 1, line: 17, restStart: 37))
        XCTAssertEqual(restText(report, frames[0]), "__pthread_kill + 8")

        XCTAssertEqual(frames[1].imageName, "App")
        XCTAssertEqual(frames[1].address, 0x104a3c5e0)
        XCTAssertEqual(frames[1].form, .unsymbolicated(loadAddress: 0x104a30000, offset: 50656))
        XCTAssertEqual(frames[1].image, 0)
        XCTAssertEqual(restText(report, frames[1]), "0x104a30000 + 50656")

        XCTAssertEqual(frames[2].form, .imageOffset(offset: 50688))
        XCTAssertEqual(frames[3].form, .imageOffset(offset: 50720))
        XCTAssertEqual(frames[4].form, .symbolicated(
            name: "-[AppDelegate application:didFinishLaunchingWithOptions:]", offset: 12, file: "AppDelegate.m", line: 42))
        XCTAssertEqual(frames[5].form, .symbol(name: "<redacted>", offset: 4))
        XCTAssertEqual(frames[5].image, 2)
        XCTAssertEqual(frames[6].imageName, "???")
        XCTAssertEqual(frames[6].form, .unknown)
        XCTAssertEqual(frames[6].image, 4)
        XCTAssertEqual(frames[7].form, .symbol(name: "closure #1 in ViewController.viewDidLoad()", offset: 36))
        XCTAssertEqual(frames[8].form, .unknown)
        XCTAssertEqual(restText(report, frames[8]), "Sample.swift:12 stuff")
        XCTAssertEqual(frames[9].form, .symbolicated(name: "compute", offset: nil, file: "Compute.swift", line: 42))

        XCTAssertEqual(report.threads[3].frames[0].form, .unsymbolicated(loadAddress: 0x18edc0000, offset: 4096))
        XCTAssertEqual(report.threads[3].frames[0].image, 3)
    }

    func testModernImages() throws {
        let report = try parse(Self.modern)
        XCTAssertEqual(report.images.count, 5)
        XCTAssertEqual(report.images[0], BinaryImage(
            loadAddress: 0x104a30000, endAddress: 0x104a3ffff, name: "App", arch: "arm64",
            uuid: "6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e", path: "/private/var/containers/Bundle/Application/5A1B/App.app/App",
            isApp: false, line: 39))
        XCTAssertEqual(report.images[1].arch, "arm64e")
        XCTAssertEqual(report.images[1].uuid, "d2f1b2c3a4b54c6d8e9f0a1b2c3d4e5f")
        XCTAssertEqual(report.images[2].uuid, "c0ffee00123456789abcdef012345678")
        XCTAssertEqual(report.images[3].uuid, "0123456789abcdef0123456789abcdef")
        XCTAssertEqual(report.images[4], BinaryImage(
            loadAddress: 0, endAddress: 0xffffffffffffffff, name: "???", arch: nil,
            uuid: "00000000000000000000000000000000", path: nil, isApp: false, line: 43))
    }

    func testOldMacOSImageLines() throws {
        let report = try parse("""
            Binary Images:
               0x100000000 -        0x100012fff +com.example.app (4.2.0 - 68) <A7FAE351-1C52-3F7B-9A45-6E2D8C1B0F34> /Applications/Example App.app/Contents/MacOS/Example App
               0x100100000 -        0x100180fff  com.example.Kit 4.2 (4.2 - 1) <b7fae3511c523f7b9a456e2d8c1b0f34> /Applications/Example App.app/Contents/Frameworks/Kit.framework/Kit
                0x7fff2054b000 -     0x7fff2054cfff libsystem_blocks.dylib (78) <E6449B7B-6C29-3FD1-B0E9-B21C8D5E3B4A> /usr/lib/system/libsystem_blocks.dylib
               0x100200000 -        0x100200fff  dyld (*) <0B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0> /usr/lib/dyld
               0x100300000 -        0x100300fff  libfoo.dylib arm64  ??? /usr/lib/libfoo.dylib
               0x100400000 -        0x100400fff  libbar.dylib arm64  <???> /usr/lib/libbar.dylib
               0x100500000 -        0x100500fff ??? arm64  <0B1C2D3E4F5061728394A5B6C7D8E9F0> ???
            """)
        XCTAssertEqual(report.images.count, 7)
        XCTAssertEqual(report.images[0], BinaryImage(
            loadAddress: 0x100000000, endAddress: 0x100012fff, name: "com.example.app", arch: nil,
            uuid: "a7fae3511c523f7b9a456e2d8c1b0f34", path: "/Applications/Example App.app/Contents/MacOS/Example App",
            isApp: true, line: 1))
        XCTAssertEqual(report.images[1].name, "com.example.Kit", "the short version before the parentheses is dropped")
        XCTAssertNil(report.images[1].arch)
        XCTAssertFalse(report.images[1].isApp)
        XCTAssertEqual(report.images[2].name, "libsystem_blocks.dylib")
        XCTAssertEqual(report.images[2].uuid, "e6449b7b6c293fd1b0e9b21c8d5e3b4a")
        XCTAssertEqual(report.images[3].name, "dyld")
        XCTAssertNil(report.images[3].arch, "(*) is no arch")
        XCTAssertEqual(report.images[4].name, "libfoo.dylib")
        XCTAssertEqual(report.images[4].arch, "arm64")
        XCTAssertNil(report.images[4].uuid)
        XCTAssertEqual(report.images[4].path, "/usr/lib/libfoo.dylib")
        XCTAssertEqual(report.images[5].name, "libbar.dylib")
        XCTAssertNil(report.images[5].uuid)
        XCTAssertEqual(report.images[5].path, "/usr/lib/libbar.dylib")
        XCTAssertEqual(report.images[6].name, "???")
        XCTAssertEqual(report.images[6].uuid, "0b1c2d3e4f5061728394a5b6c7d8e9f0")
        XCTAssertNil(report.images[6].path)
    }

    func testApplicationSpecificBacktraceAndCrashedThreadFromHeader() throws {
        let report = try parse("""
            Crashed Thread:        1  Dispatch queue: com.apple.main-thread

            Application Specific Backtrace 1:
            0   CoreFoundation                      0x00007fff2e1b5e39 __exceptionPreprocess + 256
            1   libobjc.A.dylib                     0x00007fff6b0a23c6 objc_exception_throw + 48

            Thread 0:
            0   libsystem_kernel.dylib              0x00007fff6c07a2c6 __pthread_kill + 10

            Thread 1:
            0   libsystem_kernel.dylib              0x00007fff6c07a2c6 __pthread_kill + 10
            """)
        XCTAssertEqual(report.crashedThread, 1)
        XCTAssertEqual(report.threads.map(\.kind), [.applicationSpecificBacktrace(1), .thread(0), .thread(1)])
        XCTAssertEqual(report.threads.map(\.crashed), [false, false, true], "the header names the crashed thread")
        XCTAssertEqual(report.threads[0].frames.map(\.index), [0, 1])
        XCTAssertEqual(report.threads[0].frames[1].form, .symbol(name: "objc_exception_throw", offset: 48))
    }

    func testAddressListOnTheHeaderLine() throws {
        let report = try parse("Last Exception Backtrace: (0x1a0 0x2b0)\n")
        XCTAssertEqual(report.threads.count, 1)
        XCTAssertEqual(report.threads[0].frames.map(\.address), [0x1a0, 0x2b0])
        XCTAssertEqual(report.threads[0].frames.map(\.form), [.addressOnly, .addressOnly])
        XCTAssertEqual(report.threads[0].frames.map(\.index), [0, 1])
    }

    func testLastExceptionBacktraceWithFrameLines() throws {
        let report = try parse("""
            Last Exception Backtrace:
            0   CoreFoundation                	0x18eee41c0 __exceptionPreprocess + 164
            1   libobjc.A.dylib               	0x18d91c55c objc_exception_throw + 60
            """)
        XCTAssertEqual(report.threads.map(\.kind), [.lastExceptionBacktrace])
        XCTAssertEqual(report.threads[0].frames.map(\.imageName), ["CoreFoundation", "libobjc.A.dylib"])
        XCTAssertEqual(report.threads[0].frames[1].form, .symbol(name: "objc_exception_throw", offset: 60))
    }

    func testFrameImagesByNameWhenNoRangeMatches() throws {
        let report = try parse("""
            Thread 0 Crashed:
            0   XCDYouTubeKit                 0x0000000000001000 0x0 + 4096
            1   ch.pitaya.xcdyoutubekit       0x0000000000002000 foo + 1
            2   ch.pitaya.XCDYouTubeKit       0x0000000000003000 foo + 1
            3   ???                           0x0000000000004000 ???

            Binary Images:
            0x1018b6000 - 0x1018c2fff ch.pitaya.xcdyoutubekit (x86_64) <31136917-6868-3472-B768-EB12D00E37E9> /Library/XCDYouTubeKit.framework/Versions/A/XCDYouTubeKit
            0x1018d7000 - 0x1018e1fff ??? (x86_64) <1549AC14-E653-3611-8C6D-B9D80E4578E8> ???
            """)
        XCTAssertEqual(report.threads[0].frames.map(\.image), [0, 0, nil, nil],
                       "by file name, by image name, no case folding, never by \"???\"")
    }

    func testSmallestContainingImageWins() throws {
        let report = try parse("""
            Thread 0:
            0   Outer                         0x0000000000001800 0x1000 + 2048
            1   Inner                         0x0000000000002800 0x2000 + 2048

            Binary Images:
            0x1000 - 0x8fff Outer arm64 <00000000000000000000000000000001> /Outer
            0x2000 - 0x2fff Inner arm64 <00000000000000000000000000000002> /Inner
            """)
        XCTAssertEqual(report.threads[0].frames.map(\.image), [0, 1])
    }

    func testRegisterBlockEndsTheThread() throws {
        let report = try parse("""
            Thread 0 Crashed:
            0   App                           0x0000000000001800 0x1000 + 2048
            Thread 0 crashed with ARM Thread State (64-bit):
            1   App                           0x0000000000001900 0x1000 + 2304
            """)
        XCTAssertEqual(report.threads.count, 1)
        XCTAssertEqual(report.threads[0].frames.count, 1)
    }

    func testFrameLinesOutsideABacktraceAreNotFrames() throws {
        let report = try parse("""
            Process: App [1]
            0   App                           0x0000000000001800 0x1000 + 2048
            """)
        XCTAssertTrue(report.threads.isEmpty)
        XCTAssertEqual(report.header.map(\.key), ["Process"])
    }

    func testCRLFLineEndings() throws {
        let text = "Code Type: ARM-64\r\nTriggered by Thread: 0\r\n\r\nThread 0 Crashed:\r\n"
            + "0   App                           \t0x104a3c5e0 0x104a30000 + 50656\r\n"
            + "\r\nBinary Images:\r\n0x104a30000 - 0x104a3ffff +App arm64  <6B0A6A3F-1BDE-3C4A-9E2D-5F0A1B2C3D4E> /App\r\n"
        let report = try parse(text)
        XCTAssertEqual(report.lines.count, 8)
        XCTAssertEqual(report.lines[0], 0..<19)
        XCTAssertEqual(report.codeType, "ARM-64")
        XCTAssertEqual(report.crashedThread, 0)
        let frame = report.threads[0].frames[0]
        XCTAssertEqual(frame.form, .unsymbolicated(loadAddress: 0x104a30000, offset: 50656))
        XCTAssertEqual(frame.image, 0)
        XCTAssertEqual(frame.restStart, 47)
        XCTAssertEqual(restText(report, frame), "0x104a30000 + 50656")
        XCTAssertEqual(report.images[0].path, "/App", "no carriage return in the path")
        XCTAssertTrue(report.images[0].isApp)
        XCTAssertEqual(renderedUnchanged(report), Array(text.utf8))
    }

    func testNoFinalNewline() throws {
        let text = "Thread 0:\n0   App  0x1000 0x1000 + 0\n\nBinary Images:\n0x1000 - 0x1fff App arm64 <00000000000000000000000000000001> /App"
        let report = try parse(text)
        XCTAssertEqual(report.lines.count, 5)
        XCTAssertEqual(report.lines.last, 53..<text.utf8.count)
        XCTAssertEqual(report.images.first?.path, "/App")
        XCTAssertEqual(report.threads[0].frames[0].image, 0)
        XCTAssertEqual(renderedUnchanged(report), Array(text.utf8))
    }

    func testByteOrderMarkIsKept() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("Code Type: X86-64\n".utf8)
        let report = try ClassicReportParser.parse(bytes, path: "bom.crash")
        XCTAssertEqual(report.codeType, "X86-64")
        XCTAssertEqual(renderedUnchanged(report), bytes)
    }

    func testOddContentDoesNotThrow() throws {
        let report = try parse("just some text\nThread x:\n123\n0x12 - \n(0x1 0x2)\nThread 99999999999999999999:\n")
        XCTAssertTrue(report.threads.isEmpty)
        XCTAssertTrue(report.images.isEmpty)
        XCTAssertEqual(report.lines.count, 6)
    }

    func testBinaryInputIsNotAReport() {
        let blob: [UInt8] = [0xCF, 0xFA, 0xED, 0xFE, 0x0C, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00]
        XCTAssertThrowsError(try ClassicReportParser.parse(blob, path: "/tmp/App.dSYM")) { error in
            XCTAssertEqual(error as? ReportError, .notAReport("/tmp/App.dSYM"))
            XCTAssertTrue("\(error)".contains("/tmp/App.dSYM"))
        }
        let controls: [UInt8] = Array(repeating: 0x01, count: 64) + Array("Thread 0:\n".utf8)
        XCTAssertThrowsError(try ClassicReportParser.parse(controls, path: "c")) { error in
            XCTAssertEqual(error as? ReportError, .notAReport("c"))
        }
    }

    func testEmptyInput() {
        XCTAssertThrowsError(try ClassicReportParser.parse([], path: "empty.crash")) { error in
            XCTAssertEqual(error as? ReportError, .empty("empty.crash"))
            XCTAssertEqual("\(error)", "empty.crash: not a crash report (the file is empty)")
        }
        XCTAssertThrowsError(try ClassicReportParser.parse(Array(" \n\t\r\n".utf8), path: "blank")) { error in
            XCTAssertEqual(error as? ReportError, .empty("blank"))
        }
    }

    func testInlinedLinesOfASymbolicatedReport() throws {
        let text = "Thread 0:\n"
            + "0   App  0x1000 clamp + 8 (Math.h:12) [inlined]\n"
            + "0   App  0x1000 compute + 40 (main.c:42)\n"
            + "1   App  0x1010 0x1000 + 16\n"
        let report = try ClassicReportParser.parse(Array(text.utf8), path: "t.crash")
        let frames = report.threads[0].frames
        XCTAssertEqual(frames.map(\.inlined), [true, false, false])
        XCTAssertEqual(frames[0].form, .symbolicated(name: "clamp", offset: 8, file: "Math.h", line: 12))
        XCTAssertEqual(frames[1].form, .symbolicated(name: "compute", offset: 40, file: "main.c", line: 42))
    }
}
