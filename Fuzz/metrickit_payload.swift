// The MetricKit parser, its translator into text and the MetricKit renderer.
// The checks are ReportFuzzChecks.metricKitPayload, which the replay tests share:
// fuzz-support: Tests/CrashReportTests/Reading/ReportFuzzChecks.swift
@testable import CrashReport

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let broken = ReportFuzzChecks.metricKitPayload(Array(UnsafeBufferPointer(start: data, count: size)))
    if !broken.isEmpty { fatalError(broken.joined(separator: "\n")) }
    return 0
}
