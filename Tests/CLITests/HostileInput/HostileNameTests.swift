import Foundation
import TestSupport
import XCTest

/// Mangled names in a debug file that nest deeply or expand through back-references must not
/// overflow a worker thread's stack nor take unbounded time and memory: they are printed mangled.
final class HostileNameTests: XCTestCase {
    private static let names = HostileMangledNames.all

    func testHostileMangledNamesInADebugFileArePrintedMangledByTheBatch() throws {
        let clang = "/opt/swift/usr/bin/clang"
        guard FileManager.default.isExecutableFile(atPath: clang) else {
            throw XCTSkip("\(clang) is not installed: the program with hostile names cannot be built")
        }
        let dir = try makeTemporaryDirectory("hostile-names")
        defer { try? FileManager.default.removeItem(at: dir) }
        var source = ""
        for (k, name) in Self.names.enumerated() {
            source += "int __attribute__((noinline)) f\(k)(int x) __asm__(\"\(name)\");\n"
            source += "int f\(k)(int x) { return x * \(k + 3) + 1; }\n"
        }
        source += "int main(int c, char **v) { return " + Self.names.indices.map { "f\($0)(c)" }.joined(separator: " + ") + "; }\n"
        let file = dir.appendingPathComponent("names.c")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let binary = dir.appendingPathComponent("names").path
        let build = try runProcess(clang, ["-g", "-O1", "-Wl,--build-id", "-o", binary, file.path])
        guard build.status == 0 else { throw FixtureError("\(clang) failed:\n\(build.stderrText)") }
        let symbols = try runProcess("/opt/swift/usr/bin/llvm-nm", [binary]).stdoutText.split(separator: "\n")
        var log = ""
        for (k, name) in Self.names.enumerated() {
            let line = try XCTUnwrap(symbols.first { $0.hasSuffix(" " + name) }, "no symbol \(k) in \(binary)")
            let offset = try XCTUnwrap(UInt64(line.prefix(16), radix: 16))
            log += "    #\(k) 0x\(String(0x5000 + k, radix: 16)) (\(binary)+0x\(String(offset + 4, radix: 16)))\n"
        }
        var reports: [String] = []
        for r in 0..<4 {
            let path = dir.appendingPathComponent("crash\(r).log").path
            try log.write(toFile: path, atomically: true, encoding: .utf8)
            reports.append(path)
        }

        let (result, seconds) = try CPUTime.ofChildren { try CLI.run(["--format", "frames", "-j", "2", "-d", binary] + reports) }
        XCTAssertEqual(result.status, .success, result.stderrText)
        XCTAssertLessThan(seconds, 30, "seconds of CPU")
        let functions = result.stdoutText.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false)[5] }
        XCTAssertEqual(functions.map(String.init), Array(Array(repeating: Self.names, count: reports.count).joined()))
    }
}
