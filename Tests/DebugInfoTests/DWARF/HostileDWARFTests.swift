@testable import DebugInfo
@testable import DebugInfoTestSupport
import Foundation
import TestSupport
import XCTest

/// DWARF made to cost work or memory out of proportion to its size: parts many units or DIEs
/// point at (a line program, an abbreviation table, a range list, a string), abbreviations of
/// huge codes or of many attributes. Each is read in time and memory in proportion to its
/// bytes, and the same on one thread and on two.
final class HostileDWARFTests: XCTestCase {
    private typealias A = DWARFAssembler
    private typealias Sections = [(name: String, bytes: [UInt8])]

    /// A DWARF 4 unit of `dies` with its abbreviations at `abbrevOffset` (``DWARFAssembler``).
    private func unit(abbrevOffset: UInt32 = 0, _ dies: [UInt8]) -> [UInt8] { A.unit(abbrevOffset: abbrevOffset, dies) }

    private func abbrev(_ code: UInt64, tag: UInt64, children: Bool, _ specs: [(UInt64, UInt64)]) -> [UInt8] {
        A.abbreviation(code, tag: tag, children: children, specs)
    }

    /// Reads `sections` on 1 and 2 threads, each within `seconds` of CPU per thread (CPU time,
    /// not the time on the wall, which a loaded machine stretches); the readings must agree.
    @discardableResult
    private func readInTime(_ sections: Sections, seconds: Double, _ label: String,
                            file: StaticString = #filePath, line: UInt = #line) throws -> CanonicalDWARF {
        var readings: [CanonicalDWARF] = []
        for threads: UInt32 in [1, 2] {
            let (read, elapsed) = try CPUTime.ofProcess { try A.read(sections, threads: threads) }
            print("HostileDWARFTests: \(label) on \(threads) thread(s): \(String(format: "%.3f", elapsed)) s of CPU, "
                  + "\(read.rows.count) rows, \(read.ranges.count) ranges, \(read.functions.count) functions")
            XCTAssertLessThan(elapsed, seconds * Double(threads), "\(label) on \(threads) thread(s), seconds of CPU",
                              file: file, line: line)
            readings.append(CanonicalDWARF(read))
        }
        if let difference = readings[0].difference(from: readings[1]) {
            XCTFail("\(label): 1 and 2 threads differ: \(difference)", file: file, line: line)
        }
        return readings[0]
    }

    // MARK: - Line programs

    /// Many units naming one long line program: it is read once, not once per unit.
    func testALineProgramManyUnitsNameIsReadOnce() throws {
        var program = A.Bytes()
        program.u8(0); program.uleb(9); program.u8(2); program.u64(0x1000)
        for _ in 0..<5_000 { program.u8(0x20) }  // a special opcode: a row each
        program.u8(0); program.uleb(1); program.u8(1)
        let table = A.lineTable4(files: ["a.c"], program: program.data)
        var info: [UInt8] = []
        for i in 0..<2_000 { info += A.unit(name: "u\(i).c", lineOffset: 0, functions: [("f\(i)", 0x1000 + UInt64(i), 1)]) }
        let read = try readInTime([(".debug_info", info), (".debug_abbrev", A.abbrev), (".debug_line", table)],
                                  seconds: 2, "2000 units naming one line program of 5000 rows")
        XCTAssertNil(read.problem)
        XCTAssertEqual(read.rows.count, 5_001)
        XCTAssertEqual(read.functions.count, 2_000)
    }

    /// The units sharing a line program agree with libdwarf, the reference, which reads it for
    /// the first unit that names it (a unit with code before a type unit).
    func testASharedLineProgramAgreesWithTheReference() throws {
        let first = A.lineTable4(files: ["a.c", "b.c"], program: A.program())
        let second = A.lineTable4(files: ["c.c"], program: A.program(file: 1))
        let info = A.unit(name: "a", lineOffset: 0, functions: [("f", 0x1000, 4)])
            + A.unit(name: "b", lineOffset: UInt32(first.count), functions: [("g", 0x2000, 4)])
            + A.unit(name: "c", lineOffset: 0, functions: [("h", 0x3000, 4)])
        let sections: Sections = [(".debug_info", info), (".debug_abbrev", A.abbrev), (".debug_line", first + second)]
        let reference = CanonicalDWARF(try A.read(sections, libdwarf: true))
        XCTAssertEqual(reference.rows.count, 6)
        for threads: UInt32 in [1, 2] {
            let fast = CanonicalDWARF(try A.read(sections, threads: threads))
            XCTAssertNil(fast.difference(from: reference), "\(threads) thread(s)")
        }
    }

