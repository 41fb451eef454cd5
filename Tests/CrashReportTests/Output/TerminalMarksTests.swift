import CrashReport
import XCTest

/// `TextRenderer` and `CallTreeRenderer` with `TerminalMarks`, on every text form a frame can
/// take (classic frames, address lists, sanitizer, glibc and ThreadSanitizer lines, Swift runtime
/// backtraces, spindump and `sample` call trees): every frame of every report is resolved with functions named after
/// the frame and its image, and half the images are the app's. Then each output line naming a
/// function of an app image is `ESC[1m` + the line + `ESC[0m`, no other line has an escape
/// sequence, and without the marks the output is the unmarked output byte for byte.
final class TerminalMarksTests: XCTestCase {
    static let reports: [(name: String, text: String)] = [
        ("classic", "Thread 0 Crashed:\n"
            + "0   libsystem_kernel.dylib        \t0x18da6eec4 __pthread_kill + 8\n"
            + "1   App                           \t0x0000000104a3c5e0 0x104a30000 + 50656\n"
            + "2   App                           \t0x0000000104a3c600 0x104a30000 + 50688\r\n"
            + "\n"
            + "Last Exception Backtrace:\n(0x104a3c5e0\n 0x18da6eec4 0x5)\n\n"
            + "Binary Images:\n"
            + "0x104a30000 - 0x104a3ffff App arm64  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /App\n"
            + "0x18da60000 - 0x18da7ffff libsystem_kernel.dylib arm64e  <7b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /usr/lib/system/libsystem_kernel.dylib"),
        ("sanitizer", """
            READ of size 4 at 0x7b6b565e0028 thread T0
                #0 0x55c9f9e4943d  (/tmp/prog+0x17443d) (BuildId: 4f2c)
                #1 0x55c9f9e48eee  (/tmp/prog+0x173eee)
                #2 0x7f0b57245249  (/lib/x86_64-linux-gnu/libc.so.6+0x27249)

            """),
        ("glibc", "backtrace:\r\n./prog(+0x1388)[0x55fd7aec4388]\r\n./prog(+0x1145) [0x55fd7aec4145]  \r\n"
            + "/lib/x86_64-linux-gnu/libc.so.6(abort+0xd3)[0x7fea7f400472]"),
        ("thread sanitizer", """
            WARNING: ThreadSanitizer: data race (pid=4242)
              Write of size 4 at 0x55d1 by thread T1:
                #0 <null> <null> (race+0x1272)
                #1 <null> <null> (libc.so.6+0x27249) (BuildId: 93ac61ec)

            """),
        ("swift backtrace", """
            *** Program crashed: Illegal instruction at 0x00005555555557e0 ***

            Thread 0 crashed:

            0      0x00005555555557e0
            1 [ra] 0x00005555555557e4
            2 [ra] 0x00007ffff7800100

            Images (12 omitted):

            0x0000555555554000–0x0000555555555e90 fdeb5b5d06b673c562bcf273f94d5b47041dd4eb app /tmp/app
            0x00007ffff7800000-0x00007ffff7dd2d40 <no build ID>                            libswiftCore.so /opt/swift/libswiftCore.so

            """),
        ("spindump", """
            Heaviest stack for the main thread of the target process:
              49  ??? (App + 16900) [0x104a34204] 1-49
              49  ??? (QuartzCore + 34665) [0x7ff80b8d4769]

            Binary Images:
                   0x104a30000 -        0x104a37fff  App <4c4c44c355553144a19baf60d4f21f14>  /Applications/App.app/App
                0x7ff80b8cc000 -     0x7ff80b8fffff  QuartzCore <2dc742546f7a60835cd197a8d2c9b903>  /System/Library/QuartzCore

            """),
        ("sample", """
            Call graph:
                2757 Thread_1   DispatchQueue_1: com.apple.main-thread  (serial)
                + 2757 ???  (in App)  load address 0x104a30000 + 0x4204  [0x104a34204]
                +   2757 ???  (in QuartzCore)  load address 0x7ff80b8cc000 + 0x8769  [0x7ff80b8d4769]

            Binary Images:
                   0x104a30000 -        0x104a37fff +App (1.0) <4C4C44C3-5555-3144-A19B-AF60D4F21F14> /Applications/App.app/App
                0x7ff80b8cc000 -     0x7ff80b8fffff  QuartzCore (1.0) <2DC74254-6F7A-6083-5CD1-97A8D2C9B903> /System/Library/QuartzCore

            """),
    ]

    static let bold = "\u{1B}[1m", reset = "\u{1B}[0m"

    func testTheAppsResolvedFramesAreMarkedLineByLine() throws {
        for (name, text) in Self.reports {
            let report = try ReportParser.parse(Array(text.utf8), path: "test-\(name)")
            XCTAssertFalse(report.images.isEmpty, name)
            var frames: [FrameKey: [SourceFrame]] = [:]
            for (t, thread) in report.threads.enumerated() {
                for (f, frame) in thread.frames.enumerated() {
                    let image = frame.image.map(String.init) ?? "none"
                    frames[FrameKey(thread: t, frame: f)] = [
                        SourceFrame(function: "inner_t\(t)_f\(f)_image\(image)", offset: 4, file: "/src/a.c", line: 3, inlined: true),
                        SourceFrame(function: "outer_t\(t)_f\(f)_image\(image)", offset: 8, file: "/src/a.c", line: 9),
                    ]
                }
            }
            let symbolicated = SymbolicatedReport(report: report, frames: frames)
            let appImages = report.images.indices.map { $0 % 2 == 0 }
            var plain: [UInt8] = [], marked: [UInt8] = [], none: [UInt8] = []
            func render(_ marks: TerminalMarks?, into out: inout [UInt8]) {
                if case .callTree(let tree) = report.source {
                    CallTreeRenderer(marks: marks).render(symbolicated, tree: tree, into: &out)
                } else {
                    TextRenderer(marks: marks).render(symbolicated, into: &out)
                }
            }
            render(nil, into: &plain)
            render(TerminalMarks(appImages: appImages), into: &marked)
            render(TerminalMarks(appImages: appImages.map { _ in false }), into: &none)
            XCTAssertEqual(none, plain, "\(name): no app image, no mark")
            let markedText = String(decoding: marked, as: UTF8.self)
            XCTAssertEqual(markedText.replacingOccurrences(of: Self.bold, with: "").replacingOccurrences(of: Self.reset, with: ""),
                           String(decoding: plain, as: UTF8.self), "\(name): the marks are all that is added")

            var counts = (marked: 0, unmarked: 0)
            // Lines split on bytes: "\r\n" is one Character to String.
            for line in marked.split(separator: 0x0A, omittingEmptySubsequences: false) {
                let content = String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
                let image = content.range(of: #"_image[0-9]+"#, options: .regularExpression)
                    .flatMap { Int(content[$0].dropFirst("_image".count)) }
                if let image, appImages[image] {
                    XCTAssertTrue(content.hasPrefix(Self.bold) && content.hasSuffix(Self.reset), "\(name): not marked: \(content)")
                    XCTAssertEqual(content.components(separatedBy: "\u{1B}").count, 3, "\(name): one mark: \(content)")
                    counts.marked += 1
                } else {
                    XCTAssertFalse(content.contains("\u{1B}"), "\(name): marked: \(content)")
                    if image != nil { counts.unmarked += 1 }
                }
            }
            XCTAssertGreaterThan(counts.marked, 0, "\(name): no frame of an app image was marked:\n\(markedText)")
            XCTAssertGreaterThan(counts.unmarked, 0, "\(name): no resolved frame of another image:\n\(markedText)")
        }
    }
}
