import Foundation
import CrashReport
import Grouping
import XCTest

/// Signatures read from reports the classic parser reads, resolved by hand where a test needs
/// a function name (the end-to-end tests resolve real fixture reports with real debug files).
final class SignatureReaderTests: XCTestCase {
    // MARK: Which frames

    func testSystemFramesAndSkippedFunctionsAreLeftOut() throws {
        let text = Report(exception: "EXC_CRASH (SIGABRT)", threads: [
            .init(header: "Thread 0 Crashed:", frames: [
                ("libsystem_kernel.dylib", 0x1c0a8b000 + 0x10, "__pthread_kill + 8"),
                ("libsystem_pthread.dylib", 0x1dd5bd000 + 0x20, "pthread_kill + 208"),
                ("libsystem_c.dylib", 0x1a7e59000 + 0x30, "abort + 124"),
                ("App", 0x100004000 + 0x100, nil), ("App", 0x100004000 + 0x200, nil),
                ("App", 0x100004000 + 0x300, nil), ("App", 0x100004000 + 0x400, nil),
            ]),
        ]).text
        let unresolved = try signature(text)
        XCTAssertEqual(unresolved.frames, ["App+0x100", "App+0x200", "App+0x300"])
        XCTAssertEqual(unresolved.kind, "abort")
        XCTAssertEqual(unresolved.source, .appFrames)

        // A static Swift runtime in the app traps in _assertionFailure: skipped; an inlined
        // frame is a frame of its own.
        let resolved = try signature(text, resolving: [
            3: [SourceFrame(function: "Swift._assertionFailure(_: Swift.StaticString, _: Swift.String, file: Swift.StaticString, line: Swift.UInt, flags: Swift.UInt32) -> Swift.Never")],
            4: [SourceFrame(function: "helper(int)", inlined: true), SourceFrame(function: "outer<int>(int)")],
            5: [SourceFrame(function: "caller()")],
        ])
        XCTAssertEqual(resolved.frames, ["helper", "outer", "caller"])
        XCTAssertEqual(resolved.text, "helper | outer | caller")
    }

