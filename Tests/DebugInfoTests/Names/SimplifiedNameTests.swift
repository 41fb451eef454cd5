import DebugInfo
import Foundation
import TestSupport
import XCTest

/// Names in the Swift runtime's simplified style, as its backtracer prints them, next to the
/// full style of llvm-symbolizer, from one index.
final class SimplifiedNameTests: XCTestCase {
    func testSimplifiedStyleIsTheBacktracersSpelling() {
        XCTAssertEqual(Demangler.demangle("$s1c5crashySiSaySiGF", style: .simplified), "crash(_:)")
        XCTAssertEqual(Demangler.demangle("$s1c5crashySiSaySiGF", style: .full),
                       "c.crash(Swift.Array<Swift.Int>) -> Swift.Int")
        XCTAssertEqual(Demangler.demangle("$s1c3BoxV3runyS2ixXEF", style: .simplified), "Box.run(_:)")
        XCTAssertEqual(Demangler.demangle("_ZN6ledger6Ledger7balanceEi", style: .simplified),
                       "ledger::Ledger::balance(int)")
        XCTAssertEqual(Demangler.demangle("main", style: .simplified), "main")
        XCTAssertEqual(Demangler.demangle("$s", style: .simplified), "$s")
    }

    func testHostileNamesStayBounded() {
        let long = "$s" + String(repeating: "1a", count: Demangler.maximumMangledLength)
        XCTAssertEqual(Demangler.demangle(long, style: .simplified), long)
    }

    /// One index asked in both styles answers each in its own: the cache of demangled names
    /// keeps them apart.
    func testOneIndexAnswersBothStyles() throws {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        let path = fixtures.appendingPathComponent("elf/swift-shapes").path
        guard let file = try DebugFile.identify(path: path).first(where: \.hasDWARF) else {
            return XCTFail("\(path) has no DWARF")
        }
        let index = try SymbolIndex.build(file)
        var compared = 0
        for symbol in try swiftFunctions(path).prefix(20) {
            guard let full = index.lookup(symbol, style: .full).last?.function,
                  let simple = index.lookup(symbol, style: .simplified).last?.function,
                  let again = index.lookup(symbol, style: .full).last?.function else { continue }
            XCTAssertEqual(full, again)
            XCTAssertLessThanOrEqual(simple.utf8.count, full.utf8.count)
            if simple != full { compared += 1 }
        }
        XCTAssertGreaterThan(compared, 0, "no Swift function of \(path) has a simplified name shorter than its full one")
    }

    /// The addresses of the Swift functions in the symbol table of the ELF file at `path`.
    private func swiftFunctions(_ path: String) throws -> [UInt64] {
        let result = try runProcess("/usr/bin/nm", [path])
        return result.stdoutText.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[1] == "T" || fields[1] == "t", fields[2].hasPrefix("$s") else { return nil }
            return UInt64(fields[0], radix: 16)
        }
    }
}
