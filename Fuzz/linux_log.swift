// The Linux log parser (glibc backtraces, sanitizer reports) and its text rendering.
// The checks are ReportFuzzChecks.linuxLog, which the replay tests share:
// fuzz-support: Tests/CrashReportTests/Reading/ReportFuzzChecks.swift
@testable import CrashReport

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let broken = ReportFuzzChecks.linuxLog(Array(UnsafeBufferPointer(start: data, count: size)))
    if !broken.isEmpty { fatalError(broken.joined(separator: "\n")) }
    return 0
}
