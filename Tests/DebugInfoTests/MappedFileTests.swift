import CDwarf
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

    /// A debug file cut short between the search that identified it and the read of its DWARF
    /// (`cp` truncates, then writes): the sections handed to the DWARF reader lie in the bytes
    /// mapped at the read, not in the size the search saw, so the reader never reads past the
    /// mapping; the index is built from what is there, or refused. Every slice of thin and
    /// universal dSYMs, cut just past the start of its .debug_info.
    func testADebugFileCutShortAfterItWasIdentifiedIsReadWithinItsMapping() throws {
        for relative in ["producers/dsymutil-arm64-dwarf4/Work.dSYM/Contents/Resources/DWARF/Work",
                         "macho/App-universal.dSYM/Contents/Resources/DWARF/App-universal"] {
            let bytes = try fixture(relative)
            let path = try temporaryCopy(of: bytes)
            for file in try DebugFile.identify(path: path) where file.hasDWARF {
                let label = "\(relative) [\(file.architecture?.name ?? "?")]"
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                let whole = try MappedFile(path: path)
                guard case .machO(let slice) = try ObjectLayout(file, in: whole),
                      let info = slice.sections.first(where: { $0.name == "__debug_info" }) else {
                    XCTFail("\(label): no __debug_info")
                    continue
                }
                XCTAssertEqual(truncate(path, off_t(slice.offset) + off_t(info.offset) + 64), 0)
                let mapped = try MappedFile(path: path)
                let end = mapped.bytes.baseAddress! + mapped.bytes.count
                if let layout = try? ObjectLayout(file, in: mapped) {
                    _ = try? DWARFReader.withObject(file, layout: layout, in: mapped) { object in
                        for name in [".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_ranges"] {
                            guard let section = cdw_section_named(object, name), let data = section.pointee.data else { continue }
                            XCTAssertLessThanOrEqual(UnsafeRawPointer(data) + Int(section.pointee.size), end,
                                                     "\(label): \(name) runs past the mapping")
                        }
                    }
                }
                do {
                    let index = try SymbolIndex.build(file)
                    XCTAssertNotNil(index.problem, "\(label): cut short, read whole")
                } catch {
                    print("MappedFileTests: \(label) cut short: \(error)")
                }
            }
        }
    }

    func testAFileWrittenInPlaceIsSeenAsChanged() throws {
        let path = try temporaryCopy(of: [UInt8](repeating: 7, count: 8192))
        let file = try MappedFile(path: path)
        XCTAssertEqual(try file.reading { file.bytes.count }, 8192)
        usleep(10_000)
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
            guard done.wait(timeout: .now() + 10) == .success else {
                XCTFail("\(path): opening it did not return")
                continue
            }
            XCTAssertFalse(looksLikeOne, path)
            XCTAssertTrue(failure.map { "\($0)".hasPrefix(path + ": cannot read: ") } ?? false, "\(String(describing: failure))")
            XCTAssertThrowsError(try DebugFile.identify(path: path))
        }
    }
}
