import DebugInfo
import Foundation
@testable import Symbolication
import TestSupport
import XCTest

/// Symbol servers' zstd-compressed files (`symsorter -z`), inflated as they come: real debug
/// files of the fixtures compressed by the `zstd` tool in each form it writes (one frame,
/// several concatenated, without content size, without checksum), given whole and in pieces
/// of every size; then what a server may send instead: a frame cut short, damaged bytes,
/// bytes after the last frame, a frame that inflates past the limit (saying so in its header
/// or not), a frame asking for too large a window. Each of those is a ``ZstdInflater/Problem``
/// and leaves no file.
final class ZstdInflaterTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.zstd) else {
            throw XCTSkip("the zstd tool is not installed (make setup-test installs it)")
        }
        scratch = try LocatorFixtures.scratch("zstd-inflater")
    }

    override func tearDown() {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    // MARK: What the zstd tool writes

    func testEveryFormOfACompressedDebugFileInflatesToItsBytes() throws {
        let dSYM = try LocatorFixtures.url("macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64")
        let original = try Data(contentsOf: dSYM)
        for (name, bytes) in try compressedForms(of: dSYM, level: "-19") {
            XCTAssertTrue(ZstdInflater.isCompressed(bytes), name)
            let inflated = try inflate(bytes, name: name)
            XCTAssertEqual(inflated, original, "\(name): not the original bytes")
            let target = scratch.appendingPathComponent(name + ".out").path
            XCTAssertEqual(try DebugFile.identify(path: target).first?.identifier,
                           try LocatorFixtures.identifier(of: "macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64"), name)
            // The same bytes in pieces of any size: headers and the magic number split.
            for size in [1, 3, 7, 4096] {
                XCTAssertEqual(try streamed(bytes, pieces: size, limit: original.count), .success(original), "\(name) in pieces of \(size)")
            }
        }
    }

    /// A file of several MiB: many blocks, and more than one buffer of output per read.
    func testALargeDebugFileInflatesWhole() throws {
        let elf = try LocatorFixtures.url("elf/rust-legacy")
        let original = try Data(contentsOf: elf)
        for (name, bytes) in try compressedForms(of: elf, level: "-3") {
            XCTAssertEqual(try inflate(bytes, name: name), original, name)
            XCTAssertEqual(try streamed(bytes, pieces: 65537, limit: original.count), .success(original), name)
        }
    }

    func testAFileThatIsNotCompressedIsWrittenAsItComes() throws {
        let elf = try Data(contentsOf: LocatorFixtures.url("elf/app-gcc-dwarf4.debug"))
        XCTAssertFalse(ZstdInflater.isCompressed(elf))
        for size in [1, 2, 3, 5, elf.count] {
            XCTAssertEqual(try streamed(elf, pieces: size, limit: 0), .success(elf), "pieces of \(size)")
        }
        for short in [Data(), Data([0x28]), Data([0x28, 0xB5, 0x2F])] {
            XCTAssertEqual(try streamed(short, pieces: 1, limit: 0), .success(short), "\(Array(short))")
        }
    }

    // MARK: What a server may send instead

    func testAFrameCutShortIsSaidSoAndLeavesNoFile() throws {
        let bytes = try zstd(["-19", "-c", try dSYMPath()])
        for length in [4, 5, 12, bytes.count / 2, bytes.count - 1] {
            XCTAssertEqual(try streamed(bytes.prefix(length), pieces: 1000, limit: 1 << 30), .failure(.cutShort), "\(length) bytes")
            XCTAssertEqual(try inflateFailure(bytes.prefix(length)), .notInflated(.cutShort), "\(length) bytes")
        }
    }

    func testDamagedBytesAreSaidSoAndLeaveNoFile() throws {
        let bytes = try zstd(["-19", "-c", try dSYMPath()])
        var damaged = bytes
        for offset in stride(from: bytes.count / 3, to: bytes.count / 3 + 16, by: 1) { damaged[offset] ^= 0xA5 }
        guard case .notInflated(.damaged(let reason))? = try inflateFailure(damaged) else {
            return XCTFail("damaged bytes were inflated")
        }
        XCTAssertFalse(reason.isEmpty)
        // Bytes after the last frame that are not a frame.
        guard case .notInflated(.damaged)? = try inflateFailure(bytes + Data("garbage\n".utf8)) else {
            return XCTFail("bytes after the last frame were taken")
        }
    }

    /// 64 MiB of zeros in a few KiB: with its size in the frame header it is refused before
    /// a byte is inflated; without (compressed from a pipe), once the limit is reached, no
    /// byte past it written.
    func testABombStopsAtTheLimit() throws {
        let zeros = scratch.appendingPathComponent("zeros")
        try Data(count: 64 << 20).write(to: zeros)
        let limit = 1 << 20
        let sized = try zstd(["-19", "-c", zeros.path])
        XCTAssertLessThan(sized.count, 16 << 10)
        XCTAssertEqual(try streamed(sized, pieces: sized.count, limit: limit), .failure(.claimsOverLimit(claimed: 64 << 20, limit: limit)))
        var written = 0
        let unsized = try zstd(["-19", "-c"], input: try Data(contentsOf: zeros))
        let writer = ServerFileWriter(limit: limit) { written += $0.count; return true }
        XCTAssertFalse(unsized.withUnsafeBytes { writer.write($0) })
        XCTAssertEqual(writer.problem, .overLimit(limit: limit))
        XCTAssertLessThanOrEqual(written, limit)
        XCTAssertEqual(try inflateFailure(unsized, limit: limit), .notInflated(.overLimit(limit: limit)))
        // A frame as large as the limit is not over it.
        let exact = try zstd(["-c", "--no-content-size"], input: Data(count: limit))
        XCTAssertEqual(try streamed(exact, pieces: 4096, limit: limit), .success(Data(count: limit)))
        XCTAssertEqual(try streamed(exact, pieces: 4096, limit: limit - 1), .failure(.overLimit(limit: limit - 1)))
    }

    /// A frame whose header asks for a 1 GiB window (its window descriptor: exponent 20) is
    /// refused before libzstd allocates it; the same frame with a 1 KiB window is read.
    func testAFrameAskingForTooLargeAWindowIsRefused() throws {
        func frame(windowDescriptor: UInt8) -> Data {
            // Magic, frame header (no checksum, no content size), one raw block of "A", last.
            Data(ZstdInflater.magic + [0x00, windowDescriptor, 0x09, 0x00, 0x00, 0x41])
        }
        XCTAssertEqual(try streamed(frame(windowDescriptor: 0x00), pieces: 100, limit: 10), .success(Data("A".utf8)))
        guard case .failure(.damaged(let reason)) = try streamed(frame(windowDescriptor: 20 << 3), pieces: 100, limit: 10) else {
            return XCTFail("a 1 GiB window was taken")
        }
        XCTAssertTrue(reason.contains("memory"), reason)
    }

    // MARK: Helpers

    static let zstd = "/usr/bin/zstd"

    private func dSYMPath() throws -> String {
        try LocatorFixtures.url("macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64").path
    }

    /// `zstd ARGUMENTS` (its output on stdout), with `input` on stdin when given.
    private func zstd(_ arguments: [String], input: Data? = nil) throws -> Data {
        let result = try runProcess(Self.zstd, ["-q"] + arguments + (input == nil ? [] : ["-"]), input: input ?? Data())
        guard result.status == 0 else { throw XCTSkip("zstd \(arguments) failed: \(result.stderrText)") }
        return result.stdout
    }

    /// `file` compressed at `level` as the zstd tool writes it: one frame; without checksum;
    /// without content size; from a pipe; and two frames of its halves, concatenated.
    private func compressedForms(of file: URL, level: String) throws -> [(String, Data)] {
        let bytes = try Data(contentsOf: file)
        let half = scratch.appendingPathComponent("half-1"), rest = scratch.appendingPathComponent("half-2")
        try bytes.prefix(bytes.count / 2).write(to: half)
        try bytes.dropFirst(bytes.count / 2).write(to: rest)
        return [
            ("one-frame", try zstd([level, "-c", file.path])),
            ("no-check", try zstd([level, "--no-check", "-c", file.path])),
            ("no-content-size", try zstd([level, "--no-content-size", "-c", file.path])),
            ("piped", try zstd([level, "-c"], input: bytes)),
            ("two-frames", try zstd([level, "-c", half.path]) + zstd([level, "--no-content-size", "-c", rest.path])),
        ]
    }

    /// `bytes` written to a file and inflated from it into another (as a `file://` server's
    /// file is): the result.
    private func inflate(_ bytes: Data, name: String) throws -> Data? {
        let source = scratch.appendingPathComponent(name + ".zst"), target = scratch.appendingPathComponent(name + ".out")
        try bytes.write(to: source)
        if let failure = ServerFileWriter.inflate(source.path, to: target.path, limit: 1 << 30) {
            XCTFail("\(name): \(failure)")
            return nil
        }
        return try Data(contentsOf: target)
    }

    /// Why `bytes`, written to a file, cannot be inflated from it; checks that nothing is
    /// left in the target's folder.
    private func inflateFailure(_ bytes: Data, limit: Int = 1 << 30) throws -> ServerFileWriter.Failure? {
        let source = scratch.appendingPathComponent("input.zst")
        let folder = scratch.appendingPathComponent("failed")
        try bytes.write(to: source)
        let failure = ServerFileWriter.inflate(source.path, to: folder.appendingPathComponent("debuginfo").path, limit: limit)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "a file left behind")
        return failure
    }

    /// `bytes` given to a ``ServerFileWriter`` in pieces of `pieces` bytes: what it wrote, or
    /// why it could not.
    private func streamed(_ bytes: Data, pieces: Int, limit: Int) throws -> Result<Data, ZstdInflater.Problem> {
        var output = Data()
        let writer = ServerFileWriter(limit: limit) { output.append(contentsOf: $0); return true }
        let all = [UInt8](bytes)
        var start = 0
        while start < all.count {
            let end = min(all.count, start + pieces)
            let ok = all[start..<end].withUnsafeBytes { writer.write($0) }
            if !ok { return .failure(try XCTUnwrap(writer.problem, "a write failed without a problem")) }
            start = end
        }
        if !writer.finish() { return .failure(try XCTUnwrap(writer.problem, "finish failed without a problem")) }
        return .success(output)
    }
}
