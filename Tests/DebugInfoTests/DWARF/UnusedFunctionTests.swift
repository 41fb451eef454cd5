@testable import DebugInfo
@testable import DebugInfoTestSupport
import XCTest

/// The function entries no lookup can use are left out of a reading unit by unit (prune.c):
/// all but those with ranges and what they lead to (their parents, the entries their
/// DW_AT_abstract_origin and DW_AT_specification name, over and over); and only when no
/// reference of the object can leave its unit.
final class UnusedFunctionTests: XCTestCase {
    private typealias A = DWARFAssembler
    private typealias Sections = [(name: String, bytes: [UInt8])]

    private static let headerSize = 11  // DWARF 4: length, version, abbreviation offset, address size

    /// A DWARF 4 unit of `dies` with its abbreviations at `abbrevOffset` (``DWARFAssembler``).
    private func unit(abbrevOffset: UInt32 = 0, _ dies: [UInt8]) -> [UInt8] { A.unit(abbrevOffset: abbrevOffset, dies) }

    private func abbrev(_ code: UInt64, tag: UInt64, children: Bool, _ specs: [(UInt64, UInt64)]) -> [UInt8] {
        A.abbreviation(code, tag: tag, children: children, specs)
    }

    /// Abbreviations: 1 the unit; 2 a declaration (a name); 3 a definition naming its
    /// declaration through `referenceForm` (0x13 ref4, 0x10 ref_addr), with low_pc and high_pc;
    /// 4 a subprogram with a name and children, no ranges; 5 an inlined call of a subprogram
    /// (ref4) with low_pc and high_pc; 6 a subprogram without ranges naming its declaration (ref4).
    private func table(referenceForm: UInt64) -> [UInt8] {
        abbrev(1, tag: 0x11, children: true, []) + abbrev(2, tag: 0x2e, children: false, [(0x03, 0x08)])
            + abbrev(3, tag: 0x2e, children: false, [(0x47, referenceForm), (0x11, 0x01), (0x12, 0x07)])
            + abbrev(4, tag: 0x2e, children: true, [(0x03, 0x08)])
            + abbrev(5, tag: 0x1d, children: false, [(0x31, 0x13), (0x11, 0x01), (0x12, 0x07)])
            + abbrev(6, tag: 0x2e, children: false, [(0x47, 0x13)]) + [0]
    }

    /// A unit of: "used", a declaration the definition names; "unused", a declaration nothing
    /// names; the definition (0x1000-0x1100); "outer", without ranges, enclosing an inlined
    /// call of "used" (0x2000-0x2010); "lonely", without ranges, enclosing only "inner", a
    /// declaration nothing names; "orphan", a declaration only an unused entry names.
    private func dies() -> [UInt8] {
        var d = A.Bytes()
        func offset() -> UInt32 { UInt32(Self.headerSize + d.data.count) }
        d.u8(1)
        let used = offset()
        d.u8(2); d.string("used")
        d.u8(2); d.string("unused")
        d.u8(3); d.u32(used); d.u64(0x1000); d.u64(0x100)
        d.u8(4); d.string("outer")
        d.u8(5); d.u32(used); d.u64(0x2000); d.u64(0x10)
        d.u8(0)
        d.u8(4); d.string("lonely")
        d.u8(2); d.string("inner")
        d.u8(0)
        let orphan = offset()
        d.u8(2); d.string("orphan")
        d.u8(6); d.u32(orphan)
        d.u8(0)
        return d.data
    }

    private func names(_ read: RawDWARF) -> [String] {
        CanonicalDWARF(read).functions.map(\.name)
    }

    func testEntriesNoLookupCanUseAreLeftOut() throws {
        let sections: Sections = [(".debug_info", unit(dies())), (".debug_abbrev", table(referenceForm: 0x13))]
        let all = try A.read(sections)
        XCTAssertEqual(names(all), ["used", "unused", "", "outer", "", "lonely", "inner", "orphan", ""])
        for threads: UInt32 in [1, 2] {
            let read = try A.read(sections, threads: threads, keepUnused: false)
            XCTAssertNil(read.problem)
            XCTAssertEqual(names(read), ["used", "", "outer", ""], "\(threads) thread(s)")
            // The inlined call's parent is "outer", renumbered.
            XCTAssertEqual(read.functions.map(\.parent), [-1, -1, -1, 2])
            // The same as the rule applied to libdwarf's reading of every entry.
            let reference = CanonicalDWARF(try A.read(sections, libdwarf: true), droppingUnused: true)
            if let difference = CanonicalDWARF(read).difference(from: reference) {
                XCTFail("differs from libdwarf's reading without its unused entries: \(difference)")
            }
        }
    }

    /// A definition that names its declaration with DW_FORM_ref_addr could name one of any unit
    /// (dsymutil's output, LTO builds): nothing is left out of the object.
    func testNothingIsLeftOutWhenAReferenceMayLeaveItsUnit() throws {
        // A reference is 4 bytes either way (a 32-bit unit), and the unit starts the section:
        // ref_addr (an offset in the section) names the DIE ref4 (one in the unit) did.
        let sections: Sections = [(".debug_info", unit(dies())), (".debug_abbrev", table(referenceForm: 0x10))]
        let read = try A.read(sections, keepUnused: false)
        XCTAssertNil(read.problem)
        XCTAssertEqual(names(read), ["used", "unused", "", "outer", "", "lonely", "inner", "orphan", ""])
    }

    /// Another unit whose own table gives DW_AT_specification the form DW_FORM_ref_addr could
    /// name this unit's entries: nothing is left out of either.
    func testNothingIsLeftOutWhenAnotherUnitsTableMayLeaveItsUnit() throws {
        let local = table(referenceForm: 0x13)
        let other = abbrev(1, tag: 0x11, children: true, []) + abbrev(3, tag: 0x2e, children: false, [(0x47, 0x10)]) + [0]
        // The second unit: a definition naming "unused" of the first unit (offset 18: the
        // header, the unit DIE, "used").
        let second = unit(abbrevOffset: UInt32(local.count), [1, 3, 18, 0, 0, 0, 0])
        let sections: Sections = [(".debug_info", unit(dies()) + second), (".debug_abbrev", local + other)]
        let read = try A.read(sections, keepUnused: false)
        XCTAssertNil(read.problem)
        XCTAssertEqual(names(read), ["used", "unused", "", "outer", "", "lonely", "inner", "orphan", "", ""])
        XCTAssertEqual(read.functions.last?.specification, 18)
        // Alone, the first unit is read without its unused entries.
        let alone: Sections = [(".debug_info", unit(dies())), (".debug_abbrev", local + other)]
        XCTAssertEqual(names(try A.read(alone, keepUnused: false)), ["used", "", "outer", ""])
    }

    /// A reference within a unit (DW_FORM_ref4) past the unit's end names none of its DIEs:
    /// it is no reference, as for llvm-symbolizer.
    func testAUnitReferencePastTheUnitIsNoReference() throws {
        var d = A.Bytes()
        d.u8(1)
        d.u8(3); d.u32(0x7000); d.u64(0x1000); d.u64(0x100)
        d.u8(0)
        let sections: Sections = [(".debug_info", unit(d.data)), (".debug_abbrev", table(referenceForm: 0x13))]
        let read = try A.read(sections)
        XCTAssertNil(read.problem)
        XCTAssertEqual(read.functions.map(\.specification), [UInt64.max])
    }
}
