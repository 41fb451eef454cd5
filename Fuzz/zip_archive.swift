// The zip reader over any bytes: the central directory, members stored and inflated, and the
// libraries found in them (APKs, app bundles). The checks are ArchiveFuzzChecks.zipArchive,
// which the replay tests share:
// fuzz-support: Tests/DebugInfoTests/Archives/ArchiveFuzzChecks.swift
@testable import DebugInfo

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let broken = ArchiveFuzzChecks.zipArchive(Array(UnsafeBufferPointer(start: data, count: size)))
    if !broken.isEmpty { fatalError(broken.joined(separator: "\n")) }
    return 0
}
