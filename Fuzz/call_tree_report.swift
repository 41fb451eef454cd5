// Bytes read as a sampled call-tree report (CallTreeReportParser: spindump, sample,
// microstackshot), then rendered every way. The checks are ReportFuzzChecks.callTreeReport,
// which the replay tests share:
// fuzz-support: Tests/CrashReportTests/Reading/ReportFuzzChecks.swift
@testable import CrashReport

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let broken = ReportFuzzChecks.callTreeReport(Array(UnsafeBufferPointer(start: data, count: size)))
    if !broken.isEmpty { fatalError(broken.joined(separator: "\n")) }
    return 0
}
