import DebugInfo
import Foundation
@testable import Symbolication
import TestSupport
import XCTest

/// The identity cache over real folders of dSYMs: a second run reads no file, a changed file
/// is read again, a damaged cache is ignored and rewritten.
final class IdentityCacheTests: XCTestCase {
    private var scratch: URL!
    private var cachePath: String { scratch.appendingPathComponent("cache/symbolicate/identities").path }

    override func setUpWithError() throws {
        scratch = try LocatorFixtures.scratch("identity-cache")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    /// `count` clones of the App-arm64 dSYM with UUIDs of their own, named by UUID as App Store
    /// Connect names them, plus a few files that are not object files.
    private func makeFolder(_ count: Int, under name: String = "dSYMs") throws -> URL {
        let folder = scratch.appendingPathComponent(name)
        let source = try LocatorFixtures.url("macho/App-arm64.dSYM")
        for i in 0..<count {
            try LocatorFixtures.cloneBundle(source, to: folder.appendingPathComponent("\(UUID().uuidString).dSYM"),
                                            uuid: LocatorFixtures.uuid(i))
        }
        try Data("read me".utf8).write(to: folder.appendingPathComponent("README.txt"))
        return folder
    }

    private func locate(_ paths: [String], cache: IdentityCache?, warnings: ((String) -> Void)? = nil) -> DebugFileLocator {
        DebugFileLocator(paths: paths, cache: cache, diagnostics: Diagnostics { warnings?($0) ?? XCTFail("unexpected warning: \($0)") })
    }

    private func identities(_ locator: DebugFileLocator) -> [String] {
        locator.debugFiles.map { "\($0.path) \($0.identifier ?? "-") \($0.architecture?.name ?? "-") \($0.hasDWARF)" }.sorted()
    }

    private func stamp(_ path: String) -> (inode: UInt64, modified: Int) {
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0, path)
        return (UInt64(info.st_ino), Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec))
    }

    func testASecondRunReadsNoFile() throws {
        let folder = try makeFolder(12)
        let first = locate([folder.path], cache: IdentityCache(path: cachePath))
        // 12 DWARF files, 12 Info.plist files, the README.
        XCTAssertEqual(first.filesRead, 25)
        XCTAssertEqual(first.debugFiles.count, 12)
        XCTAssertTrue(FileManager.default.fileExists(atPath: cachePath))
        let written = stamp(cachePath)

        let cache = IdentityCache(path: cachePath)
        XCTAssertEqual(cache.count, 25)
        let second = locate([folder.path], cache: cache)
        XCTAssertEqual(second.filesRead, 0, "every file known: none opened, not even the README")
        XCTAssertEqual(identities(second), identities(first))
        XCTAssertEqual(Set(second.debugFiles), Set(first.debugFiles), "every field of every slice comes back")
        XCTAssertFalse(cache.hasChanges)
        XCTAssertTrue(stamp(cachePath) == written, "nothing changed: the cache is not rewritten")

        let third = locate([folder.path], cache: nil)
        XCTAssertEqual(third.filesRead, 25, "without a cache every file is read")
    }

    /// A shared identity file (another machine's cache over the same mount) spares reading
    /// the files; what it gives is copied into the own cache, and the shared file is never
    /// written. A damaged shared file is passed over with one warning. Pruning forgets the
    /// files that are gone.
    func testASharedCacheIsReadFirstAndNeverWritten() throws {
        let folder = try makeFolder(6)
        let sharedPath = scratch.appendingPathComponent("shared/identities").path
        _ = locate([folder.path], cache: IdentityCache(path: sharedPath))
        let sharedBytes = try Data(contentsOf: URL(fileURLWithPath: sharedPath))

        let own = IdentityCache(path: cachePath, sharedPaths: [sharedPath])
        let located = locate([folder.path], cache: own)
        XCTAssertEqual(located.filesRead, 0, "every file known from the shared cache")
        XCTAssertEqual(located.debugFiles.count, 6)
        XCTAssertEqual(IdentityCache(path: cachePath).count, 6 * 2 + 1, "copied into the own cache")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: sharedPath)), sharedBytes, "the shared file is not written")

        var damaged = [UInt8](sharedBytes)
        damaged[damaged.count / 2] ^= 0x20
        let damagedPath = scratch.appendingPathComponent("damaged/identities").path
        try FileManager.default.createDirectory(atPath: (damagedPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(damaged).write(to: URL(fileURLWithPath: damagedPath))
        var said: [String] = []
        let fresh = IdentityCache(path: scratch.appendingPathComponent("fresh/identities").path, sharedPaths: [damagedPath]) {
            said.append($0)
        }
        XCTAssertEqual(said, ["\(damagedPath): the shared identity cache is damaged; passed over"])
        XCTAssertEqual(locate([folder.path], cache: fresh).filesRead, 13)

        let gone = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".dSYM") })
        try FileManager.default.removeItem(atPath: folder.appendingPathComponent(gone).path)
        let pruned = IdentityCache(path: cachePath)
        XCTAssertEqual(pruned.forgetMissingFiles(), 2, "the bundle's DWARF file and Info.plist")
        try pruned.save()
        XCTAssertEqual(IdentityCache(path: cachePath).count, 11)
    }

    func testAChangedFileIsReadAgainAndAGoneOneForgotten() throws {
        let folder = try makeFolder(4)
        let bundles = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".dSYM") }.sorted()
        let changed = folder.appendingPathComponent("\(bundles[0])/Contents/Resources/DWARF/App-arm64")
        // Dated in the past when first read, so that the write below gives it another
        // modification time however soon it comes (a file system's clock may move in ticks).
        var past = [timespec(tv_sec: 1_600_000_000, tv_nsec: 0), timespec(tv_sec: 1_600_000_000, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, changed.path, &past, 0), 0)
        _ = locate([folder.path], cache: IdentityCache(path: cachePath))
        // Same size, new UUID: the modification time (and change time) say it changed.
        let old = try XCTUnwrap(DebugFile.identify(path: changed.path).first?.identifier)
        try LocatorFixtures.patchUUID(of: changed, to: LocatorFixtures.uuid(1000))
        try FileManager.default.removeItem(at: folder.appendingPathComponent(bundles[1]))

        let cache = IdentityCache(path: cachePath)
        let locator = locate([folder.path], cache: cache)
        XCTAssertEqual(locator.filesRead, 1, "only the changed file")
        XCTAssertNil(locator.debugFile(identifier: old, architecture: .arm64))
        XCTAssertEqual(locator.debugFile(identifier: LocatorFixtures.uuid(1000), architecture: .arm64)?.path, changed.path)
        XCTAssertEqual(locator.debugFiles.count, 3)
        XCTAssertEqual(IdentityCache(path: cachePath).count, 4 + 4 + 1 - 2, "the removed bundle's two files are forgotten")
    }

    func testADamagedCacheIsIgnoredAndRewritten() throws {
        let folder = try makeFolder(3)
        let reference = identities(locate([folder.path], cache: IdentityCache(path: cachePath)))
        let good = try [UInt8](Data(contentsOf: URL(fileURLWithPath: cachePath)))
        var damages: [(String, [UInt8])] = [
            ("empty", []),
            ("cut short", Array(good.prefix(good.count / 2))),
            ("without its last newline", Array(good.dropLast())),
            ("garbage", [UInt8](repeating: 0xff, count: 300)),
            ("another version", Array(String(decoding: good, as: UTF8.self)
                .replacingOccurrences(of: "symbolicate identities 1", with: "symbolicate identities 9").utf8)),
        ]
        for offset in stride(from: 30, to: good.count - 1, by: max(1, good.count / 12)) {
            var flipped = good
            flipped[offset] ^= 0x04
            damages.append(("a bit flipped at \(offset)", flipped))
        }
        for (what, bytes) in damages {
            try Data(bytes).write(to: URL(fileURLWithPath: cachePath))
            var warnings: [String] = []
            let cache = IdentityCache(path: cachePath) { warnings.append($0) }
            XCTAssertEqual(cache.count, 0, what)
            XCTAssertEqual(warnings, ["\(cachePath): the identity cache is damaged; it is made again"], what)
            let locator = locate([folder.path], cache: cache)
            XCTAssertEqual(identities(locator), reference, what)
            XCTAssertEqual(locator.filesRead, 7, "\(what): every file read again")
            XCTAssertEqual(try [UInt8](Data(contentsOf: URL(fileURLWithPath: cachePath))), good, "\(what): rewritten whole")
        }
    }

    /// Every byte of a cache file changed in turn (a bit flipped, a hex digit's case changed,
    /// the byte removed, doubled, or the file cut there): each is damage, found, said in one
    /// line, and the cache starts empty.
    func testEveryDamageOfTheFileIsFound() throws {
        let folder = try makeFolder(4)
        _ = locate([folder.path], cache: IdentityCache(path: cachePath))
        let good = try [UInt8](Data(contentsOf: URL(fileURLWithPath: cachePath)))
        var generator = SplitMix64(seed: 5)
        var variants: [[UInt8]] = []
        for offset in 0..<good.count {
            var flipped = good
            flipped[offset] ^= UInt8(1) << (generator.next() % 8)
            variants.append(flipped)
            var other = good
            other[offset] ^= 0x20  // "a" and "A", "\t" and ")"
            variants.append(other)
            var removed = good
            removed.remove(at: offset)
            variants.append(removed)
            var doubled = good
            doubled.insert(good[offset], at: offset)
            variants.append(doubled)
            variants.append(Array(good.prefix(offset)))
        }
        let lines = good.split(separator: 10)
        variants.append(Array(lines.dropFirst(2).joined(separator: [10])) + [10])
        variants.append(Array((lines.prefix(2) + [lines[1]] + lines.dropFirst(2)).joined(separator: [10])) + [10])
        var found = 0
        for (n, bytes) in variants.enumerated() where bytes != good && !bytes.isEmpty {
            // Through the file for some, the parser alone for the rest (the same check).
            guard n % 20 == 0 else {
                let parsed = IdentityCache.parse(bytes)
                XCTAssertNil(parsed, "variant \(n)")
                found += parsed == nil ? 1 : 0
                continue
            }
            try Data(bytes).write(to: URL(fileURLWithPath: cachePath))
            var warnings: [String] = []
            let cache = IdentityCache(path: cachePath) { warnings.append($0) }
            XCTAssertEqual(cache.count, 0, "variant \(n)")
            XCTAssertEqual(warnings.count, 1, "variant \(n): \(warnings)")
            found += warnings.count == 1 && cache.count == 0 ? 1 : 0
        }
        print("identity cache: \(found) of \(variants.count) damaged files found")
        XCTAssertGreaterThan(found, 1000)
    }

    /// A FIFO, a device, a folder or a link put where the cache file goes: read without
    /// waiting or not at all, said in one line, and replaced by the cache on save.
    func testWhatIsNotARegularFileInPlaceOfTheCacheIsReplaced() throws {
        let folder = try makeFolder(2)
        _ = locate([folder.path], cache: IdentityCache(path: cachePath))
        let good = try [UInt8](Data(contentsOf: URL(fileURLWithPath: cachePath)))
        let elsewhere = scratch.appendingPathComponent("elsewhere").path, fifo = scratch.appendingPathComponent("fifo").path
        try Data(good).write(to: URL(fileURLWithPath: elsewhere))
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let places: [(String, () -> Int32)] = [
            ("a FIFO", { mkfifo(self.cachePath, 0o600) }),
            ("a link to /dev/zero", { symlink("/dev/zero", self.cachePath) }),
            ("a link to a FIFO", { symlink(fifo, self.cachePath) }),
            ("a link to a good cache elsewhere", { symlink(elsewhere, self.cachePath) }),
            ("a folder", { mkdir(self.cachePath, 0o700) }),
        ]
        for (what, make) in places {
            XCTAssertEqual(unlink(cachePath), 0, what)
            XCTAssertEqual(make(), 0, what)
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var warnings: [String] = []
            nonisolated(unsafe) var cache: IdentityCache?
            Thread {
                cache = IdentityCache(path: self.cachePath) { warnings.append($0) }
                done.signal()
            }.start()
            // A hang detector only (a FIFO opened for reading blocks): the wait ends when the cache opens.
            guard done.wait(timeout: .now() + 120) == .success, let cache else {
                XCTFail("\(what): opening the cache did not return")
                continue
            }
            XCTAssertEqual(cache.count, 0, what)
            XCTAssertEqual(warnings.count, 1, "\(what): \(warnings)")
            XCTAssertTrue(warnings.first?.hasPrefix(cachePath + ": the identity cache ") ?? false, "\(warnings)")
            if what == "a folder" {
                rmdir(cachePath)
                XCTAssertEqual(symlink("/dev/zero", cachePath), 0)
            }
            _ = locate([folder.path], cache: cache)
            var info = stat()
            XCTAssertEqual(lstat(cachePath, &info), 0)
            XCTAssertEqual(info.st_mode & S_IFMT, S_IFREG, "\(what): replaced by the cache")
            XCTAssertEqual(try [UInt8](Data(contentsOf: URL(fileURLWithPath: cachePath))), good, what)
            XCTAssertEqual(try [UInt8](Data(contentsOf: URL(fileURLWithPath: elsewhere))), good, "\(what): left alone")
        }
    }

    func testEveryFieldOfEverySliceSurvivesTheFile() throws {
        let fixtures = try LocatorFixtures.root()
        let paths = ["macho/App-universal.dSYM/Contents/Resources/DWARF/App-universal", "macho/App-universal",
                     "macho/App-arm64_32", "elf/app-armv7-thumb", "elf/app-nopie", "debuglink/app", "debuglink/app-nobuildid",
                     "obj/app-arm64/main.o"]
        let cache = IdentityCache(path: cachePath)
        var expected: [String: [DebugFile]] = [:]
        for relative in paths {
            let path = fixtures.appendingPathComponent(relative).path
            var info = stat()
            XCTAssertEqual(stat(path, &info), 0)
            let files = try DebugFile.identify(path: path)
            cache.record(.objects(files), of: path, stamp: IdentityCache.Stamp(info))
            expected[path] = files.map { var file = $0; file.path = ""; return file }
        }
        XCTAssertTrue(expected.values.contains { $0.contains { $0.debugLink != nil && $0.identifier == nil } })
        XCTAssertTrue(expected.values.contains { $0.contains(where: \.isRelocatable) })
        try cache.save()
        let loaded = IdentityCache(path: cachePath)
        for (path, files) in expected {
            var info = stat()
            XCTAssertEqual(stat(path, &info), 0)
            XCTAssertEqual(loaded.identity(of: path, stamp: IdentityCache.Stamp(info)), .objects(files), path)
            var other = IdentityCache.Stamp(info)
            other.changed += 1
            XCTAssertNil(loaded.identity(of: path, stamp: other), "another change time: not the same file")
        }
    }

    func testTheCacheIsBounded() throws {
        let a = try makeFolder(3, under: "a"), b = try makeFolder(2, under: "b")
        _ = locate([a.path], cache: IdentityCache(path: cachePath, capacity: 4))
        XCTAssertEqual(IdentityCache(path: cachePath).count, 4)
        let cache = IdentityCache(path: cachePath, capacity: 4)
        _ = locate([b.path], cache: cache)
        XCTAssertEqual(IdentityCache(path: cachePath).count, 4, "this run's 5 files, cut to the bound")
        let again = locate([b.path], cache: IdentityCache(path: cachePath, capacity: 4))
        XCTAssertEqual(again.filesRead, 1, "what this run met is kept first")
    }

    func testACacheThatCannotBeWrittenIsOneWarning() throws {
        let folder = try makeFolder(1)
        let blocker = scratch.appendingPathComponent("file")
        try Data().write(to: blocker)
        var warnings: [String] = []
        let locator = locate([folder.path], cache: IdentityCache(path: blocker.appendingPathComponent("symbolicate/identities").path),
                             warnings: { warnings.append($0) })
        XCTAssertEqual(locator.debugFiles.count, 1)
        XCTAssertEqual(warnings.count, 1)
        // One line naming the folder that cannot be made, and why.
        XCTAssertTrue(warnings.first?.hasPrefix("cannot write the identity cache: ") == true, "\(warnings)")
        XCTAssertTrue(warnings.first?.contains("\(blocker.path)/symbolicate") == true, "\(warnings)")
        XCTAssertTrue(warnings.first?.contains("Not a directory") == true, "\(warnings)")
    }

    func testTheCacheLivesInTheUsersCacheFolder() {
        XCTAssertEqual(IdentityCache.standardPath(environment: ["XDG_CACHE_HOME": "/x/cache", "HOME": "/home/u"]),
                       "/x/cache/symbolicate/identities")
        XCTAssertEqual(IdentityCache.standardPath(environment: ["XDG_CACHE_HOME": "relative", "HOME": "/home/u"]),
                       "/home/u/.cache/symbolicate/identities", "a relative XDG_CACHE_HOME is ignored, as the spec says")
        XCTAssertEqual(IdentityCache.standardPath(environment: ["HOME": "/home/u"]), "/home/u/.cache/symbolicate/identities")
        XCTAssertNil(IdentityCache.standardPath(environment: [:]))
        XCTAssertNil(IdentityCache.standard(environment: [:]))
    }

    func testNamedFilesAreWarnedAboutEvenWhenCachedAsNotObjects() throws {
        let folder = try makeFolder(1)
        _ = locate([folder.path], cache: IdentityCache(path: cachePath))
        var warnings: [String] = []
        let readme = folder.appendingPathComponent("README.txt").path
        _ = locate([readme], cache: IdentityCache(path: cachePath), warnings: { warnings.append($0) })
        XCTAssertEqual(warnings, ["\(readme): not a Mach-O or ELF file"])
    }
}
