import DebugInfo
import Foundation
@testable import Symbolication
import TestSupport
import XCTest

/// A `file://` symbol server in the unified layout whose `debuginfo` files are compressed by
/// the `zstd` tool, as `symsorter -z` keeps them: the file is inflated into the download
/// folder and given as the debug file; one that cannot be inflated is said in one line naming
/// it and what is wrong, leaves nothing in the download folder, and is the image's miss reason.
final class CompressedServerFileTests: XCTestCase {
    private var scratch: URL!
    private let dSYM = "macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64"

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: ZstdInflaterTests.zstd) else {
            throw XCTSkip("the zstd tool is not installed (make setup-test installs it)")
        }
        scratch = try LocatorFixtures.scratch("compressed-server")
    }

    override func tearDown() {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    func testACompressedFileIsInflatedIntoTheDownloadFolder() throws {
        let identifier = try LocatorFixtures.identifier(of: dSYM)
        let original = try Data(contentsOf: LocatorFixtures.url(dSYM))
        let place = try serve(try zstd(["-19", "-c", LocatorFixtures.url(dSYM).path]), as: identifier)
        var warnings: [String] = []
        let servers = try XCTUnwrap(makeServers { warnings.append($0) })
        let files = servers.files(for: identifier, format: .machO)
        let inflated = downloads.appendingPathComponent("\(identifier.prefix(2))/\(identifier.dropFirst(2))/debuginfo")
        XCTAssertEqual(files, [inflated.path])
        XCTAssertEqual(try Data(contentsOf: inflated), original)
        XCTAssertEqual(warnings, [])
        XCTAssertNil(servers.unusableFile(for: identifier))
        // The server's file is left as it is; a later run finds the inflated one first.
        XCTAssertTrue(ZstdInflater.isCompressed(try Data(contentsOf: place)))
        try FileManager.default.removeItem(at: place)
        XCTAssertEqual(try XCTUnwrap(makeServers { warnings.append($0) }).files(for: identifier, format: .machO), [inflated.path])
        XCTAssertEqual(warnings, [])
    }

    func testAFileThatCannotBeInflatedIsOneLineAndTheMissReason() throws {
        let identifier = try LocatorFixtures.identifier(of: dSYM)
        let compressed = try zstd(["-19", "-c", LocatorFixtures.url(dSYM).path])
        var damaged = compressed
        for offset in (compressed.count / 2)..<(compressed.count / 2 + 8) { damaged[offset] ^= 0x5A }
        let cases: [(String, Data, Int, String)] = [
            ("cut short", compressed.prefix(compressed.count - 10), 1 << 30,
             "zstd-compressed, but cut short (its last frame is incomplete)"),
            ("damaged", damaged, 1 << 30, "zstd-compressed, but it cannot be inflated ("),
            ("over the limit", compressed, 1024, "zstd-compressed, and its frame says it holds \(try Data(contentsOf: LocatorFixtures.url(dSYM)).count) bytes, "
             + "more than the limit of 1 KiB (--max-download-size)"),
        ]
        for (name, bytes, limit, words) in cases {
            let place = try serve(bytes, as: identifier)
            var warnings: [String] = []
            let servers = try XCTUnwrap(makeServers(limit: limit) { warnings.append($0) })
            XCTAssertEqual(servers.files(for: identifier, format: .machO), [], name)
            XCTAssertEqual(warnings.count, 1, "\(name): \(warnings)")
            let location = "file://" + place.path
            XCTAssertTrue(warnings.first?.hasPrefix(location + ": " + words) == true, "\(name): \(warnings)")
            XCTAssertTrue(warnings.first?.hasSuffix(": passed over") == true, "\(name): \(warnings)")
            let unusable = try XCTUnwrap(servers.unusableFile(for: identifier), name)
            XCTAssertEqual(unusable.location, location, name)
            XCTAssertTrue(unusable.reason.hasPrefix(words), "\(name): \(unusable.reason)")
            XCTAssertEqual(try filesUnder(downloads), [], "\(name): a file left in the download folder")

            // The locator gives it as the image's reason.
            let locator = DebugFileLocator(paths: [], diagnostics: Diagnostics { _ in })
            locator.servers = servers
            XCTAssertNil(locator.debugFile(identifier: identifier, architecture: nil, fetching: .machO), name)
            let reason = locator.missReason(imageNames: ["App-arm64"], identifier: identifier, architecture: nil)
            XCTAssertEqual(reason, .unusableServerFile(location: unusable.location, reason: unusable.reason), name)
            XCTAssertEqual(reason.code, "unusable_server_file")
            XCTAssertEqual(reason.message(idWord: "UUID", architecture: nil),
                           "the symbol server's file \(location) cannot be used: \(unusable.reason)")
        }
    }

    func testWithoutADownloadFolderACompressedFileIsPassedOver() throws {
        let identifier = try LocatorFixtures.identifier(of: dSYM)
        try serve(try zstd(["-c", LocatorFixtures.url(dSYM).path]), as: identifier)
        var warnings: [String] = []
        let server = try SymbolServer(parsing: "file://" + tree.path)
        let servers = try XCTUnwrap(DebugFileServers(options: .init(symbolServers: [server], debuginfod: false, downloadFolder: nil),
                                                     diagnostics: Diagnostics { warnings.append($0) }))
        XCTAssertEqual(servers.files(for: identifier, format: .machO), [])
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssertTrue(warnings.first?.contains("no cache folder to inflate it into") == true, "\(warnings)")
    }

    // MARK: Helpers

    private var tree: URL { scratch.appendingPathComponent("tree") }
    private var downloads: URL { scratch.appendingPathComponent("downloads") }

    /// Puts `bytes` at the unified layout's place of `identifier` in the server's folder.
    @discardableResult
    private func serve(_ bytes: Data, as identifier: String) throws -> URL {
        let place = tree.appendingPathComponent("\(identifier.prefix(2))/\(identifier.dropFirst(2))/debuginfo")
        try FileManager.default.createDirectory(at: place.deletingLastPathComponent(), withIntermediateDirectories: true)
        try bytes.write(to: place)
        return place
    }

    private func makeServers(limit: Int = DebugFileServers.defaultMaxDownloadSize,
                             warn: @escaping (String) -> Void) throws -> DebugFileServers? {
        let server = try SymbolServer(parsing: "file://" + tree.path)
        return DebugFileServers(options: .init(symbolServers: [server], debuginfod: false, downloadFolder: downloads.path,
                                               maxDownloadSize: limit),
                                diagnostics: Diagnostics(sink: warn))
    }

    private func zstd(_ arguments: [String]) throws -> Data {
        let result = try runProcess(ZstdInflaterTests.zstd, ["-q"] + arguments)
        guard result.status == 0 else { throw XCTSkip("zstd \(arguments) failed: \(result.stderrText)") }
        return result.stdout
    }

    /// The regular files under `folder` (hidden ones too), relative to it.
    private func filesUnder(_ folder: URL) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var files: [String] = []
        while let relative = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(relative).path, isDirectory: &isDirectory),
               !isDirectory.boolValue {
                files.append(relative)
            }
        }
        return files.sorted()
    }
}
