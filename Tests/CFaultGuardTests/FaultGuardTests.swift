import CFaultGuard
import Foundation
import XCTest

/// The guard answers a fault in a registered region with zeros and marks the region, in the
/// test process itself: a test that failed would kill the run with SIGBUS.
final class FaultGuardTests: XCTestCase {
    private var page: Int { Int(sysconf(Int32(_SC_PAGESIZE))) }

    /// A file of `pages` pages of 0xAB, mapped private and writable as debug files are.
    private func mapFile(pages: Int) throws -> (path: String, base: UnsafeMutableRawPointer, size: Int) {
        let path = NSTemporaryDirectory() + "faultguard-\(getpid())-\(UUID().uuidString)"
        let size = pages * page
        try Data(repeating: 0xAB, count: size).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0)
        guard let base, base != MAP_FAILED else { throw POSIXError(.EIO) }
        return (path, base, size)
    }

    func testAPageCutOffReadsAsZerosAndMarksTheRegion() throws {
        let (path, base, size) = try mapFile(pages: 8)
        defer { unlink(path); munmap(base, size) }
        let handle = cfg_register(base, size)
        XCTAssertGreaterThanOrEqual(handle, 0)
        defer { cfg_unregister(handle) }
        XCTAssertEqual(base.load(fromByteOffset: page, as: UInt8.self), 0xAB)
        XCTAssertEqual(cfg_is_damaged(handle), 0)

        XCTAssertEqual(truncate(path, off_t(2 * page)), 0)
        let before = cfg_answered_faults()
        // Past the new end: SIGBUS without the guard.
        let beyond = base.load(fromByteOffset: 5 * page + 17, as: UInt8.self)
        XCTAssertEqual(beyond, 0)
        XCTAssertEqual(cfg_is_damaged(handle), 1)
        XCTAssertEqual(cfg_answered_faults(), before + 1)
        // Pages before the cut still read the file; later pages fault and read zeros too.
        XCTAssertEqual(base.load(fromByteOffset: page, as: UInt8.self), 0xAB)
        XCTAssertEqual(base.load(fromByteOffset: 7 * page, as: UInt8.self), 0)
        XCTAssertEqual(cfg_answered_faults(), before + 2)
    }

    func testRegionsAreMarkedApart() throws {
        let first = try mapFile(pages: 2), second = try mapFile(pages: 2)
        defer {
            for file in [first, second] { unlink(file.path); munmap(file.base, file.size) }
        }
        let a = cfg_register(first.base, first.size), b = cfg_register(second.base, second.size)
        defer { cfg_unregister(a); cfg_unregister(b) }
        XCTAssertNotEqual(a, b)
        XCTAssertEqual(truncate(second.path, 0), 0)
        XCTAssertEqual(second.base.load(fromByteOffset: page + 1, as: UInt8.self), 0)
        XCTAssertEqual(cfg_is_damaged(a), 0)
        XCTAssertEqual(cfg_is_damaged(b), 1)
    }

    func testAPrivatePageNoLongerFollowsTheFile() throws {
        let (path, base, size) = try mapFile(pages: 3)
        defer { unlink(path); munmap(base, size) }
        cfg_make_private(base + page + 100, 10)
        let fd = open(path, O_WRONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        var zeros = [UInt8](repeating: 0, count: size)
        XCTAssertEqual(pwrite(fd, &zeros, size, 0), size)
        close(fd)
        // The private page keeps what was read; the others show the file as written now.
        XCTAssertEqual(base.load(fromByteOffset: page + 4000 % page, as: UInt8.self), 0xAB)
        XCTAssertEqual(base.load(fromByteOffset: 0, as: UInt8.self), 0)
        XCTAssertEqual(base.load(fromByteOffset: 2 * page, as: UInt8.self), 0)
    }

    func testAnUnregisteredRegionIsNotMarked() throws {
        let (path, base, size) = try mapFile(pages: 1)
        defer { unlink(path); munmap(base, size) }
        let handle = cfg_register(base, size)
        cfg_unregister(handle)
        XCTAssertEqual(cfg_is_damaged(-1), 0)
        XCTAssertEqual(cfg_register(nil, 10), -1)
        XCTAssertEqual(cfg_register(base, 0), -1)
    }
}
