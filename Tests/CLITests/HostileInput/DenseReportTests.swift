import Foundation
import TestSupport
import XCTest

/// Files made to fill memory: 16 MiB of lines of a few bytes, each a frame, a thread or an image
/// (of a classic report, a Linux log, a tombstone, a call tree or a Swift backtrace), or of
/// empty JSON objects, each a thread, an image or a frame of an `.ips`, KSCrash or MetricKit
/// report. Their models would take 8 to 60 times their size (a frame kept whole is 64 bytes,
/// an image 112 and its strings, a JSON node 28, a frame's line of text 70). Each is refused
/// once what it would take passes a bound (``FrameText/limitFactor`` times its size, twice that
/// for a JSON report's translation, one node for each 16 or 6 bytes of JSON): one line naming
/// the file and what it holds, exit 1, and the file written back byte for byte, at a peak of at
/// most 7 times its size and a constant (they took 130 MiB to 1 GiB; now 25 to 112 MiB).
final class DenseReportTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try makeTemporaryDirectory("dense")
    }

    /// 16 MiB of `line(k)` for k = 0, 1, ..., after `head` and before `tail`.
    private func write(_ name: String, head: String = "", tail: String = "", line: (Int) -> String) throws -> String {
        var parts = [head]
        var size = head.utf8.count
        var k = 0
        while size < 16 << 20 {
            let text = line(k)
            parts.append(text)
            size += text.utf8.count
            k += 1
        }
        parts.append(tail)
        let path = root.appendingPathComponent(name).path
        try parts.joined().write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    private func assertRefused(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let name = (path as NSString).lastPathComponent
        // What the run does, from the tool itself; its peak, from a second run under GNU time.
        let result = try CLI.run([path])
        XCTAssertEqual(result.status, .reportFailed, result.stderrText, file: file, line: line)
        XCTAssertTrue(result.stderrText.contains("\(path): too dense to read: "), result.stderrText, file: file, line: line)
        XCTAssertTrue(result.stderrText.contains("times its size in memory; the report is written as it is"),
                      result.stderrText, file: file, line: line)
        XCTAssertEqual(result.stdout, try Data(contentsOf: URL(fileURLWithPath: path)),
                       "\(name): written back as it is", file: file, line: line)
        let peak = root.appendingPathComponent("peak").path
        let measured = try CLI.shell("/usr/bin/time -f %M -o '\(peak)' \"$SYMBOLICATE\" '\(path)' > /dev/null")
        XCTAssertEqual(measured.status, .reportFailed, "\(name), under GNU time: \(measured.stderrText)", file: file, line: line)
        let text = try String(contentsOfFile: peak, encoding: .utf8)
        let kib = try XCTUnwrap(text.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
        print("\(name): \(kib >> 10) MiB for \(size >> 20) MiB")
        // The process's own 10 MiB, the model's constant allowance (16 MiB), and 7 times the size:
        // the input, its lines, the model's bound and the copy of its largest array as it grew.
        XCTAssertLessThanOrEqual(kib, 26 << 10 + size / 1024 * 7, "\(name): \(kib >> 10) MiB", file: file, line: line)
    }

    /// Frame lines of 8 bytes, each numbered 0 (so that none is its place: each is kept
    /// whole, 64 bytes), and image lines of 12 bytes (112 bytes and more each).
    func testDenseClassicReportsAreRefused() throws {
        try assertRefused(try write("frames.crash", head: "Thread 0:\n") { _ in "0 a 0x1\n" })
        try assertRefused(try write("images.crash", head: "Binary Images:\n") { k in "0x\(String(k, radix: 16)) - 0x1 a\n" })
    }

    /// Whether a report passes its bound is the same in every run, whatever blocks the
    /// allocator gives: glibc rounds a block up by what it has free, and maps a block in whole
    /// pages or carves it from its heap as what the process freed before moved its threshold.
    /// A 16 MiB file of frame lines numbered 0 passed its bound in one run and not in the next
    /// (a frame list's room was read back from the allocator). Each shape — records and their
    /// numbers, records and their lines, frames kept whole — is run with every block of 64 KiB
    /// or more mapped, with none below 32 MiB mapped, and as the allocator chooses.
    func testTheBoundIsTheSameWhateverTheAllocatorGives() throws {
        let shapes = [try write("numbered.crash", head: "Thread 0:\n") { _ in "0 a 0x1\n" },
                      try write("spaced.crash", head: "Thread 0:\n") { k in "\(k % 10) a 0x1\n\n" },
                      try write("whole.crash", head: "Thread 0:\n") { _ in "0 a 0x10 0x5 + 1\n" }]
        for path in shapes {
            var outcomes: [String: String] = [:]
            for setting in ["", "MALLOC_MMAP_THRESHOLD_=65536", "MALLOC_MMAP_THRESHOLD_=33554432"] {
                let result = try CLI.shell("\(setting) \"$SYMBOLICATE\" '\(path)' > /dev/null")
                outcomes[setting.isEmpty ? "as the allocator chooses" : setting] = "exit status \(result.status): \(result.stderrText)"
            }
            XCTAssertEqual(Set(outcomes.values).count, 1, "\(path): \(outcomes)")
        }
    }

    /// One-frame backtraces of 30 bytes, each under a line of its own that names it.
    func testADenseLinuxLogIsRefused() throws {
        try assertRefused(try write("frames.log") { k in "X\(k)\n    #0 0x1 (/a+0x1)\n" })
    }

    /// An Android tombstone of frame lines of 12 bytes; a `sample` call tree of one-frame
    /// threads of 22 bytes; a Swift runtime backtrace of one-frame threads of 20 bytes.
    func testOtherDenseTextReportsAreRefused() throws {
        let tombstone = "*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***\nABI: 'arm64'\n"
            + "pid: 1, tid: 1, name: x  >>> x <<<\nbacktrace:\n"
        try assertRefused(try write("dense.tombstone", head: tombstone) { _ in "  #00 pc 0 a\n" })
        let sample = "Analysis of sampling App (pid 4127) every 1 millisecond\nProcess:         App [4127]\n"
            + "Code Type:       X86-64\nAnalysis Tool:   /usr/bin/sample\n----\n\nCall graph:\n"
        try assertRefused(try write("dense.sample.txt", head: sample) { _ in "    1 T\n    + 1 a [0x1]\n" })
        let swift = "*** Program crashed: Bad pointer dereference at 0x0000000000000000 ***\n\n"
        try assertRefused(try write("dense.swift.txt", head: swift) { k in "Thread \(k):\n0 0x1 in a\n" })
    }

    /// A KSCrash report whose images, threads or one thread's frames are empty objects, and
    /// a MetricKit payload whose call stack's root frames are (every value of these is a node).
    func testDenseJSONReportsAreRefused() throws {
        let kscrash = try String(contentsOfFile: try Fixtures.path("kscrash/App-arm64.json"), encoding: .utf8)
        let metrickit = try String(contentsOfFile: try Fixtures.path("metrickit/App-arm64.json"), encoding: .utf8)
        for (name, template, member) in [("kscrash-images.json", kscrash, "binary_images"), ("kscrash-threads.json", kscrash, "threads"),
                                         ("kscrash-frames.json", kscrash, "contents"),
                                         ("metrickit-frames.json", metrickit, "callStackRootFrames")] {
            let range = try XCTUnwrap(template.range(of: "\"\(member)\""), name)
            let open = try XCTUnwrap(template[range.upperBound...].firstIndex(of: "["), name)
            let head = String(template[...open]), tail = String(template[template.index(after: open)...])
            try assertRefused(try write(name, head: head, tail: tail) { _ in "{}," })
        }
    }

    /// Protobuf reports of empty messages, 3 bytes each: an Android tombstone's memory
    /// mappings, a PLCrashReporter report's threads. Refused before they are decoded (they took
    /// 1.1 to 1.2 GiB); as any protobuf report that cannot be read, not written out as text.
    func testDenseProtobufReportsAreRefused() throws {
        // A tombstone: arch, build fingerprint, one thread (tid 0), then the mappings.
        let tombstone: [UInt8] = [0x08, 0x01, 0x12, 0x01, 0x78, 0x82, 0x01, 0x02, 0x12, 0x00]
        // A PLCrashReporter report: the magic, version 1, then the threads (field 3).
        let plcrash = Array("plcrash".utf8) + [1]
        for (name, head, element) in [("mappings.pb", tombstone, [UInt8]([0x8A, 0x01, 0x00])),
                                      ("threads.plcrash", plcrash, [UInt8]([0x1A, 0x00]))] {
            var bytes = head
            bytes.reserveCapacity(16 << 20)
            while bytes.count < 16 << 20 { bytes += element }
            let path = root.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let peak = root.appendingPathComponent("peak").path
            let result = try CLI.shell("/usr/bin/time -f %M -o '\(peak)' \"$SYMBOLICATE\" '\(path)'")
            XCTAssertEqual(result.status, .reportFailed, result.stderrText)
            XCTAssertTrue(result.stderrText.contains("\(path): not a valid ") && result.stderrText.contains(": too dense to read: its "),
                          result.stderrText)
            XCTAssertTrue(result.stdout.isEmpty, "\(name): nothing written")
            let text = try String(contentsOfFile: peak, encoding: .utf8)
            let kib = try XCTUnwrap(text.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
            print("\(name): \(kib >> 10) MiB for 16 MiB")
            XCTAssertLessThanOrEqual(kib, (26 << 10) + (16 << 10) * 7, "\(name): \(kib >> 10) MiB")
        }
    }

    /// An `.ips` report whose threads, images or one thread's frames are empty objects, and
    /// one whose metadata line holds them.
    func testDenseIPSReportsAreRefused() throws {
        let template = try String(contentsOfFile: try Fixtures.path("ips/App-arm64.ips"), encoding: .utf8)
        for member in ["threads", "usedImages", "frames"] {
            let range = try XCTUnwrap(template.range(of: "\"\(member)\""))
            let open = try XCTUnwrap(template[range.upperBound...].firstIndex(of: "["))
            let head = String(template[...open]), tail = String(template[template.index(after: open)...])
            try assertRefused(try write("empty-\(member).ips", head: head, tail: tail) { _ in "{}," })
        }
        // The metadata line itself, one JSON value read whole.
        try assertRefused(try write("empty-metadata.ips", head: "{\"bug_type\":\"309\",\"x\":[", tail: "{}]}\n{}") { _ in "{}," })
    }
}
