@testable import DebugInfo
import TestSupport
import XCTest

/// A symbol-table record is 16 bytes: its extent is kept as a 32-bit size. Every extent
/// shorter than 4 GiB round-trips; a longer one is cut to 4 GiB less a byte, and one that
/// ends before it starts holds nothing. The source files of ELF local symbols are kept beside
/// the records, only when some symbol has one.
final class SymbolRecordTests: XCTestCase {
    func testExtentsRoundTripOrAreCut() {
        XCTAssertEqual(MemoryLayout<SymbolTable.Record>.stride, 16)
        var random = SplitMix64(seed: 16)
        for _ in 0..<5_000 {
            let address = random.next() >> (random.next() % 64)
            let size = random.next() % (UInt64(UInt32.max) + 1)
            guard address <= UInt64.max - size else { continue }
            let record = SymbolTable.Record(address: address, end: address + size, name: 7)
            XCTAssertEqual([record.address, record.end, UInt64(record.name)], [address, address + size, 7])
        }
        XCTAssertEqual(SymbolTable.Record(address: 0x1000, end: UInt64.max, name: 1).end, 0x1000 + UInt64(UInt32.max))
        XCTAssertEqual(SymbolTable.Record(address: 0x1000, end: 0x1000 + (1 << 32), name: 1).end, 0x1000 + UInt64(UInt32.max))
        XCTAssertEqual(SymbolTable.Record(address: 0x2000, end: 0x1000, name: 1).end, 0x2000, "an inverted extent holds nothing")
    }

    func testFilesAreKeptOnlyWhenASymbolHasOne() {
        let strings = Array("\0main\0helper\0".utf8)
        let table = SymbolTable(machOEntries: [.init(address: 0x1000, end: 0x1010, name: 1),
                                               .init(address: 0x2000, end: 0x2010, name: 6)], strings: strings)
        XCTAssertTrue(table.files.isEmpty)
        XCTAssertEqual(table.file(at: 1), 0)
        XCTAssertEqual(table.lookup(0x2004)?.name, "helper")
        XCTAssertNil(table.lookup(0x2004)?.file)
        XCTAssertEqual(table.position(containing: 0x2004), 1)
        XCTAssertNil(table.position(containing: 0x2010))
        XCTAssertTrue(table.hasConsistentShape)
    }

    /// gcc's ELF tables name each local function's source file (the STT_FILE symbol before
    /// it, as `readelf` lists them): the table says the same file for each.
    func testTheFilesOfELFLocalSymbolsAreThoseBeforeThem() throws {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        let path = fixtures.appendingPathComponent("elf/app-gcc-dwarf4").path
        let listing = try runProcess("/usr/bin/readelf", ["-sW", path])
        var expected: [UInt64: String] = [:], seen: [UInt64: Int] = [:], file = ""
        for line in listing.stdoutText.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 8, fields[0].hasSuffix(":"), let value = UInt64(fields[1], radix: 16) else { continue }
            if fields[3] == "FILE" { file = String(fields[7]) }
            guard fields[3] == "FUNC", fields[6] != "UND" else { continue }
            seen[value, default: 0] += 1
            if fields[4] == "LOCAL" { expected[value] = file }
        }
        let object = try XCTUnwrap(DebugFile.identify(path: path).first)
        let mapped = try MappedFile(path: object.path)
        let table = try mapped.reading { SymbolTable(try ObjectLayout(object, in: mapped), of: object, in: mapped) }
        XCTAssertFalse(table.files.isEmpty)
        var checked = 0
        for (address, name) in expected where seen[address] == 1 {
            let position = try XCTUnwrap((0..<table.count).first { table[$0].address == address }, "no symbol at \(address)")
            XCTAssertEqual(table.string(table.file(at: position)), name, "at 0x\(String(address, radix: 16))")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 3, "fixture problem: few local functions")
    }
}
