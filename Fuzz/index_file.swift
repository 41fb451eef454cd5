// The index-store file reader: a fuzzed index file opened as the store opens one, then looked up.
// The checks are ObjectFuzzChecks.indexFile, which the replay tests share:
// fuzz-support: Tests/DebugInfoTests/ObjectFiles/ObjectFuzzChecks.swift
@testable import DebugInfo

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let broken = ObjectFuzzChecks.indexFile(Array(UnsafeBufferPointer(start: data, count: size)))
    if !broken.isEmpty { fatalError(broken.joined(separator: "\n")) }
    return 0
}
