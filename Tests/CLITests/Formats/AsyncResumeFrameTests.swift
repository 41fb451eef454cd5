import Foundation
import TestSupport
import XCTest

/// Swift async frames in Apple's reports: a resume point (the entry of the continuation, `await
/// resume partial function for ...`) is written one byte past it, as `completeTaskWithClosure
/// (...) + 1` shows in every report of async code. Stepping back one byte lands on the entry;
/// stepping back an arm64 instruction, as for a return address, lands in the function before
/// it. Each such frame must name the function that starts there, as llvm-symbolizer does for
/// the entry itself.
final class AsyncResumeFrameTests: XCTestCase {
    func testResumePointsNameTheFunctionTheyEnter() throws {
        let dsym = try Fixtures.path("macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64")
        let report = try String(contentsOfFile: try Fixtures.path("reports/App-arm64.crash"), encoding: .utf8)
        let load: UInt64 = 0x1_04A3_0000, text: UInt64 = 0x1_0000_0000
        // The functions of the report's app frames, and where each starts.
        let known = [UInt64(16900), 17220, 16568].map { text + $0 }
        let oracle = try Oracle.symbolize(object: dsym, arch: "arm64", addresses: known)
        let starts = Set(known.compactMap { oracle[$0]?.last?.startAddress }).sorted()
        XCTAssertGreaterThanOrEqual(starts.count, 2, "\(oracle)")
        let entries = try Oracle.symbolize(object: dsym, arch: "arm64", addresses: starts)

        // A thread of async frames: a PC first, then each function's entry plus one.
        var lines = "Thread 9:\n0   App                                 0x0000000104a34204 0x104a30000 + 16900\n"
        for (k, start) in starts.enumerated() {
            let address = load + (start - text) + 1
            lines += "\(k + 1)   App                                 0x\(String(format: "%016llx", address)) 0x104a30000 + \(address - load)\n"
        }
        let edited = report.replacingOccurrences(of: "\nBinary Images:", with: "\n" + lines + "\nBinary Images:")
        let dir = try makeTemporaryDirectory("async-resume")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("async.crash").path
        try edited.write(toFile: path, atomically: true, encoding: .utf8)

        let result = try CLI.run(["--format", "frames", "--no-demangle", "-d", try Fixtures.path("macho"), path])
        XCTAssertEqual(result.status, .success, result.stderrText)
        let rows: [[String]] = result.stdoutText.split(separator: "\n").map { line in
            line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        for (k, start) in starts.enumerated() {
            // The concrete (last) line of the frame: its function, as llvm-symbolizer names the entry.
            let frame = String(k + 1)
            let concrete = rows.first { row in row.count > 5 && row[1] == "9" && row[2] == frame && !row.contains("[inlined]") }
            let want = try XCTUnwrap(entries[start]?.last, "llvm-symbolizer knows \(hex(start))")
            XCTAssertEqual(concrete?[5], want.function, "frame \(frame) at \(hex(start)) + 1:\n\(result.stdoutText)")
        }
    }
}
