import DebugInfo
import DebugInfoTestSupport
import Foundation
import TestSupport
import XCTest

/// Damaged and hostile dyld shared caches: each is refused in one line naming the file, or
/// read as far as it can be, and never makes the reader read outside the bytes it was given
/// (the fuzz target `dyld_cache` runs the same reads under AddressSanitizer).
final class DyldCacheHostileTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dyld-hostile-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    /// The files of a fixture cache copied into the scratch folder, the main file's path returned.
    private func copy(_ relative: String, except: [String] = []) throws -> String {
        let main = try DyldCacheFixtures.path(relative)
        let folder = (main as NSString).deletingLastPathComponent, stem = (main as NSString).lastPathComponent
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasPrefix(stem) && !except.contains(name) {
            try FileManager.default.copyItem(atPath: folder + "/" + name, toPath: scratch.path + "/" + name)
        }
        return scratch.path + "/" + stem
    }

    private func patch(_ path: String, at offset: Int, _ value: some FixedWidthInteger) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + $0.count, with: $0) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Opens the cache and reads every image's symbols; the error, if any, as said.
    private func readAll(_ path: String) -> String? {
        do {
            let cache = try DyldSharedCache(path: path)
            for file in cache.debugFiles() { _ = try SymbolIndex.build(file) }
            return nil
        } catch {
            return "\(error)"
        }
    }

    private func assertOneLineNaming(_ path: String, _ message: String?, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let message else { return XCTFail("\(what): read without an error", file: file, line: line) }
        XCTAssertTrue(message.hasPrefix(path + ": "), "\(what): \(message)", file: file, line: line)
        XCTAssertFalse(message.contains("\n"), "\(what): \(message)", file: file, line: line)
    }

    /// A cache cut short anywhere — in its header, its mapping table, its code, its local
    /// symbols — is refused with one line naming the file and what lies past its end.
    func testCacheCutShortIsRefusedInOneLineNamingTheFile() throws {
        let original = try DyldCacheFixtures.path("ios14/dyld_shared_cache_arm64")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: original))
        for cut in [0, 10, 20, 100, 311, 400, bytes.count / 2, bytes.count - 100, bytes.count - 1] {
            let path = scratch.path + "/dyld_shared_cache_arm64"
            try bytes.prefix(cut).write(to: URL(fileURLWithPath: path))
            assertOneLineNaming(path, readAll(path), "cut at \(cut)")
        }
    }

    /// Counts that would run past the end (mappings, images, local symbols) are refused before
    /// anything is read at them.
    func testCountsPastTheEndAreRefused() throws {
        for (offset, value, what) in [(20, UInt32(0x7fff_ffff), "mappingCount"), (28, UInt32.max, "imagesCountOld")] {
            let path = try copy("ios14/dyld_shared_cache_arm64")
            try patch(path, at: offset, value)
            assertOneLineNaming(path, readAll(path), what)
            try FileManager.default.removeItem(atPath: path)
        }
        // The local-symbol table's nlist count, at localSymbolsOffset + 4.
        let path = try copy("ios14/dyld_shared_cache_arm64")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let localSymbols = data.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: 72, as: UInt64.self)) }
        try patch(path, at: localSymbols + 4, UInt32(0x0fff_ffff))
        assertOneLineNaming(path, readAll(path), "local nlist count")
    }

    /// Mappings that overlap in the address space, or whose file offset overflows, are refused:
    /// an address must name one place in one file.
    func testOverlappingMappingsAndOverflowingOffsetsAreRefused() throws {
        let path = try copy("ios14/dyld_shared_cache_arm64")
        let mappings = 312  // the header's size: the mappings follow it
        let first = try Data(contentsOf: URL(fileURLWithPath: path)).withUnsafeBytes { $0.loadUnaligned(fromByteOffset: mappings, as: UInt64.self) }
        try patch(path, at: mappings + 32, first + 0x10)
        let overlap = readAll(path)
        assertOneLineNaming(path, overlap, "overlapping mappings")
        XCTAssertTrue(overlap?.contains("overlap") == true, overlap ?? "")
        try FileManager.default.removeItem(atPath: path)
        let other = try copy("ios14/dyld_shared_cache_arm64")
        try patch(other, at: mappings + 16, UInt64.max - 0x1000)
        assertOneLineNaming(other, readAll(other), "mapping file offset overflowing")
        try FileManager.default.removeItem(atPath: other)
        let wrapping = try copy("ios14/dyld_shared_cache_arm64")
        try patch(wrapping, at: mappings, UInt64.max - 0x10)
        assertOneLineNaming(wrapping, readAll(wrapping), "mapping address wrapping around")
    }

    /// A missing sub-cache costs the images in it, named; the others still read. The
    /// sub-cache holding every `__LINKEDIT` gone with the `.symbols` file, no image has
    /// symbols, and each says why.
    func testMissingSubCacheCostsOnlyWhatLiesInIt() throws {
        let path = try copy("ios15/dyld_shared_cache_arm64", except: ["dyld_shared_cache_arm64.1"])
        let cache = try DyldSharedCache(path: path)
        XCTAssertEqual(cache.missingFiles, ["dyld_shared_cache_arm64.1"])
        let unmapped = cache.images.filter { !$0.isMapped }
        XCTAssertEqual(unmapped.count, 3, "the images whose code is in .1")
        // Their UUIDs still come from the image-text list, so reports still match them.
        XCTAssertTrue(unmapped.allSatisfy { $0.uuid != nil })
        for file in cache.debugFiles() {
            let image = cache.images[cache.imageIndex(uuid: file.identifier!)!]
            if image.isMapped {
                XCTAssertFalse(try SymbolIndex.build(file).lookup(image.textAddress + 0x4010, demangle: false).isEmpty, image.path)
            } else {
                XCTAssertThrowsError(try SymbolIndex.build(file)) { error in
                    XCTAssertTrue("\(error)".hasPrefix(path + ": "), "\(error)")
                    XCTAssertTrue("\(error)".contains("sub-cache missing"), "\(error)")
                }
            }
        }
        let noLinkedit = scratch.appendingPathComponent("b")
        try FileManager.default.createDirectory(at: noLinkedit, withIntermediateDirectories: true)
        let main = try DyldCacheFixtures.path("ios15/dyld_shared_cache_arm64")
        for suffix in ["", ".1"] {
            try FileManager.default.copyItem(atPath: main + suffix, toPath: noLinkedit.path + "/dyld_shared_cache_arm64" + suffix)
        }
        let second = try DyldSharedCache(path: noLinkedit.path + "/dyld_shared_cache_arm64")
        for file in second.debugFiles() {
            XCTAssertThrowsError(try SymbolIndex.build(file)) { XCTAssertTrue("\($0)".contains("outside the files given"), "\($0)") }
        }
    }

    /// A sub-cache of another build (its UUID not the one the main file names) is refused:
    /// its addresses would give another build's names.
    func testSubCacheOfAnotherBuildIsRefused() throws {
        let path = try copy("ios15/dyld_shared_cache_arm64", except: ["dyld_shared_cache_arm64.1"])
        try FileManager.default.copyItem(atPath: path + ".2", toPath: path + ".1")
        XCTAssertThrowsError(try DyldSharedCache(path: path)) { error in
            XCTAssertTrue("\(error)".hasPrefix(path + ": "), "\(error)")
            XCTAssertTrue("\(error)".contains("not the"), "\(error)")
        }
    }

    /// A sub-cache named alone is said to be one, not read as a cache of its own.
    func testSubCacheNamedAloneIsSaidToBeAPart() throws {
        let sub = try DyldCacheFixtures.path("ios15/dyld_shared_cache_arm64.1")
        XCTAssertThrowsError(try DyldSharedCache(path: sub)) { XCTAssertEqual($0 as? DebugInfoError, .partOfDyldCache(path: sub)) }
    }

    /// Bytes flipped anywhere in the main file or the `.symbols` file of a split cache are read
    /// without a fault and without a hang: each read ends in an answer or an error naming the
    /// file.
    func testRandomDamageNeverFaults() throws {
        let path = try copy("ios15/dyld_shared_cache_arm64")
        let pristine = try Data(contentsOf: URL(fileURLWithPath: path))
        let symbols = try Data(contentsOf: URL(fileURLWithPath: path + ".symbols"))
        var generator = SplitMix64(seed: 15)
        for round in 0..<200 {
            var main = [UInt8](pristine), locals = [UInt8](symbols)
            for _ in 0..<(1 + Int(generator.next() % 8)) {
                // Mostly in the headers and tables, where the counts and offsets are.
                if generator.next() % 2 == 0 {
                    main[Int(generator.next() % UInt64(min(main.count, 2048)))] = UInt8(truncatingIfNeeded: generator.next())
                } else {
                    locals[Int(generator.next() % UInt64(locals.count))] = UInt8(truncatingIfNeeded: generator.next())
                }
            }
            try Data(main).write(to: URL(fileURLWithPath: path))
            try Data(locals).write(to: URL(fileURLWithPath: path + ".symbols"))
            if let message = readAll(path) {
                XCTAssertTrue(message.hasPrefix(path + ": ") && !message.contains("\n"), "round \(round): \(message)")
            }
        }
    }
}

