import Platform
import XCTest

/// File names are bytes: the mapping to strings and back loses none.
final class FileNameTests: XCTestCase {
    /// Byte strings sampled from a fixed seed: every run checks the same ones, so a failure
    /// comes back on the next run.
    func testEveryByteStringComesBackWhole() {
        var generator = Seeded(state: 0xF11E_9A3E)
        var samples: [[UInt8]] = [[0x80], [0xff], [0xc3], [0x61, 0xc3], [0xef, 0x9c, 0x81], [0xed, 0xa0, 0x80],
                                  [0xc0, 0xaf], [0xf4, 0x90, 0x80, 0x80], Array("plain.crash".utf8), Array("é".utf8)]
        for _ in 0..<2000 {
            samples.append((0..<Int.random(in: 1...12, using: &generator)).map { _ in
                // Mostly bytes near the interesting ranges.
                [UInt8.random(in: 0x01...0xff, using: &generator), 0xef, 0x9c, 0x80, 0xc3][Int.random(in: 0...4, using: &generator)]
            })
        }
        for bytes in samples {
            XCTAssertEqual(FileName.bytes(FileName.decode(bytes)), bytes, "\(bytes)")
        }
    }

    func testValidNamesAreThemselves() {
        for name in ["report.crash", "été.crash", "日本.ips", "emoji 😀.crash"] {
            XCTAssertEqual(FileName.decode(Array(name.utf8)), name)
            XCTAssertEqual(FileName.bytes(name), Array(name.utf8))
        }
    }

    func testRawBytesAreSpelledReplacementCharactersForJSON() {
        let name = FileName.decode([0x61, 0x80, 0x62, 0xef, 0x9c, 0x81])
        XCTAssertEqual(FileName.replacingRawBytes(name), "a\u{FFFD}b\u{F701}")
        XCTAssertEqual(FileName.replacingRawBytes("été"), "été")
    }

    func testSystemCallsGetTheOriginalBytes() throws {
        let folder = FileManager.default.temporaryDirectory.path + "/symbolicate-filename-\(getpid())-\(UUID().uuidString)"
        XCTAssertEqual(mkdir(folder, 0o700), 0)
        defer { _ = rmdir(folder) }
        let name = FileName.decode([0x78, 0x80, 0xff, 0xc3])
        let path = folder + "/" + name
        XCTAssertNoThrow(try AtomicFile.write(Array("content".utf8), to: path))
        defer { FileName.withCString(path) { _ = unlink($0) } }
        let raw = folder.utf8.map { CChar(bitPattern: $0) } + [0x2f, 0x78, -128, -1, -61, 0]
        XCTAssertEqual(access(raw, F_OK), 0, "the file has the original bytes as its name")
        XCTAssertEqual(try System.readFile(path), Array("content".utf8))
    }
}
