// The index's tables of fuzzed DWARF: the input is a set of DWARF sections in dwarf_sections'
// layout (Fuzz/dwarf_sections.c), read by the shim on one thread, and its tables made in one
// thread and on threads of their own. The checks are TablesFuzzChecks.tables, which the replay
// tests share:
// fuzz-support: Tests/DebugInfoTests/Index/TablesFuzzChecks.swift
// fuzz-support: Tests/DebugInfoTests/DWARF/SectionObject.swift
@testable import DebugInfo

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let broken = TablesFuzzChecks.tables(Array(UnsafeBufferPointer(start: data, count: size)))
    if !broken.isEmpty { fatalError(broken.joined(separator: "\n")) }
    return 0
}
