import Foundation
import TestSupport
import XCTest

/// A frame whose address cannot be read — more than 64 bits of hexadecimal digits, an empty
/// `0x`, digits written as `?`, an offset of more than 64 bits, or an image base and offset
/// whose sum does not fit — is left exactly as it is, in every format: no other number of its
/// line (a load address, a module offset, the image's base alone) stands in for its address,
/// which would resolve it to a wrong function.
///
/// The oracle of each case is the same report with the frame intact, run against the same
/// debug files: every other frame resolves to the same thing, the damaged one to nothing (its
/// JSON entry, where it is a frame, has no file), and its line comes back byte for byte.
final class UnreadableAddressTests: XCTestCase {
    private static let overlong = "0x1ffffffffffffffffff"

    /// One damaged copy of a report: `good` with `original` replaced by `damaged` (once), and
    /// the frames that hold it, as (position of the thread in the JSON output, frame index).
    private struct Case {
        var label: String
        var original: String
        var damaged: String
        var frames: [(thread: Int, index: Int)]
        /// What must come back byte for byte in the text output (default: the damaged line).
        var kept: String?
        /// Whether the damaged line is still a frame of the report (a JSON entry without a
        /// file), or read as no frame at all.
        var isFrame = true
    }

    // MARK: Formats

    /// Classic reports: `0xADDR 0xBASE + OFFSET`, `IMAGE + OFFSET`, an address without `0x`.
    func testClassicFramesWithUnreadableAddressesAreLeftAsTheyAre() throws {
        let good = try String(contentsOfFile: Fixtures.path("reports/App-arm64.crash"), encoding: .utf8)
        let line = "0   App                                 0x0000000104a34204 0x104a30000 + 16900"
        let cases = [Self.overlong, "0x", "0x10000000000000000", "0x????????????????"].map { address in
            Case(label: "address \(address)", original: line,
                 damaged: line.replacingOccurrences(of: "0x0000000104a34204", with: address), frames: [(0, 0)])
        } + [
            Case(label: "image offset of more than 64 bits", original: line,
                 damaged: "0   App                                 000000000000000000 App + 99999999999999999999999",
                 frames: [(0, 0)]),
            Case(label: "image offset past the end of the address space", original: line,
                 damaged: "0   App                                 0x0000000000000000 App + 18446744073709551615",
                 frames: [(0, 0)]),
        ]
        try check(good, named: "App-arm64.crash", debug: Fixtures.path("macho"), cases)
    }

    /// `.ips` JSON: an `imageOffset` of more than 64 bits, one that overflows its image's base,
    /// a missing one, an image index past `usedImages`. `--format ips` leaves the object alone.
    func testIPSFramesWithUnreadableOffsetsAreLeftAsTheyAre() throws {
        let good = try String(contentsOfFile: Fixtures.path("ips/App-arm64.ips"), encoding: .utf8)
        let object = #"{"imageOffset":16900,"imageIndex":0}"#
        let cases = [
            #"{"imageOffset":123456789012345678901234567890,"imageIndex":0}"#,
            #"{"imageOffset":18446744073709551615,"imageIndex":0}"#,
            #"{"imageOffset":-16900,"imageIndex":0}"#,
            #"{"imageIndex":0}"#,
            #"{"imageOffset":16900,"imageIndex":99}"#,
        ].map { Case(label: $0, original: object, damaged: $0, frames: [(0, 0)], kept: $0) }
        try check(good, named: "App-arm64.ips", debug: Fixtures.path("macho"), cases, format: "ips")
    }

