#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import Platform
import XCTest

/// `System.writeAll(_:gathering:count:)` writes every piece, in order, whatever their number
/// and sizes: more pieces than one `writev` takes, empty ones, pieces larger than a pipe holds.
final class GatheredWriteTests: XCTestCase {
    /// Pieces of random sizes (a fifth empty, a few of 100 KB) over one buffer of random bytes,
    /// not in the buffer's order: the bytes `writeAll` must write, and their descriptions.
    private func pieces(_ count: Int, seed: UInt64) -> (buffer: [UInt8], expected: [UInt8], spans: [Range<Int>]) {
        var random = Seeded(state: seed)
        let buffer = (0..<400_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        var spans: [Range<Int>] = []
        var expected: [UInt8] = []
        for k in 0..<count {
            let length = k % 5 == 0 ? 0 : k % 997 == 1 ? 100_000 : Int(random.next() % 300)
            let start = Int(random.next() % UInt64(buffer.count - length))
            spans.append(start..<start + length)
            expected += buffer[start..<start + length]
        }
        return (buffer, expected, spans)
    }

    private func write(_ fd: Int32, _ buffer: [UInt8], _ spans: [Range<Int>]) -> Bool {
        buffer.withUnsafeBufferPointer { bytes in
            var descriptions = spans.map {
                iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress! + $0.lowerBound), iov_len: $0.count)
            }
            return System.writeAll(fd, gathering: &descriptions, count: descriptions.count)
        }
    }

    func testEveryPieceReachesAPipeInOrder() throws {
        let (buffer, expected, spans) = pieces(3_000, seed: 7)
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        let received = Received()
        let reader = try XCTUnwrap(WorkerThread { [ends] in
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
                if n <= 0 { break }
                received.append(chunk[0..<n])
            }
        })
        XCTAssertTrue(write(ends[1], buffer, spans))
        close(ends[1])
        reader.join()
        close(ends[0])
        XCTAssertEqual(received.bytes.count, expected.count)
        XCTAssertTrue(received.bytes == expected, "the bytes differ from the pieces in order")
    }

    func testEveryPieceReachesAFileInOrder() throws {
        let (buffer, expected, spans) = pieces(2_500, seed: 11)
        var template = Array("/tmp/gathered-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let path = String(cString: template)
        defer { unlink(path) }
        XCTAssertTrue(write(fd, buffer, spans))
        close(fd)
        let written = try System.readFile(path)
        XCTAssertTrue(written == expected)
    }

    func testAFailedWriteSaysWhy() {
        let bytes: [UInt8] = [1, 2, 3]
        XCTAssertFalse(write(-1, bytes, [0..<3]))
        XCTAssertEqual(errno, EBADF)
        // Nothing to write is written at once, whatever the descriptor.
        XCTAssertTrue(write(-1, bytes, [0..<0, 1..<1]))
    }

    /// A write that stops anywhere (a short write: a signal, a full device) leaves the pieces
    /// describing exactly the bytes not yet written.
    func testAShortWriteLeavesThePiecesOfTheRest() {
        let (buffer, expected, spans) = pieces(40, seed: 3)
        buffer.withUnsafeBufferPointer { bytes in
            for written in Set([0, 1, expected.count - 1, expected.count] + (0..<60).map { $0 * 101 % expected.count }) {
                var descriptions = spans.map {
                    iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress! + $0.lowerBound), iov_len: $0.count)
                }
                let first = System.skip(written, of: &descriptions, from: 0, count: descriptions.count)
                var rest: [UInt8] = []
                for piece in descriptions[first...] {
                    rest += UnsafeRawBufferPointer(start: piece.iov_base, count: piece.iov_len)
                }
                XCTAssertTrue(rest[...] == expected[written...], "after \(written) of \(expected.count) bytes")
            }
        }
    }
}

/// Bytes a reader thread appends to, read once it is joined.
private final class Received: @unchecked Sendable {
    private(set) var bytes: [UInt8] = []
    func append(_ chunk: ArraySlice<UInt8>) { bytes += chunk }
}
