@testable import Platform
import XCTest

/// The names of temporary files: what a later run recognizes as ours, and nothing else.
final class TemporaryFilesTests: XCTestCase {
    func testOurTemporariesAreKnownByName() {
        let template = String(decoding: TemporaryFiles.template(for: "out/x.crash"), as: UTF8.self)
        XCTAssertEqual(template, "out/.x.crash.symbolicate-\(getpid())-XXXXXX")
        XCTAssertEqual(TemporaryFiles.ownerOfTemporary(Array(".x.crash.symbolicate-1234-a1B2c3".utf8)), 1234)
        for other in [".x.crash.a1B2c3", "x.crash.symbolicate-1234-a1B2c3", ".x.crash.symbolicate--a1B2c3",
                      ".x.crash.symbolicate-12a4-a1B2c3", ".symbolicate-1234-a1B2c3", ".x.crash"] {
            XCTAssertNil(TemporaryFiles.ownerOfTemporary(Array(other.utf8)), other)
        }
    }

    func testALongNameIsShortenedToFit() {
        let name = String(repeating: "n", count: 255)
        let template = TemporaryFiles.template(for: "/tmp/" + name)
        XCTAssertLessThanOrEqual(template.count - "/tmp/".count, 255)
    }

    func testAFailedWriteLeavesNoTemporary() throws {
        let folder = FileManager.default.temporaryDirectory.path + "/symbolicate-temporaries-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        XCTAssertThrowsError(try AtomicFile.write(to: folder + "/x.crash") { _ in false })
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [])
    }
}
