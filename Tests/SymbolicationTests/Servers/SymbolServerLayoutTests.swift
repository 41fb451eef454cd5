import Foundation
@testable import Symbolication
import TestSupport
import XCTest

/// The paths of the three symbol-server layouts, the parsing of `--symbol-server` values, and
/// LLDB's property lists, against the layouts' documented examples.
final class SymbolServerLayoutTests: XCTestCase {
    private let uuid = "6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e"
    private let buildID = "f57e472e15f03cefee56329a207d4d7ba9d22962"

    func testUnifiedPathsAreLowercaseFirstTwoThenTheRest() {
        XCTAssertEqual(SymbolServerLayout.unified.relativePaths(of: uuid.uppercased(), url: "http://h"),
                       ["6b/0a6a3f1bde3c4a9e2d5f0a1b2c3d4e/debuginfo"])
        XCTAssertEqual(SymbolServerLayout.unified.relativePaths(of: buildID, url: "http://h"),
                       ["f5/7e472e15f03cefee56329a207d4d7ba9d22962/debuginfo"])
    }

    func testLLDBPathsSplitTheUppercaseUUIDAndHaveNoPlaceForLongerBuildIDs() {
        XCTAssertEqual(SymbolServerLayout.lldb.relativePaths(of: uuid, url: "file:///x"),
                       ["6B0A/6A3F/1BDE/3C4A/9E2D/5F0A1B2C3D4E"])
        XCTAssertEqual(SymbolServerLayout.lldb.relativePaths(of: buildID, url: "file:///x"), [])
    }

    func testGDBPathsAreBelowTheBuildIDFolderWhicheverTheURLNames() {
        XCTAssertEqual(SymbolServerLayout.gdb.relativePaths(of: buildID, url: "http://h/debug"),
                       [".build-id/f5/7e472e15f03cefee56329a207d4d7ba9d22962.debug"])
        XCTAssertEqual(SymbolServerLayout.gdb.relativePaths(of: buildID, url: "http://h/debug/.build-id"),
                       ["f5/7e472e15f03cefee56329a207d4d7ba9d22962.debug"])
    }

    func testIdentifiersThatAreNotHexHaveNoPlace() {
        for layout in SymbolServerLayout.allCases {
            XCTAssertEqual(layout.relativePaths(of: "../../etc/passwd", url: "http://h"), [], "\(layout)")
            XCTAssertEqual(layout.relativePaths(of: "ab", url: "http://h"), [], "\(layout)")
        }
    }

    func testServerArguments() throws {
        let web = try SymbolServer(parsing: "https://symbols.example.com/ios/#lldb")
        XCTAssertEqual(web.url, "https://symbols.example.com/ios")
        XCTAssertEqual(web.layout, .lldb)
        XCTAssertNil(web.directory)
        XCTAssertEqual(web.location(of: "6B0A/x"), "https://symbols.example.com/ios/6B0A/x")

        let folder = try SymbolServer(parsing: "file:///srv/my%20symbols/")
        XCTAssertEqual(folder.layout, .unified)
        XCTAssertEqual(folder.directory, "/srv/my symbols")
        XCTAssertEqual(try SymbolServer(parsing: "FILE://localhost/srv#GDB").directory, "/srv")

        for bad in ["ftp://h/x", "/srv/symbols", "file://srv/x", "http://h#breakpad", "http://", "file:///a%zz", "file:///a%00b"] {
            XCTAssertThrowsError(try SymbolServer(parsing: bad), bad) { error in
                XCTAssertTrue("\(error)".hasPrefix(bad + ":"), "the error names the value: \(error)")
            }
        }
    }

    func testPropertyLists() {
        let list = Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
              <key>DBGArchitecture</key><string>arm64</string>
              <key>DBGDSYMPath</key>
              <string>/Volumes/Builds/A &amp; B/App.app.dSYM</string>
            </dict></plist>
            """.utf8)
        XCTAssertTrue(DSYMPropertyList.isPropertyList(Array(list.prefix(64))))
        XCTAssertEqual(DSYMPropertyList.dsymPath(list), "/Volumes/Builds/A & B/App.app.dSYM")
        XCTAssertTrue(DSYMPropertyList.isPropertyList(Array("bplist00".utf8)))
        XCTAssertFalse(DSYMPropertyList.isPropertyList([0xCF, 0xFA, 0xED, 0xFE]))  // Mach-O
        XCTAssertNil(DSYMPropertyList.dsymPath(Array("<plist><key>DBGDSYMPath</key>".utf8)))
        XCTAssertNil(DSYMPropertyList.dsymPath(Array("<plist><key>DBGDSYMPath</key><string></string>".utf8)))
        XCTAssertNil(DSYMPropertyList.dsymPath(Array("<key>DBGDSYMPath</key>   ".utf8)))
        // Cut anywhere, a list gives a path or nothing, never a crash.
        for end in 0...list.count { _ = DSYMPropertyList.dsymPath(Array(list[..<end])) }
        // A server's bytes are untrusted: mutated lists (bytes changed, markup and entities
        // put anywhere) give a non-empty path or nothing.
        var random = SplitMix64(seed: 0x5e4e_7ab1e)
        let pieces = ["<key>DBGDSYMPath</key>", "<string>", "</string>", "&", "&#x", "&#", ";", "&amp;", "\u{0}", "é"]
            .map { Array($0.utf8) }
        for _ in 0..<3000 {
            var bytes = list
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let at = Int.random(in: 0...bytes.count, using: &random)
                if Bool.random(using: &random), at < bytes.count {
                    bytes[at] = UInt8.random(in: 0...255, using: &random)
                } else {
                    bytes.insert(contentsOf: pieces.randomElement(using: &random)!, at: at)
                }
            }
            if let path = DSYMPropertyList.dsymPath(bytes) { XCTAssertFalse(path.isEmpty) }
        }
    }

    /// An identifier from a report is untrusted: one that is not hexadecimal makes no path,
    /// so that nothing outside the servers and the download folder is read or removed.
    func testIdentifiersThatAreNotHexAreNotAskedFor() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("servers-\(getpid())-\(#line)")
        defer { try? FileManager.default.removeItem(at: root) }
        let victim = root.appendingPathComponent("victim")
        try FileManager.default.createDirectory(at: victim, withIntermediateDirectories: true)
        try Data("not a debug file".utf8).write(to: victim.appendingPathComponent("debuginfo"))
        var lines: [String] = []
        let diagnostics = Diagnostics { lines.append($0) }
        let servers = try XCTUnwrap(DebugFileServers(
            options: .init(symbolServers: [try SymbolServer(parsing: "file://" + root.path)], debuginfod: false,
                           downloadFolder: root.appendingPathComponent("downloads").path),
            diagnostics: diagnostics))
        for hostile in ["../victim", "../../victim", "..%2f..", "ab/../../victim", "zz" + String(repeating: "0", count: 30), ""] {
            XCTAssertEqual(servers.files(for: hostile, format: .machO), [], hostile)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: victim.appendingPathComponent("debuginfo").path))
        XCTAssertEqual(lines, [])
    }

    func testSizesAreSaidInTheirUnit() {
        XCTAssertEqual(DebugFileServers.bytes(4 << 30), "4 GiB")
        XCTAssertEqual(DebugFileServers.bytes(1024), "1 KiB")
        XCTAssertEqual(DebugFileServers.bytes(1500), "1500 bytes")
    }
}
