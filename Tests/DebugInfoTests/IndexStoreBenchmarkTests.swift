@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

/// What the index cache saves on a large debug file: building from the DWARF against mapping
/// the stored index, lookups in a freshly mapped index with its pages out of and in the page
/// cache, and the cache file's size against the DWARF's.
///
/// Run on demand, in release mode, naming the file:
///
///     SYMBOLICATE_INDEX_BENCH=/path/to/debug-file swift test -c release -Xswiftc -enable-testing \
///         --disable-swift-testing --filter IndexStoreBenchmarkTests
final class IndexStoreBenchmarkTests: XCTestCase {
    func testBuildAgainstLoad() throws {
        guard let path = ProcessInfo.processInfo.environment["SYMBOLICATE_INDEX_BENCH"] else {
            throw XCTSkip("set SYMBOLICATE_INDEX_BENCH to a debug file to measure the index cache on it")
        }
        let file = try XCTUnwrap(DebugFile.identify(path: path).first { $0.hasDWARF })
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("index-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = IndexStore(directory: directory.path)
        let stamp = try XCTUnwrap(DebugFileStamp(path: path))
        let indexPath = store.path(for: file, stamp: stamp)

        var built: SymbolIndex!
        let build = try best(of: 3) { built = try SymbolIndex.build(file) }
        let write = try best(of: 3) { try store.store(built, stamp: stamp) }
        let indexSize = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: indexPath)[.size] as? Int)

        let addresses = try IndexStoreTests.sample(file, count: 20000).filter { !built.lookup($0, demangle: false).isEmpty }
        XCTAssertGreaterThan(addresses.count, 1000)

        // Load: open, map, check the header, every section's checksum and the tables.
        let warmLoad = try best(of: 5) { _ = try store.load(file, stamp: stamp) }
        IndexStoreBenchmarkTests.dropFromPageCache(indexPath)
        var loaded: SymbolIndex!
        let coldLoad = try measure { loaded = try store.load(file, stamp: stamp) }
        let checksum = best(of: 5) { _ = IndexChecksum.hash(loaded.tables.rowAddress.bytes) }
            * Double(indexSize) / Double(loaded.tables.rowAddress.bytes.count)
        let wellFormed = best(of: 5) { XCTAssertTrue(loaded.tables.isWellFormed && loaded.symbols.isWellFormed) }
        loaded = nil  // unmapped: mapped pages stay in the page cache

        // Lookups: the built index in memory; a loaded index whose pages were out of the page
        // cache when it was mapped with no checks (as a lookup alone would fault them in), then
        // again; one mapped while its pages are in the page cache.
        func lookUpAll(_ index: SymbolIndex) { for a in addresses { _ = index.lookup(a, demangle: false) } }
        let inMemory = best(of: 3) { lookUpAll(built) }
        let mapping = try IndexStoreBenchmarkTests.mapWithoutChecks(indexPath, file: file)
        IndexStoreBenchmarkTests.dropFromPageCache(indexPath)
        let unchecked = try IndexStoreFormat.read(mapping.bytes, owner: mapping, file: file,
                                                  identity: IndexStoreFormat.Identity(file, stamp: stamp), checkingContents: false)
        let uncheckedLoad = try best(of: 5) {
            _ = try IndexStoreFormat.read(mapping.bytes, owner: mapping, file: file,
                                          identity: IndexStoreFormat.Identity(file, stamp: stamp), checkingContents: false)
        }
        let coldLookups = measure { lookUpAll(unchecked) }
        let warmLookups = best(of: 3) { lookUpAll(unchecked) }
        let freshMapping = try measure { lookUpAll(try store.load(file, stamp: stamp)) } - warmLoad

        let dwarfSize = try IndexStoreBenchmarkTests.dwarfSize(file)
        func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
        func mb(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }
        print("""
            index bench: \(path)
              functions \(built.tables.functionName.count), ranges \(built.tables.rangeLow.count), \
            rows \(built.tables.rowAddress.count), symbols \(built.symbols.count)
              build from DWARF \(ms(build)); store \(ms(write))
              load (map + all checks) \(ms(warmLoad)) warm, \(ms(coldLoad)) with the file out of the page cache; \
            of which checksums about \(ms(checksum)), table checks \(ms(wellFormed)); \
            header and identity checks only \(ms(uncheckedLoad))
              \(addresses.count) lookups: in the built index \(ms(inMemory)); mapped, pages out of the page cache \
            \(ms(coldLookups)), then again \(ms(warmLookups)); freshly mapped, pages cached \(ms(freshMapping))
              index file \(mb(indexSize)), DWARF sections \(mb(dwarfSize)) \
            (\(String(format: "%.0f", 100 * Double(indexSize) / Double(dwarfSize)))%)
            """)
    }

    private func measure(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    private func best(of runs: Int, _ body: () throws -> Void) rethrows -> Double {
        var result = Double.infinity
        for _ in 0..<runs { result = min(result, try measure(body)) }
        return result
    }

    /// Asks the kernel to drop the file's clean pages from the page cache (no root needed).
    static func dropFromPageCache(_ path: String) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return }
        _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED))
        close(fd)
    }

    static func mapWithoutChecks(_ path: String, file: DebugFile) throws -> IndexMapping {
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        var info = stat()
        XCTAssertEqual(fstat(fd, &info), 0)
        return try IndexMapping(fd: fd, size: Int(info.st_size))
    }

    /// The bytes of the file's DWARF sections, as stored (compressed ones compressed).
    static func dwarfSize(_ file: DebugFile) throws -> Int {
        let mapped = try MappedFile(path: file.path)
        switch try ObjectLayout(file, in: mapped) {
        case .elf(let image):
            return image.sections.filter { $0.name.hasPrefix(".debug_") || $0.name.hasPrefix(".zdebug_") }
                .reduce(0) { $0 + Int($1.size) }
        case .machO(let slice):
            return slice.sections.filter { $0.segment == "__DWARF" }.reduce(0) { $0 + Int($1.size) }
        }
    }
}