    /// MetricKit: a binary whose frames give neither a readable address nor a readable offset
    /// (its base unknown, an offset of 0 would be taken), and an offset that overflows the base
    /// another frame gave. `--format metrickit` leaves the objects alone.
    func testMetricKitFramesWithUnreadableNumbersAreLeftAsTheyAre() throws {
        let good = try String(contentsOfFile: Fixtures.path("metrickit/App-arm64.json"), encoding: .utf8)
        // Thread 2's libGreeter frames, depths 1 and 2: the only frames of that binary.
        let first = #""offsetIntoBinaryTextSegment" : 17068,"#
        let second = #""offsetIntoBinaryTextSegment" : 17004,"#
        XCTAssertTrue(good.contains(first) && good.contains(second))
        let unreadable = good
            .replacingOccurrences(of: first, with: #""offsetIntoBinaryTextSegment" : "0x","#)
            .replacingOccurrences(of: "\"address\" : 4380705452,", with: "\"address\" : 123456789012345678901234567890,")
            .replacingOccurrences(of: second, with: #""offsetIntoBinaryTextSegment" : "0x1ffffffffffffffffff","#)
            .replacingOccurrences(of: "\"address\" : 4380705388,", with: "\"address\" : \"0x\",")
        XCTAssertNotEqual(unreadable, good, "the fixture changed: its libGreeter frames are not where they were")
        try check(good, named: "App-arm64.json", debug: Fixtures.path("macho"), [
            Case(label: "no readable address or offset", original: good, damaged: unreadable, frames: [(2, 1), (2, 2)],
                 kept: #""offsetIntoBinaryTextSegment" : "0x1ffffffffffffffffff","#),
        ], format: "metrickit")
        let overflow = good.replacingOccurrences(of: second, with: #""offsetIntoBinaryTextSegment" : 18446744073709551615,"#)
            .replacingOccurrences(of: "\"address\" : 4380705388,\n", with: "")
        XCTAssertNotEqual(overflow, good)
        try check(good, named: "App-arm64.json", debug: Fixtures.path("macho"), [
            Case(label: "offset overflowing the base", original: good, damaged: overflow, frames: [(2, 2)],
                 kept: #""offsetIntoBinaryTextSegment" : 18446744073709551615,"#),
        ], format: "metrickit")
    }

    /// spindump / microstackshot and `sample` call trees: `[0x...]` that cannot be read (the
    /// image and offset of the line do not stand in for it), an offset of more than 64 bits, an
    /// offset that overflows its image's base.
    func testCallTreeFramesWithUnreadableAddressesAreLeftAsTheyAre() throws {
        let sample = try Fixtures.fillingUUIDs(CallTreeTests.sample)
        let node = "+   2757 ???  (in App)  load address 0x10a2f1000 + 0x8ab  [0x10a2f18ab]"
        try check(sample, named: "App.sample.txt", debug: Fixtures.path("macho"), [Self.overlong, "0x"].map { address in
            Case(label: "sample [\(address)]", original: node,
                 damaged: node.replacingOccurrences(of: "[0x10a2f18ab]", with: "[\(address)]"), frames: [(0, 1)])
        })
        let stackshot = try Fixtures.fillingUUIDs(CallTreeTests.microstackshot)
        let heaviest = "  16  ??? (App + 16900) [0x104a34204]\n\n"
        try check(stackshot, named: "App.cpu_resource.diag", debug: Fixtures.path("macho"), [
            Case(label: "spindump [overlong]", original: heaviest,
                 damaged: heaviest.replacingOccurrences(of: "[0x104a34204]", with: "[\(Self.overlong)]"), frames: [(0, 4)]),
            Case(label: "spindump [0x]", original: heaviest,
                 damaged: heaviest.replacingOccurrences(of: "[0x104a34204]", with: "[0x]"), frames: [(0, 4)]),
            Case(label: "offset of more than 64 bits", original: heaviest,
                 damaged: "  16  ??? (App + 99999999999999999999999) [0x104a34204]\n\n", frames: [(0, 4)]),
            Case(label: "offset overflowing the base", original: heaviest,
                 damaged: "  16  ??? (App + 18446744073709551615)\n\n", frames: [(0, 4)]),
        ].map { var c = $0; c.kept = c.damaged.trimmingCharacters(in: .newlines); return c })
    }

    /// Linux logs: a sanitizer `#N` line whose address cannot be read is a frame of its
    /// backtrace without an address (its module offset does not make it ThreadSanitizer's
    /// address-less line), and a Swift `<unavailable> + OFFSET` past its address places its
    /// module nowhere.
    func testLinuxLogFramesWithUnreadableNumbersAreLeftAsTheyAre() throws {
        let program = try Fixtures.path("elf/app-gcc-dwarf4")
        let buildID = try XCTUnwrap(try Fixtures.manifest().first { $0.path == "elf/app-gcc-dwarf4" }).identifier
        func sanitizer(_ number: Int, _ address: String, _ offset: String) -> String {
            "    #\(number) \(address)  (/build/app-gcc-dwarf4+\(offset)) (BuildId: \(buildID))"
        }
        let good = ["==4242==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000",
                    sanitizer(0, "0x555555555314", "0x1314"), sanitizer(1, "0x5555555553d0", "0x13d0"),
                    sanitizer(2, "0x5555555550a0", "0x10a0"), ""].joined(separator: "\n")
        try check(good, named: "asan.log", debug: program, [Self.overlong, "0x", "0x????????????????"].map { address in
            Case(label: "sanitizer \(address)", original: sanitizer(2, "0x5555555550a0", "0x10a0"),
                 damaged: sanitizer(2, address, "0x10a0"), frames: [(0, 2)])
        } + [
            Case(label: "module offset of more than 64 bits", original: sanitizer(2, "0x5555555550a0", "0x10a0"),
                 damaged: sanitizer(2, "0x5555555550a0", Self.overlong), frames: [(0, 2)]),
        ])

        func swiftFrame(_ number: Int, _ address: String, _ offset: String) -> String {
            "\(number)    app-gcc-dwarf4                     \(address) <unavailable> + \(offset)"
        }
        let legacy = ["Fatal error: Index out of range", "Current stack trace:",
                      swiftFrame(0, "0x0000555555555314", "4884"), swiftFrame(1, "0x00005555555553d0", "5072"),
                      swiftFrame(2, "0x00005555555550a0", "4256"), ""].joined(separator: "\n")
        try check(legacy, named: "swift.log", debug: program, [
            Case(label: "offset past the address", original: swiftFrame(0, "0x0000555555555314", "4884"),
                 damaged: swiftFrame(0, "0x0000000000001314", "99999999999"), frames: [(0, 0)]),
            Case(label: "address of more than 64 bits", original: swiftFrame(2, "0x00005555555550a0", "4256"),
                 damaged: swiftFrame(2, Self.overlong, "4256"), frames: [(0, 2)]),
            Case(label: "offset of more than 64 bits", original: swiftFrame(2, "0x00005555555550a0", "4256"),
                 damaged: swiftFrame(2, "0x00005555555550a0", "99999999999999999999999"), frames: [(0, 2)]),
        ])
    }

    /// Swift runtime backtraces, text: a frame line whose address cannot be read.
    func testSwiftBacktraceFramesWithUnreadableAddressesAreLeftAsTheyAre() throws {
        let program = try Fixtures.path("elf/app-gcc-dwarf4")
        let buildID = try XCTUnwrap(try Fixtures.manifest().first { $0.path == "elf/app-gcc-dwarf4" }).identifier
        let good = ["*** Program crashed: Bad pointer dereference at 0x0000000000000000 ***", "",
                    "Thread 0 \"app\" crashed:", "", "0      0x0000555555555314", "1 [ra] 0x00005555555553d0",
                    "2 [ra] 0x00005555555550a0", "", "Images (1 omitted):", "",
                    "0x0000555555554000–0x0000555555556000 \(buildID) app-gcc-dwarf4 /build/app-gcc-dwarf4", ""]
            .joined(separator: "\n")
        try check(good, named: "backtrace.log", debug: program, [Self.overlong, "0x"].map { address in
            Case(label: "backtrace \(address)", original: "2 [ra] 0x00005555555550a0", damaged: "2 [ra] \(address)",
                 frames: [(0, 2)])
        })
    }

    // MARK: The check

    /// Runs `good` and each case's damaged copy with `-d debug`, as text (or `format`, the
    /// format that writes the input back) and as JSON, and compares them.
    private func check(_ good: String, named name: String, debug: String, _ cases: [Case], format: String = "text",
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let dir = try makeTemporaryDirectory("unreadable")
        defer { try? FileManager.default.removeItem(at: dir) }
        let goodPath = dir.appendingPathComponent(name).path
        try good.write(toFile: goodPath, atomically: true, encoding: .utf8)
        let expected = try frames(goodPath, debug: debug)
        for damage in cases {
            let text = damage.original == good ? damage.damaged
                : good.replacingOccurrences(of: damage.original, with: damage.damaged)
            XCTAssertNotEqual(text, good, "\(damage.label): the original text is not in the report", file: file, line: line)
            let path = dir.appendingPathComponent("damaged-" + name).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)

            let arguments = ["--format", format, "-d", debug, path]
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, .success, result.summary(arguments), file: file, line: line)
            let kept = damage.kept ?? damage.damaged
            XCTAssertTrue(result.stdoutText.contains(kept),
                          "\(damage.label): \(kept.debugDescription) is not written as it came\n\(result.summary(arguments))",
                          file: file, line: line)

            let found = try frames(path, debug: debug)
            for (t, index) in damage.frames {
                let entries = found.first { $0.thread == t && $0.index == index }?.entries ?? []
                XCTAssertEqual(entries.count, damage.isFrame ? 1 : 0,
                               "\(damage.label): \(damage.isFrame ? "one frame" : "no frame") in JSON", file: file, line: line)
                for entry in entries {
                    XCTAssertTrue(entry["file"] is NSNull, "\(damage.label): resolved: \(entry)", file: file, line: line)
                }
            }
            let others = { (list: [FrameEntries]) in
                list.filter { frame in !damage.frames.contains { $0.thread == frame.thread && $0.index == frame.index } }
                    .map { "\($0.thread) \($0.index): " + $0.entries.map(IPSTests.describe(jsonFrame:)).joined(separator: " | ") }
            }
            XCTAssertEqual(others(found), others(expected), "\(damage.label): the other frames", file: file, line: line)
            XCTAssertGreaterThan(others(expected).filter { $0.contains("file=/") }.count, 0,
                                 "\(damage.label): other frames resolve with these debug files", file: file, line: line)
        }
        let target = expected.filter { frame in cases.contains { $0.frames.contains { $0 == (frame.thread, frame.index) } } }
        XCTAssertTrue(target.allSatisfy { $0.entries.contains { !($0["file"] is NSNull) } },
                      "the intact frames resolve, so that leaving them unresolved shows: \(target.map(\.entries))",
                      file: file, line: line)
    }

    /// The frames of one JSON report: the entries of each (thread, frame index), in order.
    private struct FrameEntries {
        var thread: Int
        var index: Int
        var entries: [[String: Any]]
    }

    private func frames(_ path: String, debug: String) throws -> [FrameEntries] {
        let arguments = ["--format", "json", "-d", debug, path]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        let report = try IPSTests.jsonReport(result, arguments)
        var list: [FrameEntries] = []
        for (t, thread) in (report["threads"] as? [[String: Any]] ?? []).enumerated() {
            for frame in thread["frames"] as? [[String: Any]] ?? [] {
                let index = frame["index"] as? Int ?? -1
                if let last = list.last, last.thread == t, last.index == index {
                    list[list.count - 1].entries.append(frame)
                } else {
                    list.append(FrameEntries(thread: t, index: index, entries: [frame]))
                }
            }
        }
        return list
    }
}
