// The demangler over any bytes as a symbol name: Swift, C++, Rust (legacy and v0) and D, both
// styles, every bound; for short Rust v0 names, the bound against what LLVM prints unbounded.
// The checks are DemanglerFuzzChecks.demangle, which the replay test shares:
// fuzz-support: Tests/DebugInfoTests/Names/DemanglerFuzzChecks.swift
@testable import DebugInfo

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let broken = DemanglerFuzzChecks.demangle(Array(UnsafeBufferPointer(start: data, count: size)))
    if !broken.isEmpty { fatalError(broken.joined(separator: "\n")) }
    return 0
}
