import Foundation
import TestSupport
import XCTest

/// Sampled call-tree reports end to end — a microstackshot (`.cpu_resource.diag`) of the iOS
/// fixture app and a macOS `sample` of the x86_64 one, modelled on real ones — and the `.ips`
/// types that hold no backtraces to symbolicate (jetsam events, panics), which pass through.
///
/// The oracle of each frame is the fixture `.crash` report of the same app, whose
/// symbolication `TextOutputTests` checks against llvm-symbolizer: the same image offset in the
/// same role (a leaf's PC, a caller's return address) must give the same function and line.
final class CallTreeTests: XCTestCase {
    /// Modelled on iOS microstackshot reports: a heaviest stack, a per-process tree with a
    /// `<UUID> + OFFSET` frame, a kernel frame and a state line, and a Binary Images block whose
    /// app line ends in `???`.
    static let microstackshot = #"""
Date/Time:        2021-03-14 09:26:53.531 +0100
End time:         2021-03-14 09:29:41.112 +0100
OS Version:       iPhone OS 14.4 (Build 18D52)
Architecture:     arm64e
Report Version:   32
Incident Identifier: 7C1E6A52-93B4-4E0F-8D2A-5F6B1C9D3E47

Data Source:      Microstackshots
Shared Cache:     70B99E4D-6C1A-9D32-E0EB-D6119C04BA86 slid base address 0x1a6c70000, slide 0x26c70000

Command:          App
Path:             /private/var/containers/Bundle/Application/2B1F7E0D-8C1A-4F7B-9E5D-3A6C0F4B8D21/App.app/App
Identifier:       com.example.App
Version:          1.0 (1)
PID:              1234

Event:            cpu usage
Action taken:     none
CPU:              90 seconds cpu time over 167 seconds (54% cpu average), exceeding limit of 50% cpu over 180 seconds
CPU limit:        90s
Limit duration:   180s

Heaviest stack for the target process:
  16  ??? (libdyld.dylib + 5512) [0x1a6d7a588]
  16  ??? (App + 16856) [0x104a341d8]
  16  ??? (App + 16568) [0x104a340b8]
  16  ??? (App + 17220) [0x104a34344]
  16  ??? (App + 16900) [0x104a34204]


Powerstats for:   App [1234]
UUID:             UUID(App-arm64 arm64)
Path:             /private/var/containers/Bundle/Application/2B1F7E0D-8C1A-4F7B-9E5D-3A6C0F4B8D21/App.app/App
Num samples:      20 (80%)
  20  ??? (libdyld.dylib + 5512) [0x1a6d7a588]
    20  ??? (App + 16856) [0x104a341d8]
      16  ??? (App + 16568) [0x104a340b8]
        16  ??? (App + 17220) [0x104a34344]
          16  ??? (App + 16900) [0x104a34204]
      4   ??? (<UUID(libGreeter.dylib arm64)> + 17068) [0x1051c42ac]
        4   ??? (libsystem_kernel.dylib + 20516) [0x1c0a8cbc4]
         *4   ??? (kernel + 1234) [0xfffffff007a1c4d2]
          4    <on behalf of App [1234]>