extension DyldCacheHostileTests {
    /// A cache opened once in a run is opened anew when another file takes its path (another
    /// OS build copied over it): the images asked for then are the new file's, not those of
    /// the opening kept from before.
    func testACacheReplacedAtItsPathIsOpenedAnew() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dyld-replaced-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let path = scratch.appendingPathComponent("dyld_shared_cache_arm64").path
        try FileManager.default.copyItem(atPath: try DyldCacheFixtures.path("ios14/dyld_shared_cache_arm64"), toPath: path)
        let first = try DyldSharedCache.opened(path: path)
        XCTAssertTrue(try DyldSharedCache.opened(path: path) === first, "the same file: the same opening")
        // An iOS 15 split cache in its place: the main file over the old one, its parts beside it.
        let split = try DyldCacheFixtures.path("ios15/dyld_shared_cache_arm64")
        try FileManager.default.removeItem(atPath: path)
        for suffix in ["", ".1", ".2", ".symbols"] {
            try FileManager.default.copyItem(atPath: split + suffix, toPath: path + suffix)
        }
        let second = try DyldSharedCache.opened(path: path)
        XCTAssertFalse(second === first)
        XCTAssertEqual(second.uuid, try DyldSharedCache(path: split).uuid)
        XCTAssertNotEqual(second.uuid, first.uuid)
    }
}

