import Foundation
import Platform
import XCTest

/// A reader's look at the first block of a file: handed exactly the first block (all of a
/// smaller file) once, before more is read, whether the file is regular or a stream that comes
/// in small pieces; a reason it gives is the error, and the rest is never read.
final class FirstBlockCheckTests: XCTestCase {
    private var root: String!

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "first-block-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let root { try? FileManager.default.removeItem(atPath: root) }
    }

    /// What a check was handed: each block and its `whole` flag.
    private final class Seen: @unchecked Sendable {
        var blocks: [([UInt8], Bool)] = []
    }

    private func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 251) } }

    /// A regular file larger than a block: the check sees its first block, not whole; one
    /// smaller than a block: all of it, whole. Either way the file is read in full.
    func testARegularFileIsCheckedOnItsFirstBlock() throws {
        for (size, whole) in [(200_000, false), (1 << 16, true), (10, true)] {
            let path = root + "/file-\(size)"
            let content = bytes(size)
            try Data(content).write(to: URL(fileURLWithPath: path))
            let seen = Seen()
            let read = try System.readFile(path, firstBlock: 1 << 16) { block, isWhole in
                seen.blocks.append((Array(block), isWhole))
                return nil
            }
            XCTAssertEqual(read, content, "\(size) bytes")
            XCTAssertEqual(seen.blocks.count, 1, "\(size) bytes")
            XCTAssertEqual(seen.blocks.first?.0, Array(content.prefix(1 << 16)), "\(size) bytes")
            XCTAssertEqual(seen.blocks.first?.1, whole, "\(size) bytes")
        }
    }

    /// A stream that comes in small pieces (a pipe's writer) is checked once its first block
    /// is all there, on exactly that block, and read whole, over several of the reader's
    /// chunks, byte for byte.
    func testAStreamIsCheckedOnceItsFirstBlockIsRead() throws {
        let fifo = root + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let content = bytes(3_500_000)
        // The writer's end is open before the reader opens its own (a FIFO without a writer
        // reads as empty), then written in small pieces and closed.
        let fd = open(fifo, O_RDWR)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let writer = Thread {
            var offset = 0
            while offset < content.count {
                let end = min(offset + 4000, content.count)
                let n = content[offset..<end].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                offset += n
            }
            close(fd)
        }
        writer.start()
        let seen = Seen()
        let read = try System.readFile(fifo, streams: true, firstBlock: 1 << 16) { block, whole in
            seen.blocks.append((Array(block), whole))
            return nil
        }
        XCTAssertEqual(read, content)
        XCTAssertEqual(seen.blocks.count, 1)
        XCTAssertEqual(seen.blocks.first?.0, Array(content.prefix(1 << 16)))
        XCTAssertEqual(seen.blocks.first?.1, false)
    }

    /// A refusal is the error, with the check's words, and an endless device costs a block:
    /// the read ends at once instead of at the limit.
    func testARefusalEndsTheReadAtTheFirstBlock() throws {
        let start = Date()
        var calls = 0
        // A limit of 8 GiB: read to it, /dev/zero would take far longer than the 5 s allowed.
        XCTAssertThrowsError(try System.readFile("/dev/zero", limit: 1 << 33, streams: true, firstBlock: 4096) { block, _ in
            calls += 1
            XCTAssertEqual(block.count, 4096)
            return "all NUL"
        }) { error in
            XCTAssertEqual((error as? SystemError)?.reason, "all NUL")
        }
        XCTAssertEqual(calls, 1)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5, "read on past the first block")
        let path = root + "/small"
        try Data([0, 0, 0]).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try System.readFile(path) { _, whole in whole ? "whole and refused" : nil }) { error in
            XCTAssertEqual((error as? SystemError)?.reason, "whole and refused")
        }
    }
}
