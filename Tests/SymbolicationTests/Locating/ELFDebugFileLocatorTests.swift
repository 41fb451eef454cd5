import DebugInfo
import Foundation
@testable import Symbolication
import TestSupport
import XCTest

/// Separate ELF debug files: through `.gnu_debuglink`, in build-id folders, and for modules
/// named by path only. The layouts are made in a scratch folder from Fixtures/build/debuglink:
/// `app` (stripped, with a build-id, linking `app.debug`) and `app-nobuildid` (stripped, no
/// build-id, linking `app-nobuildid.debug` by CRC-32 alone).
final class ELFDebugFileLocatorTests: XCTestCase {
    private var scratch: URL!
    /// Stands for /usr/lib/debug.
    private var system: URL { scratch.appendingPathComponent("system-debug") }

    override func setUpWithError() throws {
        scratch = try LocatorFixtures.scratch("elf-locator")
        try FileManager.default.createDirectory(at: system, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    private func locator(_ paths: [String], warnings: ((String) -> Void)? = nil) -> DebugFileLocator {
        DebugFileLocator(paths: paths, searchPaths: [], cache: nil, systemDebugDirectory: system.path,
                         diagnostics: Diagnostics { warnings?($0) ?? XCTFail("unexpected warning: \($0)") })
    }

    private var buildID: String {
        get throws { try LocatorFixtures.identifier(of: "elf/app-gcc-dwarf4") }
    }

    func testTheFixturesAreWhatTheseTestsNeed() throws {
        let app = try XCTUnwrap(DebugFile.identify(path: LocatorFixtures.url("debuglink/app").path).first)
        XCTAssertEqual(app.identifier, try buildID)
        XCTAssertFalse(app.hasDWARF)
        XCTAssertTrue(app.hasSymbolTable)
        let debug = try LocatorFixtures.url("debuglink/app.debug").path
        XCTAssertEqual(app.debugLink, DebugFile.DebugLink(name: "app.debug", crc: try DebugFile.DebugLink.checksum(ofFileAt: debug)))
        let bare = try XCTUnwrap(DebugFile.identify(path: LocatorFixtures.url("debuglink/app-nobuildid").path).first)
        XCTAssertNil(bare.identifier)
        XCTAssertEqual(bare.debugLink?.name, "app-nobuildid.debug")
        XCTAssertEqual(bare.debugLink?.crc,
                       try DebugFile.DebugLink.checksum(ofFileAt: LocatorFixtures.url("debuglink/app-nobuildid.debug").path))
    }

    // MARK: - .gnu_debuglink

    /// The stripped binary in `bin/`, its debug file where `place` says (relative to the
    /// scratch folder); the binary is named with -d, as a file.
    private func debugLinkLayout(debugAt place: String, binary: String = "app") throws -> (binary: URL, debug: URL) {
        let bin = scratch.appendingPathComponent("bin/\(binary)")
        try LocatorFixtures.copy(LocatorFixtures.url("debuglink/\(binary)"), to: bin)
        let debug = scratch.appendingPathComponent(place)
        try LocatorFixtures.copy(LocatorFixtures.url("debuglink/\(binary).debug"), to: debug)
        return (bin, debug)
    }

    func testDebugLinkBesideTheBinary() throws {
        let (bin, debug) = try debugLinkLayout(debugAt: "bin/app.debug")
        let found = try XCTUnwrap(locator([bin.path]).debugFile(identifier: buildID, architecture: .x86_64))
        XCTAssertEqual(found.path, debug.path)
        XCTAssertTrue(found.hasDWARF)
    }

    func testDebugLinkInDotDebugBesideTheBinary() throws {
        let (bin, debug) = try debugLinkLayout(debugAt: "bin/.debug/app.debug")
        XCTAssertEqual(locator([bin.path]).debugFile(identifier: try buildID, architecture: nil)?.path, debug.path)
    }

    func testDebugLinkUnderTheSystemDebugFolder() throws {
        let bin = scratch.appendingPathComponent("bin/app")
        let (_, debug) = try debugLinkLayout(debugAt: "system-debug" + bin.deletingLastPathComponent().path + "/app.debug")
        let locator = locator([bin.path])
        XCTAssertEqual(locator.debugFile(identifier: try buildID, architecture: nil)?.path, debug.path)
        XCTAssertEqual(locator.explicitFiles.map(\.path), [bin.path], "the binary was named; its debug file was found")
    }

    func testDebugLinkOfAnotherBuildIsPassedOver() throws {
        let bin = scratch.appendingPathComponent("bin/app")
        try LocatorFixtures.copy(LocatorFixtures.url("debuglink/app"), to: bin)
        // A debug file with the right name and another build-id.
        try LocatorFixtures.copy(LocatorFixtures.url("elf/app-clang-dwarf5"), to: scratch.appendingPathComponent("bin/app.debug"))
        var warnings: [String] = []
        let found = locator([bin.path], warnings: { warnings.append($0) }).debugFile(identifier: try buildID, architecture: nil)
        XCTAssertEqual(found?.path, bin.path, "the binary's own symbol table, not another build's DWARF")
        XCTAssertEqual(found?.hasDWARF, false)
        XCTAssertEqual(warnings.count, 1)
        XCTAssertTrue(warnings.first?.contains("not the \(try buildID) of \(bin.path)") == true, "\(warnings)")
    }

    // MARK: - Build-id folders

    private func buildIDPath(_ root: URL, _ prefix: String, _ identifier: String) -> URL {
        root.appendingPathComponent("\(prefix)\(identifier.prefix(2))/\(identifier.dropFirst(2)).debug")
    }

    func testBuildIDFoldersAreLookedUpWhenAnImageAsks() throws {
        let debug = try LocatorFixtures.url("elf/app-gcc-dwarf4.debug")
        let root = scratch.appendingPathComponent("root")
        let greeter = try LocatorFixtures.identifier(of: "elf/libgreeter.so")
        try LocatorFixtures.copy(debug, to: buildIDPath(root, ".build-id/", try buildID))
        try LocatorFixtures.copy(LocatorFixtures.url("elf/libgreeter.so"), to: buildIDPath(root, "usr/lib/debug/.build-id/", greeter))
        let nopie = try LocatorFixtures.identifier(of: "elf/app-nopie")
        try LocatorFixtures.copy(LocatorFixtures.url("elf/app-nopie"), to: buildIDPath(system, ".build-id/", nopie))
        try Data("x".utf8).write(to: root.appendingPathComponent("README"))

        let locator = locator([root.path])
        XCTAssertEqual(locator.debugFiles, [], "the walk does not go into .build-id folders")
        XCTAssertEqual(locator.filesRead, 1)
        XCTAssertEqual(locator.debugFile(identifier: try buildID, architecture: .x86_64)?.path,
                       buildIDPath(root, ".build-id/", try buildID).path)
        XCTAssertEqual(locator.debugFile(identifier: greeter.uppercased(), architecture: nil)?.path,
                       buildIDPath(root, "usr/lib/debug/.build-id/", greeter).path)
        XCTAssertEqual(locator.debugFile(identifier: nopie, architecture: nil)?.path, buildIDPath(system, ".build-id/", nopie).path)
        XCTAssertEqual(locator.debugFile(identifier: nopie, architecture: nil)?.textVMAddress, 0x400000)
        XCTAssertNil(locator.debugFile(identifier: String(repeating: "ab", count: 20), architecture: nil))
        XCTAssertEqual(locator.filesRead, 4, "three files read on demand, each once; the unknown build-id reads none")
    }

    func testABuildIDFileThatIsAnotherBuildIsPassedOver() throws {
        let root = scratch.appendingPathComponent("root")
        let wanted = String(repeating: "cd", count: 20)
        try LocatorFixtures.copy(LocatorFixtures.url("elf/app-gcc-dwarf4.debug"), to: buildIDPath(root, ".build-id/", wanted))
        var warnings: [String] = []
        XCTAssertNil(locator([root.path], warnings: { warnings.append($0) }).debugFile(identifier: wanted, architecture: nil))
        XCTAssertEqual(warnings, ["\(buildIDPath(root, ".build-id/", wanted).path): its build-id is not the \(wanted) its name says: passed over"])
    }

    // MARK: - Modules named by path

    func testAModuleWithABuildIDFindsItsDebugFileByIt() throws {
        let bin = scratch.appendingPathComponent("bin/app")
        try LocatorFixtures.copy(LocatorFixtures.url("debuglink/app"), to: bin)
        let root = scratch.appendingPathComponent("root")
        try LocatorFixtures.copy(LocatorFixtures.url("elf/app-zstd.debug"), to: buildIDPath(root, ".build-id/", try buildID))
        let locator = locator([root.path])
        let found = try XCTUnwrap(locator.debugFile(forModulePath: bin.path, architecture: .x86_64))
        XCTAssertEqual(found.path, buildIDPath(root, ".build-id/", try buildID).path)
        XCTAssertTrue(found.hasDWARF)
        XCTAssertEqual(locator.debugFile(identifier: try buildID, architecture: nil), found, "and the image's build-id finds it too")
    }

    func testAModuleWithABuildIDButNoDebugFileIsItsOwnSymbolTable() throws {
        let bin = scratch.appendingPathComponent("bin/app")
        try LocatorFixtures.copy(LocatorFixtures.url("debuglink/app"), to: bin)
        XCTAssertEqual(locator([]).debugFile(forModulePath: bin.path, architecture: nil)?.path, bin.path)
    }

    func testAModuleWithoutABuildIDFollowsItsDebugLinkCheckedByCRC() throws {
        let (bin, debug) = try debugLinkLayout(debugAt: "bin/.debug/app-nobuildid.debug", binary: "app-nobuildid")
        let locator = locator([])
        let found = try XCTUnwrap(locator.debugFile(forModulePath: bin.path, architecture: .x86_64))
        XCTAssertEqual(found.path, debug.path)
        XCTAssertTrue(found.hasDWARF)
        XCTAssertNil(found.identifier)
    }

    func testAModuleWhoseDebugLinkFailsItsCRCIsItsOwnSymbolTable() throws {
        let (bin, debug) = try debugLinkLayout(debugAt: "bin/app-nobuildid.debug", binary: "app-nobuildid")
        // Same name, other contents: a rebuilt debug file that no longer belongs to the binary.
        var bytes = try [UInt8](Data(contentsOf: debug))
        bytes[bytes.count - 1] ^= 1
        try Data(bytes).write(to: debug)
        var warnings: [String] = []
        let found = locator([], warnings: { warnings.append($0) }).debugFile(forModulePath: bin.path, architecture: nil)
        XCTAssertEqual(found?.path, bin.path)
        XCTAssertEqual(found?.hasDWARF, false)
        XCTAssertEqual(warnings, ["\(debug.path): its CRC-32 is not the one the .gnu_debuglink of \(bin.path) records: passed over"])
    }

    func testAModuleWithDWARFIsItsOwnDebugFile() throws {
        let path = try LocatorFixtures.url("elf/app-clang-dwarf5").path
        let found = try XCTUnwrap(locator([]).debugFile(forModulePath: path, architecture: .x86_64))
        XCTAssertEqual(found.path, path)
        XCTAssertTrue(found.hasDWARF)
    }

    func testModulesThatCannotBeUsed() throws {
        let locator = locator([])
        XCTAssertNil(locator.debugFile(forModulePath: scratch.appendingPathComponent("absent.so").path, architecture: nil))
        XCTAssertNil(locator.debugFile(forModulePath: try LocatorFixtures.url("manifest.txt").path, architecture: nil))
        XCTAssertNil(locator.debugFile(forModulePath: scratch.path, architecture: nil), "a directory")
        XCTAssertNil(locator.debugFile(forModulePath: try LocatorFixtures.url("elf/app-clang-dwarf5").path, architecture: .arm64),
                     "another architecture")
        let universal = try LocatorFixtures.url("macho/App-universal").path
        XCTAssertNil(locator.debugFile(forModulePath: universal, architecture: nil), "which slice ran is unknown")
        let arm64 = try XCTUnwrap(locator.debugFile(forModulePath: universal, architecture: .arm64))
        XCTAssertEqual(arm64.architecture, .arm64)
        XCTAssertEqual(arm64.path, universal, "no dSYM searched: the executable's own symbol table")
    }
}