    func testUnresolvedFramesAreTheSameAtEveryLoadAddress() throws {
        let a = try signature(Report(load: 0x100004000, threads: [.init(header: "Thread 0 Crashed:", frames: [
            ("App", 0x100004000 + 0x1234, nil), ("App", 0x100004000 + 0x2345, nil),
        ])]).text)
        let b = try signature(Report(load: 0x104a30000, threads: [.init(header: "Thread 0 Crashed:", frames: [
            ("App", 0x104a30000 + 0x1234, nil), ("App", 0x104a30000 + 0x2345, nil),
        ])]).text)
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.id, b.id)
        XCTAssertEqual(a.frames, ["App+0x1234", "App+0x2345"])
    }

    /// A macOS `.crash` report names the app's image by its bundle ID (`com.example.App`), its
    /// `.ips` twin by its file name (`App`): an unresolved frame is named by the file name of
    /// the image's path in both, so that one crash in two forms is one group.
    func testUnresolvedFramesAreNamedByTheImagesFileName() throws {
        let mac = """
            Process:               App [4127]
            Path:                  /Applications/App.app/Contents/MacOS/App
            Identifier:            com.example.App
            Version:               1.0 (1)
            Code Type:             X86-64 (Native)
            Date/Time:             2021-03-14 10:02:17.284 +0100
            OS Version:            macOS 11.2.3 (20D91)

            Crashed Thread:        0

            Exception Type:        EXC_BAD_ACCESS (SIGSEGV)

            Thread 0 Crashed:
            0   com.example.App               \t0x000000010c1a4234 0x10c1a3000 + 4660
            1   com.example.App               \t0x000000010c1a5345 0x10c1a3000 + 9029

            Binary Images:
                   0x10c1a3000 -        0x10c1a6fff +com.example.App (1.0 - 1) <0B5F2A3C-7E91-4D68-A0C4-2F9E8B1D6A37> /Applications/App.app/Contents/MacOS/App

            """
        let bundleNamed = try signature(mac)
        XCTAssertEqual(bundleNamed.frames, ["App+0x1234", "App+0x2345"])
        let fileNamed = try signature(Report(threads: [.init(header: "Thread 0 Crashed:", frames: [
            ("App", 0x100004000 + 0x1234, nil), ("App", 0x100004000 + 0x2345, nil),
        ])]).text)
        XCTAssertEqual(bundleNamed.id, fileNamed.id)
    }

    func testTheLastExceptionBacktraceDecidesWhenItHasAnAppFrame() throws {
        let crashed = Report.Thread(header: "Thread 0 Crashed:", frames: [
            ("libsystem_kernel.dylib", 0x1c0a8b000 + 0x10, "__pthread_kill + 8"),
            ("libsystem_c.dylib", 0x1a7e59000 + 0x30, "abort + 124"),
            ("App", 0x100004000 + 0x900, nil),
        ])
        let exception = Report.Thread(header: "Last Exception Backtrace:", frames: [
            ("CoreFoundation", 0x1a6fdf000 + 0x40, "__exceptionPreprocess + 220"),
            ("libobjc.A.dylib", 0x1ba8a3000 + 0x50, "objc_exception_throw + 56"),
            ("App", 0x100004000 + 0x500, nil),
        ])
        XCTAssertEqual(try signature(Report(threads: [exception, crashed]).text).frames, ["App+0x500"])
        let systemOnly = Report.Thread(header: "Last Exception Backtrace:", frames: [
            ("CoreFoundation", 0x1a6fdf000 + 0x40, "__exceptionPreprocess + 220"),
        ])
        XCTAssertEqual(try signature(Report(threads: [systemOnly, crashed]).text).frames, ["App+0x900"],
                       "an exception backtrace without app frames: the crashed thread")
    }

    func testTheCrashHandlersFramesBeforeTheTrampolineAreLeftOut() throws {
        let text = Report(threads: [.init(header: "Thread 0 Crashed:", frames: [
            ("App", 0x100004000 + 0x100, "crash_handler + 20"),
            ("libsystem_platform.dylib", 0x1dd5a0000 + 0x10, "_sigtramp + 56"),
            ("App", 0x100004000 + 0x300, "victim + 12"),
            ("App", 0x100004000 + 0x400, "main + 40"),
        ])]).text
        XCTAssertEqual(try signature(text).frames, ["victim", "main"])
    }

    func testRuntimesInsideTheAppBundleAreNotAppImages() throws {
        let text = Report(threads: [.init(header: "Thread 0 Crashed:", frames: [
            ("libswiftCore.dylib", 0x101000000 + 0x10, nil),
            ("App", 0x100004000 + 0x300, nil),
        ])]).text
        XCTAssertEqual(try signature(text).frames, ["App+0x300"])
    }

    func testTheCrashedThreadDecides() throws {
        let text = Report(threads: [
            .init(header: "Thread 0:", frames: [("App", 0x100004000 + 0x100, nil)]),
            .init(header: "Thread 1 Crashed:", frames: [("App", 0x100004000 + 0x200, nil)]),
        ]).text
        XCTAssertEqual(try signature(text).frames, ["App+0x200"])
    }

    // MARK: Kinds and reasons

    func testKindsAreClassesOfExceptionTypes() throws {
        func id(_ exception: String) throws -> String {
            try signature(Report(exception: exception, threads: [.init(header: "Thread 0 Crashed:", frames: [
                ("App", 0x100004000 + 0x100, nil),
            ])]).text).id
        }
        XCTAssertEqual(try id("EXC_BREAKPOINT (SIGTRAP)"), try id("EXC_BAD_INSTRUCTION (SIGILL)"), "one Swift trap on arm64 and x86_64")
        XCTAssertEqual(try id("EXC_BAD_ACCESS (SIGSEGV)"), try id("EXC_BAD_ACCESS (SIGBUS)"))
        XCTAssertNotEqual(try id("EXC_BAD_ACCESS (SIGSEGV)"), try id("EXC_CRASH (SIGABRT)"), "two bugs in one function")
        XCTAssertEqual(CrashKind.of(exceptionType: "EXC_CRASH (SIGKILL)"), "killed")
        XCTAssertEqual(CrashKind.of(exceptionType: "EXC_RESOURCE"), "resource")
        XCTAssertEqual(CrashKind.of(exceptionType: "EXC_SOMETHING_NEW (SIGUSR1)"), "EXC_SOMETHING_NEW")
        XCTAssertNil(CrashKind.of(exceptionType: nil))
        XCTAssertNil(CrashKind.of(exceptionType: "  "))
    }

    func testWithoutAppFramesTheReasonDecides() throws {
        func killed(_ reason: String) throws -> CrashSignature {
            try signature(Report(exception: "EXC_CRASH (SIGKILL)", termination: reason, threads: [
                .init(header: "Thread 0 Crashed:", frames: [("libsystem_kernel.dylib", 0x1c0a8b000 + 0x10, "mach_msg_trap + 8")]),
            ]).text)
        }
        let crash = try killed("Namespace FRONTBOARD, Code 0x8badf00d")
        XCTAssertEqual(crash.source, .reason)
        XCTAssertEqual(crash.text, "no app frame: EXC_CRASH (SIGKILL): Namespace FRONTBOARD, Code 0x8badf00d")
        XCTAssertEqual(crash, try killed("Namespace FRONTBOARD, Code 2343432205 Killed: 9"), "an .ips report's decimal code")
        XCTAssertNotEqual(crash, try killed("Namespace FRONTBOARD, Code 0xdead10cc"))
        let explained = "FRONTBOARD 2343432205 <RBSTerminateContext| domain:10 code:0x8BADF00D explanation:application<com.example>:4567 at 0x00000001a2b3c4d5"
        XCTAssertEqual(try killed(explained).reason,
                       "EXC_CRASH (SIGKILL): FRONTBOARD # <RBSTerminateContext| domain:10 code:0x8BADF00D explanation:application<com.example>:# at 0x#")
    }

    func testNoAppFrameAndNoReason() throws {
        let system = try signature(Report(exception: nil, threads: [.init(header: "Thread 0 Crashed:", frames: [
            ("libsystem_kernel.dylib", 0x1c0a8b000 + 0x10, "__pthread_kill + 8"),
            ("libsystem_c.dylib", 0x1a7e59000 + 0x30, "strlen + 4"),
        ])]).text)
        XCTAssertEqual(system.source, .systemFrames)
        XCTAssertEqual(system.frames, ["strlen"], "skipped functions are skipped here too")
        let nothing = try signature(Report(exception: nil, threads: []).text)
        XCTAssertEqual(nothing.source, .nothing)
        XCTAssertEqual(nothing.text, "no backtrace")
    }

    func testTheIDIsTheHashOfTheCanonicalText() {
        let signature = CrashSignature(kind: "bad access", frames: ["load_word", "payload_header", "header_is_valid"],
                                       source: .appFrames)
        XCTAssertEqual(signature.canonical,
                       "symbolicate-group 1\nkind bad access\nframe load_word\nframe payload_header\nframe header_is_valid\n")
        XCTAssertEqual(signature.id, String(SHA256.hex(signature.canonical).prefix(12)))
        XCTAssertEqual(signature.id.count, 12)
        XCTAssertNotEqual(signature.id, CrashSignature(kind: "bad access", frames: ["load_word", "payload_header"], source: .appFrames).id)
    }

    func testTheExampleMarksTheSignatureFrames() throws {
        let text = Report(threads: [.init(header: "Thread 0 Crashed:", frames: [
            ("libsystem_c.dylib", 0x1a7e59000 + 0x30, "abort + 124"),
            ("App", 0x100004000 + 0x100, nil),
        ])]).text
        let report = try ReportParser.parse(Array(text.utf8), path: "r.crash")
        let (_, example) = SignatureReader.read(SymbolicatedReport(report: report), example: true)
        let frames = try XCTUnwrap(example).frames
        XCTAssertEqual(frames.map(\.inSignature), [false, true])
        XCTAssertEqual(frames.map(\.inApp), [false, true])
        XCTAssertEqual(example?.name, "Thread 0 Crashed")
    }

    /// A runaway recursion: only the top of the backtrace is read.
    func testOnlyTheTopOfADeepBacktraceIsRead() throws {
        var frames: [(image: String, address: UInt64, rest: String?)] = []
        for i in 0..<20_000 {
            let offset = UInt64(0x100 + (i % 7) * 4)
            frames.append((image: "App", address: 0x100004000 + offset, rest: nil))
        }
        let text = Report(threads: [.init(header: "Thread 0 Crashed:", frames: frames)]).text
        let report = try ReportParser.parse(Array(text.utf8), path: "deep.crash")
        XCTAssertEqual(report.threads[0].frames.count, 20_000)
        let (signature, example) = SignatureReader.read(SymbolicatedReport(report: report), example: true)
        XCTAssertEqual(signature.frames, ["App+0x100", "App+0x104", "App+0x108"])
        XCTAssertEqual(example?.frames.count, SignatureReader.maximumFrames)
    }

    // MARK: Helpers

    /// The signature of the report `text`, frames of thread 0 resolved as `resolving` says
    /// (by frame index), each with a debug file for its image.
    private func signature(_ text: String, resolving: [Int: [SourceFrame]] = [:]) throws -> CrashSignature {
        let report = try ReportParser.parse(Array(text.utf8), path: "r.crash")
        var frames: [FrameKey: [SourceFrame]] = [:]
        var debugFiles: [Int: String] = [:]
        for (f, sources) in resolving {
            frames[FrameKey(thread: 0, frame: f)] = sources
            if let image = report.threads[0].frames[f].image { debugFiles[image] = "/dev/null" }
        }
        return SignatureReader.read(SymbolicatedReport(report: report, frames: frames, debugFiles: debugFiles)).signature
    }
}

