import DebugInfo
import Foundation
@testable import Symbolication
import TestSupport
import XCTest

final class DebugFileLocatorTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("locator-\(getpid())-\(name.hashValue)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    private func fixtures() throws -> URL {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        return fixtures
    }

    /// (identifier, arch) of each line of the fixtures' manifest, keyed by path.
    private func manifest() throws -> [(path: String, identifier: String, arch: String)] {
        try String(contentsOf: fixtures().appendingPathComponent("manifest.txt"), encoding: .utf8)
            .split(separator: "\n").map { line in
                let f = line.split(separator: "\t").map(String.init)
                return (f[0], f[1].replacingOccurrences(of: "-", with: "").lowercased(), f[2])
            }
    }

    func testFindsEveryDebugFileOfAFolderOfUUIDNamedBundles() throws {
        let fixtures = try fixtures()
        // App Store Connect's layout: bundles named by UUID, in nested folders.
        let bundles = try FileManager.default.contentsOfDirectory(atPath: fixtures.appendingPathComponent("macho").path)
            .filter { $0.hasSuffix(".dSYM") }.sorted()
        XCTAssertGreaterThan(bundles.count, 4)
        for (i, bundle) in bundles.enumerated() {
            let target = scratch.appendingPathComponent("batch\(i)/\(UUID().uuidString).dSYM")
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent("macho/\(bundle)"), to: target)
        }
        try Data("not an object".utf8).write(to: scratch.appendingPathComponent("batch0/README"))
        var warnings: [String] = []
        let locator = DebugFileLocator(paths: [scratch.path], diagnostics: Diagnostics { warnings.append($0) })
        XCTAssertEqual(warnings, [], "files in a searched directory that are not object files are passed over quietly")
        for entry in try manifest() where entry.path.hasPrefix("macho/") {
            let file = try XCTUnwrap(locator.debugFile(identifier: entry.identifier, architecture: Architecture(name: entry.arch)),
                                     "\(entry.path) (\(entry.identifier))")
            XCTAssertEqual(file.identifier, entry.identifier)
            XCTAssertEqual(file.architecture?.name, entry.arch, "the slice whose UUID matches, not the first")
            XCTAssertTrue(file.hasDWARF)
        }
        XCTAssertNil(locator.debugFile(identifier: String(repeating: "0", count: 32), architecture: nil))
    }

    func testFollowsLinksToFilesAndBundlesButNotLoops() throws {
        let fixtures = try fixtures()
        let links = scratch.appendingPathComponent("links")
        try FileManager.default.createDirectory(at: links, withIntermediateDirectories: true)
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: links.appendingPathComponent("loop").path, withDestinationPath: scratch.path)
        try fm.createSymbolicLink(atPath: links.appendingPathComponent("App").path,
                                  withDestinationPath: fixtures.appendingPathComponent("macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64").path)
        try fm.createSymbolicLink(atPath: links.appendingPathComponent("Greeter.dSYM").path,
                                  withDestinationPath: fixtures.appendingPathComponent("macho/libGreeter.dylib.dSYM").path)
        let locator = DebugFileLocator(paths: [scratch.path], diagnostics: Diagnostics { _ in })
        let found = Set(try manifest().filter { locator.debugFile(identifier: $0.identifier, architecture: nil) != nil }.map(\.path))
        XCTAssertEqual(found, ["macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64",
                               "macho/libGreeter.dylib.dSYM/Contents/Resources/DWARF/libGreeter.dylib"])
        XCTAssertEqual(locator.debugFiles.count, 2, "each file once, the loop not followed")
    }

    func testPrefersTheFileWithDWARFAndSkipsObjectFiles() throws {
        let fixtures = try fixtures()
        let locator = DebugFileLocator(paths: [fixtures.path], diagnostics: Diagnostics { _ in })
        let arm64 = try XCTUnwrap(manifest().first { $0.path.hasPrefix("macho/App-arm64.dSYM") })
        // Fixtures/build holds the executable App-arm64 (symbol table only) and its dSYM, same UUID.
        XCTAssertTrue(try XCTUnwrap(locator.debugFile(identifier: arm64.identifier, architecture: .arm64)).hasDWARF)
        XCTAssertFalse(locator.debugFiles.contains { $0.isRelocatable || $0.path.hasSuffix(".o") })
    }

    func testNamedPathsThatCannotBeUsedAreReportedOnce() throws {
        let text = scratch.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: text)
        let emptyBundle = scratch.appendingPathComponent("Empty.dSYM")
        try FileManager.default.createDirectory(at: emptyBundle, withIntermediateDirectories: true)
        let missing = scratch.appendingPathComponent("missing.dSYM").path
        var warnings: [String] = []
        _ = DebugFileLocator(paths: [text.path, missing, emptyBundle.path, text.path], diagnostics: Diagnostics { warnings.append($0) })
        XCTAssertEqual(warnings, [
            "\(text.path): not a Mach-O or ELF file",
            "\(missing): no such file or directory",
            "\(emptyBundle.path): a .dSYM bundle with no files under Contents/Resources/DWARF",
        ])
    }

    func testExplicitFilesThatMatchNoImageAreListed() throws {
        let fixtures = try fixtures()
        let bundle = fixtures.appendingPathComponent("macho/libGreeter.dylib.dSYM").path
        let diagnostics = Diagnostics { _ in }
        let locator = DebugFileLocator(paths: [bundle], diagnostics: diagnostics)
        let symbolicator = Symbolicator(locator: locator, diagnostics: diagnostics)
        XCTAssertEqual(symbolicator.unusedExplicitFiles.count, 1)
        XCTAssertTrue(symbolicator.unusedExplicitFiles[0].path.hasSuffix("DWARF/libGreeter.dylib"))
    }
}
