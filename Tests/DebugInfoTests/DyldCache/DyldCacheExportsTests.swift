import CDyldCache
import Foundation
import TestSupport
import XCTest

/// The exports trie of an image in a cache is a tree: a trie whose nodes are shared, so that a
/// few bytes spell many names (a node two edges lead to), is damage, read once and said so,
/// instead of spelling its names once per path that leads to them.
final class DyldCacheExportsTests: XCTestCase {
    /// The exports trie of a Mach-O file (LC_DYLD_EXPORTS_TRIE, or LC_DYLD_INFO's export part).
    private func exportsTrie(of bytes: [UInt8]) -> ArraySlice<UInt8>? {
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        guard bytes.count > 32, u32(0) == 0xfeed_facf else { return nil }
        var offset = 32
        for _ in 0..<u32(16) {
            let command = u32(offset), size = u32(offset + 4)
            if command == 0x8000_0033 { return bytes[u32(offset + 8)..<(u32(offset + 8) + u32(offset + 12))] }
            if command == 0x8000_0022 || command == 0x22 { return bytes[u32(offset + 40)..<(u32(offset + 40) + u32(offset + 44))] }
            offset += size
        }
        return nil
    }

    /// Every image's exports and problem, read from `cache` (a one-file cache) by the reader.
    private func exports(of cache: [UInt8]) throws -> [(names: [String], problem: String)] {
        try cache.withUnsafeBufferPointer { buffer in
            var file = dsc_file(bytes: buffer.baseAddress, size: UInt64(buffer.count))
            var opened: OpaquePointer?
            var message = [CChar](repeating: 0, count: 256)
            guard dsc_open(&file, 1, &file, &opened, &message, message.count) == DSC_OK, let opened else {
                throw DyldCacheOpenError(message: String(cString: message))
            }
            defer { dsc_close(opened) }
            return (0..<dsc_image_count(opened)).map { index in
                var symbols = dsc_symbols()
                guard dsc_read_symbols(opened, index, &symbols, &message, message.count) == DSC_OK else { return ([], "unreadable") }
                defer { dsc_free_symbols(&symbols) }
                let names = (0..<Int(symbols.count)).compactMap { i -> String? in
                    let symbol = symbols.symbols[i]
                    guard symbol.source == UInt8(DSC_SYMBOL_EXPORT) else { return nil }
                    return String(decoding: UnsafeBufferPointer(start: symbol.name, count: Int(symbol.name_length)), as: UTF8.self)
                }
                let problem = withUnsafeBytes(of: symbols.problem) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                return (names, problem)
            }
        }
    }

    func testATrieWhoseNodesAreSharedIsDamageReadOnce() throws {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        let folder = fixtures.appendingPathComponent("dyld")
        var cache = [UInt8](try Data(contentsOf: folder.appendingPathComponent("ios14/dyld_shared_cache_arm64")))
        let dylib = [UInt8](try Data(contentsOf: folder.appendingPathComponent("work/ios14/image0.dylib")))
        let trie = try XCTUnwrap(exportsTrie(of: dylib), "image0.dylib has no exports trie")
        let intact = try exports(of: cache)
        XCTAssertTrue(intact.allSatisfy { $0.problem.isEmpty }, "\(intact.map(\.problem))")
        XCTAssertTrue(intact.contains { !$0.names.isEmpty }, "the intact cache's images export names")

        // _x → a → B and _x → b → B: node B (an export at 0x10) under two paths.
        let shared: [UInt8] = [0, 1] + Array("_x".utf8) + [0, 6] + [0, 2, UInt8(ascii: "a"), 0, 14, UInt8(ascii: "b"), 0, 14]
            + [2, 0, 0x10, 0]
        XCTAssertGreaterThanOrEqual(trie.count, shared.count)
        let at = try XCTUnwrap((0...(cache.count - trie.count)).first { cache[$0..<($0 + trie.count)].elementsEqual(trie) },
                               "image0's trie is in the cache as it is in the dylib")
        cache.replaceSubrange(at..<(at + trie.count), with: shared + [UInt8](repeating: 0, count: trie.count - shared.count))

        let damaged = try exports(of: cache).filter { !$0.problem.isEmpty }
        XCTAssertEqual(damaged.count, 1, "\(damaged)")
        XCTAssertTrue(damaged.first?.problem.contains("exports trie is damaged") ?? false, "\(damaged)")
        XCTAssertEqual(damaged.first?.names, ["_xa"], "the node is read once, by the first path to it")
    }
}

private struct DyldCacheOpenError: Error {
    var message: String
}
