@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

/// `SymbolTable.starts(ofSymbolsNamed:)`, which finds a table's signal trampolines once, finds
/// the addresses `name(startingAt:)` names so, symbol by symbol: for glibc's table (which has
/// `__restore_rt`) and the fixtures', asked for the trampolines' names and for names the table
/// has, and for names that are the tail of another string.
final class SymbolStartsTests: XCTestCase {
    /// The C names of the signal trampolines (`SignalTrampoline.names`).
    private static let trampolines: Set<String> = [
        "__restore_rt", "__restore", "__kernel_rt_sigreturn", "__kernel_sigreturn", "__vdso_rt_sigreturn",
        "__sigreturn", "sigreturn", "__default_rt_sa_restorer", "__default_sa_restorer", "_sigtramp",
    ]

    /// The starts of symbols named one of `names`, asked symbol by symbol.
    private func bySearch(_ table: SymbolTable, _ names: Set<String>) -> [UInt64] {
        table.records.compactMap { record in
            table.name(startingAt: record.address).flatMap { names.contains($0) ? record.address : nil }
        }
    }

    private func tables() throws -> [(String, SymbolTable)] {
        var files: [DebugFile] = []
        if case .success(let libc) = SymbolizerOracle.systemLibcDebugFile() { files.append(libc) }
        if let fixtures = TestPaths.fixtures {
            for name in ["elf/app-gcc-dwarf4", "elf/libgreeter.so", "elf/swift-shapes", "macho/App-arm64",
                         "macho/App-universal"] {
                files += (try? DebugFile.identify(path: fixtures.appendingPathComponent(name).path)) ?? []
            }
        }
        guard !files.isEmpty else { throw XCTSkip("no glibc debug file and \(TestPaths.fixturesAbsent)") }
        return try files.map { file in
            let mapped = try MappedFile(path: file.path)
            let table = try mapped.reading { SymbolTable(try ObjectLayout(file, in: mapped), of: file, in: mapped) }
            return ("\(file.path) [\(file.architecture?.name ?? "?")]", table)
        }
    }

    func testStartsAreWhereASearchFindsTheNames() throws {
        var generator = SplitMix64(seed: 0x5715)
        var trampolinesFound = 0
        for (label, table) in try tables() {
            XCTAssertFalse(table.isEmpty, label)
            let found = table.starts(ofSymbolsNamed: Self.trampolines)
            XCTAssertEqual(found, bySearch(table, Self.trampolines), label)
            trampolinesFound += found.count
            // Names the table has: a few, taken at random.
            var names = Set<String>()
            for _ in 0..<5 {
                let record = table.records[Int(generator.next() % UInt64(table.count))]
                if let name = table.cName(record.name), !name.isEmpty { names.insert(name) }
            }
            XCTAssertFalse(table.starts(ofSymbolsNamed: names).isEmpty, label)
            XCTAssertEqual(table.starts(ofSymbolsNamed: names), bySearch(table, names), label)
        }
        if case .success = SymbolizerOracle.systemLibcDebugFile() {
            XCTAssertGreaterThan(trampolinesFound, 0, "glibc's __restore_rt is not found")
        }
    }

    /// A name that is the tail of another string (a table made elsewhere, as a dyld shared
    /// cache's images are, may share tails) is found too.
    func testANameThatIsTheTailOfAnotherStringIsFound() {
        // "\0x__sigtramp\0" with a symbol named from its third byte ("__sigtramp": "_sigtramp"
        // in C), and one named by the whole string.
        let strings: [UInt8] = [0] + Array("x__sigtramp".utf8) + [0]
        let table = SymbolTable(machOEntries: [.init(address: 0x1000, end: 0x1010, name: 2),
                                               .init(address: 0x2000, end: 0x2010, name: 1)], strings: strings)
        XCTAssertEqual(table.starts(ofSymbolsNamed: ["_sigtramp"]), [0x1000])
        XCTAssertEqual(table.starts(ofSymbolsNamed: ["x__sigtramp"]), [0x2000])
        XCTAssertEqual(table.starts(ofSymbolsNamed: ["sigtramp"]), [])
        XCTAssertEqual(bySearch(table, ["_sigtramp"]), [0x1000])
    }
}
