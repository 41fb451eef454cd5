@testable import CrashReport
import Foundation
import XCTest

/// `InputRelease` gives back what a translator read for the last time: elements of a JSON
/// array one after another, each smaller than a page, add up to whole pages given back; an
/// element kept (the crashed thread, whose state is read last) stays whole, and so does what
/// comes before the first element given back.
final class InputReleaseTests: XCTestCase {
    func testRunsOfSmallRangesAreGivenBackByWholePagesAndAKeptRangeStays() {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var bytes = [UInt8](repeating: 0xAB, count: 16 * page)
        bytes.withUnsafeMutableBytes { buffer in
            let input = UnsafeRawBufferPointer(buffer)
            var release = InputRelease(input)
            // Elements of 300 bytes, a comma between them, from byte 1000 on; the 20th kept.
            var ranges: [Range<Int>] = []
            var start = 1000
            while start + 300 < 12 * page {
                ranges.append(start..<start + 300)
                start += 301
            }
            let kept = ranges[20]
            for (k, range) in ranges.enumerated() {
                if k == 20 { release.keepFromHere() } else { release.release(range) }
            }
            // What must have been given back: the whole pages of each run of released ranges,
            // the first from the first range's start to the kept one's, the second from the
            // one after it to the last one's end.
            let address = Int(bitPattern: input.baseAddress!)
            func wholePages(_ range: Range<Int>) -> Range<Int> {
                let start = ((address + range.lowerBound + page - 1) & ~(page - 1)) - address
                let end = ((address + range.upperBound) & ~(page - 1)) - address
                return start..<max(start, end)
            }
            let first = wholePages(ranges[0].lowerBound..<ranges[19].upperBound)
            let second = wholePages(ranges[21].lowerBound..<ranges.last!.upperBound)
            XCTAssertGreaterThan(second.count, 5 * page)
            for k in 0..<buffer.count {
                let released = first.contains(k) || second.contains(k)
                if buffer[k] != (released ? 0 : 0xAB) {
                    return XCTFail("byte \(k): \(buffer[k]); given back \(first), \(second); kept \(kept)")
                }
            }
            XCTAssertFalse(kept.overlaps(first) || kept.overlaps(second))
        }
    }

    /// Frames given back one by one, then their thread whole: the thread's whole pages are
    /// given back once, from the first frame of the run on, and nothing before the run.
    func testARangeHoldingRangesGivenBackGoesOnFromThem() {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var bytes = [UInt8](repeating: 0xAB, count: 16 * page)
        bytes.withUnsafeMutableBytes { buffer in
            let input = UnsafeRawBufferPointer(buffer)
            var release = InputRelease(input)
            // Threads of 700 bytes from byte 500 on: 100 bytes of members, then 10 frames of 60.
            var thread = 500
            while thread + 700 < 14 * page {
                for f in 0..<10 { release.release(thread + 100 + 60 * f..<thread + 160 + 60 * f) }
                release.release(thread..<thread + 700)
                thread += 701
            }
            let address = Int(bitPattern: input.baseAddress!)
            // From the first frame of the run, not the first thread's members.
            let start = ((address + 600 + page - 1) & ~(page - 1)) - address
            let end = ((address + thread - 1) & ~(page - 1)) - address
            XCTAssertGreaterThan(end - start, 10 * page)
            for k in 0..<buffer.count where buffer[k] != ((start..<end).contains(k) ? 0 : 0xAB) {
                return XCTFail("byte \(k): \(buffer[k]); given back \(start..<end)")
            }
        }
    }
}
