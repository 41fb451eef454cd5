import CDwarf
@testable import DebugInfo
import TestSupport
import XCTest

/// A ``SortedRange`` keeps a range's end and the running maximum of ends as 32-bit distances
/// from its start: every range shorter than 4 GiB round-trips, and the tables keep only such
/// ranges of functions (an empty, inverted or 4 GiB one holds no function's code).
final class SortedRangeTests: XCTestCase {
    func testRangesShorterThan4GiBRoundTrip() {
        var random = SplitMix64(seed: 24)
        let lengths: [UInt64] = [1, 2, 0xFFFF, 0x1_0000, UInt64(UInt32.max) - 1, UInt64(UInt32.max)]
        for k in 0..<5_000 {
            let low = k % 3 == 0 ? UInt64.max - UInt64(UInt32.max) * 2 + random.next() % 1000 : random.next() >> (random.next() % 64)
            let length = k < lengths.count ? lengths[k] : 1 + random.next() % UInt64(UInt32.max)
            guard low <= UInt64.max - UInt64(UInt32.max) else { continue }
            let high = low + length
            let maxHigh = high + random.next() % (UInt64(UInt32.max) - length + 1)
            XCTAssertTrue(SortedRange.fits(low: low, high: high))
            var range = SortedRange(low: low, high: high, maxHigh: maxHigh, first: Int32(k), end: -Int32(k))
            XCTAssertEqual([range.low, range.high, range.maxHigh], [low, high, maxHigh])
            XCTAssertEqual([range.first, range.end], [Int32(k), -Int32(k)])
            range.maxHigh = high
            XCTAssertEqual(range.maxHigh, high)
        }
        XCTAssertEqual(MemoryLayout<SortedRange>.stride, 24)
        for (low, high) in [(0x1000, 0x1000), (0x2000, 0x1000), (0, 1 << 32), (5, 5 + (1 << 32) + 7), (0, UInt64.max)] as [(UInt64, UInt64)] {
            XCTAssertFalse(SortedRange.fits(low: low, high: high), "\(low)..<\(high)")
        }
    }

    /// Of a function's ranges, the tables keep those that can hold an address and are shorter
    /// than 4 GiB, each once, sorted, with the running maximum of their ends.
    func testTheTablesKeepTheRangesAFunctionCanHave() {
        let strings = Array("\0small\0huge\0big\0inner\0".utf8)
        func function(_ name: Int, firstRange: Int, count: Int, offset: UInt64) -> cdw_function {
            cdw_function(offset: offset, origin: .max, specification: .max, name: UInt32(name),
                         linkage_name: 0, parent: -1, call_file: 0, call_line: 0, call_column: 0,
                         first_range: UInt32(firstRange), range_count: UInt32(count), tag: UInt32(CDW_TAG_SUBPROGRAM))
        }
        let ranges: [cdw_range] = [
            cdw_range(low: 0x1000, high: 0x1100),                                     // small
            cdw_range(low: 0x2000, high: 0x2000 + (1 << 32)),                         // huge: 4 GiB, left out
            cdw_range(low: 0x3000, high: 0x3000),                                     // huge: empty, left out
            cdw_range(low: 0x5000, high: 0x4000),                                     // huge: inverted, left out
            cdw_range(low: 0x8000, high: 0x8010),                                     // huge: kept
            cdw_range(low: 0x10_0000, high: 0x10_0000 + UInt64(UInt32.max)),          // big: just under 4 GiB
            cdw_range(low: 0x20_0000, high: 0x20_0100),                               // inner, inside big
        ]
        let raw = RawDWARF(functions: [function(1, firstRange: 0, count: 1, offset: 0x10),
                                       function(7, firstRange: 1, count: 4, offset: 0x20),
                                       function(12, firstRange: 5, count: 1, offset: 0x30),
                                       function(16, firstRange: 6, count: 1, offset: 0x40)],
                           ranges: FlatArray(ranges), rows: FlatArray(), files: [0], strings: strings, problem: nil)
        let tables = SymbolIndex.Tables(raw)
        XCTAssertTrue(tables.isWellFormed)
        let kept = tables.concrete.map { [$0.low, $0.high, $0.maxHigh] }
        XCTAssertEqual(kept, [[0x1000, 0x1100, 0x1100], [0x8000, 0x8010, 0x8010],
                              [0x10_0000, 0x10_0000 + UInt64(UInt32.max), 0x10_0000 + UInt64(UInt32.max)],
                              [0x20_0000, 0x20_0100, 0x10_0000 + UInt64(UInt32.max)]])
        let names = tables.concrete.map { range -> String in
            let block = FunctionBlock(tables.functionBytes, start: Int(range.first), end: Int(range.end))
            return block.flatMap { tables.strings.cString(at: $0.name) } ?? "?"
        }
        XCTAssertEqual(names, ["small", "huge", "big", "inner"])
    }
}
