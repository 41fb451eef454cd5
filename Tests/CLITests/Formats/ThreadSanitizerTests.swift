import Foundation
import TestSupport
import XCTest

/// ThreadSanitizer reports print no addresses (`#0 <null> <null> (race+0x11e7)` when not
/// symbolized). `Fixtures/src/linux/race.c` is built with gcc's ThreadSanitizer, run once with
/// `symbolize=0` (the input) and once symbolized by the sanitizer itself (the oracle): every
/// frame of the program must resolve to the sanitizer's functions and `FILE:LINE`, inlined
/// frames included, its module group kept. The program makes its race certain and the same
/// on every run (both writes happen, in one order, with neither thread finished); the frames
/// both runs print are compared, and every frame of the program must resolve.
final class ThreadSanitizerTests: XCTestCase {
    func testThreadSanitizerReportsAgreeWithTheSanitizer() throws {
        let dir = try makeTemporaryDirectory("tsan")
        defer { try? FileManager.default.removeItem(at: dir) }
        let binary = dir.appendingPathComponent("race").path
        let probe = try runProcess("/usr/bin/gcc", ["-fsanitize=thread", "-O1", "-g", "-o", binary,
                                                     LinuxToolchain.sources.appendingPathComponent("race.c").path])
        guard probe.status == 0 else { throw XCTSkip("gcc's ThreadSanitizer does not link here: \(probe.stderrText)") }
        let raw = try LinuxToolchain.crashLog(binary, [], environment: ["TSAN_OPTIONS": "symbolize=0"], label: "tsan raw",
                                              attempts: LinuxToolchain.threadSanitizerAttempts)
        let symbolized = try LinuxToolchain.crashLog(binary, [], label: "tsan symbolized",
                                                     attempts: LinuxToolchain.threadSanitizerAttempts)
        let log = dir.appendingPathComponent("race.log").path
        try raw.write(toFile: log, atomically: true, encoding: .utf8)

        let arguments = ["-d", binary, log]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        let expected = Self.framesByModuleOffset(symbolized, module: "race")
        let got = Self.framesByModuleOffset(result.stdoutText, module: "race")
        XCTAssertFalse(expected.isEmpty, "the symbolized report has frames in the program:\n\(symbolized)")
        // The two runs are two processes: the program orders its writes the same way on every
        // run (race.c), but which stacks the sanitizer prints beside the two accesses (a
        // thread's creation, say) is its own business. Only what both runs print is compared:
        // the frames of the accesses at least, one of them with inlined frames.
        let rawOffsets = Set(Self.moduleOffsets(raw, module: "race"))
        let common = rawOffsets.intersection(expected.keys)
        XCTAssertGreaterThanOrEqual(common.count, 3, "the two runs share the frames of the race:\n\(raw)\n\(symbolized)")
        XCTAssertTrue(common.contains { expected[$0]!.count > 1 }, "some shared frame has inlined frames:\n\(symbolized)")
        for offset in common.sorted() {
            XCTAssertEqual(got[offset], expected[offset], "race+\(offset)\n" + result.summary(arguments))
        }
        let unresolved = result.stdoutText.split(separator: "\n").filter { $0.contains("<null> <null> (race+") }
        XCTAssertEqual(unresolved, [], result.summary(arguments))
    }

    /// The offsets of `module` that the frame lines (`#N ... (MODULE+0xOFF)`) of a log name.
    static func moduleOffsets(_ log: String, module: String) -> [String] {
        log.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 4, fields[0].hasPrefix("#"), fields[3].hasPrefix("(\(module)+0x") else { return nil }
            return String(fields[3].dropFirst(module.count + 2).dropLast())
        }
    }

    /// `#N FUNCTION FILE:LINE[:COLUMN] (MODULE+0xOFF)` lines of `module`, grouped by offset:
    /// the chain of "FUNCTION FILE:LINE" per offset (consecutive lines with one offset are a
    /// frame and the frames inlined into it), the column dropped (the sanitizer prints none).
    static func framesByModuleOffset(_ log: String, module: String) -> [String: [String]] {
        var result: [String: [String]] = [:]
        var previous: String?
        for line in log.split(separator: "\n").map(String.init) {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 4, fields[0].hasPrefix("#"), fields[3].hasPrefix("(\(module)+0x"),
                  fields[1] != "<null>" else {
                previous = nil
                continue
            }
            let offset = String(fields[3].dropFirst(module.count + 2).dropLast())
            var location = fields[2].split(separator: ":").map(String.init)
            if location.count == 3 { location.removeLast() }
            let frame = fields[1] + " " + location.joined(separator: ":")
            if previous == offset { result[offset, default: []].append(frame) } else { result[offset] = [frame] }
            previous = offset
        }
        return result
    }
}
