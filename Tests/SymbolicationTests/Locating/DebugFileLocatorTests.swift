import DebugInfo
import Foundation
@testable import Symbolication
import TestSupport
import XCTest

final class DebugFileLocatorTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("locator-\(getpid())-\(UUID().uuidString)")
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
        let locator = DebugFileLocator(paths: [bundle, bundle + "/"], diagnostics: diagnostics)
        let symbolicator = Symbolicator(locator: locator, diagnostics: diagnostics)
        XCTAssertEqual(symbolicator.unusedExplicitFiles.count, 1)
        XCTAssertTrue(symbolicator.unusedExplicitFiles[0].path.hasSuffix("DWARF/libGreeter.dylib"))
    }

    func testAnArchiveGivesItsDSYMsAndItsProductsAsFallback() throws {
        let fixtures = try fixtures()
        // Xcode's layout: dSYMs/*.dSYM beside Products/Applications/*.app, plus Info.plist.
        let archive = scratch.appendingPathComponent("App 2026-11-20 10.41.22.xcarchive")
        try LocatorFixtures.copy(fixtures.appendingPathComponent("macho/App-arm64.dSYM"),
                                 to: archive.appendingPathComponent("dSYMs/App.app.dSYM"))
        try LocatorFixtures.copy(fixtures.appendingPathComponent("macho/libGreeter.dylib.dSYM"),
                                 to: archive.appendingPathComponent("dSYMs/Greeter.framework.dSYM"))
        try LocatorFixtures.copy(fixtures.appendingPathComponent("macho/App-arm64"),
                                 to: archive.appendingPathComponent("Products/Applications/App.app/App"))
        try LocatorFixtures.copy(fixtures.appendingPathComponent("macho/libGreeter.dylib"),
                                 to: archive.appendingPathComponent("Products/Applications/App.app/Frameworks/Greeter.framework/Greeter"))
        try Data("<plist/>".utf8).write(to: archive.appendingPathComponent("Info.plist"))
        try Data("<plist/>".utf8).write(to: archive.appendingPathComponent("Products/Applications/App.app/Info.plist"))
        var warnings: [String] = []
        let locator = DebugFileLocator(paths: [archive.path], diagnostics: Diagnostics { warnings.append($0) })
        XCTAssertEqual(warnings, [])
        XCTAssertEqual(locator.explicitFiles, [], "an archive is searched, not named file by file")
        let app = try LocatorFixtures.identifier(of: "macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64")
        let greeter = try LocatorFixtures.identifier(of: "macho/libGreeter.dylib.dSYM/Contents/Resources/DWARF/libGreeter.dylib")
        for identifier in [app, greeter] {
            let file = try XCTUnwrap(locator.debugFile(identifier: identifier, architecture: .arm64))
            XCTAssertTrue(file.hasDWARF)
            XCTAssertTrue(file.path.hasPrefix(archive.appendingPathComponent("dSYMs").path), file.path)
        }
        XCTAssertEqual(locator.debugFiles.count, 4, "two dSYMs and two products")

        // Without its dSYMs, the products still give symbol tables.
        try FileManager.default.removeItem(at: archive.appendingPathComponent("dSYMs"))
        let productsOnly = DebugFileLocator(paths: [archive.path], diagnostics: Diagnostics { _ in })
        let product = try XCTUnwrap(productsOnly.debugFile(identifier: app, architecture: .arm64))
        XCTAssertFalse(product.hasDWARF)
        XCTAssertTrue(product.hasSymbolTable)
        XCTAssertEqual(product.path, archive.appendingPathComponent("Products/Applications/App.app/App").path)
    }

    func testSearchPathComesFromTheEnvironment() {
        XCTAssertEqual(DebugFileLocator.searchPaths(environment: [:]), [])
        XCTAssertEqual(DebugFileLocator.searchPaths(environment: ["SYMBOLICATE_PATH": ""]), [])
        XCTAssertEqual(DebugFileLocator.searchPaths(environment: ["SYMBOLICATE_PATH": "/a/dSYMs::/b b/x.dSYM:"]),
                       ["/a/dSYMs", "/b b/x.dSYM"])
        XCTAssertEqual(DebugFileLocator.searchPaths(environment: ["PATH": "/usr/bin"]), [])
    }

    func testSearchPathIsSearchedAfterTheNamedPathsAndQuietly() throws {
        let fixtures = try fixtures()
        let named = scratch.appendingPathComponent("named"), searched = scratch.appendingPathComponent("searched")
        let bundle = fixtures.appendingPathComponent("macho/App-x86_64.dSYM")
        try LocatorFixtures.copy(bundle, to: named.appendingPathComponent("App.dSYM"))
        try LocatorFixtures.copy(bundle, to: searched.appendingPathComponent("App.dSYM"))
        try LocatorFixtures.copy(fixtures.appendingPathComponent("macho/libGreeter.dylib.dSYM"),
                                 to: searched.appendingPathComponent("Greeter.dSYM"))
        try Data("not an object".utf8).write(to: searched.appendingPathComponent("notes.txt"))
        var warnings: [String] = []
        let locator = DebugFileLocator(
            paths: [named.path],
            searchPaths: [searched.path, named.path + "/", scratch.appendingPathComponent("absent").path,
                          searched.appendingPathComponent("Greeter.dSYM").path, searched.appendingPathComponent("notes.txt").path],
            diagnostics: Diagnostics { warnings.append($0) })
        XCTAssertEqual(warnings, [], "search-path entries that are absent or unusable are passed over quietly")
        XCTAssertEqual(locator.explicitFiles, [], "files from the search path are never named files")
        let app = try LocatorFixtures.identifier(of: "macho/App-x86_64.dSYM/Contents/Resources/DWARF/App-x86_64")
        XCTAssertEqual(try XCTUnwrap(locator.debugFile(identifier: app, architecture: .x86_64)).path,
                       named.appendingPathComponent("App.dSYM/Contents/Resources/DWARF/App-x86_64").path,
                       "a -d path wins over the search path")
        let greeter = try LocatorFixtures.identifier(of: "macho/libGreeter.dylib.dSYM/Contents/Resources/DWARF/libGreeter.dylib")
        XCTAssertNotNil(locator.debugFile(identifier: greeter, architecture: .arm64))
        XCTAssertEqual(locator.debugFiles.filter { $0.path.contains("Greeter") }.count, 1, "found once though named twice")
        // named/ (2 files) once, though on the search path too; searched/ (5); the bundle and
        // notes.txt named on their own (1 + 1).
        XCTAssertEqual(locator.filesRead, 9)
    }

    func testHiddenFoldersAreNotWalked() throws {
        let fixtures = try fixtures()
        let hidden = scratch.appendingPathComponent("build/.git/objects/App.dSYM")
        try LocatorFixtures.copy(fixtures.appendingPathComponent("macho/App-arm64.dSYM"), to: hidden)
        try LocatorFixtures.copy(fixtures.appendingPathComponent("elf/libgreeter.so"),
                                 to: scratch.appendingPathComponent("build/.build-id/62/d6ce713f7bd3125b09f0c213400afa142c44ae"))
        try LocatorFixtures.copy(fixtures.appendingPathComponent("macho/App-x86_64"), to: scratch.appendingPathComponent("build/bin/App"))
        XCTAssertEqual(DebugFileLocator.regularFiles(under: scratch.appendingPathComponent("build").path),
                       [scratch.appendingPathComponent("build/bin/App").path])
        let locator = DebugFileLocator(paths: [scratch.appendingPathComponent("build").path], diagnostics: Diagnostics { _ in })
        XCTAssertEqual(locator.debugFiles.map(\.path), [scratch.appendingPathComponent("build/bin/App").path])
    }
}