extension DyldCacheHostileTests {
    /// An image of a split cache indexed without its `.symbols` (only exported names) is not
    /// stored in the index cache: the main file, which keys it, does not change when the
    /// `.symbols` file is put beside it, and the poorer index would answer from then on. Put
    /// there, it is read: the cache is opened again and the local names are given.
    func testAnImageIndexedWithoutTheLocalSymbolsIsNotStored() throws {
        let folder = scratch.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let source = try DyldCacheFixtures.path("ios15/dyld_shared_cache_arm64")
        let path = folder.path + "/dyld_shared_cache_arm64"
        for suffix in ["", ".1", ".2"] { try FileManager.default.copyItem(atPath: source + suffix, toPath: path + suffix) }
        let indexes = scratch.appendingPathComponent("indexes").path
        let store = IndexCache(directory: indexes)
        let files = try DyldSharedCache.opened(path: path).debugFiles()
        XCTAssertEqual(try DyldSharedCache.opened(path: path).missingFiles, ["dyld_shared_cache_arm64.symbols"])

        // Every image's names, without and then with the local symbols.
        let full = try DyldSharedCache(path: source)
        func names(_ index: SymbolIndex, _ image: DyldSharedCache.Image) -> Set<String> {
            Set(stride(from: image.textAddress, to: image.textAddress + image.textSize, by: 4).compactMap { index.symbolName(startingAt: $0) })
        }
        let stored = { (try? FileManager.default.contentsOfDirectory(atPath: indexes))?.filter { $0.hasSuffix(".index") }.count ?? 0 }
        var partial: [Set<String>] = []
        for file in files {
            let image = try XCTUnwrap(full.images.first { $0.uuid == file.identifier })
            partial.append(names(try store.index(for: file), image))
        }
        XCTAssertEqual(stored(), 0, "no index read without .symbols is stored")
        try FileManager.default.copyItem(atPath: source + ".symbols", toPath: path + ".symbols")
        var fewer = 0
        for (k, file) in files.enumerated() {
            let image = try XCTUnwrap(full.images.first { $0.uuid == file.identifier })
            let complete = names(try store.index(for: file), image)
            XCTAssertTrue(complete.isSuperset(of: partial[k]))
            if complete.count > partial[k].count { fewer += 1 }
        }
        XCTAssertEqual(stored(), files.count, "the complete indexes are stored")
        XCTAssertGreaterThan(fewer, 0, "the local symbols name functions the exports do not")
    }
}