  Binary Images:
           0x104a30000 -                ???  com.example.App 1.0 (1)                <UUID(App-arm64 arm64)>  /private/var/containers/Bundle/Application/2B1F7E0D-8C1A-4F7B-9E5D-3A6C0F4B8D21/App.app/App
           0x1a6d79000 -        0x1a6d7afff  libdyld.dylib                           <70B99E4D-6C1A-9D32-E0EB-D6119C04BA86>  /usr/lib/system/libdyld.dylib
           0x1c0a86000 -        0x1c0abffff  libsystem_kernel.dylib                  <0C4E1D9A-5F3B-3C2D-9E8F-7A6B5C4D3E2F>  /usr/lib/system/libsystem_kernel.dylib
"""#

    /// Modelled on macOS `sample` output.
    static let sample = #"""
Sampling process 4127 for 3 seconds with 1 millisecond of run time between samples
Sampling completed, processing symbols...
Analysis of sampling App (pid 4127) every 1 millisecond
Process:         App [4127]
Path:            /Applications/App.app/Contents/MacOS/App
Load Address:    0x10a2f1000
Identifier:      com.example.App
Version:         1.0 (1)
Code Type:       X86-64
Parent Process:  launchd [1]

Date/Time:       2021-03-14 09:26:53.390 +0100
OS Version:      Mac OS X 11.2 (20D64)
Report Version:  7
Analysis Tool:   /usr/bin/sample
----

Call graph:
    2757 Thread_1166804   DispatchQueue_1: com.apple.main-thread  (serial)
    + 2757 start  (in libdyld.dylib) + 1  [0x7fff6842a085]
    +   2757 ???  (in App)  load address 0x10a2f1000 + 0x8ab  [0x10a2f18ab]
    +     2757 ???  (in App)  load address 0x10a2f1000 + 0xa4e  [0x10a2f1a4e]
    +       2757 ???  (in App)  load address 0x10a2f1000 + 0x8ec  [0x10a2f18ec]
    2757 Thread_1167037
      2757 start_wqthread  (in libsystem_pthread.dylib) + 13  [0x7fff6865ab77]
      2757 __workq_kernreturn  (in libsystem_kernel.dylib) + 10  [0x7fff685645be]

Total number in stack (recursive counted multiple, when >=5):

Sort by top of stack, same collapsed (when >= 5):
        __workq_kernreturn  (in libsystem_kernel.dylib)        2757
        ???  (in App)        2757

Binary Images:
       0x10a2f1000 -        0x10a2f3fff +App (1.0 - 1) <UUID(App-x86_64 x86_64)> /Applications/App.app/Contents/MacOS/App
    0x7fff68428000 -     0x7fff68429fff  libdyld.dylib (852.2) <3B2B7B5D-3C4A-3D1E-9E0F-1A2B3C4D5E6F> /usr/lib/system/libdyld.dylib
"""#

    /// Writes `text`, its `UUID(name arch)` placeholders filled with the fixtures' UUIDs.
    private func write(_ text: String, named name: String) throws -> String {
        let dir = try makeTemporaryDirectory("call-tree")
        let path = dir.appendingPathComponent(name).path
        try Fixtures.fillingUUIDs(text).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func run(_ arguments: [String]) throws -> ProcessResult {
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        return result
    }

    func testMicrostackshotFramesResolveInSpindumpStyle() throws {
        let path = try write(Self.microstackshot, named: "App.cpu_resource.diag")
        let output = try run(["-q", "-d", Fixtures.path("macho"), path]).stdoutText
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // The heaviest stack: caller first, the last line the sampled PC.
        XCTAssertTrue(lines.contains("  16  main + 100 (main.c:77,12 in App + 16856) [0x104a341d8]"), output)
        XCTAssertTrue(lines.contains("  16  process_one + 8 (parser.c:43,18 in App + 17220) [0x104a34344] [inlined]"), output)
        XCTAssertTrue(lines.contains("  16  process_records + 92 (parser.c:53,13 in App + 17220) [0x104a34344]"), output)
        XCTAssertTrue(lines.contains("  16  load_word + 4 (parser.c:8,12 in App + 16900) [0x104a34204] [inlined]"), output)
        XCTAssertTrue(lines.contains("  16  parse_record + 28 (parser.c:27,10 in App + 16900) [0x104a34204]"), output)
        // The tree keeps each node's depth; a frame named by UUID finds its image by UUID.
        XCTAssertTrue(lines.contains("          16  parse_record + 28 (parser.c:27,10 in App + 16900) [0x104a34204]"), output)
        XCTAssertTrue(lines.contains(try Fixtures.fillingUUIDs(
            "      4   greeter_emit + 24 (greeter.c:39,20 in <UUID(libGreeter.dylib arm64)> + 17068) [0x1051c42ac]")),
            output)
        // Unresolved lines, the Binary Images block and everything else, byte for byte.
        let input = try Fixtures.fillingUUIDs(Self.microstackshot).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for line in input where line.contains("libdyld") || line.contains("kernel") || line.contains("Binary Images")
            || line.contains("on behalf") || line.contains("???  com.example.App") {
            XCTAssertTrue(lines.contains(line), "lost: \(line)")
        }
    }

    func testSampleFramesResolveInSampleStyle() throws {
        let path = try write(Self.sample, named: "App.sample.txt")
        let output = try run(["-q", "-d", Fixtures.path("macho"), path]).stdoutText
        let expected = """
                Call graph:
                    2757 Thread_1166804   DispatchQueue_1: com.apple.main-thread  (serial)
                    + 2757 start  (in libdyld.dylib) + 1  [0x7fff6842a085]
                    +   2757 main  (in App) + 75  [0x10a2f18ab]  main.c:80
                    +     2757 process_one  (in App) + 8  [0x10a2f1a4e]  parser.c:43 [inlined]
                    +     2757 process_records  (in App) + 62  [0x10a2f1a4e]  parser.c:53
                    +       2757 load_word  (in App) + 0  [0x10a2f18ec]  parser.c:8 [inlined]
                    +       2757 payload_header  (in App) + 4  [0x10a2f18ec]  parser.c:14 [inlined]
                    +       2757 header_is_valid  (in App) + 12  [0x10a2f18ec]  parser.c:22 [inlined]
                    +       2757 parse_record  (in App) + 12  [0x10a2f18ec]  parser.c:27
                    2757 Thread_1167037

