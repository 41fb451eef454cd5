@testable import DebugInfo
@testable import DebugInfoTestSupport
import XCTest

/// DWARF made byte by byte (DWARFAssembler): encodings no compiler here emits, read by the
/// shim's reader alike with libdwarf.
final class HandMadeDWARFTests: XCTestCase {
    private typealias A = DWARFAssembler

    private func sections(line: [UInt8], units: [[UInt8]]? = nil) -> [(name: String, bytes: [UInt8])] {
        let info = units ?? [A.unit(name: "a.c", lineOffset: 0, functions: [("f", 0x1000, 0x10)])]
        return [(".debug_info", info.flatMap { $0 }), (".debug_abbrev", A.abbrev), (".debug_line", line)]
    }

    private func assertAgree(_ sections: [(name: String, bytes: [UInt8])], file: StaticString = #filePath, line: UInt = #line) throws -> CanonicalDWARF {
        let reference = CanonicalDWARF(try A.read(sections, libdwarf: true))
        for threads: UInt32 in [1, 2] {
            let read = CanonicalDWARF(try A.read(sections, threads: threads))
            XCTAssertNil(read.problem, file: file, line: line)
            if let difference = read.difference(from: reference) { XCTFail("differs from libdwarf: \(difference)", file: file, line: line) }
        }
        return reference
    }

    /// DW_LNE_define_file (DWARF 2-4) adds a file to the list after the header's.
    func testDefineFileAddsAFile() throws {
        var define = A.Bytes()
        var entry = A.Bytes()
        entry.u8(3); entry.string("defined.c"); entry.uleb(1); entry.uleb(0); entry.uleb(0)
        define.u8(0); define.uleb(UInt64(entry.data.count)); define.bytes(entry.data)
        let read = try assertAgree(sections(line: A.lineTable4(files: ["a.c"], program: A.program(file: 2, before: define.data))))
        XCTAssertEqual(read.rows.count, 3)
        XCTAssertEqual(read.files[Int(read.rows[0].file)], "/src/inc/defined.c")
    }

    /// A line table that says 4 operations per instruction (VLIW): op_index takes the remainder.
    func testVLIWLineTablesAdvanceByInstructions() throws {
        var table = A.lineTable4(files: ["a.c"], program: A.program())
        table[11] = 4  // maximum_operations_per_instruction (after length 4, version 2, header_length 4, minimum_instruction_length 1)
        let read = CanonicalDWARF(try A.read(sections(line: table)))
        XCTAssertNil(read.problem)
        // advance_pc 4 is one instruction on from 0x1000, advance_pc 8 two more.
        XCTAssertEqual(read.rows.map(\.address), [0x1000, 0x1001, 0x1003])
    }

    /// A row keeps its column to 31 bits (the 32nd holds the end-of-sequence flag; llvm-symbolizer
    /// keeps 16): a column of 2^31 + 5 reads as 5, in both readers, and only the last row of
    /// the sequence ends it.
    func testAColumnIsKeptTo31BitsBesideTheEndOfSequenceFlag() throws {
        var column = A.Bytes()
        column.u8(5); column.uleb((1 << 31) + 5)  // DW_LNS_set_column
        let read = try assertAgree(sections(line: A.lineTable4(files: ["a.c"], program: A.program(before: column.data))))
        XCTAssertEqual(read.rows.map(\.column), [5, 5, 5])
        XCTAssertEqual(read.rows.map(\.endSequence), [0, 0, 1])
        XCTAssertEqual(read.rows.map(\.address), [0x1000, 0x1004, 0x100c])
    }

    /// Of rows at one address the reader keeps the last (a lookup reads no other), but a row the
    /// sequence's end follows at its address stays: read so, the rows are libdwarf's with the
    /// same rule applied.
    func testOfRowsAtOneAddressTheLastIsKept() throws {
        var b = A.Bytes()
        b.u8(0); b.uleb(9); b.u8(2); b.u64(0x1000)  // DW_LNE_set_address 0x1000
        b.u8(1)                                     // a row at 0x1000, line 1
        b.u8(3); b.uleb(1); b.u8(1)                 // line 2, a row at 0x1000: the one kept
        b.u8(2); b.uleb(4); b.u8(1)                 // a row at 0x1004, line 2
        b.u8(3); b.uleb(1); b.u8(1)                 // line 3, a row at 0x1004
        b.u8(0); b.uleb(1); b.u8(1)                 // the end, at 0x1004
        let all = sections(line: A.lineTable4(files: ["a.c"], program: b.data))
        let reference = CanonicalDWARF(try A.read(all, libdwarf: true), droppingUnused: true)
        for threads: UInt32 in [1, 2] {
            let read = CanonicalDWARF(try A.read(all, threads: threads, keepUnused: false))
            XCTAssertEqual(read.rows.map(\.address), [0x1000, 0x1004, 0x1004])
            XCTAssertEqual(read.rows.map(\.line), [2, 3, 3])
            XCTAssertEqual(read.rows.map(\.endSequence), [0, 0, 1])
            if let difference = read.difference(from: reference) { XCTFail("differs from libdwarf: \(difference)") }
        }
        XCTAssertEqual(CanonicalDWARF(try A.read(all)).rows.count, 5)
    }

