/// Reads a report in any of the formats this tool knows, choosing by content, not by name.
public enum ReportParser {
    /// Parses `bytes`, the contents of the file at `path` ("<stdin>" for standard input).
    ///
    /// - A first line that is a JSON object with a `bug_type` is an `.ips` report
    ///   (`IPSReportParser`): bug_type 309 is JSON throughout, 109 carries a classic text body.
    ///   Stackshots (bug_type 288, or any body with `processByPid`) are read by
    ///   `StackshotParser`. Other types that are not crash reports — jetsam events, panics — are
    ///   passed through with a warning (`NoBacktraceReport`), and a text body of sampled call
    ///   trees (microstackshots) is read as the text form is.
    /// - A JSON object or array holding MetricKit diagnostics is a MetricKit payload
    ///   (`MetricKitParser`).
    /// - The crash log of the Swift runtime's backtracer, text or JSON (`SwiftBacktraceParser`).
    /// - A line that opens a call tree (`Call graph:`, `Heaviest stack for ...`, `Data Source:
    ///   Stackshots`) makes a spindump, `sample` or microstackshot report (`CallTreeReportParser`).
    /// - Lines of glibc `backtrace_symbols` or sanitizer frames make a Linux log
    ///   (`LinuxLogParser`).
    /// - Anything else is read as a classic text report (`ClassicReportParser`).
    ///
    /// UTF-16 text (`UTF16Text`) is turned into UTF-8 first, and the report's `warnings` say so:
    /// it is written out as UTF-8.
    public static func parse(_ bytes: [UInt8], path: String) throws -> CrashReport {
        guard let encoding = UTF16Text.encoding(of: bytes) else { return try parseUTF8(bytes, path: path) }
        let decoded = UTF16Text.decode(bytes, encoding)
        var report = try parseUTF8(decoded.utf8, path: path)
        report.warnings.append(UTF16Text.note(path: path, encoding: encoding, replaced: decoded.replaced))
        return report
    }

    private static func parseUTF8(_ bytes: [UInt8], path: String) throws -> CrashReport {
        if IPSReportParser.looksLikeIPS(bytes) {
            let bugType = self.bugType(bytes)
            if bugType == "288" || StackshotParser.looksLikeStackshot(bytes),
               let report = try StackshotParser.parse(bytes, path: path, required: bugType == "288") {
                return report
            }
            if let bugType, let kind = NoBacktraceReport.kinds[bugType] {
                return try NoBacktraceReport.report(bytes, path: path, kind: kind)
            }
            if bugType != "309", CallTreeReportParser.looksLikeCallTree(bytes) {
                return try CallTreeReportParser.parse(bytes, path: path)
            }
            return try IPSReportParser.parse(bytes, path: path)
        }
        if MetricKitParser.looksLikeMetricKit(bytes), let report = try MetricKitParser.parse(bytes, path: path) {
            return report
        }
        if SwiftBacktraceParser.looksLikeSwiftBacktrace(bytes) {
            return try SwiftBacktraceParser.parse(bytes, path: path)
        }
        if CallTreeReportParser.looksLikeCallTree(bytes) {
            return try CallTreeReportParser.parse(bytes, path: path)
        }
        if LinuxLogParser.looksLikeLinuxLog(bytes) {
            return try LinuxLogParser.parse(bytes, path: path)
        }
        return try ClassicReportParser.parse(bytes, path: path)
    }

    /// The `bug_type` of an `.ips` metadata line; nil when the line is not valid JSON (which
    /// `IPSReportParser` reports).
    private static func bugType(_ bytes: [UInt8]) -> String? {
        let start = bytes.withUnsafeBufferPointer { $0.byteOrderMarkLength }
        guard let (metadata, _) = try? JSONScanner.parse(bytes, from: start) else { return nil }
        return metadata.text(metadata.member("bug_type", of: metadata.root))
    }
}
