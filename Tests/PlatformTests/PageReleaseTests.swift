@testable import Platform
import XCTest

/// `System.releasePages` gives back the whole pages inside a range, which then read as zeros,
/// and leaves the bytes of the partial pages at its ends as they were.
final class PageReleaseTests: XCTestCase {
    func testWholePagesInsideTheRangeAreGivenBackAndTheEdgesKept() {
        let page = System.pageSize
        XCTAssertGreaterThanOrEqual(page, 4096)
        var bytes = [UInt8](repeating: 0xAB, count: 8 * page)
        bytes.withUnsafeMutableBytes { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!)
            // From the middle of a page to the middle of another, pages apart.
            let misalignment = Int(bitPattern: base) % page
            let start = (page - misalignment) + page / 2
            System.releasePages(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[start..<start + 3 * page]))
            let firstWhole = start + page / 2, end = firstWhole + 2 * page
            for k in 0..<buffer.count {
                XCTAssertEqual(buffer[k], (firstWhole..<end).contains(k) ? 0 : 0xAB, "byte \(k)")
                if buffer[k] != ((firstWhole..<end).contains(k) ? 0 : 0xAB) { break }
            }
            // Less than a page gives nothing back.
            System.releasePages(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<page - 1]))
            XCTAssertEqual(buffer[0], 0xAB)
        }
    }
}