                """
        XCTAssertTrue(output.contains(expected), output)
    }

    func testNothingResolvedComesBackByteForByte() throws {
        for (text, name) in [(Self.microstackshot, "a.cpu_resource.diag"), (Self.sample, "b.txt")] {
            let path = try write(text, named: name)
            let result = try run(["-q", path])
            XCTAssertEqual(result.stdout, Data(try Fixtures.fillingUUIDs(text).utf8), name)
        }
    }

    func testJSONGivesCallTreeNodesWithSampleCounts() throws {
        let path = try write(Self.microstackshot, named: "App.cpu_resource.diag")
        let result = try run(["-q", "--format", "json", "-d", Fixtures.path("macho"), path])
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let report = try XCTUnwrap((document["reports"] as? [[String: Any]])?.first)
        let threads = try XCTUnwrap(report["threads"] as? [[String: Any]])
        guard threads.count == 2 else { return XCTFail("threads: \(threads)") }
        XCTAssertEqual(threads[0]["kind"] as? String, "call_tree")
        XCTAssertEqual(threads[0]["name"] as? String, "Heaviest stack for the target process")
        let tree = try XCTUnwrap(threads[1]["frames"] as? [[String: Any]])
        let leaf = try XCTUnwrap(tree.first { $0["symbol"] as? String == "parse_record" })
        XCTAssertEqual(leaf["sample_count"] as? Int, 16)
        XCTAssertEqual(leaf["index"] as? Int, 4, "a node's index is its depth")
        XCTAssertEqual(leaf["line"] as? Int, 27)
        let images = try XCTUnwrap(report["images"] as? [[String: Any]])
        let uuid = try Fixtures.uuid("App-arm64", arch: "arm64").lowercased().replacingOccurrences(of: "-", with: "")
        let app = try XCTUnwrap(images.first { $0["uuid"] as? String == uuid })
        XCTAssertEqual(app["name"] as? String, "com.example.App")
        XCTAssertNotNil(app["debug_file"] as? String)
    }

    /// A spindump hang report of the x86_64 fixture app, modelled on macOS spindumps: nodes of
    /// known images, kernel nodes (`*`), and nodes spindump placed in no image — `??? [0x...]`,
    /// kernel frames of unknown extensions and user frames outside every listed image — each at
    /// its `depth`.
    static let spindumpNodes: [(depth: Int, kernel: Bool, body: String)] = [
        (0, false, "start + 1 (libdyld.dylib + 89989) [0x7fff6842a085] 1-958"),
        (1, false, "main + 75 (App + 2219) [0x10a2f18ab] 1-958"),
        (2, false, "??? (App + 2638) [0x10a2f1a4e] 1-958"),
        (3, false, "??? [0x10a2f18ec] 1-958"),
        (4, false, "__workq_kernreturn + 10 (libsystem_kernel.dylib + 5566) [0x7fff685645be] 1-958"),
        (5, true, "??? (kernel + 722854) [0xffffff80002b0ba6] 1-958"),
        (6, true, "??? [0xffffff80002c1206] 1-958"),
        (7, true, "??? (<8C5A3E0B-1F4D-3E8A-9B2C-7D6E5F4A3B21> + 1234) [0xffffff7f81c034d2] 1-958"),
        (8, true, "thread_block_reason + 175 [0xffffff800034a6af] 1-958"),
        (0, false, "thread_start + 13 (libsystem_pthread.dylib + 7031) [0x7fff6865ab77] 1-958"),
        (1, false, "??? [0x7fff00001234] 1-958"),
        (2, false, "??? (<unknown binary> + 4660) [0x1234] 1-958"),
        (3, true, "??? [0xffffff80002c1206] 1-958"),
    ]

    /// The spindump of `spindumpNodes`: two threads (the second starts at the second depth 0).
    static var spindump: String {
        var lines = """
            Date/Time:        2021-03-14 09:26:53.531 +0100
            OS Version:       macOS 11.2 (Build 20D64)
            Architecture:     x86_64
            Report Version:   32
            Data Source:      Stackshots

