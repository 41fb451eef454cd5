@testable import DebugInfo
@testable import DebugInfoTestSupport
import Foundation
import TestSupport
import XCTest

/// Damage the reader must survive with its memory in proportion to its input, skipping the
/// unit it is in whole (nothing of it in the result) and saying which unit it skipped.
final class DamagedDWARFTests: XCTestCase {
    private typealias A = DWARFAssembler

    /// Two units, each with its function and line table; `damage` edits unit 0's DIEs or line table.
    private func twoUnits(dieTail: [UInt8] = [], firstProgram: [UInt8] = A.program()) -> [(name: String, bytes: [UInt8])] {
        let first = A.lineTable4(files: ["a.c"], program: firstProgram)
        let second = A.lineTable4(files: ["b.c"], program: A.program())
        let info = A.unit(name: "a.c", lineOffset: 0, functions: [("f", 0x1000, 0x10)], tail: dieTail)
            + A.unit(name: "b.c", lineOffset: UInt32(first.count), functions: [("g", 0x2000, 0x10)])
        return [(".debug_info", info), (".debug_abbrev", A.abbrev), (".debug_line", first + second)]
    }

    private func checkOnlySecondUnit(_ sections: [(name: String, bytes: [UInt8])], file: StaticString = #filePath, line: UInt = #line) throws {
        for threads: UInt32 in [1, 2] {
            let read = CanonicalDWARF(try A.read(sections, threads: threads))
            XCTAssertEqual(read.problem?.hasPrefix("compile unit at 0x0:"), true, "\(read.problem ?? "no problem")", file: file, line: line)
            XCTAssertEqual(read.functions.map(\.name), ["g"], "\(threads) thread(s)", file: file, line: line)
            XCTAssertEqual(read.rows.count, 3, "\(threads) thread(s)", file: file, line: line)
            XCTAssertEqual(Set(read.rows.map { read.files[Int($0.file)] }), ["/src/inc/b.c"], file: file, line: line)
            XCTAssertFalse(read.files.contains("/src/inc/a.c"), "\(threads) thread(s)", file: file, line: line)
        }
    }

    /// A unit whose DIEs break off after a function leaves neither the function nor its line table.
    func testAUnitWithDamagedDIEsLeavesNothingBehind() throws {
        try checkOnlySecondUnit(twoUnits(dieTail: [99]))  // abbreviation 99 is not defined
    }

    /// A line program that breaks off after two rows leaves neither its rows nor its files.
    func testAUnitWithADamagedLineProgramLeavesNothingBehind() throws {
        var program = A.program()
        program.removeLast(3)  // DW_LNE_end_sequence
        program += [0, 0x7f, 1]  // an extended opcode longer than what is left
        try checkOnlySecondUnit(twoUnits(firstProgram: program))
    }

    /// A DWARF 5 line header whose directory count has no entry formats (entries of no bytes):
    /// a count is checked against the bytes left before any entry is read.
    func testEntryCountsWithoutFormatsAreDamage() throws {
        for (directories, files) in [(UInt64(1) << 24, UInt64(0)), (0, UInt64(1) << 24), (UInt64.max >> 1, 0)] {
            var entries = A.Bytes()
            entries.u8(0); entries.uleb(directories); entries.u8(0); entries.uleb(files)
            let table = A.lineTable5(entries: entries.data, program: A.program())
            let sections: [(name: String, bytes: [UInt8])] = [
                (".debug_info", A.unit(name: "a.c", lineOffset: 0, functions: [("f", 0x1000, 0x10)])),
                (".debug_abbrev", A.abbrev), (".debug_line", table),
            ]
            let (read, seconds) = try CPUTime.ofProcess { try A.read(sections) }
            XCTAssertLessThan(seconds, 2, "seconds of CPU")
            XCTAssertNotNil(read.problem, "\(directories) directories, \(files) files")
            XCTAssertTrue(read.rows.isEmpty && read.functions.isEmpty)
        }
    }

    /// A count of directories that the bytes left cannot hold, with a real entry format.
    func testEntryCountsBeyondTheHeaderAreDamage() throws {
        var entries = A.Bytes()
        entries.u8(1); entries.uleb(1); entries.uleb(0x08)  // DW_LNCT_path, DW_FORM_string
        entries.uleb(1 << 40); entries.string("dir")
        entries.u8(0); entries.uleb(0)
        let sections: [(name: String, bytes: [UInt8])] = [
            (".debug_info", A.unit(name: "a.c", lineOffset: 0, functions: [])),
            (".debug_abbrev", A.abbrev), (".debug_line", A.lineTable5(entries: entries.data, program: A.program())),
        ]
        XCTAssertNotNil(try A.read(sections).problem)
    }

    /// One DIE naming a long range list many times: the ranges a unit adds stay in proportion to it.
    func testARangeListNamedManyTimesIsBounded() throws {
        // Abbreviation 3: a subprogram with DW_AT_ranges (sec_offset); the unit's children are 3s.
        var abbrev = A.abbrev
        abbrev.removeLast()
        abbrev += [3, 0x2e, 0, 0x55, 0x17, 0, 0, 0]
        var ranges = A.Bytes()
        for i in 0..<UInt64(50_000) { ranges.u64(0x1000 + 16 * i); ranges.u64(0x1008 + 16 * i) }
        ranges.u64(0); ranges.u64(0)
        var tail = A.Bytes()
        for _ in 0..<20_000 { tail.u8(3); tail.u32(0) }
        let sections: [(name: String, bytes: [UInt8])] = [
            (".debug_info", A.unit(name: "a.c", lineOffset: 0, functions: [], tail: tail.data)),
            (".debug_abbrev", abbrev), (".debug_ranges", ranges.data),
            (".debug_line", A.lineTable4(files: ["a.c"], program: A.program())),
        ]
        let read = try A.read(sections)
        XCTAssertNotNil(read.problem)
        XCTAssertLessThan(read.ranges.count, 1_000_000)
    }

    /// An abbreviation with a form no DWARF version defines, in a real file: its unit is skipped
    /// (it once went to libdwarf, which freed memory twice and ended the run); the others are read.
    func testAnUnknownFormInDebugAbbrevSkipsItsUnit() throws {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        let original = fixtures.appendingPathComponent("elf/app-clang-dwarf5")
        var bytes = try [UInt8](Data(contentsOf: original))
        let abbrev = try bytes.withUnsafeBytes { raw in
            try XCTUnwrap(ELF.parse(raw, path: original.path).sections.first { $0.name == ".debug_abbrev" })
        }
        // Code 1, tag, children, then the first attribute's name and form (one byte each here).
        let form = Int(abbrev.offset) + 4
        XCTAssertLessThan(bytes[form], 0x80)
        bytes[form] = 0x7f
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("damaged-abbrev-\(getpid())")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try XCTUnwrap(DebugFile.identify(path: url.path).first(where: \.hasDWARF))
        let mapped = try MappedFile(path: url.path)
        let whole = try DWARFReader.read(file, layout: ObjectLayout(file, in: mapped), in: mapped)
        XCTAssertEqual(whole.problem?.hasPrefix("compile unit at 0x0:"), true, whole.problem ?? "no problem")
        XCTAssertFalse(whole.functions.isEmpty, "the other units are read")
    }
}
