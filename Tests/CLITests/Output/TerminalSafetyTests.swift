import Foundation
import TestSupport
import XCTest

/// Names from debug files and reports must not reach a terminal or a pipe raw: a newline would
/// split a frame, a tab shift the frames format's columns, an escape sequence drive the
/// terminal. Each test builds the hostile input, runs the tool, and checks every format.
final class TerminalSafetyTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeTemporaryDirectory("terminal-safety")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    /// The bytes a terminal acts on or a line-based reader splits at: C0 controls other than
    /// the line's own newline and the frames format's tabs, DEL, and the C1 controls' UTF-8.
    private func hostileBytes(in data: Data, allowing allowed: Set<UInt8>) -> [UInt8] {
        var found: [UInt8] = []
        let bytes = [UInt8](data)
        for (i, byte) in bytes.enumerated() {
            if (byte < 0x20 && !allowed.contains(byte)) || byte == 0x7F { found.append(byte) }
            if byte == 0xC2, i + 1 < bytes.count, bytes[i + 1] >= 0x80, bytes[i + 1] < 0xA0 { found.append(bytes[i + 1]) }
        }
        return found
    }

    /// An ELF program whose function's symbol and DWARF name and whose source path hold ESC, a
    /// newline and a tab (clang takes them in an `__asm__` label and a `#line` directive).
    private func hostileProgram() throws -> (binary: String, offset: UInt64) {
        let clang = "/opt/swift/usr/bin/clang"
        guard FileManager.default.isExecutableFile(atPath: clang) else {
            throw XCTSkip("\(clang) is not installed: the program with hostile names cannot be built")
        }
        let source = scratch.appendingPathComponent("hostile.c")
        try """
        #line 10 "ev\\033[31mil\\n\\tpath\\302\\233.c"
        int __attribute__((noinline)) victim(int x) __asm__("vic\\033[2Jtim\\n\\tname\\177");
        int victim(int x) { return x * 3 + 1; }
        int main(int c, char **v) { return victim(c); }

        """.write(to: source, atomically: true, encoding: .utf8)
        let binary = scratch.appendingPathComponent("hostile").path
        let build = try runProcess(clang, ["-g", "-O1", "-Wl,--build-id", "-o", binary, source.path])
        guard build.status == 0 else { throw FixtureError("\(clang) failed:\n\(build.stderrText)") }
        let symbols = try runProcess("/opt/swift/usr/bin/llvm-nm", [binary])
        guard let line = symbols.stdoutText.split(separator: "\n").first(where: { $0.contains("vic\u{1B}") }),
              let offset = UInt64(line.prefix(16), radix: 16)
        else { throw FixtureError("no hostile symbol in \(binary):\n\(symbols.stdoutText)") }
        return (binary, offset + 4)
    }

    func testNamesFromADebugFileAreEscapedInEveryFormat() throws {
        let (binary, offset) = try hostileProgram()
        let log = scratch.appendingPathComponent("crash.log")
        let hex = String(offset, radix: 16)
        try "    #0 0x5555 in ?? (\(binary)+0x\(hex))\n\(binary)(+0x\(hex))[0x5556]\n".write(to: log, atomically: true, encoding: .utf8)

        let text = try CLI.run(["-d", binary, log.path])
        XCTAssertEqual(hostileBytes(in: text.stdout, allowing: [0x0A]), [], text.stdoutText)
        XCTAssertEqual(text.stdoutText.split(separator: "\n").count, 2, text.stdoutText)
        XCTAssertTrue(text.stdoutText.hasPrefix("    #0 0x5555 in vic\\x1b[2Jtim\\x0a\\x09name\\x7f /"), text.stdoutText)
        XCTAssertTrue(text.stdoutText.contains("/ev\\x1b[31mil\\x0a\\x09path\\xc2\\x9b.c:11:"), text.stdoutText)

        let frames = try CLI.run(["--format", "frames", "-d", binary, log.path])
        XCTAssertEqual(hostileBytes(in: frames.stdout, allowing: [0x0A, 0x09]), [], frames.stdoutText)
        let rows = frames.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertEqual(rows.count, 2, frames.stdoutText)
        for row in rows {
            let fields = row.split(separator: "\t", omittingEmptySubsequences: false)
            XCTAssertEqual(fields.count, 8, String(row))
            XCTAssertEqual(fields.dropFirst(5).first, "vic\\x1b[2Jtim\\x0a\\x09name\\x7f")
            XCTAssertEqual(fields.dropFirst(6).first, "ev\\x1b[31mil\\x0a\\x09path\\xc2\\x9b.c:11")
        }

        let json = try CLI.run(["--format", "json", "-d", binary, log.path])
        XCTAssertEqual(hostileBytes(in: json.stdout, allowing: [0x0A]), [], json.stdoutText)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        let report = try XCTUnwrap((document["reports"] as? [[String: Any]])?.first)
        let frame = try XCTUnwrap(((report["threads"] as? [[String: Any]])?.first?["frames"] as? [[String: Any]])?.first)
        XCTAssertEqual(frame["symbol"] as? String, "vic\u{1B}[2Jtim\n\tname\u{7F}")
        XCTAssertTrue((frame["file"] as? String)?.hasSuffix("/ev\u{1B}[31mil\n\tpath\u{9B}.c") == true)

        let atos = try CLI.run(["atos", "-o", binary, "0x" + hex])
        XCTAssertEqual(hostileBytes(in: atos.stdout, allowing: [0x0A]), [], atos.stdoutText)
        XCTAssertEqual(atos.stdoutText, "vic\\x1b[2Jtim\\x0a\\x09name\\x7f (in hostile) (ev\\x1b[31mil\\x0a\\x09path\\xc2\\x9b.c:11)\n")
    }

    /// An `.ips` report whose image and thread names hold control characters (JSON escapes).
    private func hostileIPS() throws -> URL {
        let original = try String(contentsOfFile: Fixtures.path("ips/App-arm64.ips"), encoding: .utf8)
        let hostile = original
            .replacingOccurrences(of: "\"name\" : \"UIKitCore\"", with: "\"name\" : \"UIKit\\u001b[31m\\n\\tCore\\u009b\"")
            .replacingOccurrences(of: "\"queue\":\"com.apple.main-thread\"", with: "\"queue\":\"main\\u001b]0;owned\\u0007\\r\\nthread\"")
        XCTAssertNotEqual(hostile, original, "the fixture no longer has the names this test replaces")
        let url = scratch.appendingPathComponent("hostile.ips")
        try hostile.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func testNamesFromAnIPSReportAreEscapedInEveryFormat() throws {
        let report = try hostileIPS()
        let dsym = try Fixtures.path("macho/App-arm64.dSYM")

        let text = try CLI.run(["-d", dsym, report.path])
        XCTAssertEqual(text.status, .success, text.stderrText)
        XCTAssertEqual(hostileBytes(in: text.stdout, allowing: [0x0A]), [], text.stdoutText)
        XCTAssertTrue(text.stdoutText.contains("UIKit\\x1b[31m\\x0a\\x09Core\\xc2\\x9b"), text.stdoutText)
        XCTAssertTrue(text.stdoutText.contains("Dispatch queue: main\\x1b]0;owned\\x07\\x0d\\x0athread\n"), text.stdoutText)

        let frames = try CLI.run(["--format", "frames", "-d", dsym, report.path])
        XCTAssertEqual(hostileBytes(in: frames.stdout, allowing: [0x0A, 0x09]), [], frames.stdoutText)
        for row in frames.stdoutText.split(separator: "\n") {
            XCTAssertEqual(row.split(separator: "\t", omittingEmptySubsequences: false).count, 8, String(row))
        }

        for format in ["json", "ips"] {
            let result = try CLI.run(["--format", format, "-d", dsym, report.path])
            XCTAssertEqual(result.status, .success, result.stderrText)
            XCTAssertEqual(hostileBytes(in: result.stdout, allowing: [0x0A]), [], "\(format): \(result.stdoutText)")
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: format == "ips"
                ? Data(result.stdout.drop(while: { $0 != 0x0A }).dropFirst()) : result.stdout), format)
        }
    }

    func testReportPathsAndDebugFilePathsAreEscapedInHeadersAndOnStandardError() throws {
        let crash = try String(contentsOfFile: Fixtures.path("reports/App-arm64.crash"), encoding: .utf8)
        let plain = scratch.appendingPathComponent("a.crash")
        let hostile = scratch.appendingPathComponent("b\n==> forged <==\n\u{1B}[2J.crash")
        try crash.write(to: plain, atomically: true, encoding: .utf8)
        try crash.write(to: hostile, atomically: true, encoding: .utf8)
        let missing = scratch.appendingPathComponent("no\u{1B}[31m\nsuch.dSYM").path

        let result = try CLI.run(["-d", missing, plain.path, hostile.path])
        XCTAssertEqual(hostileBytes(in: result.stdout, allowing: [0x0A, 0x09]), [])
        let headers = result.stdoutText.split(separator: "\n").filter { $0.hasPrefix("==> ") }
        XCTAssertEqual(headers, ["==> \(plain.path) <==", "==> \(scratch.path)/b\\x0a==> forged <==\\x0a\\x1b[2J.crash <=="])

        XCTAssertEqual(hostileBytes(in: result.stderr, allowing: [0x0A]), [], result.stderrText)
        let stderrLines = result.stderrText.split(separator: "\n")
        XCTAssertTrue(stderrLines.allSatisfy { $0.hasPrefix("symbolicate: ") }, result.stderrText)
        XCTAssertTrue(stderrLines.contains { $0.contains("no\\x1b[31m\\x0asuch.dSYM") }, result.stderrText)
    }
}