    /// A shared line program that cannot be read takes every unit naming it out of the result.
    func testADamagedSharedLineProgramSkipsEveryUnitNamingIt() throws {
        var damaged = A.program()
        damaged.removeLast(3)
        damaged += [0, 0x7f, 1]  // an extended opcode longer than what is left
        let first = A.lineTable4(files: ["a.c"], program: damaged)
        let second = A.lineTable4(files: ["b.c"], program: A.program())
        let info = A.unit(name: "a", lineOffset: 0, functions: [("f", 0x1000, 4)])
            + A.unit(name: "b", lineOffset: UInt32(first.count), functions: [("g", 0x2000, 4)])
            + A.unit(name: "c", lineOffset: 0, functions: [("h", 0x3000, 4)])
        let read = try readInTime([(".debug_info", info), (".debug_abbrev", A.abbrev), (".debug_line", first + second)],
                                  seconds: 2, "a damaged shared line program")
        XCTAssertEqual(read.problem?.hasPrefix("compile unit at 0x0:"), true, read.problem ?? "no problem")
        XCTAssertEqual(read.functions.map(\.name), ["g"])
        XCTAssertEqual(read.rows.count, 3)
    }

    // MARK: - Abbreviations

    /// `count` abbreviations of codes from `firstCode` (base types, no attributes), after a
    /// compile unit of code 1 and before the table's end.
    private func longTable(count: Int, firstCode: UInt64 = 3) -> [UInt8] {
        var table = abbrev(1, tag: 0x11, children: true, [])
        for i in 0..<count { table += abbrev(firstCode + UInt64(i), tag: 0x24, children: false, []) }
        return table + [0]
    }

    /// Units alternating between two long abbreviation tables: each is decoded once.
    func testUnitsAlternatingBetweenTablesDecodeEachOnce() throws {
        let table = longTable(count: 6_000)
        var info: [UInt8] = []
        for i in 0..<6_000 { info += unit(abbrevOffset: i % 2 == 0 ? 0 : UInt32(table.count), [1, 3, 0]) }
        let read = try readInTime([(".debug_info", info), (".debug_abbrev", table + table)], seconds: 1.5,
                                  "6000 units alternating between two tables of 6000 abbreviations")
        XCTAssertNil(read.problem)
    }

    /// Units each pointing into the middle of one long table (each offset a table of its own):
    /// what is decoded is bounded by the section, the units past that bound are damaged.
    func testUnitsPointingIntoOneLongTableAreBounded() throws {
        var table: [UInt8] = []
        var offsets: [UInt32] = []
        for _ in 0..<6_000 {
            offsets.append(UInt32(table.count))
            table += abbrev(1, tag: 0x11, children: false, [])  // code 1 again: the first one wins
        }
        table.append(0)
        let info = offsets.flatMap { unit(abbrevOffset: $0, [1]) }
        let read = try readInTime([(".debug_info", info), (".debug_abbrev", table)], seconds: 1.5,
                                  "6000 units pointing into one table of 6000 abbreviations")
        XCTAssertNotNil(read.problem)
    }

    /// Abbreviation codes past any direct index are found by a search, not one by one.
    func testLargeAbbreviationCodesAreFoundQuickly() throws {
        let count = 20_000
        let table = longTable(count: count, firstCode: 1 << 20)
        var dies = A.Bytes()
        dies.u8(1)
        for _ in 0..<50_000 { dies.uleb((1 << 20) + UInt64(count - 1)) }
        dies.u8(0)
        let read = try readInTime([(".debug_info", unit(dies.data)), (".debug_abbrev", table)], seconds: 1,
                                  "50000 DIEs of the last of 20000 codes above 2^20")
        XCTAssertNil(read.problem)
    }

