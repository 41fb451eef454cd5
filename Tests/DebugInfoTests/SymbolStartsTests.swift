@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

/// `startsOfSymbols(named:)`, the set a batch asks of every frame (is it a signal
/// trampoline?), says what `symbolName(startingAt:)` says, at every symbol of the table and
/// next to it: on glibc's debug file (which has `__restore_rt`) and on Mach-O files, whose
/// names carry the underscore C drops.
final class SymbolStartsTests: XCTestCase {
    func testStartsAgreeWithTheNameAtEachAddress() throws {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        var files = [
            fixtures.appendingPathComponent("macho/App-arm64").path,
            fixtures.appendingPathComponent("macho/App-universal").path,
            fixtures.appendingPathComponent("elf/app-gcc-dwarf4").path,
        ].flatMap { (try? DebugFile.identify(path: $0)) ?? [] }
        if case .success(let glibc) = OracleTests.systemLibcDebugFile() { files.append(glibc) }
        XCTAssertGreaterThanOrEqual(files.count, 4)
        var trampolinesSeen = 0
        for file in files {
            let index = try SymbolIndex.build(file)
            let records = (0..<index.symbols.count).map { index.symbols[$0] }
            XCTAssertFalse(records.isEmpty, file.path)
            // Trampoline names, and names the table has (every 50th), some with an underscore.
            var names: Set<String> = ["__restore_rt", "__restore", "_sigtramp", "sigreturn", "__kernel_rt_sigreturn"]
            for k in stride(from: 0, to: records.count, by: 50) {
                if let name = index.symbolName(startingAt: records[k].address) { names.insert(name) }
            }
            let starts = index.startsOfSymbols(named: names)
            XCTAssertEqual(index.startsOfSymbols(named: names), starts, "asked again")
            for record in records {
                for address in [record.address, record.address &+ 1, record.address &- 1] {
                    let name = index.symbolName(startingAt: address)
                    XCTAssertEqual(starts.contains(address), name.map { names.contains($0) } ?? false,
                                   "\(file.path) 0x\(String(address, radix: 16)) \(name ?? "-")")
                }
            }
            if index.symbolName(startingAt: starts.first { index.symbolName(startingAt: $0) == "__restore_rt" } ?? 0) == "__restore_rt" {
                trampolinesSeen += 1
            }
        }
        if case .success = OracleTests.systemLibcDebugFile() {
            XCTAssertEqual(trampolinesSeen, 1, "glibc's __restore_rt is found")
        }
    }
}
