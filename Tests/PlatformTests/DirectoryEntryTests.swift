import Foundation
import Platform
import XCTest

/// `System.entryName` gives each directory entry's name exactly, read where the record lies:
/// names of every length up to 255 bytes, and bytes that are not UTF-8.
final class DirectoryEntryTests: XCTestCase {
    func testEntryNamesAreReadWhole() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("entries-\(getpid())-\(UUID().uuidString)")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var wanted: Set<[UInt8]> = []
        for length in [1, 2, 7, 8, 9, 15, 16, 17, 100, 254, 255] {
            var name = [UInt8]((0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) })
            if length > 3 { name[1] = 0xff }  // not UTF-8
            wanted.insert(name)
            let path = Array(folder.path.utf8) + [UInt8(ascii: "/")] + name + [0]
            let fd = path.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644) }
            XCTAssertGreaterThanOrEqual(fd, 0, "length \(length)")
            close(fd)
        }
        let stream = try XCTUnwrap(opendir(folder.path))
        defer { closedir(stream) }
        var seen: Set<[UInt8]> = []
        while let entry = readdir(stream) {
            let name = Array(System.entryName(entry))
            if name != [0x2e] && name != [0x2e, 0x2e] { seen.insert(name) }
        }
        XCTAssertEqual(seen, wanted)
    }
}