    /// A function abbreviation of many attributes of no bytes: a DIE costs its bytes, not its
    /// abbreviation's length.
    func testAttributesOfNoBytesCostNothingPerDIE() throws {
        // DW_AT_external (0x3f) as DW_FORM_flag_present (0x19), many times, then DW_AT_name.
        let passed = [(UInt64, UInt64)](repeating: (0x3f, 0x19), count: 30_000)
        let table = abbrev(1, tag: 0x11, children: true, []) + abbrev(2, tag: 0x2e, children: false, passed + [(0x03, 0x08)])
            + abbrev(3, tag: 0x34, children: false, passed + [(0x03, 0x08)]) + [0]
        var dies = A.Bytes()
        dies.u8(1)
        for i in 0..<30_000 { dies.u8(i % 2 == 0 ? 2 : 3); dies.string("f") }
        dies.u8(0)
        let read = try readInTime([(".debug_info", unit(dies.data)), (".debug_abbrev", table)], seconds: 1,
                                  "30000 DIEs of 30000 attributes of no bytes")
        XCTAssertNil(read.problem)
        XCTAssertEqual(read.functions.count, 15_000)
    }

    /// An attribute the reader reads, twice in one abbreviation as a value of no bytes (DWARF
    /// allows it once a DIE): one step, the last value, as the reference reads it (and as a
    /// repeated attribute of some bytes is read); the units using the table are read.
    func testARepeatedAttributeOfNoBytesIsReadOnce() throws {
        // Code 2: a subprogram whose DW_AT_call_line comes twice, as DW_FORM_implicit_const 5, then 7.
        let table: [UInt8] = [1, 0x11, 1, 0, 0, 2, 0x2e, 0, 0x59, 0x21, 5, 0x59, 0x21, 7, 0, 0, 0]
        let sections = [(name: ".debug_info", bytes: unit([1, 2, 0])), (name: ".debug_abbrev", bytes: table)]
        let read = try A.read(sections)
        XCTAssertNil(read.problem)
        XCTAssertEqual(read.functions.map(\.call_line), [7])
        XCTAssertEqual(try A.read(sections, libdwarf: true).functions.map(\.call_line), [7])
    }

    /// An abbreviation of many attributes passed by their values (each a step of its own) and
    /// many repeats of an attribute of no bytes that the reader reads: each repeat costs one
    /// step, whatever came before it, not a search of the steps; the last value is read, its
    /// form with it.
    func testRepeatsOfAnAttributeOfNoBytesCostOneStepEach() throws {
        var table = A.Bytes()
        table.bytes(abbrev(1, tag: 0x11, children: true, []))
        table.uleb(2); table.uleb(0x2e); table.u8(0)
        for _ in 0..<40_000 { table.uleb(0x3b); table.uleb(0x08) }  // DW_AT_decl_line, DW_FORM_string
        table.uleb(0x59); table.uleb(0x19)  // DW_AT_call_line, DW_FORM_flag_present: a value of 1
        for i in 0..<40_000 { table.uleb(0x59); table.uleb(0x21); table.uleb(UInt64(i % 50)) }  // implicit_const (a signed LEB128: below 64 it reads as written)
        table.u8(0); table.u8(0); table.u8(0)
        var dies = A.Bytes()
        dies.u8(1); dies.u8(2)
        for _ in 0..<40_000 { dies.u8(0) }  // 40,000 empty strings
        dies.u8(0)
        let read = try readInTime([(".debug_info", unit(dies.data)), (".debug_abbrev", table.data)], seconds: 1,
                                  "40000 passed attributes and 40000 repeats of one of no bytes")
        XCTAssertNil(read.problem)
        XCTAssertEqual(read.functions.map(\.callLine), [UInt32(39_999 % 50)])
    }

