@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

/// Mapped files that change while they are read: a page cut off reads as zeros and the read
/// is refused afterwards, headers read once stay as read, and what is not a regular file is
/// never mapped.
final class MappedFileTests: XCTestCase {
    private func temporaryCopy(of bytes: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "mapped-\(getpid())-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        addTeardownBlock { unlink(path) }
        return path
    }

    private func fixture(_ relative: String) throws -> [UInt8] {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        return try [UInt8](Data(contentsOf: fixtures.appendingPathComponent(relative)))
    }

    func testAFileCutShortUnderAReadIsRefusedNotFatal() throws {
        let path = try temporaryCopy(of: [UInt8](repeating: 7, count: 1 << 20))
        let file = try MappedFile(path: path)
        XCTAssertFalse(file.changedWhileMapped)
        XCTAssertThrowsError(try file.reading { () -> Int in
            XCTAssertEqual(truncate(path, 4096), 0)
            return file.bytes.reduce(0) { $0 + Int($1) }  // reads the vanished pages: zeros
        }) { error in
            XCTAssertEqual(error as? DebugInfoError, .changedWhileRead(path: path))
            XCTAssertEqual("\(error)", "\(path): the file changed while it was being read; its frames are left as they are")
        }
        XCTAssertTrue(file.changedWhileMapped)
    }

    /// A write that keeps the size is seen by the modification time. The file is dated in the
    /// past before it is mapped, so that the write gives it another time however soon it comes
    /// (the file system's clock moves in ticks of some milliseconds).
    func testAFileWrittenInPlaceIsSeenAsChanged() throws {
        let path = try temporaryCopy(of: [UInt8](repeating: 7, count: 8192))
        var past = [timespec(tv_sec: 1_600_000_000, tv_nsec: 0), timespec(tv_sec: 1_600_000_000, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, path, &past, 0), 0)
        let file = try MappedFile(path: path)
        XCTAssertEqual(try file.reading { file.bytes.count }, 8192)
        let fd = open(path, O_WRONLY)
        var byte: UInt8 = 9
        XCTAssertEqual(pwrite(fd, &byte, 1, 5000), 1)
        close(fd)
        XCTAssertTrue(file.changedWhileMapped)
        XCTAssertThrowsError(try file.reading { file.bytes.count })
    }

    /// The section headers are copied before they are parsed: zeros written over them in the
    /// file afterwards do not reach the parser.
    func testELFHeadersReadOnceStayAsRead() throws {
        let original = try fixture("elf/app-gcc-dwarf4")
        let path = try temporaryCopy(of: original)
        let file = try MappedFile(path: path)
        let before = try ELF.parse(file.bytes, path: path)
        ELF.pinHeaders(of: file)
        let shoff = original.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: 40, as: UInt64.self)) }
        let fd = open(path, O_WRONLY)
        let zeros = [UInt8](repeating: 0, count: original.count - shoff)
        XCTAssertEqual(pwrite(fd, zeros, zeros.count, off_t(shoff)), zeros.count)
        XCTAssertEqual(pwrite(fd, zeros, 64, 0), 64)
        close(fd)
        let after = try ELF.parse(file.bytes, path: path)
        XCTAssertEqual(after.sections.map(\.offset), before.sections.map(\.offset))
        XCTAssertEqual(after.sections.count, before.sections.count)
        XCTAssertGreaterThan(after.sections.count, 10)
        XCTAssertTrue(file.changedWhileMapped)
    }

    func testMachOLoadCommandsReadOnceStayAsRead() throws {
        let original = try fixture("macho/App-universal.dSYM/Contents/Resources/DWARF/App-universal")
        let path = try temporaryCopy(of: original)
        let file = try MappedFile(path: path)
        let before = try MachO.slices(of: file.bytes, path: path)
        MachO.pinHeaders(of: file)
        let fd = open(path, O_WRONLY)
        for slice in before {
            let zeros = [UInt8](repeating: 0xFF, count: 4096)
            XCTAssertEqual(pwrite(fd, zeros, zeros.count, off_t(slice.offset)), zeros.count)
        }
        close(fd)
        let after = try MachO.slices(of: file.bytes, path: path)
        XCTAssertEqual(after.map(\.uuid), before.map(\.uuid))
        XCTAssertEqual(after.map(\.sections.count), before.map(\.sections.count))
    }

    /// A link to a device, a FIFO or a folder is not mapped, and opening it never waits.
    func testWhatIsNotARegularFileIsRefused() throws {
        let dir = NSTemporaryDirectory() + "mapped-special-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/fifo", zero = dir + "/zero"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertEqual(symlink("/dev/zero", zero), 0)
        for path in [fifo, zero, dir] {
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var looksLikeOne = true
            nonisolated(unsafe) var failure: Error?
            Thread {
                looksLikeOne = DebugFile.looksLikeObjectFile(path: path)
                do {
                    _ = try MappedFile(path: path)
                } catch {
                    failure = error
                }
                done.signal()
            }.start()
            // A hang detector only (a FIFO opened for reading blocks): the wait ends when the open returns.
            guard done.wait(timeout: .now() + 120) == .success else {
                XCTFail("\(path): opening it did not return")
                continue
            }
            XCTAssertFalse(looksLikeOne, path)
            XCTAssertTrue(failure.map { "\($0)".hasPrefix(path + ": cannot read: ") } ?? false, "\(String(describing: failure))")
            XCTAssertThrowsError(try DebugFile.identify(path: path))
        }
    }
}
