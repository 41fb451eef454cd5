@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

/// The compact encodings of the index: LEB128 integers, line rows in blocks, function blocks.
/// Their answers on real DWARF are compared with llvm-symbolizer by OracleTests; here, every
/// value round-trips, and bytes that are not what the writer wrote never make a read go
/// outside them.
final class CompactIndexTests: XCTestCase {
    func testLEB128RoundTripsAndItsLengths() {
        let unsigned: [UInt64] = [0, 1, 127, 128, 255, 16_383, 16_384, UInt64(UInt32.max), UInt64.max - 1, UInt64.max]
        let signed: [Int64] = [0, 1, -1, 63, 64, -64, -65, 8191, -8192, Int64.max, Int64.min, Int64(Int32.min)]
        var generator = SplitMix64(seed: 13)
        var writer = LEB128Writer()
        var wantedUnsigned = unsigned, wantedSigned = signed
        for _ in 0..<2000 {
            let bits = generator.next() % 64
            wantedUnsigned.append(generator.next() >> bits)
            wantedSigned.append(Int64(bitPattern: generator.next()) >> bits)
        }
        for value in wantedUnsigned { writer.unsigned(value) }
        for value in wantedSigned { writer.signed(value) }
        writer.word(0xdead_beef)
        let bytes = writer.bytes
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = LEB128Cursor(buffer.baseAddress!, position: 0, end: buffer.count)
            for value in wantedUnsigned { XCTAssertEqual(cursor.unsigned(), value) }
            for value in wantedSigned { XCTAssertEqual(cursor.signed(), value) }
            XCTAssertEqual(cursor.word(), 0xdead_beef)
            XCTAssertFalse(cursor.failed)
            XCTAssertTrue(cursor.atEnd)
        }
        func length(_ value: UInt64) -> Int {
            var w = LEB128Writer()
            w.unsigned(value)
            return w.count
        }
        func length(signed value: Int64) -> Int {
            var w = LEB128Writer()
            w.signed(value)
            return w.count
        }
        XCTAssertEqual([0, 127, 128, 16_383, 16_384, UInt64.max].map { length($0) }, [1, 1, 2, 2, 3, 10])
        XCTAssertEqual([0, 63, 64, -64, -65, Int64.min].map { length(signed: $0) }, [1, 1, 2, 1, 2, 10])
    }

    /// A copy of a writer is a writer of its own: what one writes after the copy, the other
    /// does not see, and what is taken stays as it was.
    func testLEB128WritersCopiedWriteApart() {
        var first = LEB128Writer(capacity: 16)
        first.unsigned(300)
        var second = first
        second.unsigned(1)
        first.unsigned(2)
        first.byte(0xaa)
        XCTAssertEqual(first.bytes, [0xac, 0x02, 0x02, 0xaa])
        XCTAssertEqual(second.bytes, [0xac, 0x02, 0x01])
        for k in 0..<100 { second.unsigned(UInt64(k) << 20) }
        let taken = second.take()
        XCTAssertEqual(first.bytes, [0xac, 0x02, 0x02, 0xaa])
        XCTAssertEqual(Array(taken.prefix(3)), [0xac, 0x02, 0x01])
        XCTAssertEqual(second.count, 0)
        second.byte(7)
        XCTAssertEqual(Array(taken.prefix(3)), [0xac, 0x02, 0x01], "the table taken is not written again")
    }

    /// A cut integer, one of eleven bytes, a word with three bytes left: each fails, gives 0,
    /// and so does every read after it.
    func testLEB128CursorStopsAtItsEnd() {
        let cases: [(bytes: [UInt8], read: (inout LEB128Cursor) -> UInt64)] = [
            ([0x80, 0x80], { $0.unsigned() }),
            ([0xff], { UInt64(bitPattern: $0.signed()) }),
            ([UInt8](repeating: 0xff, count: 10) + [0x01], { $0.unsigned() }),
            ([UInt8](repeating: 0x80, count: 11) + [0x00], { UInt64(bitPattern: $0.signed()) }),
            ([1, 2, 3], { UInt64($0.word()) }),
            ([], { UInt64($0.byte()) }),
        ]
        for (n, test) in cases.enumerated() {
            // Room past the end, holding what would be a valid integer: never read.
            let memory = test.bytes + [0x05, 0x05, 0x05, 0x05]
            memory.withUnsafeBufferPointer { buffer in
                var cursor = LEB128Cursor(buffer.baseAddress!, position: 0, end: test.bytes.count)
                XCTAssertEqual(test.read(&cursor), 0, "case \(n)")
                XCTAssertTrue(cursor.failed, "case \(n)")
                XCTAssertEqual(cursor.unsigned(), 0, "case \(n)")
                XCTAssertEqual(cursor.remaining, 0, "case \(n)")
                XCTAssertTrue(cursor.atEnd, "case \(n)")
            }
        }
        [UInt8]([1, 2]).withUnsafeBufferPointer { buffer in
            var cursor = LEB128Cursor(buffer.baseAddress!, position: 1, end: 2)
            cursor.move(to: 0, notBefore: 1)
            XCTAssertTrue(cursor.failed, "a move before the start")
            XCTAssertTrue(LEB128Cursor(buffer.baseAddress!, position: 3, end: 2).failed, "a start past the end")
        }
    }

    /// Sequences of random rows (x86-like and arm64-like address steps, line jumps of every
    /// size, files and columns that change or not) encoded into blocks: the row found for
    /// every address is the one a binary search of the plain rows finds.
    func testLineRowsAnswerAsThePlainRowsDo() {
        var generator = SplitMix64(seed: 7)
        for unit in [1, 4] as [UInt64] {
            var tables = SymbolIndex.Tables()
            var blocks: [LineBlock] = [], writer = LEB128Writer()
            var sequences: [(range: SortedRange, offsets: [UInt32], rows: [LineRow])] = []
            var low: UInt64 = 0x10_0000
            for length in [1, 2, 31, 32, 33, 64, 65, 1000] {
                var offsets: [UInt32] = [], rows: [LineRow] = []
                var offset: UInt32 = 0, line: Int64 = 1 + Int64(generator.next() % 100)
                var previous: LineRow?
                while rows.count < length {
                    let jump = generator.next() % 10
                    line = max(0, line + (jump < 4 ? Int64(generator.next() % 3) - 1 : jump < 8 ? Int64(generator.next() % 200) - 100
                                          : Int64(generator.next() % 200_000) - 100_000))
                    let row = LineRow(file: UInt32(generator.next() % 4 == 0 ? generator.next() % 300 : 1), line: UInt32(line),
                                      column: UInt32(generator.next() % 2 == 0 ? 5 : generator.next() % 500))
                    if row == previous { continue }
                    offsets.append(offset)
                    rows.append(row)
                    previous = row
                    offset += UInt32(unit * (1 + (generator.next() % 8 == 0 ? generator.next() % 100_000 : generator.next() % 12)))
                }
                let first = blocks.count
                XCTAssertTrue(LineRows.append(rows.count, offset: { offsets[$0] }, row: { rows[$0] }, to: &blocks, bytes: &writer))
                let high = low + UInt64(offset)
                sequences.append((SortedRange(low: low, high: high, maxHigh: high, first: Int32(first), end: Int32(blocks.count)),
                                  offsets, rows))
                low = high + 0x1000
            }
            tables.lineBlocks = FlatArray(blocks)
            tables.lineBytes = writer.take()
            tables.files = FlatArray([UInt32](repeating: 0, count: 300))
            tables.sequences = FlatArray(sequences.map(\.range))
            XCTAssertTrue(tables.lineRowsAreWellFormed)
            let plainBytes = sequences.reduce(0) { $0 + 16 * $1.rows.count }
            XCTAssertLessThan(tables.lineBytes.count + 8 * tables.lineBlocks.count, plainBytes / 3, "unit \(unit)")
            for (range, offsets, rows) in sequences {
                var addresses: [UInt64] = [range.low, range.high - 1]
                for offset in offsets { addresses += [range.low + UInt64(offset), range.low + UInt64(offset) + 1] }
                for _ in 0..<200 { addresses.append(range.low + generator.next() % (range.high - range.low)) }
                for address in addresses where address < range.high {
                    let target = address - range.low
                    let wanted = offsets.lastIndex { UInt64($0) <= target }.map { rows[$0] }
                    XCTAssertEqual(tables.lineRow(inSequence: range, at: address), wanted,
                                   "unit \(unit), \(rows.count) rows, offset \(target)")
                }
            }
        }
    }

    /// Line and function blocks made of random bytes, and real blocks with bytes changed:
    /// every decode ends without a trap or a hang, and the checks of a fresh index turn most
    /// of them down. (That no read leaves the bytes, the fuzz target `index_file` checks
    /// under AddressSanitizer.)
    func testBlocksOfArbitraryBytesAreReadWithinThem() throws {
        var generator = SplitMix64(seed: 21)
        var blocks: [LineBlock] = [], writer = LEB128Writer()
        let rows = (0..<40).map { (i: Int) -> LineRow in LineRow(file: UInt32(i % 3), line: UInt32(10 + 7 * i), column: UInt32(i)) }
        XCTAssertTrue(LineRows.append(rows.count, offset: { UInt32($0 * 4) }, row: { rows[$0] }, to: &blocks, bytes: &writer))
        let real = writer.bytes
        var rejected = 0
        for round in 0..<3000 {
            var bytes = real
            if round % 2 == 1 {
                let count = Int(1 + generator.next() % 200)
                bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            }
            for _ in 0..<Int(1 + generator.next() % 4) {
                bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            var tables = SymbolIndex.Tables()
            tables.lineBytes = FlatArray(bytes)
            tables.lineBlocks = FlatArray(round % 2 == 0 ? blocks : [LineBlock(offset: 0, position: 0)])
            tables.files = FlatArray([0, 0, 0] as [UInt32])
            let range = SortedRange(low: 0x1000, high: 0x1000 + 200, maxHigh: 0x1000 + 200, first: 0, end: Int32(tables.lineBlocks.count))
            tables.sequences = FlatArray([range])
            if !tables.lineRowsAreWellFormed { rejected += 1 }
            for address in stride(from: UInt64(0x1000), to: 0x1000 + 200, by: 3) { _ = tables.lineRow(inSequence: range, at: address) }

            let functionBytes = FlatArray(bytes)
            if let block = FunctionBlock(functionBytes, start: 0, end: bytes.count) {
                for address in [block.lowest, block.lowest &+ 1, block.lowest &+ 100, 0, UInt64.max] {
                    _ = block.start(address: address)
                    if let call = block.deepestCall(at: address) { _ = block.call(at: call, address: address) }
                }
                for position in 0..<bytes.count { _ = block.call(at: position, address: block.lowest) }
            }
            _ = FunctionBlock.isWellFormed(functionBytes, start: 0, end: bytes.count, stringCount: 10, fileCount: 3)
        }
        XCTAssertGreaterThan(rejected, 1000, "most changed blocks are turned down by the checks of a fresh index")
    }
}