    /// A row at the address its sequence ends at (the end repeating the last row's address)
    /// holds no code: the index leaves it out, and the file is read, not refused. The index
    /// called its tables inconsistent and the whole file unusable while it kept such a row.
    func testARowAtTheEndOfItsSequenceLeavesTheIndexWhole() throws {
        var b = A.Bytes()
        b.u8(0); b.uleb(9); b.u8(2); b.u64(0x1000)  // DW_LNE_set_address 0x1000
        b.u8(1)                                     // a row at 0x1000, line 1
        b.u8(2); b.uleb(4); b.u8(3); b.uleb(1)      // 0x1004, line 2
        b.u8(1)                                     // a row at 0x1004
        b.u8(2); b.uleb(8); b.u8(3); b.uleb(5)      // 0x100c, line 7
        b.u8(1)                                     // a row at 0x100c: the end's address
        b.u8(0); b.uleb(1); b.u8(1)                 // the end, at 0x100c
        let raw = try A.read(sections(line: A.lineTable4(files: ["a.c"], program: b.data)), keepUnused: false)
        XCTAssertEqual(raw.rows.map(\.address), [0x1000, 0x1004, 0x100c, 0x100c])
        let tables = SymbolIndex.Tables(raw)
        XCTAssertTrue(tables.isWellFormed)
        let file = DebugFile(path: "<sections>", format: .elf, architecture: nil, identifier: nil, textVMAddress: 0,
                             sliceOffset: 0, sliceSize: 0, hasDWARF: true)
        let index = try XCTUnwrap(SymbolIndex(file: file, problem: nil, tables: tables,
                                              symbols: SymbolTable(stripsUnderscore: false)))
        XCTAssertEqual(index.lookup(0x1002, demangle: false).last?.line, 1)
        XCTAssertEqual(index.lookup(0x100b, demangle: false).last?.line, 2)
        XCTAssertEqual(index.lookup(0x100c, demangle: false).last?.line ?? 0, 0, "past the function and its lines")
    }

    /// Tables made of a file's DWARF that are not well formed (which they are made never to
    /// be: a fault of the index's own) cost the file its lines and inlined frames, not the
    /// file: its symbol table is used alone, and the index says why. Without symbols either,
    /// nothing of the file is usable.
    func testInconsistentTablesLeaveTheSymbolTable() throws {
        let raw = try A.read(sections(line: A.lineTable4(files: ["a.c"], program: A.program())), keepUnused: false)
        var tables = SymbolIndex.Tables(raw)
        XCTAssertTrue(tables.isWellFormed)
        XCTAssertNil(SymbolIndex.usable(tables, besides: SymbolTable(stripsUnderscore: false))?.problem)
        tables.functionBytes = FlatArray([0xFF, 0xFF])  // the blocks the function ranges point at, gone
        XCTAssertFalse(tables.isWellFormed)
        let symbols = SymbolTable(machOEntries: [.init(address: 0x1000, end: 0x1010, name: 1)], strings: Array("\0f\0".utf8))
        let (kept, problem) = try XCTUnwrap(SymbolIndex.usable(tables, besides: symbols))
        XCTAssertTrue(kept.isWellFormed)
        XCTAssertTrue(kept.concrete.isEmpty && kept.sequences.isEmpty)
        XCTAssertEqual(problem, "the function, range or line tables made of it are inconsistent: its symbol table is used alone")
        XCTAssertNil(SymbolIndex.usable(tables, besides: SymbolTable(stripsUnderscore: false)))
        let file = DebugFile(path: "<sections>", format: .machO, architecture: nil, identifier: nil, textVMAddress: 0,
                             sliceOffset: 0, sliceSize: 0, hasDWARF: true)
        let index = try XCTUnwrap(SymbolIndex(file: file, problem: problem, tables: kept, symbols: symbols))
        XCTAssertEqual(index.lookup(0x1004, demangle: false).map { $0.function }, ["f"])
    }
}
