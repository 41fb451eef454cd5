import Foundation
import TestSupport
import XCTest

/// Reports saved as UTF-16 (as Windows tools save text) are symbolicated as their UTF-8
/// originals, written as UTF-8, with one line on stderr that says so.
final class ReportEncodingTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeTemporaryDirectory("encoding")
    }

    override func tearDownWithError() throws {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    private enum Variant: CaseIterable {
        case littleEndian, bigEndian, littleEndianWithMark, bigEndianWithMark

        var name: String { self == .littleEndian || self == .littleEndianWithMark ? "UTF-16LE" : "UTF-16BE" }

        func encode(_ text: String) -> Data {
            var bytes: [UInt8] = []
            switch self {
            case .littleEndianWithMark: bytes = [0xFF, 0xFE]
            case .bigEndianWithMark: bytes = [0xFE, 0xFF]
            default: break
            }
            let big = self == .bigEndian || self == .bigEndianWithMark
            for unit in text.utf16 {
                bytes += big ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
            }
            return Data(bytes)
        }
    }

    /// Runs the original and each UTF-16 form of `original` with `arguments` and compares.
    private func checkEveryVariant(of original: String, named fileName: String, arguments: [String]) throws {
        let text = try String(contentsOfFile: original, encoding: .utf8)
        for format in ["text", "json"] {
            let expected = try CLI.run(arguments + ["--format", format, original])
            XCTAssertEqual(expected.status, .success, expected.summary(arguments))
            for variant in Variant.allCases {
                let path = scratch.appendingPathComponent("\(variant)-\(fileName)").path
                try variant.encode(text).write(to: URL(fileURLWithPath: path))
                let arguments = arguments + ["--format", format, path]
                let result = try CLI.run(arguments)
                XCTAssertEqual(result.status, .success, result.summary(arguments))
                let note = "symbolicate: \(path): read as \(variant.name), written as UTF-8"
                XCTAssertEqual(result.stderrLines.filter { $0 == note }.count, 1, result.summary(arguments))
                XCTAssertEqual(result.problemLines.filter { $0 != note }.map { $0.replacingOccurrences(of: path, with: original) },
                               expected.problemLines, result.summary(arguments))
                let output = format == "json"
                    ? result.stdoutText.replacingOccurrences(of: path, with: original) : result.stdoutText
                XCTAssertEqual(output, expected.stdoutText, "\(variant) \(format): \(fileName)")
            }
        }
    }

    func testClassicReportsInUTF16ResolveAsInUTF8() throws {
        let report = try Fixtures.path("reports/App-arm64.crash")
        try checkEveryVariant(of: report, named: "App-arm64.crash", arguments: ["-d", try Fixtures.path("macho")])
        let output = try CLI.run(["-d", try Fixtures.path("macho"), report]).stdoutText
        XCTAssertTrue(output.contains("parse_record + 28 (parser.c:27)"), "the frames resolve")
    }

    func testIPSReportsInUTF16ResolveAsInUTF8() throws {
        let report = try Fixtures.path("ips/App-arm64.ips")
        try checkEveryVariant(of: report, named: "App-arm64.ips", arguments: ["-d", try Fixtures.path("macho")])
    }

    func testLinuxLogsInUTF16ResolveAsInUTF8() throws {
        let binary = try Fixtures.path("elf/app-clang-dwarf5")
        let log = scratch.appendingPathComponent("asan.log")
        try """
        ==1234==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010
            #0 0x555555554cc4  (\(binary)+0xcc4)
            #1 0x555555554904  (\(binary)+0x904)
        Ünïcödé: 日本語 😀

        """.write(to: log, atomically: true, encoding: .utf8)
        try checkEveryVariant(of: log.path, named: "asan.log", arguments: ["-d", binary])
        let output = try CLI.run(["-d", binary, log.path]).stdoutText
        XCTAssertTrue(output.contains("in engine::Scheduler::run(int) "), output)
    }

    /// Bytes that only start like a UTF-16 byte-order mark (`FE FF` or `FF FE` before
    /// single-byte text: a damaged file, or one pasted after a stray mark) are no UTF-16 text:
    /// read as UTF-16 they would come back as other characters. They come back as they are,
    /// with no note, and the frames after them resolve as in the report without them.
    func testAMarkBeforeSingleByteTextLeavesTheBytesAsTheyAre() throws {
        let report = try Fixtures.path("reports/App-arm64.crash")
        let text = try Data(contentsOf: URL(fileURLWithPath: report))
        let expected = try CLI.run(["-d", try Fixtures.path("macho"), report])
        for mark in [[0xFE, 0xFF], [0xFF, 0xFE], [0xFE, 0xFF, 0xFF, 0xFF]] as [[UInt8]] {
            let path = scratch.appendingPathComponent("marked.crash").path
            try (Data(mark) + text).write(to: URL(fileURLWithPath: path))
            let result = try CLI.run(["-q", path])
            XCTAssertEqual(result.stdout, Data(mark) + text, "\(mark): nothing resolved, the input")
            XCTAssertFalse(result.stderrText.contains("UTF-16"), result.stderrText)
            let resolved = try CLI.run(["-d", try Fixtures.path("macho"), path])
            XCTAssertEqual(resolved.stdout, Data(mark) + expected.stdout, "\(mark): the frames resolve")
        }
    }

    func testAnUnpairedSurrogateIsReplacedAndSaid() throws {
        let path = scratch.appendingPathComponent("broken.crash").path
        var bytes = [UInt8](Variant.littleEndianWithMark.encode(try String(contentsOfFile: try Fixtures.path("reports/App-arm64.crash"), encoding: .utf8)))
        bytes.insert(contentsOf: [0x00, 0xD8], at: 4)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let result = try CLI.run(["-d", try Fixtures.path("macho"), path])
        XCTAssertEqual(result.status, .success, result.summary([path]))
        XCTAssertEqual(result.problemLines.filter { $0.contains("read as UTF-16") },
                       ["symbolicate: \(path): read as UTF-16LE, written as UTF-8 (1 invalid UTF-16 code unit replaced by U+FFFD)"])
        XCTAssertTrue(result.stdoutText.hasPrefix("I\u{FFFD}ncident Identifier:"), String(result.stdoutText.prefix(40)))
    }
}
