import DebugInfo
import DebugInfoTestSupport
import Foundation
import TestSupport
import XCTest

/// The dyld shared cache reader against an independent one: every generated cache
/// (Fixtures/dyld: one file as before iOS 15, split with `.symbols` as iOS 15, split with
/// suffixed sub-caches as macOS 13) read by DyldExtractor, each image it extracts read by LIEF
/// (Fixtures/dyld/oracle.py), and the dylibs before they went into the cache read by llvm-nm.
final class DyldCacheOracleTests: XCTestCase {
    // Not the simulator's cache (iossim17): DyldExtractor gives its images only their
    // exports, leaving out the local symbols that stay in their symbol tables, where llvm-nm of
    // the dylibs (DyldCacheCLITests) and the tool find them.
    static let caches = ["ios14/dyld_shared_cache_arm64", "ios15/dyld_shared_cache_arm64", "macos13/dyld_shared_cache_x86_64",
                         "ios16e/dyld_shared_cache_arm64e"]

    struct OracleImage: Decodable {
        var path: String
        var uuid: String?
        var symbols: [[Symbol]]

        enum Symbol: Decodable {
            case address(UInt64)
            case name(String)
            init(from decoder: Decoder) throws {
                let value = try decoder.singleValueContainer()
                if let number = try? value.decode(UInt64.self) { self = .address(number) } else { self = .name(try value.decode(String.self)) }
            }
        }

        var pairs: Set<Pair> {
            Set(symbols.compactMap { entry in
                guard entry.count == 2, case .address(let address) = entry[0], case .name(let name) = entry[1] else { return nil }
                return Pair(address: address, name: name)
            })
        }
    }

    struct Pair: Hashable, Comparable, CustomStringConvertible {
        var address: UInt64
        var name: String
        static func < (a: Pair, b: Pair) -> Bool { (a.address, a.name) < (b.address, b.name) }
        var description: String { "0x\(String(address, radix: 16)) \(name)" }
    }

    /// What DyldExtractor and LIEF read from the cache at `path`, by image path.
    static func oracle(_ path: String) throws -> [String: OracleImage] {
        let script = TestPaths.packageRoot.appendingPathComponent("Fixtures/dyld/oracle.py").path
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("dyld-oracle-\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try runProcess("/usr/bin/env", ["python3", script, path, out.path])
        if result.status == 3 {
            throw XCTSkip("the oracle cannot run (DyldExtractor and LIEF, from PyPI): \(result.stderrText)")
        }
        guard result.status == 0 else { XCTFail("oracle.py \(path): \(result.stderrText)"); return [:] }
        var images: [String: OracleImage] = [:]
        for line in result.stdoutText.split(separator: "\n") {
            let image = try JSONDecoder().decode(OracleImage.self, from: Data(line.utf8))
            images[image.path] = image
        }
        return images
    }

    /// (address, name) of every function llvm-nm lists in `dylib` (t and T).
    static func nm(_ dylib: String) throws -> Set<Pair> {
        guard let tool = TestPaths.llvm19("llvm-nm") else { throw XCTSkip("llvm-nm-19 is not installed") }
        let result = try runProcess(tool, ["-n", "--defined-only", dylib])
        var pairs = Set<Pair>()
        for line in result.stdoutText.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 3, parts[1] == "t" || parts[1] == "T", let address = UInt64(parts[0], radix: 16) else { continue }
            pairs.insert(Pair(address: address, name: String(parts[2])))
        }
        return pairs
    }

    /// Every image of every layout has the path and UUID the independent reader gives, and the
    /// same function symbols: the local ones from the local-symbol table (one file or
    /// `.symbols`, 32- or 64-bit entries) and the others from the shared `__LINKEDIT` of
    /// another file. A reader checked only against its own generator could be wrong with it.
    func testEveryImageUUIDAndSymbolAgreesWithDyldExtractorAndLIEF() throws {
        for relative in Self.caches {
            let path = try DyldCacheFixtures.path(relative)
            let cache = try DyldSharedCache(path: path)
            let oracle = try Self.oracle(path)
            XCTAssertEqual(Set(cache.images.map(\.path)), Set(oracle.keys), relative)
            XCTAssertTrue(cache.missingFiles.isEmpty, relative)
            for (index, image) in cache.images.enumerated() {
                guard let expected = oracle[image.path] else { continue }
                XCTAssertEqual(image.uuid, expected.uuid, "\(relative) \(image.path)")
                let read = try cache.symbols(ofImage: index)
                XCTAssertNil(read.problem, "\(relative) \(image.path)")
                let ours = Set(read.symbols.filter { $0.source != 2 }.map { Pair(address: $0.address, name: $0.name) })
                let theirs = expected.pairs
                if relative.hasPrefix("macos") {
                    // DyldExtractor puts back only the local-symbol table's locals; a macOS
                    // cache keeps them in each image's own table, which it leaves out.
                    XCTAssertTrue(theirs.isSubset(of: ours), "\(relative) \(image.path): \(theirs.subtracting(ours).sorted().prefix(5))")
                } else {
                    XCTAssertEqual(ours, theirs, "\(relative) \(image.path): only ours \(ours.subtracting(theirs).sorted().prefix(5)), only theirs \(theirs.subtracting(ours).sorted().prefix(5))")
                }
                // The exports trie names exported functions at the addresses the symbol table gives.
                for export in read.symbols where export.source == 2 {
                    XCTAssertTrue(ours.contains(Pair(address: export.address, name: export.name)), "\(relative): export \(export.name)")
                }
                // And everything equals what llvm-nm lists in the dylib before it went in.
                let split = try DyldCacheFixtures.path(relative.split(separator: "/")[0] + "/Symbols" + image.path)
                XCTAssertEqual(ours, try Self.nm(split), "\(relative) \(image.path) against llvm-nm")
                XCTAssertGreaterThan(ours.count, 30)
            }
        }
    }

    /// An address anywhere in an image's functions resolves to the function the independent
    /// reader's symbol table places there (the nearest symbol at or below it), through the
    /// index built from the cache: the answer a report's frame gets.
    func testLookupsAgreeWithTheIndependentSymbolTablesOnSampledAddresses() throws {
        var generator = SplitMix64(seed: 21)
        var checked = 0
        for relative in Self.caches {
            let path = try DyldCacheFixtures.path(relative)
            let cache = try DyldSharedCache(path: path)
            let oracle = try Self.oracle(path)
            for file in cache.debugFiles() {
                guard let index = cache.imageIndex(uuid: file.identifier ?? ""),
                      let expected = oracle[cache.images[index].path] else { continue }
                // The split-out dylib keeps every symbol, as the macOS cache's images do.
                let split = try DyldCacheFixtures.path(relative.split(separator: "/")[0] + "/Symbols" + cache.images[index].path)
                let symbols = (relative.hasPrefix("macos") ? try Self.nm(split) : expected.pairs).sorted()
                let symbolIndex = try SymbolIndex.build(file)
                guard let first = symbols.first?.address, let last = symbols.last?.address, last > first else { continue }
                for _ in 0..<200 {
                    let address = first + generator.next() % (last - first)
                    let holder = symbols.last { $0.address <= address }!
                    let found = symbolIndex.lookup(address, demangle: false)
                    XCTAssertEqual(found.first?.function, String(holder.name.dropFirst()), "\(relative) 0x\(String(address, radix: 16))")
                    XCTAssertEqual(found.first?.functionStart, holder.address)
                    XCTAssertNil(found.first?.file, "a cache has no lines")
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 3000)
    }
}
