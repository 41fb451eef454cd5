@testable import CrashReport
import Foundation
import XCTest

/// `InputRelease` gives back what a translator read for the last time: elements of a JSON
/// array one after another, each smaller than a page, add up to whole pages given back; an
/// element kept (the crashed thread, whose state is read last) stays whole, and so does what
/// comes before the first element given back.
final class InputReleaseTests: XCTestCase {
    func testRunsOfSmallRangesAreGivenBackByWholePagesAndAKeptRangeStays() {
        checkGivenBack { release, page, wholePages in
            // Elements of 300 bytes, a comma between them, from byte 1000 on; the 20th kept.
            var ranges: [Range<Int>] = []
            var start = 1000
            while start + 300 < 12 * page {
                ranges.append(start..<start + 300)
                start += 301
            }
            for (k, range) in ranges.enumerated() {
                if k == 20 { release.keepFromHere() } else { release.release(range) }
            }
            // Two runs: from the first range to the kept one, and from the one after it to the last.
            let first = wholePages(ranges[0].lowerBound..<ranges[19].upperBound)
            let second = wholePages(ranges[21].lowerBound..<ranges.last!.upperBound)
            XCTAssertGreaterThan(second.count, 5 * page)
            XCTAssertFalse(ranges[20].overlaps(first) || ranges[20].overlaps(second))
            return [first, second]
        }
    }

    /// Frames given back one by one, then their thread whole: the thread's whole pages are
    /// given back once, from the first frame of the run on, and nothing before the run.
    func testARangeHoldingRangesGivenBackGoesOnFromThem() {
        checkGivenBack { release, page, wholePages in
            // Threads of 700 bytes from byte 500 on: 100 bytes of members, then 10 frames of 60.
            var thread = 500
            while thread + 700 < 14 * page {
                for f in 0..<10 { release.release(thread + 100 + 60 * f..<thread + 160 + 60 * f) }
                release.release(thread..<thread + 700)
                thread += 701
            }
            // From the first frame of the run, not the first thread's members.
            let run = wholePages(600..<thread - 1)
            XCTAssertGreaterThan(run.count, 10 * page)
            return [run]
        }
    }

    /// Runs `body` over 16 pages of 0xAB bytes with an `InputRelease` of them, the page size
    /// and a function giving a range's whole pages; then checks that exactly the bytes of the
    /// ranges `body` returns were given back (read as zeros).
    private func checkGivenBack(
        _ body: (inout InputRelease, Int, (Range<Int>) -> Range<Int>) -> [Range<Int>],
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var bytes = [UInt8](repeating: 0xAB, count: 16 * page)
        bytes.withUnsafeMutableBytes { buffer in
            let input = UnsafeRawBufferPointer(buffer)
            let address = Int(bitPattern: input.baseAddress!)
            func wholePages(_ range: Range<Int>) -> Range<Int> {
                let start = ((address + range.lowerBound + page - 1) & ~(page - 1)) - address
                let end = ((address + range.upperBound) & ~(page - 1)) - address
                return start..<max(start, end)
            }
            var release = InputRelease(input)
            let released = body(&release, page, wholePages)
            for k in 0..<buffer.count where buffer[k] != (released.contains { $0.contains(k) } ? 0 : 0xAB) {
                return XCTFail("byte \(k): \(buffer[k]); given back \(released)", file: file, line: line)
            }
        }
    }
}
