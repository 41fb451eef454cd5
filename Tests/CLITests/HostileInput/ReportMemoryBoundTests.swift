import Foundation
import TestSupport
import XCTest

/// A large report costs a bounded multiple of its size, measured as the peak resident memory
/// of the tool's process: the report is held once, its lines and frames are small records
/// beside it, and its output is written as it is made, never held whole. Reports are made
/// here from the fixtures, tens of megabytes each: large enough that the tool's own memory
/// is small beside them, small enough to be quick.
final class ReportMemoryBoundTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try makeTemporaryDirectory("memory-bound")
    }

    override func tearDownWithError() throws {
        if let root { try? FileManager.default.removeItem(at: root) }
    }

    private func path(_ name: String) -> String { root.appendingPathComponent(name).path }
    private func quoted(_ path: String) -> String { "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// The peak resident memory, in KiB, of `command` (a bash command line using
    /// `$SYMBOLICATE`), which must exit 0.
    private func peakKiB(_ command: String) throws -> Int {
        let measure = path("peak")
        let result = try CLI.shell("/usr/bin/time -f %M -o \(quoted(measure)) \(command) > /dev/null", timeout: 300)
        XCTAssertEqual(result.status, .success, "\(command): \(result.stderrText)")
        let text = try String(contentsOfFile: measure, encoding: .utf8)
        return try XCTUnwrap(text.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) },
                             "no peak from GNU time: \(text)")
    }

    /// Checks that symbolicating `report` (each command of `commands`, where `REPORT` stands
    /// for its path) peaks at most at `times` its size above what the tool takes for a small
    /// report, with 4 MiB to spare for buffers.
    private func assertBound(_ report: String, times: Double, debug: String, commands: [String],
                             file: StaticString = #filePath, line: UInt = #line) throws {
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: report)[.size] as? Int)
        let small = try Fixtures.path("reports/App-arm64.crash")
        let baseline = try peakKiB("\"$SYMBOLICATE\" -q -d \(quoted(debug)) \(quoted(small))")
        for command in commands {
            let command = command.replacingOccurrences(of: "REPORT", with: quoted(report))
            let peak = try peakKiB(command)
            let bound = baseline + Int(Double(size / 1024) * times) + 4 << 10
            print("\(command): \(peak / 1024) MiB for \(size >> 20) MiB (\(String(format: "%.2f", Double(peak - baseline) * 1024 / Double(size)))x above \(baseline / 1024) MiB)")
            XCTAssertLessThanOrEqual(peak, bound, "\(command): \(peak / 1024) MiB for a report of \(size >> 20) MiB",
                                     file: file, line: line)
        }
    }

    /// A classic report of 16 MiB, written to `name`: the fixture's header and images around
    /// threads whose frames `frames(thread number, the crashed thread's frame lines)` gives.
    private func classicReport(_ name: String, frames: (Int, String) -> String) throws -> String {
        let template = try String(contentsOfFile: try Fixtures.path("reports/App-arm64.crash"), encoding: .utf8)
        let header = template.components(separatedBy: "Thread 0 name:")[0]
        let images = "Binary Images:" + template.components(separatedBy: "Binary Images:")[1]
        let crashed = template.components(separatedBy: "Thread 0 Crashed:\n")[1].components(separatedBy: "\n\n")[0]
        var text = header
        var thread = 0
        while text.utf8.count < 16 << 20 {
            text += "Thread \(thread):\n" + frames(thread, crashed) + "\n\n"
            thread += 1
        }
        let report = path(name)
        try (text + images).write(toFile: report, atomically: false, encoding: .utf8)
        return report
    }

    /// A classic report of many threads, their frames in the app (resolved) and in system
    /// libraries, the fixture's header and images: at most 1.5 times its size (the report's
    /// bytes, and 16 bytes a frame beside lines of 70 to 100), written to standard output as
    /// text or JSON, or to a file with -o. It was 4 times its size when frames were 64 bytes
    /// each, in arrays grown by doubling.
    func testAClassicReportCostsAtMostOneAndAHalfTimesItsSize() throws {
        let macho = try Fixtures.path("macho")
        let report = try classicReport("many-threads.crash") { _, frames in frames }
        try assertBound(report, times: 1.5, debug: macho, commands: [
            "\"$SYMBOLICATE\" -q -d \(quoted(macho)) REPORT",
            "\"$SYMBOLICATE\" -q --format json -d \(quoted(macho)) REPORT",
            "\"$SYMBOLICATE\" -q -d \(quoted(macho)) -o \(quoted(path("out"))) REPORT",
        ])
    }

    /// A classic report of two hundred thousand backtraces of two or three frames (threads
    /// waiting in the kernel): what each thread costs beside its frames (its record, its frame
    /// list's header, about 100 bytes) counts too, against some 220 bytes of text. At most 2
    /// times its size (it was 7.3, then 3.1, then 2.25).
    func testAClassicReportOfManyShortThreadsCostsAtMostTwiceItsSize() throws {
        let macho = try Fixtures.path("macho")
        let report = try classicReport("short-threads.crash") { thread, frames in
            frames.components(separatedBy: "\n").prefix(2 + thread % 2).joined(separator: "\n")
        }
        try assertBound(report, times: 2, debug: macho, commands: ["\"$SYMBOLICATE\" -q -d \(quoted(macho)) REPORT"])
    }

    /// The densest shapes there are: a classic report of threads of one frame each (some 50
    /// bytes a thread), and a log of one-frame backtraces, each under a line of its own (some
    /// 38 bytes). Each backtrace costs its record (48 bytes), its frame list (an allocation of
    /// 56 bytes with one frame) and its lines beside its few bytes of text: at most 3.75 and
    /// 5 times their size (3.6 and 4.3 measured). They were 4.0 and 5.6 times while the threads
    /// were copied once made, to let go of the room growing left, and a frame list's header was
    /// 32 bytes.
    func testReportsOfOneFrameBacktracesStayWithinTheirBound() throws {
        let macho = try Fixtures.path("macho")
        let report = try classicReport("one-frame-threads.crash") { thread, _ in
            "0 App 0x\(String(0x104a30064 + thread % 1000, radix: 16)) 0x104a30000 + \(100 + thread % 1000)"
        }
        try assertBound(report, times: 3.75, debug: macho, commands: ["\"$SYMBOLICATE\" -q -d \(quoted(macho)) REPORT"])
        var text = ""
        var backtrace = 0
        while text.utf8.count < 16 << 20 {
            let address = String(0x1000 + backtrace % 999, radix: 16)
            text += "X\(backtrace)\n    #0 0x\(address) (/nonexistent/a+0x\(address))\n"
            backtrace += 1
        }
        let log = path("one-frame.log")
        try text.write(toFile: log, atomically: false, encoding: .utf8)
        try assertBound(log, times: 5, debug: macho, commands: ["\"$SYMBOLICATE\" -q -d \(quoted(macho)) REPORT"])
    }

    /// A report lists every image the process loaded, and one strangers made can list a
    /// hundred thousand: of those no frame points into, a batch keeps nothing (it only matches
    /// them to the debug files it already knows). A batch of reports whose images have UUIDs
    /// of their own costs what one of the same UUIDs costs; it grew by their size, and took
    /// four times as long (each UUID was looked for on disk and kept for the run).
    func testABatchKeepsNothingOfTheImagesNoFramePointsInto() throws {
        let macho = try Fixtures.path("macho")
        let template = try String(contentsOfFile: try Fixtures.path("reports/App-arm64.crash"), encoding: .utf8)
        let header = template.components(separatedBy: "Binary Images:")[0]
        func report(_ seed: Int) -> String {
            var text = header + "Binary Images:\n"
            var image = 0
            while text.utf8.count < 2 << 20 {
                let start = 0x2_0000_0000 + image * 0x10000
                let uuid = String(repeating: "0", count: 8) + String(format: "%08x%016x", seed, image)
                text += "0x\(String(start, radix: 16)) - 0x\(String(start + 0xffff, radix: 16)) lib\(image).dylib arm64  <\(uuid)> /usr/lib/lib\(image).dylib\n"
                image += 1
            }
            return text
        }
        let same = root.appendingPathComponent("same"), distinct = root.appendingPathComponent("distinct")
        for folder in [same, distinct] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        let first = report(1)
        for k in 0..<6 {
            try first.write(to: same.appendingPathComponent("r\(k).crash"), atomically: false, encoding: .utf8)
            try report(k + 1).write(to: distinct.appendingPathComponent("r\(k).crash"), atomically: false, encoding: .utf8)
        }
        let sameKiB = try peakKiB("\"$SYMBOLICATE\" -q -j 1 -d \(quoted(macho)) \(quoted(same.path))")
        let distinctKiB = try peakKiB("\"$SYMBOLICATE\" -q -j 1 -d \(quoted(macho)) \(quoted(distinct.path))")
        print("six reports of 2 MiB of images: \(sameKiB / 1024) MiB with the same UUIDs, \(distinctKiB / 1024) MiB with UUIDs of their own")
        XCTAssertLessThanOrEqual(distinctKiB, sameKiB + 3 << 10, "a batch kept what the images of each report named")
    }

    /// A Linux AddressSanitizer log of many backtraces, read from a file and from a pipe:
    /// at most 1.75 times its size (its frame lines are short, 60 to 80 bytes, and each
    /// backtrace has a name of its own, the sanitizer's line above it; 1.6 times since a
    /// backtrace's frames no longer keep the room growing left, 1.63 before). Its system
    /// frames name a library that is not there: a debug file found for one would be indexed,
    /// a cost of its own, not of the report.
    func testALinuxLogCostsAtMostOneAndThreeQuartersItsSize() throws {
        let program = try Fixtures.path("elf/app-gcc-dwarf4")
        var text = ""
        var backtrace = 1
        while text.utf8.count < 16 << 20 {
            text += "==\(backtrace)==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010\n"
            for frame in 0..<20 {
                let offset = 0x1200 + (backtrace * 7 + frame * 13) % 0x400
                text += frame % 5 == 4
                    ? "    #\(frame) 0x7f00000\(String(0x29d90 + frame, radix: 16))  (/nonexistent/libsystem.so.6+0x\(String(0x29d90 + frame, radix: 16)))\n"
                    : "    #\(frame) 0x\(String(0x555555554000 + offset, radix: 16))  (\(program)+0x\(String(offset, radix: 16)))\n"
            }
            text += "\n"
            backtrace += 1
        }
        let report = path("asan.log")
        try text.write(toFile: report, atomically: false, encoding: .utf8)
        try assertBound(report, times: 1.75, debug: program, commands: [
            "\"$SYMBOLICATE\" -q -d \(quoted(program)) REPORT",
            "bash -c 'cat REPORT | \"$SYMBOLICATE\" -q -d \(quoted(program)) -'",
        ])
    }

    /// An `.ips` report of many threads, its frames unsymbolicated (their text, some 75 bytes
    /// a line, is longer than their JSON). Written as text or frame lines, or back as `.ips`
    /// (`--format ips`, `-o`), it is read a piece of whole threads at a time, its JSON given
    /// back as it goes; as JSON, it is read for its model, its threads' text let go as it is
    /// translated and its JSON given back: at most 1.5 times its size, read from a file or a
    /// pipe (1.03 to 1.15 measured; 1.7 while its text, or its document, was held whole beside
    /// its model). It was 10, then 4.5 while every value of its frames had a node of the JSON
    /// tree, then 2.9 to 3.1 while it was held beside its whole translation.
    func testAnIPSReportCostsAtMostOneAndAHalfTimesItsSize() throws {
        let macho = try Fixtures.path("macho")
        let report = path("many-threads.ips")
        // The fixture's other threads, again and again: frames of system libraries.
        try Fixtures.ipsReportOfManyThreads(size: 32 << 20, to: report) { k, count in 1 + k % (count - 1) }
        try assertBound(report, times: 1.5, debug: macho, commands: [
            "\"$SYMBOLICATE\" -q -d \(quoted(macho)) REPORT",
            "bash -c 'cat REPORT | \"$SYMBOLICATE\" -q -d \(quoted(macho)) -'",
            "\"$SYMBOLICATE\" -q --format frames -d \(quoted(macho)) REPORT",
            "\"$SYMBOLICATE\" -q --format json -d \(quoted(macho)) REPORT",
            "\"$SYMBOLICATE\" -q --format ips -d \(quoted(macho)) REPORT",
            "\"$SYMBOLICATE\" -q -d \(quoted(macho)) -o \(quoted(path("out"))) REPORT",
        ])
    }

    /// An `.ips` report of one thread of 400,000 frames of compact JSON (37 bytes each, their
    /// text lines 75): a thread is never cut, so it is one piece, its text held whole beside
    /// its model, at most 3.25 times its size (2.9 measured, as read whole); written back as
    /// `.ips` or as JSON its threads' text is let go as it is written: at most 2.25 (1.9 and 1.0).
    /// Read in pieces without room made for the thread's text, or with its text kept for the
    /// document written back, it took 4.6 and 5.9.
    func testAnIPSReportOfOneThreadOfManyFramesStaysWithinItsBound() throws {
        let macho = try Fixtures.path("macho")
        let frames = (0..<400_000).map { #"{"imageOffset":\#(16_000 + $0 % 977),"imageIndex":\#($0 % 2)}"# }
        let report = path("one-thread.ips")
        try (#"{"bug_type":"309","os_version":"iPhone OS 17.0 (21A329)"}"# + "\n"
            + #"{"procName":"App","cpuType":"ARM-64","threads":[{"triggered":true,"frames":["# + frames.joined(separator: ",")
            + #"]}],"usedImages":[{"base":4372758528,"size":65536,"uuid":"4c4c44c3-5555-3144-a19b-af60d4f21f14","name":"App","arch":"arm64"},"#
            + #"{"base":7000000000,"size":1048576,"name":"libsystem_kernel.dylib"}]}"# + "\n")
            .write(toFile: report, atomically: false, encoding: .utf8)
        try assertBound(report, times: 3.25, debug: macho, commands: ["\"$SYMBOLICATE\" -q -d \(quoted(macho)) REPORT"])
        try assertBound(report, times: 2.25, debug: macho, commands: [
            "\"$SYMBOLICATE\" -q --format ips -d \(quoted(macho)) REPORT",
            "\"$SYMBOLICATE\" -q --format json -d \(quoted(macho)) REPORT",
        ])
    }

    /// Reports copied into one file (a crash server's export, `cat *.crash`): each is read,
    /// symbolicated and written on its own, so the run holds the file and one report's model.
    /// At most 1.5 times the file's size, to standard output as text or JSON, to a file with -o,
    /// and from a pipe (1.07 to 1.09 measured, its reports read two at a time). Read as one report, this file cost 2.5 to 2.6
    /// times its size (1.8 of the fixtures' reports alone, 3.2 of the corpus's macOS report
    /// whose 244 images each cost their record and their names' strings beside their line).
    func testReportsCopiedIntoOneFileCostAtMostOneAndAHalfTimesTheirSize() throws {
        let macho = try Fixtures.path("macho")
        var texts = [try String(contentsOfFile: try Fixtures.path("reports/App-arm64.crash"), encoding: .utf8),
                     try String(contentsOfFile: try Fixtures.path("ips/App-arm64.ips"), encoding: .utf8) + "\n",
                     try String(contentsOfFile: try Fixtures.path("reports/App-x86_64.crash"), encoding: .utf8)]
        if let corpus = TestPaths.corpus {
            for name in ["bruno.txt", "XCDYouTubeKit-54.txt"] {
                texts.append(try String(decoding: Data(contentsOf: corpus.appendingPathComponent("reports/" + name)), as: UTF8.self))
            }
        } else {
            print("\(TestPaths.corpusAbsent): the fixtures' reports alone")
        }
        var text = ""
        var k = 0
        while text.utf8.count < 16 << 20 {
            text += texts[k % texts.count]
            k += 1
        }
        let report = path("exported.crash")
        try text.write(toFile: report, atomically: false, encoding: .utf8)
        try assertBound(report, times: 1.5, debug: macho, commands: [
            "\"$SYMBOLICATE\" -q -d \(quoted(macho)) REPORT",
            "bash -c 'cat REPORT | \"$SYMBOLICATE\" -q -d \(quoted(macho)) -'",
            "\"$SYMBOLICATE\" -q --format json -d \(quoted(macho)) REPORT",
            "\"$SYMBOLICATE\" -q -d \(quoted(macho)) -o \(quoted(path("out"))) REPORT",
        ])
    }
}
