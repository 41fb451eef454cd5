@testable import DebugInfo
import DebugInfoTestSupport
import Foundation
import TestSupport
import XCTest

/// The block checks of a large mapped index (glibc's debug file, many blocks): damage is
/// found in the blocks lookups read, never changes an answer, and the checks cost the warm
/// lookups little.
final class IndexBlocksTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("index-blocks-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    /// glibc's debug file, copied (its index is rebuilt and replaced at will), and a store
    /// holding its index.
    private func largeIndex() throws -> (DebugFile, IndexCache, SymbolIndex, String, [UInt8]) {
        let glibc: DebugFile
        switch SymbolizerOracle.systemLibcDebugFile() {
        case .success(let found): glibc = found
        case .failure(let unavailable): throw XCTSkip(unavailable.message)
        }
        let copy = scratch.appendingPathComponent("libc.debug")
        try FileManager.default.copyItem(atPath: glibc.path, toPath: copy.path)
        let file = try XCTUnwrap(DebugFile.identify(path: copy.path).first)
        let store = IndexCache(directory: scratch.appendingPathComponent("indexes").path)
        let built = try store.index(for: file)
        let path = store.path(for: file, stamp: try XCTUnwrap(DebugFileStamp(path: file.path)))
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertGreaterThan(bytes.count, 8 * IndexBlocks.size)
        return (file, store, built, path, bytes)
    }

    func testDamageInALargeIndexNeverChangesAnAnswer() throws {
        let (file, store, built, path, original) = try largeIndex()
        let addresses = try IndexSamples.sample(file, count: 400)
        let wanted = addresses.map { built.lookup($0) }
        let dataStart = IndexSamples.sections(of: original).map(\.offset).min() ?? 0
        var generator = SplitMix64(seed: 29)
        var rebuilt = 0, untouched = 0
        for round in 0..<8 {
            var damaged = original
            if round % 4 == 3 {
                // A whole block of zeros.
                let block = Int(generator.next() % UInt64((original.count - dataStart) / IndexBlocks.size))
                let start = dataStart + block * IndexBlocks.size
                for i in start..<(start + IndexBlocks.size) { damaged[i] = 0 }
            } else {
                damaged[dataStart + Int(generator.next() % UInt64(original.count - dataStart))] ^= UInt8(1) << (generator.next() % 8)
            }
            guard damaged != original else { continue }
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            let warnings = Warnings()
            let loaded = try store.index(for: file, warning: { warnings.add($0) })
            for (n, address) in addresses.enumerated() {
                XCTAssertEqual(loaded.lookup(address), wanted[n], "round \(round) 0x\(String(address, radix: 16))")
            }
            XCTAssertLessThanOrEqual(warnings.lines.count, 1, "\(warnings.lines)")
            if warnings.lines.isEmpty { untouched += 1 } else { rebuilt += 1 }
            try Data(original).write(to: URL(fileURLWithPath: path))
        }
        print("large index: 8 damaged copies of \(original.count / IndexBlocks.size + 1) blocks answered as undamaged: "
              + "\(rebuilt) rebuilt with one line, \(untouched) never read the damage")
    }

    /// Warm lookups (every block already checked) in the stored index, with its checks and
    /// without them (the same mapped tables read unchecked): both rates are printed, and the
    /// answers must agree.
    func testWarmLookupCostOfTheBlockChecks() throws {
        let (file, store, _, _, _) = try largeIndex()
        let checked = try XCTUnwrap(store.cachedIndex(for: file))
        var tables = checked.tables, symbols = checked.symbols
        var unchecking = Unchecking()
        tables.visit(&unchecking)
        symbols.visit(&unchecking)
        let unchecked = try XCTUnwrap(SymbolIndex(file: file, problem: checked.problem, tables: tables, symbols: symbols))
        let addresses = try IndexSamples.sample(file, count: 20000)
        for address in addresses { XCTAssertEqual(checked.lookup(address, demangle: false), unchecked.lookup(address, demangle: false)) }

        func rate(_ index: SymbolIndex) -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            var found = 0
            for _ in 0..<5 {
                for address in addresses { found &+= index.lookup(address, demangle: false).count }
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            XCTAssertGreaterThan(found, 0)
            return Double(5 * addresses.count) / seconds
        }
        var withChecks: [Double] = [], withoutChecks: [Double] = []
        for _ in 0..<7 {
            withoutChecks.append(rate(unchecked))
            withChecks.append(rate(checked))
        }
        print("warm lookups in glibc's stored index, best of 7 alternating rounds: \(Int(withoutChecks.max()!)) per second "
              + "unchecked, \(Int(withChecks.max()!)) per second with block checks")
    }
}

/// Points every array of an index at the same memory, without block checks.
private struct Unchecking: IndexSectionVisitor {
    mutating func visit<Element: BitwiseCopyable>(_ kind: UInt32, _ array: inout FlatArray<Element>) {
        guard let base = array.buffer.baseAddress else { return }
        array = FlatArray(start: UnsafeRawPointer(base), count: array.count, owner: Keeper(array))
    }
}

/// Keeps the checked array, and so the mapping, alive for the unchecked one.
private final class Keeper<Value> {
    let value: Value
    init(_ value: Value) { self.value = value }
}
