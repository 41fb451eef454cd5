import CrashReport
import Foundation
import TestSupport
import XCTest

/// A NUL byte spoils the line it is on, not the report; binary files are still refused.
final class NULByteTests: XCTestCase {
    private static let report = "Incident Identifier: X\u{0}Y\n"
        + "Thread 0 Crashed:\n"
        + "0   libsystem_kernel.dylib        \t0x18da6eec4 __pthread_kill + 8\n"
        + "1   App                           \t0x0000000104a3c5e0 0x104a30000 + 50656\u{0}\n"
        + "2   App                           \t0x0000000104a3c600 0x104a30000 + 50688\n"
        + "\n"
        + "Binary Images:\n"
        + "0x104a30000 - 0x104a3ffff App arm64  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /App\n"
        + "0x200000000 - 0x20000ffff Bad arm64  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4f> /B\u{0}ad\n"

    func testALineWithANULIsKeptButNotReadAsAFrameOrImage() throws {
        let bytes = Array(Self.report.utf8)
        let report = try ReportParser.parse(bytes, path: "nul.crash")
        XCTAssertEqual(report.threads.first?.frames.map(\.address), [0x18da6eec4, 0x104a3c600])
        XCTAssertEqual(report.images.map(\.name), ["App"])
        var out: [UInt8] = []
        TextRenderer().render(SymbolicatedReport(report: report, frames: [:]), into: &out)
        XCTAssertEqual(out, bytes, "every line, NUL bytes and all, comes back")
    }

    func testALinuxLogLineWithANULIsNotAFrame() throws {
        let log = "    #0 0x401136 in main (/srv/app+0x1136)\n    #1 0x401200 (/srv/app+0x1200)\u{0}\n    #2 0x401300 (/srv/app+0x1300)\n"
        let report = try ReportParser.parse(Array(log.utf8), path: "nul.log")
        XCTAssertEqual(report.source.kind, .linuxLog)
        XCTAssertEqual(report.threads.flatMap(\.frames).map(\.address), [0x401136, 0x401300])
    }

    func testBinaryFilesAreStillNotReports() throws {
        var withoutMagic = [UInt8](repeating: 0, count: 4096)
        for i in stride(from: 0, to: withoutMagic.count, by: 3) { withoutMagic[i] = 0x41 }
        XCTAssertThrowsError(try ReportParser.parse(withoutMagic, path: "blob")) {
            XCTAssertEqual($0 as? ReportError, .notAReport("blob"))
        }
        let elf = Array("\u{7F}ELF".utf8) + Array("Thread 0 Crashed:\n".utf8)
        XCTAssertThrowsError(try ReportParser.parse(elf, path: "elf")) {
            XCTAssertEqual($0 as? ReportError, .notAReport("elf"))
        }
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        for name in ["macho/App-arm64", "macho/App-universal", "elf/app-clang-dwarf5"] {
            let object = try [UInt8](Data(contentsOf: fixtures.appendingPathComponent(name)))
            XCTAssertThrowsError(try ReportParser.parse(object, path: name), name) {
                XCTAssertEqual($0 as? ReportError, .notAReport(name))
            }
        }
    }
}
