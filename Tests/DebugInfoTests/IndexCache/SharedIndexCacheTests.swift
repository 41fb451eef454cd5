@testable import DebugInfo
import DebugInfoTestSupport
import Foundation
import TestSupport
import XCTest

/// Indexes other machines can use: keyed by the debug file's contents, found through shared
/// folders that are only read, never used for other contents; and the housekeeping of
/// `cache list` and `cache prune`.
final class SharedIndexCacheTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("shared-store-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    /// A copy of a fixture under `name`, with an mtime of its own: as the file would be on
    /// another machine (another inode, another time).
    private func copy(_ relative: String = "elf/app-gcc-dwarf4", as name: String) throws -> DebugFile {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        let url = scratch.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent(relative), to: url)
        var times = [timespec(tv_sec: 1_650_000_000 + Int(name.utf8.count), tv_nsec: 0), timespec(tv_sec: 1_650_000_000, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, url.path, &times, 0), 0)
        return try XCTUnwrap(DebugFile.identify(path: url.path).first)
    }

    private func folder(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    private func files(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    private func sameAnswers(_ a: SymbolIndex, _ b: SymbolIndex, _ file: DebugFile) throws {
        for address in try IndexSamples.sample(file, count: 400) {
            XCTAssertEqual(a.lookup(address), b.lookup(address), "0x\(String(address, radix: 16))")
        }
    }

    // MARK: - Content keys

    /// The key changes with the size and with a byte changed in the first or last 64 KiB or
    /// in a sampled block; not with the file's place, inode or mtime.
    func testTheContentKeyFollowsTheContents() throws {
        // A megabyte of bytes as the slice of a universal file: past its first 4 KiB.
        var generator = SplitMix64(seed: 5)
        let original = (0..<(1 << 20)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        func file(_ name: String, _ bytes: [UInt8]) throws -> DebugFile {
            let url = scratch.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            return DebugFile(path: url.path, format: .machO, architecture: .arm64, identifier: "00", textVMAddress: 0,
                             sliceOffset: 4096, sliceSize: bytes.count - 8192, hasDWARF: true)
        }
        let key = try XCTUnwrap(ContentKey(try file("a", original)))
        XCTAssertEqual(ContentKey(try file("b", original)), key, "a copy elsewhere has the same key")
        let middle = original.count - 8192 - 2 * ContentKey.edge
        let sampled = [4096, 4096 + ContentKey.edge - 1, 4096 + ContentKey.edge + middle / ContentKey.blocks * 3 + 10,
                       original.count - 4096 - 1]
        for offset in sampled {
            var changed = original
            changed[offset] ^= 0x40
            XCTAssertNotEqual(ContentKey(try file("c", changed)), key, "a byte changed at \(offset)")
        }
        for offset in [0, original.count - 1] {  // outside the slice
            var changed = original
            changed[offset] ^= 0x40
            XCTAssertEqual(ContentKey(try file("d", changed))?.hash, key.hash, "a byte outside the slice at \(offset)")
        }
        XCTAssertNotEqual(ContentKey(try file("e", original + [0]))?.size, key.size)
    }

    // MARK: - Shared folders

    /// An index stored for sharing in one folder answers, through a store that reads that
    /// folder, for a copy of the debug file elsewhere: nothing is built or written.
    func testAnIndexIsUsedOnAnotherMachineThroughTheSharedFolder() throws {
        let built = try copy(as: "machine-a/app")
        let shared = IndexCache(directory: folder("shared/indexes"), sizeLimit: Int.max)
        let stored = try shared.storeShareable(built)
        XCTAssertTrue(stored.built)
        XCTAssertFalse(try shared.storeShareable(built).built, "a second time: already there")

        let elsewhere = try copy(as: "machine-b/app")
        let local = IndexCache(directory: folder("b-cache/indexes"), sharedDirectories: [shared.directory])
        let warnings = Warnings()
        let index = try local.index(for: elsewhere) { warnings.add($0) }
        XCTAssertEqual(warnings.lines, [])
        XCTAssertEqual(files(in: local.directory), [], "nothing built, nothing written locally")
        try sameAnswers(index, try SymbolIndex.build(elsewhere), elsewhere)
        XCTAssertTrue(try local.storeShareable(elsewhere).inSharedFolder)
    }

    /// A debug file of the same build-id and size but other contents is not given the shared
    /// index: it is built locally.
    func testOtherContentsOfTheSameBuildIDAreNotGivenTheSharedIndex() throws {
        let shared = IndexCache(directory: folder("shared/indexes"), sizeLimit: Int.max)
        _ = try shared.storeShareable(try copy(as: "a/app"))
        let other = try copy(as: "b/app")
        // The compiler's name in .comment, one letter changed: same size, same build-id.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: other.path)))
        let comment = Array("GCC: (".utf8)
        let at = try XCTUnwrap((0..<(bytes.count - comment.count)).first { bytes[$0..<($0 + comment.count)].elementsEqual(comment) })
        bytes[at] = UInt8(ascii: "g")
        try Data(bytes).write(to: URL(fileURLWithPath: other.path))
        guard let file = try? DebugFile.identify(path: other.path).first else { return XCTFail("the changed copy must still identify") }
        XCTAssertEqual(file.identifier, try copy(as: "c/app").identifier)
        let local = IndexCache(directory: folder("local/indexes"), sharedDirectories: [shared.directory])
        _ = try? local.index(for: file)
        XCTAssertEqual(files(in: local.directory).count, 1, "built and stored locally")
    }

    /// A shared folder that cannot be written (here: a file where its parent would be written)
    /// and holds a damaged index: the damage is said, the index built locally, and the shared
    /// file left as it is.
    func testADamagedSharedIndexIsPassedOverAndLeftAsItIs() throws {
        let file = try copy(as: "a/app")
        let shared = IndexCache(directory: folder("shared/indexes"), sizeLimit: Int.max)
        let stored = try shared.storeShareable(file)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: stored.path)))
        bytes[20] ^= 0xff  // the header size: refused when opened
        try Data(bytes).write(to: URL(fileURLWithPath: stored.path))
        let local = IndexCache(directory: folder("local/indexes"), sharedDirectories: [shared.directory])
        let warnings = Warnings()
        let index = try local.index(for: file) { warnings.add($0) }
        XCTAssertEqual(warnings.lines.count, 1, "\(warnings.lines)")
        XCTAssertTrue(warnings.lines.first?.hasPrefix(stored.path + ": damaged index cache file") ?? false, "\(warnings.lines)")
        XCTAssertEqual(try [UInt8](Data(contentsOf: URL(fileURLWithPath: stored.path))), bytes, "the shared file is not touched")
        XCTAssertEqual(files(in: local.directory).count, 1)
        try sameAnswers(index, try SymbolIndex.build(file), file)
    }

    // MARK: - List and prune

    /// The listing says what each file indexes, how it is keyed and whether its debug file is
    /// still there; pruning removes files of another version, those whose debug file is gone,
    /// those not used for long, then the least recently used past the bound.
    func testListAndPrune() throws {
        let store = IndexCache(directory: folder("cache/indexes"), sizeLimit: Int.max)
        let kept = try copy(as: "kept/app")
        let gone = try copy("elf/app-clang-dwarf5", as: "gone/app")
        let old = try copy("elf/app-nopie", as: "old/app")
        let shareable = try copy("elf/swift-shapes", as: "shared/shapes")
        for file in [kept, gone, old] { _ = try store.index(for: file) }
        _ = try store.storeShareable(shareable)
        let foreign = (store.directory as NSString).appendingPathComponent("x-arm64-0-1_2-v7.index")
        // The header of an index of format 7, as an older version of the tool wrote them.
        var older = Array("SYMIDX\0\n".utf8) + [UInt8](repeating: 0, count: 200)
        older.withUnsafeMutableBytes {
            $0.storeBytes(of: UInt32(7), toByteOffset: 8, as: UInt32.self)
            $0.storeBytes(of: IndexCacheFormat.byteOrderMark, toByteOffset: 12, as: UInt32.self)
        }
        try Data(older).write(to: URL(fileURLWithPath: foreign))
        try FileManager.default.removeItem(atPath: gone.path)
        let oldIndex = store.path(for: old, stamp: try XCTUnwrap(DebugFileStamp(path: old.path)))
        var long = [timespec(tv_sec: 1_600_000_000, tv_nsec: 0), timespec(tv_sec: 1_600_000_000, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, oldIndex, &long, 0), 0)

        let listed = store.list()
        XCTAssertEqual(listed.count, 5)
        func entry(_ path: String) -> IndexCache.Entry? { listed.first { $0.debugFile == path } }
        XCTAssertEqual(entry(kept.path)?.debugFileIntact, true)
        XCTAssertEqual(entry(kept.path)?.identifier, kept.identifier)
        XCTAssertEqual(entry(kept.path)?.architecture, "x86_64")
        XCTAssertEqual(entry(gone.path)?.debugFileIntact, false)
        XCTAssertEqual(entry(shareable.path)?.contentKeyed, true)
        XCTAssertNil(entry(shareable.path)?.debugFileIntact, "a shared index's debug file may be another machine's")
        XCTAssertEqual(listed.first { $0.path == foreign }?.problem, "format version 7, not \(IndexCacheFormat.version)")

        let now = Int64(Date().timeIntervalSince1970)
        let removed = store.prune(maxSize: nil, olderThan: 30 * 86400, now: now)
        XCTAssertEqual(removed.count, 3, "\(removed.map(\.why))")
        XCTAssertTrue(removed.contains { $0.entry.path == foreign && $0.why.hasPrefix("format version") })
        XCTAssertTrue(removed.contains { $0.entry.debugFile == gone.path && $0.why.contains("is gone or changed") })
        XCTAssertTrue(removed.contains { $0.entry.path == oldIndex && $0.why.hasPrefix("not used for ") })
        XCTAssertEqual(store.list().count, 2)

        let sizes = store.list().map(\.size)
        let bounded = store.prune(maxSize: sizes.max()!, olderThan: nil, now: now)
        XCTAssertEqual(bounded.count, 1)
        XCTAssertEqual(store.list().count, 1)
        XCTAssertLessThanOrEqual(store.list().reduce(0) { $0 + $1.size }, sizes.max()!)
    }
}
