// The PLCrashReporter .plcrash parser (swift-protobuf's decoding of the message after the
// magic, its translation into PLCrashReportTextFormatter's text) and its renderings. Inputs
// that do not start with the magic get it, so that every run reaches the decoder.
// The checks are ReportFuzzChecks.plcrashReport, which the replay tests share:
// fuzz-support: Tests/CrashReportTests/Reading/ReportFuzzChecks.swift
@testable import CrashReport

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let broken = ReportFuzzChecks.plcrashReport(Array(UnsafeBufferPointer(start: data, count: size)))
    if !broken.isEmpty { fatalError(broken.joined(separator: "\n")) }
    return 0
}
