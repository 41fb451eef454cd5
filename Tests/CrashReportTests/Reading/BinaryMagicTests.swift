@testable import CrashReport
import TestSupport
import XCTest

/// Object files and archives are told by their magic number from one table: the first-block
/// check of a run (``BinaryInput``) names what the input is, and every text parser
/// (`ClassicReportParser.checkText`) refuses the same inputs, whatever follows the magic.
final class BinaryMagicTests: XCTestCase {
    private static let report = Array("Process: App [1234]\nThread 0 Crashed:\n0   App   0x104a34204 main + 8\n".utf8)

    private func problem(_ bytes: [UInt8], whole: Bool = true) -> String? {
        bytes.withUnsafeBytes { BinaryInput.problem($0, whole: whole) }
    }

    private func refusedByParsers(_ bytes: [UInt8]) -> Bool {
        do {
            try bytes.withUnsafeBufferPointer { try ClassicReportParser.checkText($0, path: "r") }
            return false
        } catch {
            return error as? ReportError == .notAReport("r")
        }
    }

    func testEveryMagicIsRefusedByBothChecksWhateverFollowsIt() {
        let magics: [([UInt8], String)] = [
            ([0x7F, 0x45, 0x4C, 0x46], "an ELF file"),
            ([0xCF, 0xFA, 0xED, 0xFE], "a Mach-O file"),
            ([0xFE, 0xED, 0xFA, 0xCE], "a Mach-O file"),
            ([0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 2], "a universal Mach-O file"),
            ([0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 0x41], "a universal Mach-O or Java class file"),
            ([0xBE, 0xBA, 0xFE, 0xCA], "a universal Mach-O file"),
            (Array("!<arch>\n".utf8), "an ar archive"),
            (Array("!<thin>\n".utf8), "an ar archive"),
            ([0x1F, 0x8B, 0x08, 0x04], "a gzip file"),
            ([0x28, 0xB5, 0x2F, 0xFD], "a zstd file"),
            ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], "an xz file"),
            ([0x50, 0x4B, 0x03, 0x04], "a zip file"),
        ]
        for (magic, kind) in magics {
            let input = magic + Self.report
            XCTAssertEqual(problem(input), "binary data, not a text report (\(kind))", "\(magic)")
            XCTAssertTrue(refusedByParsers(input), "\(magic)")
        }
        XCTAssertNil(problem(Array("!<arbitrary>\n".utf8) + Self.report), "text that only starts like an archive")
        XCTAssertFalse(refusedByParsers(Array("!<arbitrary>\n".utf8) + Self.report))
    }

    /// A byte-order mark does not make what follows it text: random bytes after one are
    /// refused; UTF-16 text and single-byte text after one are read.
    func testAByteOrderMarkBeforeRandomBytesIsRefused() {
        var generator = SplitMix64(seed: 3)
        let random = (0..<4096).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        for mark: [UInt8] in [[0xFF, 0xFE], [0xFE, 0xFF]] {
            let refusal = problem(mark + random)
            XCTAssertTrue(refusal?.hasSuffix("are neither text nor UTF-16)") ?? false, "\(mark): \(refusal ?? "read")")
            let bigEndian = mark[0] == 0xFE
            let utf16 = Self.report.flatMap { byte -> [UInt8] in bigEndian ? [0, byte] : [byte, 0] }
            XCTAssertNil(problem(mark + utf16), "\(mark): UTF-16 text")
            XCTAssertNil(problem(mark + Self.report), "\(mark): single-byte text")
        }
    }
}
