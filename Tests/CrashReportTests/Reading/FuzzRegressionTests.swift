import Foundation
import TestSupport
import XCTest

/// Replays the inputs the report fuzz targets found (Tests/FuzzRegressions/<target>/) through
/// the checks the fuzz harnesses run, so that a fixed crash or broken promise stays fixed
/// without a sanitizer build.
final class FuzzRegressionTests: XCTestCase {
    func testClassicReportRegressions() throws { try replay("classic_report", ReportFuzzChecks.classicReport) }
    func testIPSReportRegressions() throws { try replay("ips_report", ReportFuzzChecks.ipsReport) }
    func testLinuxLogRegressions() throws { try replay("linux_log", ReportFuzzChecks.linuxLog) }
    func testSwiftBacktraceRegressions() throws { try replay("swift_backtrace", ReportFuzzChecks.swiftBacktrace) }
    func testTombstoneRegressions() throws { try replay("tombstone", ReportFuzzChecks.tombstone) }
    func testJSONScannerRegressions() throws { try replay("json_scanner", ReportFuzzChecks.jsonScanner) }
    func testCallTreeReportRegressions() throws { try replay("call_tree_report", ReportFuzzChecks.callTreeReport) }
    func testReportAnyRegressions() throws { try replay("report_any", ReportFuzzChecks.reportAny) }
    func testMetricKitPayloadRegressions() throws { try replay("metrickit_payload", ReportFuzzChecks.metricKitPayload) }
    func testKSCrashReportRegressions() throws { try replay("kscrash_report", ReportFuzzChecks.kscrashReport) }
    func testProtobufTombstoneRegressions() throws { try replay("protobuf_tombstone", ReportFuzzChecks.protobufTombstone) }
    func testPLCrashReportRegressions() throws { try replay("plcrash_report", ReportFuzzChecks.plcrashReport) }

    /// Runs every input of `target` through `check`; a target without inputs yet has nothing to replay.
    private func replay(_ target: String, _ check: ([UInt8]) -> [String]) throws {
        let directory = TestPaths.packageRoot.appendingPathComponent("Tests/FuzzRegressions/\(target)")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { !$0.hasPrefix(".") }.sorted()
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))
            XCTAssertEqual(check(bytes), [], "\(target)/\(name)")
        }
    }
}