            Process:          App [4127]
            UUID:             UUID(App-x86_64 x86_64)
            Path:             /Applications/App.app/Contents/MacOS/App
            Num samples:      958 (1-958)

            """.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast()
        for (n, node) in spindumpNodes.enumerated() {
            if node.depth == 0 {
                if n > 0 { lines.append("") }
                lines.append("  Thread 0x11cd\(n)    958 samples (1-958)    priority 31 (base 31)")
            }
            let indent = String(repeating: " ", count: 2 + 2 * node.depth - (node.kernel ? 1 : 0))
            lines.append(indent + (node.kernel ? "*" : "") + "958  " + node.body)
        }
        lines += ["", "  Binary Images:",
                  "           0x10a2f1000 -        0x10a2f3fff  com.example.App 1.0 (1)  <UUID(App-x86_64 x86_64)>  /Applications/App.app/Contents/MacOS/App",
                  "        0x7fff68428000 -     0x7fff68429fff  libdyld.dylib (852.2)  <3B2B7B5D-3C4A-3D1E-9E0F-1A2B3C4D5E6F>  /usr/lib/system/libdyld.dylib",
                  "   *0xffffff8000200000 - 0xffffff8000c2afff  kernel (7195.81.3)  <5D4E3F2A-1B0C-3D9E-8F7A-6B5C4D3E2F1A>  /System/Library/Kernels/kernel",
                  ""]
        return lines.joined(separator: "\n")
    }

    /// Every node of a spindump is a frame of its tree in JSON, at its depth, whether or not it
    /// names an image (`image` null when it names none); the text comes back byte for byte but
    /// for the nodes of the app, which resolve.
    func testEveryNodeOfASpindumpIsAFrameAtItsDepth() throws {
        let path = try write(Self.spindump, named: "App.hang.spindump.txt")
        let arguments = ["--format", "json", "-d", try Fixtures.path("macho"), path]
        let report = try IPSTests.jsonReport(try run(arguments), arguments)
        let threads = try XCTUnwrap(report["threads"] as? [[String: Any]])
        let frames = threads.flatMap { $0["frames"] as? [[String: Any]] ?? [] }.filter { $0["inlined"] as? Bool != true }
        XCTAssertEqual(threads.count, 2)
        XCTAssertEqual(frames.map { $0["index"] as? Int }, Self.spindumpNodes.map(\.depth), "every node, at its depth")
        let addresses = Self.spindumpNodes.map { node in node.body.range(of: #"\[0x[0-9a-f]+\]"#, options: .regularExpression)
            .map { String(node.body[$0].dropFirst().dropLast()) } }
        XCTAssertEqual(frames.map { $0["address"] as? String }, addresses)
        for (frame, node) in zip(frames, Self.spindumpNodes) where !node.body.contains("(") {
            XCTAssertTrue(frame["image"] is NSNull, "a node naming no image: \(frame)")
            XCTAssertTrue(frame["file"] is NSNull, "a node naming no image resolves to nothing: \(frame)")
        }
        XCTAssertEqual(frames[1]["symbol"] as? String, "main", "the app's nodes resolve")
        XCTAssertTrue((frames[1]["file"] as? String)?.hasSuffix("/src/app/main.c") ?? false, "\(frames[1])")
        XCTAssertEqual(frames[1]["line"] as? Int, 80, "as the sample of the same app resolves it")

        let text = try run(["-q", path])
        XCTAssertEqual(text.stdout, Data(try Fixtures.fillingUUIDs(Self.spindump).utf8), "nothing resolved: byte for byte")
        let resolved = try run(["-q", "-d", try Fixtures.path("macho"), path]).stdoutText
        for node in Self.spindumpNodes where !node.body.contains("(") {
            XCTAssertTrue(resolved.contains("958  " + node.body + "\n"), "kept as it is: \(node.body)\n\(resolved)")
        }
    }

    func testJetsamAndPanicReportsPassThroughWithOneWarning() throws {
        let jetsam = """
            {"bug_type":"298","timestamp":"2021-03-14 09:26:53.00 +0100","os_version":"iPhone OS 14.4 (18D52)","incident_id":"7C1E6A52-93B4-4E0F-8D2A-5F6B1C9D3E47"}
            {
              "crashReporterKey" : "4e1f0c9a7d3b2e58a6f1c0d9b8e7a6f5d4c3b2a1",
              "product" : "iPhone12,1",
              "largestProcess" : "App",
              "memoryStatus" : {"compressorSize" : 52713, "pageSize" : 16384},
              "processes" : [{"uuid" : "4c4c44c3-5555-3144-a19b-af60d4f21f14", "name" : "App", "rpages" : 91022, "reason" : "per-process-limit", "pid" : 1234}]
            }
            """
        let panic = """
            {"bug_type":"151","timestamp":"2021-03-14 09:26:53.00 +0100","os_version":"iPhone OS 14.4 (18D52)","incident_id":"0B5F2A3C-7E91-4D68-A0C4-2F9E8B1D6A37"}
            {"build" : "iPhone OS 14.4 (18D52)","product" : "iPhone12,1","panicString" : "panic(cpu 1 caller 0xfffffff0271a8c4c): Kernel data abort.\nPanicked task 0xffffffe19a3c8000: 2 threads: pid 1234: App\nPanicked thread: 0xffffffe19a4f0000, backtrace: 0xffffffe8141a3040, tid: 4242\n\t\t  lr: 0xfffffff0271a8c4c  fp: 0xffffffe8141a3090\n"}
            """
        for (text, name, type) in [(jetsam, "JetsamEvent.ips", "298"), (panic, "panic-full.ips", "151")] {
            let path = try write(text, named: name)
            for format in ["text", "ips"] {
                let result = try run(["--format", format, "-d", Fixtures.path("macho"), path])
                XCTAssertEqual(result.stdout, Data(text.utf8), "\(name) as \(format)")
                let warnings = result.stderrText.split(separator: "\n").filter { $0.contains(path) }
                XCTAssertEqual(warnings.count, 1, result.stderrText)
                XCTAssertTrue(warnings.first?.contains("(bug_type \(type))") ?? false, result.stderrText)
                XCTAssertTrue(warnings.first?.contains("written as it is") ?? false, result.stderrText)
            }
        }
    }
}
