import CrashReport
import XCTest

/// A parsed report holds its frames without the spare room that growing arrays leave: of a
/// report with many backtraces, that room would otherwise be paid for each one.
final class ReportMemoryTests: XCTestCase {
    private func backtrace(_ number: Int) -> String {
        "Thread \(number):\n" + (0..<17).map { "\($0)   App   0x\(String(0x104a34000 + $0 * 4, radix: 16)) 0x104a30000 + \(16384 + $0 * 4)\n" }.joined() + "\n"
    }

    func testClassicBacktracesKeepNoSpareRoom() throws {
        let text = (0..<50).map(backtrace).joined()
            + "Binary Images:\n0x104a30000 - 0x104a3ffff App arm64  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /App\n"
        let report = try ReportParser.parse(Array(text.utf8), path: "many.crash")
        XCTAssertEqual(report.threads.count, 50)
        for thread in report.threads {
            XCTAssertEqual(thread.frames.count, 17)
            XCTAssertLessThanOrEqual(thread.frames.capacity, 17 + 17 / 8 + 2, "\(thread.kind)")
        }
    }

    func testLinuxBacktracesKeepNoSpareRoom() throws {
        let text = (0..<50).map { _ in
            "==1==ERROR: AddressSanitizer: heap-use-after-free\n"
                + (0..<17).map { "    #\($0) 0x\(String(0x401000 + $0 * 4, radix: 16))  (/srv/app+0x\(String(0x1000 + $0 * 4, radix: 16)))\n" }.joined()
                + "\n"
        }.joined()
        let report = try ReportParser.parse(Array(text.utf8), path: "asan.log")
        XCTAssertEqual(report.format, .linuxLog)
        XCTAssertEqual(report.threads.count, 50)
        for thread in report.threads {
            XCTAssertEqual(thread.frames.count, 17)
            XCTAssertLessThanOrEqual(thread.frames.capacity, 17 + 17 / 8 + 2, "\(thread.kind)")
        }
    }
}
