// The classic text report parser (ClassicReportParser) and every renderer.
// The checks are ReportFuzzChecks.classicReport, which the replay tests share:
// fuzz-support: Tests/CrashReportTests/Reading/ReportFuzzChecks.swift
@testable import CrashReport

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let broken = ReportFuzzChecks.classicReport(Array(UnsafeBufferPointer(start: data, count: size)))
    if !broken.isEmpty { fatalError(broken.joined(separator: "\n")) }
    return 0
}
