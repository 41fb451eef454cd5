// The Mach-O and ELF readers over any bytes: identity, slices, sections, link-time base, symbol table.
// The checks are ObjectFuzzChecks.objectIdentity, which the replay tests share:
// fuzz-support: Tests/DebugInfoTests/ObjectFiles/ObjectFuzzChecks.swift
@testable import DebugInfo

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let broken = ObjectFuzzChecks.objectIdentity(Array(UnsafeBufferPointer(start: data, count: size)))
    if !broken.isEmpty { fatalError(broken.joined(separator: "\n")) }
    return 0
}