/// A classic iOS report: the header, the threads given, the images every test uses.
struct Report {
    struct Thread {
        var header: String
        var frames: [(image: String, address: UInt64, rest: String?)]
    }

    var exception: String? = "EXC_BAD_ACCESS (SIGSEGV)"
    var termination: String?
    var load: UInt64 = 0x100004000
    var threads: [Thread]

    var text: String {
        var lines = ["Incident Identifier: 7C1E6A52-93B4-4E0F-8D2A-5F6B1C9D3E47", "Process:             App [1234]",
                     "Path:                /private/var/containers/Bundle/Application/X/App.app/App",
                     "Version:             1 (1.0)", "Code Type:           ARM-64 (Native)",
                     "Date/Time:           2021-03-14 09:26:53.5312 +0100", "OS Version:          iPhone OS 14.4 (18D52)", ""]
        if let exception { lines.append("Exception Type:  \(exception)") }
        if let termination { lines.append("Termination Reason: \(termination)") }
        lines.append("")
        for thread in threads {
            lines.append(thread.header)
            for (i, frame) in thread.frames.enumerated() {
                let name = frame.image.padding(toLength: 36, withPad: " ", startingAt: 0)
                let rest = frame.rest ?? "0x\(String(base(of: frame.image), radix: 16)) + \(frame.address - base(of: frame.image))"
                lines.append(String(i).padding(toLength: max(4, String(i).count + 1), withPad: " ", startingAt: 0) + name
                             + "0x" + String(format: "%016llx", frame.address) + " " + rest)
            }
            lines.append("")
        }
        lines.append("Binary Images:")
        for (name, start, path) in images {
            lines.append("0x\(String(start, radix: 16)) - 0x\(String(start + 0xffff, radix: 16)) \(name) arm64  <\(String(repeating: "ab", count: 16))> \(path)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private var images: [(String, UInt64, String)] {
        [("App", load, "/private/var/containers/Bundle/Application/X/App.app/App"),
         ("libswiftCore.dylib", 0x101000000, "/private/var/containers/Bundle/Application/X/App.app/Frameworks/libswiftCore.dylib"),
         ("libsystem_kernel.dylib", 0x1c0a8b000, "/usr/lib/system/libsystem_kernel.dylib"),
         ("libsystem_pthread.dylib", 0x1dd5bd000, "/usr/lib/system/libsystem_pthread.dylib"),
         ("libsystem_platform.dylib", 0x1dd5a0000, "/usr/lib/system/libsystem_platform.dylib"),
         ("libsystem_c.dylib", 0x1a7e59000, "/usr/lib/system/libsystem_c.dylib"),
         ("CoreFoundation", 0x1a6fdf000, "/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation"),
         ("libobjc.A.dylib", 0x1ba8a3000, "/usr/lib/libobjc.A.dylib")]
    }

    private func base(of image: String) -> UInt64 {
        images.first { $0.0 == image }?.1 ?? 0
    }
}
