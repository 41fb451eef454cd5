import Foundation
import TestSupport
import XCTest

/// Input that is not text — an endless device, random bytes, an executable, an archive — is
/// refused from its first block, with one line naming it and saying what it is, in the memory
/// of a block and at once; the other reports of the run are written. Text reports, however
/// unclean (UTF-16, stray NULs, control bytes, Latin-1), are still read.
final class BinaryInputTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try makeTemporaryDirectory("binary-input")
    }

    override func tearDownWithError() throws {
        if let root { try? FileManager.default.removeItem(at: root) }
    }

    private func path(_ name: String) -> String { root.appendingPathComponent(name).path }
    private func quoted(_ path: String) -> String { "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// The most memory, in KiB, a run that refuses its input may peak at: the tool itself and
    /// a block or two, far below the 1 GiB that reading to the size limit costs.
    private static let refusalPeakKiB = 100 << 10

    /// Runs `command` (a bash command line using `$SYMBOLICATE`) under GNU time: its result
    /// and its peak resident memory in KiB.
    private func runMeasured(_ command: String) throws -> (result: ProcessResult, peakKiB: Int) {
        let measure = path("peak-\(UUID().uuidString)")
        let result = try CLI.shell("/usr/bin/time -f %M -o \(quoted(measure)) \(command)", timeout: 120)
        let peak = try String(contentsOfFile: measure, encoding: .utf8)
            .split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        return (result, try XCTUnwrap(peak, "no peak from GNU time for \(command): \(result.stderrText)"))
    }

    /// Whether `line` is the refusal of `name` with a reason `reason` matches.
    private func isRefusal(_ line: String, of name: String, _ reason: String) -> Bool {
        line.range(of: "^symbolicate: " + NSRegularExpression.escapedPattern(for: name)
                   + ": cannot read: binary data, not a text report \\(" + reason + "\\)$",
                   options: .regularExpression) != nil
    }

    /// Devices, an executable of each kind and a compressed report, each named before a good
    /// report: each is one line saying what it is, exit 1, nothing of it written, the good
    /// report written as it would be alone — in the memory of a block.
    func testInputThatIsNoTextIsRefusedFromItsFirstBlock() throws {
        let macho = try Fixtures.path("macho"), report = try Fixtures.path("reports/App-arm64.crash")
        let gzip = path("App-arm64.crash.gz")
        let zipped = try CLI.shell("gzip -c \(quoted(report)) > \(quoted(gzip))")
        XCTAssertEqual(zipped.status, 0, zipped.stderrText)
        let expected = "==> \(report) <==\n" + (try CLI.run(["-q", "-d", macho, report]).stdoutText)
        let inputs: [(path: String, reason: String)] = [
            ("/dev/zero", "its first 64 KiB are all NUL bytes"),
            ("/dev/urandom", "[0-9]+% of its first 64 KiB are neither text nor UTF-16"),
            (try Fixtures.path("elf/app-gcc-dwarf4"), "an ELF file"),
            (try Fixtures.path("macho/App-arm64"), "a Mach-O file"),
            (try Fixtures.path("macho/App-universal"), "a universal Mach-O file"),
            (gzip, "a gzip file"),
        ]
        for input in inputs {
            let (result, peak) = try runMeasured("\"$SYMBOLICATE\" -q -d \(quoted(macho)) \(quoted(input.path)) \(quoted(report))")
            XCTAssertEqual(result.status, .reportFailed, "\(input.path): \(result.stderrText)")
            XCTAssertEqual(result.problemLines.count, 1, "\(input.path): \(result.stderrText)")
            XCTAssert(result.problemLines.allSatisfy { isRefusal($0, of: input.path, input.reason) },
                      "\(input.path): \(result.problemLines)")
            XCTAssertEqual(result.stdoutText, expected, "\(input.path): only the good report is written")
            XCTAssertLessThan(peak, Self.refusalPeakKiB, "\(input.path): read past its first block")
        }
    }

    /// Standard input from an endless device, as a file (`< /dev/zero`) and through a pipe, is
    /// refused the same way, and at once.
    func testStandardInputThatIsNoTextIsRefused() throws {
        for command in ["\"$SYMBOLICATE\" -q < /dev/zero", "bash -c 'cat /dev/zero | \"$SYMBOLICATE\" -q -'",
                        "\"$SYMBOLICATE\" -q - < /dev/urandom"] {
            let (result, peak) = try runMeasured(command)
            XCTAssertEqual(result.status, .reportFailed, "\(command): \(result.stderrText)")
            XCTAssertEqual(result.problemLines.count, 1, "\(command): \(result.stderrText)")
            XCTAssert(result.problemLines.allSatisfy {
                isRefusal($0, of: "<stdin>", "(its first 64 KiB are all NUL bytes|[0-9]+% of its first 64 KiB are neither text nor UTF-16)")
            }, "\(command): \(result.problemLines)")
            XCTAssertEqual(result.stdout.count, 0, command)
            XCTAssertLessThan(peak, Self.refusalPeakKiB, "\(command): read past its first block")
        }
    }

    /// Text that is not clean is still text: every fixture and corpus report, each in UTF-16
    /// of both byte orders with and without a byte-order mark, and reports with stray NULs,
    /// control bytes, terminal colours and Latin-1 bytes are read (none is called binary).
    func testEveryTextReportIsStillRead() throws {
        let fixtures = try Fixtures.root()
        var reports: [String] = []
        for folder in ["reports", "ips", "metrickit", "group"] {
            let dir = fixtures.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
            where [".crash", ".ips", ".json"].contains(where: name.hasSuffix) {
                reports.append(dir.appendingPathComponent(name).path)
            }
        }
        if let corpus = TestPaths.corpus?.appendingPathComponent("reports") {
            for name in try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted() {
                reports.append(corpus.appendingPathComponent(name).path)
            }
        }
        XCTAssertGreaterThan(reports.count, 40)
        var made: [String] = []
        for (k, report) in reports.enumerated() where k % 4 == 0 {
            let text = try String(contentsOfFile: report, encoding: .utf8)
            for (name, bigEndian, mark) in [("le", false, false), ("be", true, false), ("le-bom", false, true), ("be-bom", true, true)] {
                var bytes: [UInt8] = mark ? (bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]) : []
                for unit in text.utf16 {
                    bytes += bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
                }
                let target = path("\(k)-\(name)-\(URL(fileURLWithPath: report).lastPathComponent)")
                try Data(bytes).write(to: URL(fileURLWithPath: target))
                made.append(target)
            }
        }
        var unclean = Array(try String(contentsOfFile: try Fixtures.path("reports/App-arm64.crash"), encoding: .utf8).utf8)
        for (k, byte) in [UInt8](arrayLiteral: 0, 1, 0x1B, 0x7F, 0xE9, 0xFF, 0, 0x08).enumerated() {
            unclean.insert(byte, at: unclean.count * (k + 1) / 9)
        }
        try Data(unclean).write(to: URL(fileURLWithPath: path("unclean.crash")))
        made.append(path("unclean.crash"))
        let arguments = ["-q", "--format", "frames"] + reports + made
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.stderrLines.filter { $0.contains("binary data") }, [], result.summary(arguments))
        XCTAssertEqual(result.stderrLines.filter { $0.contains(": read as UTF-16") }.count, made.count - 1,
                       result.summary(arguments))
        XCTAssertLessThanOrEqual(result.status, ExitStatus.reportFailed.rawValue, result.summary(arguments))
    }
}
