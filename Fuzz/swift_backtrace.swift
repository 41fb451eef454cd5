// The Swift runtime backtrace parser (text and JSON crash logs) and its renderings.
// The checks are ReportFuzzChecks.swiftBacktrace, which the replay tests share:
// fuzz-support: Tests/CrashReportTests/Reading/ReportFuzzChecks.swift
@testable import CrashReport

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let broken = ReportFuzzChecks.swiftBacktrace(Array(UnsafeBufferPointer(start: data, count: size)))
    if !broken.isEmpty { fatalError(broken.joined(separator: "\n")) }
    return 0
}