    /// Inlined calls nested as deep as a unit's bytes allow, all holding one address: the walk
    /// reads every level, and a lookup there answers with at most
    /// ``SymbolIndex/maximumInlineDepth`` frames, not one per level.
    func testInlinedCallsNestedThousandsDeepAnswerWithABoundedChain() throws {
        // Code 2: a subprogram (low_pc, high_pc) with children; 3: an inlined subroutine
        // (abstract origin: the subprogram; low_pc, high_pc) with children.
        let table = abbrev(1, tag: 0x11, children: true, []) + abbrev(2, tag: 0x2e, children: true, [(0x03, 0x08), (0x11, 0x01), (0x12, 0x07)])
            + abbrev(3, tag: 0x1d, children: true, [(0x31, 0x13), (0x11, 0x01), (0x12, 0x07)]) + [0]
        var dies = A.Bytes()
        dies.u8(1)
        let subprogram = UInt32(11 + 1)  // unit header (11 bytes), the unit DIE's code
        dies.u8(2); dies.string("f"); dies.u64(0x1000); dies.u64(0x100)
        let depth = 3_000
        for _ in 0..<depth { dies.u8(3); dies.u32(subprogram); dies.u64(0x1000); dies.u64(0x10) }
        for _ in 0..<(depth + 2) { dies.u8(0) }
        let raw = try A.read([(".debug_info", unit(dies.data)), (".debug_abbrev", table)])
        XCTAssertNil(raw.problem)
        XCTAssertEqual(raw.functions.count, depth + 1)
        let file = DebugFile(path: "<sections>", format: .elf, architecture: nil, identifier: nil, textVMAddress: 0,
                             sliceOffset: 0, sliceSize: 0, hasDWARF: true)
        let index = try XCTUnwrap(SymbolIndex(file: file, problem: nil, tables: SymbolIndex.Tables(raw),
                                              symbols: SymbolTable(stripsUnderscore: false)))
        let frames = index.lookup(0x1008, demangle: false)
        XCTAssertEqual(frames.count, SymbolIndex.maximumInlineDepth)
        XCTAssertTrue(frames.allSatisfy { $0.function == "f" && $0.inlined }, "\(frames.prefix(3))")
    }

    // MARK: - Range lists and strings

    /// DIEs naming one long range list of base address entries (which add no range): the
    /// entries a unit reads are bounded by its size, whatever they add.
    func testARangeListOfBaseAddressesNamedByManyDIEs() throws {
        var ranges = A.Bytes()
        for i in 0..<UInt64(50_000) { ranges.u64(UInt64.max); ranges.u64(i) }
        ranges.u64(0); ranges.u64(0)
        let table = abbrev(1, tag: 0x11, children: true, []) + abbrev(2, tag: 0x2e, children: false, [(0x55, 0x17)]) + [0]
        var dies = A.Bytes()
        dies.u8(1)
        for _ in 0..<5_000 { dies.u8(2); dies.u32(0) }
        dies.u8(0)
        let read = try readInTime([(".debug_info", unit(dies.data)), (".debug_abbrev", table), (".debug_ranges", ranges.data)],
                                  seconds: 1, "5000 DIEs naming a list of 50000 base addresses")
        XCTAssertNotNil(read.problem)
    }

    /// Many small units each naming one range list of a thousand ranges: the ranges stay in
    /// proportion to the units' bytes. (Which unit reads the list first, and keeps its ranges,
    /// may depend on the threads: no producer's units share a list.)
    func testSmallUnitsNamingALongRangeListAreBounded() throws {
        var ranges = A.Bytes()
        for i in 0..<UInt64(1_000) { ranges.u64(0x1000 + 16 * i); ranges.u64(0x1008 + 16 * i) }
        ranges.u64(0); ranges.u64(0)
        let table = abbrev(1, tag: 0x11, children: true, []) + abbrev(2, tag: 0x2e, children: false, [(0x55, 0x17)]) + [0]
        let info = (0..<3_000).flatMap { _ in unit([1, 2, 0, 0, 0, 0, 0]) }
        for threads: UInt32 in [1, 2] {
            let (read, seconds) = try CPUTime.ofProcess {
                try A.read([(".debug_info", info), (".debug_abbrev", table), (".debug_ranges", ranges.data)], threads: threads)
            }
            XCTAssertLessThan(seconds, 2 * Double(threads), "3000 units of 18 bytes naming a list of 1000 ranges, seconds of CPU")
            XCTAssertLessThanOrEqual(read.ranges.count, 4 * info.count)
            XCTAssertGreaterThanOrEqual(read.ranges.count, 1_000, "the first unit to read the list keeps its ranges")
        }
    }

