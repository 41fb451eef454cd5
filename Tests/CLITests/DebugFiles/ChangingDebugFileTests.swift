import Foundation
import TestSupport
import XCTest

/// A debug file cut short and written again, over and over, by another process while
/// `symbolicate` reads it: every run ends with answers or with one line saying that the file
/// changed (or what was wrong with it as it was then), never with a crash.
final class ChangingDebugFileTests: XCTestCase {
    /// A shared object with DWARF for `count` functions, compiled from a generated C file.
    static func makeLargeDebugFile(in dir: URL, functions count: Int) throws -> (path: String, addresses: [String]) {
        let gcc = "/usr/bin/gcc"
        guard FileManager.default.isExecutableFile(atPath: gcc) else { throw XCTSkip("gcc is not installed at \(gcc)") }
        var source = "#include <stdint.h>\n"
        for i in 0..<count {
            source += """
            static inline int helper\(i)(int x) { return x * \(i % 97 + 3) + (x >> 3); }
            int function\(i)(int x) {
                int total = 0;
                for (int k = 0; k < x; k++) total += helper\(i)(k) ^ \(i);
                return total;
            }

            """
        }
        let sourcePath = dir.appendingPathComponent("large.c").path, path = dir.appendingPathComponent("large.so").path
        try source.write(toFile: sourcePath, atomically: true, encoding: .utf8)
        let result = try runProcess(gcc, ["-g", "-O1", "-shared", "-fPIC", "-Wl,--build-id", "-o", path, sourcePath])
        guard result.status == 0 else { throw FixtureError("gcc failed: \(result.stderrText)") }
        let nm = try runProcess("/usr/bin/nm", ["--defined-only", path])
        let addresses = nm.stdoutText.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[2].hasPrefix("function") else { return nil }
            return "0x" + fields[0]
        }
        var generator = SplitMix64(seed: 40)  // the same 40 functions on every run
        return (path, Array(addresses.shuffled(using: &generator).prefix(40)))
    }

    func testADebugFileRewrittenWhileItIsReadNeverCrashesARun() throws {
        let dir = try makeTemporaryDirectory("changing-debug-file")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (path, addresses) = try Self.makeLargeDebugFile(in: dir, functions: 3000)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertGreaterThan(original.count, 1 << 20)

        let expected = try CLI.run(["atos", "--no-cache", "-o", path] + addresses)
        XCTAssertEqual(expected.status, .success, expected.stderrText)
        XCTAssertEqual(expected.stdoutText.split(separator: "\n").count, addresses.count)

        // The writer: cut the file somewhere, then write it back in place, piece by piece.
        let stop = StopFlag()
        let writer = Thread {
            var generator = SplitMix64(seed: 7)
            let fd = open(path, O_WRONLY)
            defer { close(fd) }
            original.withUnsafeBytes { bytes in
                while !stop.value {
                    _ = ftruncate(fd, off_t(Int(generator.next() % UInt64(bytes.count))))
                    usleep(UInt32(generator.next() % 2000))
                    var offset = 0
                    while offset < bytes.count {
                        let piece = min(256 << 10, bytes.count - offset)
                        _ = pwrite(fd, bytes.baseAddress! + offset, piece, off_t(offset))
                        offset += piece
                    }
                    // Now and then long enough for a run to read the file whole.
                    usleep(UInt32(generator.next() % 4 == 0 ? 300_000 : generator.next() % 2000))
                }
            }
        }
        writer.start()
        defer { stop.value = true }

        var answered = 0, changed = 0, refused = 0
        for run in 0..<40 {
            let result = try CLI.run(["atos", "--no-cache", "-o", path] + addresses)
            let label = "run \(run): status \(result.status), stderr \(result.stderrText)"
            XCTAssertTrue([ExitStatus.success, .reportFailed].contains { $0.rawValue == result.status }, label)
            XCTAssertTrue(result.stderrLines.allSatisfy { $0.hasPrefix("symbolicate: ") }, label)
            XCTAssertLessThanOrEqual(result.stderrLines.count, 2, label)
            if result.stderrText.contains("the file changed while it was being read") {
                changed += 1
            } else if result.stderrLines.isEmpty {
                XCTAssertEqual(result.stdoutText, expected.stdoutText, label)
                answered += 1
            } else {
                refused += 1
                if refused <= 3 { print("refused: \(result.stderrText)") }
            }
        }
        stop.value = true
        print("changing debug file: 40 runs, \(answered) answered, \(changed) saw the change, \(refused) refused the file")
        XCTAssertGreaterThan(changed + refused, 0, "the writer never got in the way of a run")
    }
}

/// A flag shared with the writer thread.
private final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = false
    var value: Bool {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}
