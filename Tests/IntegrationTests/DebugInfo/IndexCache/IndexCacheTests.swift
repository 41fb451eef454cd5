@testable import DebugInfo
import DebugInfoTestSupport
import Foundation
import TestSupport
import XCTest

/// The index cache over every fixture, corpus and glibc debug file (the rest of the index
/// store's tests are in DebugInfoTests).
final class IndexCacheTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("index-store-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    private func makeStore() -> IndexCache {
        IndexCache(directory: scratch.appendingPathComponent("indexes").path)
    }

    // MARK: - Subjects

    /// Every linked object file with DWARF or a symbol table among the fixtures, the corpus
    /// and the system's glibc debug file.
    static func debugFiles() -> [DebugFile] {
        var roots: [URL] = []
        if let fixtures = TestPaths.fixtures { roots.append(fixtures) }
        if let corpus = TestPaths.corpus { roots.append(corpus.appendingPathComponent("debug")) }
        var files: [DebugFile] = []
        for root in roots {
            let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
            while let url = enumerator?.nextObject() as? URL {
                guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                      DebugFile.looksLikeObjectFile(path: url.path),
                      let found = try? DebugFile.identify(path: url.path) else { continue }
                files += found.filter { !$0.isRelocatable && ($0.hasDWARF || $0.hasSymbolTable) }
            }
        }
        if case .success(let glibc) = SymbolizerOracle.systemLibcDebugFile() { files.append(glibc) }
        return files.sorted { ($0.path, $0.sliceOffset) < ($1.path, $1.sliceOffset) }
    }

    // MARK: - Stored answers as built

    /// For every fixture, corpus and glibc debug file: the index stored, then mapped back,
    /// answers thousands of addresses exactly as the index just built from the DWARF does,
    /// and so does the one a second `index(for:)` finds in the store.
    func testAStoredIndexAnswersAsTheBuiltOne() throws {
        let files = IndexCacheTests.debugFiles()
        guard files.count >= 5 else { throw XCTSkip("too few debug files: \(TestPaths.fixturesAbsent); \(TestPaths.corpusAbsent)") }
        let store = makeStore()
        var total = 0, inlined = 0, symbolOnly = 0
        for file in files {
            let built: SymbolIndex
            do {
                built = try store.index(for: file) { XCTFail("\(file.path): \($0)") }
            } catch {
                XCTAssertThrowsError(try SymbolIndex.build(file), "\(file.path): the store failed where a build does not")
                continue
            }
            if !file.hasDWARF { symbolOnly += 1 }
            let stored = try XCTUnwrap(store.cachedIndex(for: file), "\(file)")
            let again = try store.index(for: file) { XCTFail("\(file.path), from the store: \($0)") }
            let addresses = try IndexSamples.sample(file, count: file.path.hasPrefix("/usr/lib/debug") ? 4000 : 1200)
            inlined += assertSameAnswers(stored, built, addresses, file.description)
            _ = assertSameAnswers(again, built, addresses.prefix(300).map { $0 }, file.description + ", from the store")
            // Named symbols, as glibc backtraces give them, and a name no table has.
            for symbol in built.symbols.symbols.prefix(50) {
                let name = built.symbols.stripsUnderscore && symbol.name.hasPrefix("_") ? String(symbol.name.dropFirst()) : symbol.name
                XCTAssertEqual(stored.address(ofSymbol: name), built.address(ofSymbol: name), "\(file) \(name)")
            }
            XCTAssertNil(stored.address(ofSymbol: "no such symbol \(file.path)"))
            total += addresses.count
        }
        print("index cache: \(total) addresses in \(files.count) debug files (\(symbolOnly) with a symbol table only) "
              + "answered alike stored and built; \(inlined) in inlined code")
        XCTAssertGreaterThan(total, 20000)
        XCTAssertGreaterThan(inlined, 1000)
    }
}