    /// One function whose range list has far more entries than its unit has bytes (clang's
    /// -fbasic-block-sections=all makes a range per basic block): read whole, the same on one
    /// thread and on two, and as libdwarf reads it. Each entry is read once for its own bytes.
    func testARangeListLongerThanItsUnitIsReadWhole() throws {
        var ranges = A.Bytes()
        for i in 0..<UInt64(2_000) { ranges.u64(0x1000 + 16 * i); ranges.u64(0x1008 + 16 * i) }
        ranges.u64(0); ranges.u64(0)
        let table = abbrev(1, tag: 0x11, children: true, []) + abbrev(2, tag: 0x2e, children: false, [(0x55, 0x17)]) + [0]
        let sections: Sections = [(".debug_info", unit([1, 2, 0, 0, 0, 0, 0])), (".debug_abbrev", table), (".debug_ranges", ranges.data)]
        let read = try readInTime(sections, seconds: 1, "a unit of 18 bytes naming a list of 2000 ranges")
        XCTAssertNil(read.problem)
        XCTAssertEqual(read.ranges.count, 2_000)
        XCTAssertEqual(try A.read(sections, libdwarf: true).ranges.count, 2_000)
    }

    /// Functions nested far deeper than the DIE trees of hand-written code (namespaces 5,000
    /// deep): the walk follows them all the way down, as libdwarf does.
    func testFunctionsNestedThousandsDeepAreRead() throws {
        let table = abbrev(1, tag: 0x11, children: true, []) + abbrev(2, tag: 0x39, children: true, [])
            + abbrev(3, tag: 0x2e, children: false, [(0x03, 0x08)]) + [0]
        var dies = A.Bytes()
        dies.u8(1)
        for _ in 0..<5_000 { dies.u8(2) }
        dies.u8(3); dies.string("deepest")
        for _ in 0..<5_000 { dies.u8(0) }
        dies.u8(0)
        let sections: Sections = [(".debug_info", unit(dies.data)), (".debug_abbrev", table)]
        let read = try readInTime(sections, seconds: 1, "a function in namespaces 5000 deep")
        XCTAssertNil(read.problem)
        XCTAssertEqual(read.functions.count, 1)
        XCTAssertEqual(try A.read(sections, libdwarf: true).functions.count, 1)
    }

    /// Names at offsets of a .debug_str with no NUL after them: each lookup is answered at once,
    /// not by a scan to the section's end.
    func testStringsPastTheLastNulAreFoundAbsentAtOnce() throws {
        let strings = [UInt8](repeating: 0x61, count: 4 << 20)
        let table = abbrev(1, tag: 0x11, children: true, []) + abbrev(2, tag: 0x2e, children: false, [(0x03, 0x0e)]) + [0]
        let info = (0..<10_000).flatMap { _ in unit([1, 2, 0, 0, 0, 0, 0]) }
        let read = try readInTime([(".debug_info", info), (".debug_abbrev", table), (".debug_str", strings)], seconds: 1.5,
                                  "10000 units naming a string of a 4 MiB .debug_str without NUL")
        XCTAssertNotNil(read.problem)
        XCTAssertTrue(read.functions.isEmpty)
    }

    // MARK: - Skipped units

    /// A unit whose DIEs are damaged after its line table was read leaves none of its strings
    /// in the result (file names, function names), on one thread or two.
    func testASkippedUnitLeavesNoStrings() throws {
        let first = A.lineTable4(files: ["only-in-skipped.c"], program: A.program())
        let second = A.lineTable4(files: ["b.c"], program: A.program())
        let info = A.unit(name: "a.c", lineOffset: 0, functions: [("skipped_function", 0x1000, 0x10)], tail: [99])
            + A.unit(name: "b.c", lineOffset: UInt32(first.count), functions: [("g", 0x2000, 0x10)])
        let sections: Sections = [(".debug_info", info), (".debug_abbrev", A.abbrev), (".debug_line", first + second)]
        for threads: UInt32 in [1, 2] {
            let read = try A.read(sections, threads: threads)
            XCTAssertNotNil(read.problem)
            let text = String(decoding: read.strings.map { $0 == 0 ? 0x0a : $0 }, as: UTF8.self)
            XCTAssertFalse(text.contains("only-in-skipped"), "\(threads) thread(s): \(text)")
            XCTAssertFalse(text.contains("skipped_function"), "\(threads) thread(s): \(text)")
            XCTAssertTrue(text.contains("b.c"), "\(threads) thread(s): \(text)")
        }
    }
}
