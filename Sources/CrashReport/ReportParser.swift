/// Reads a report in any of the formats this tool knows, choosing by content, not by name.
public enum ReportParser {
    /// Parses `bytes`, the contents of the file at `path` ("<stdin>" for standard input).
    ///
    /// - A first line that is a JSON object with a `bug_type` is an `.ips` report
    ///   (`IPSReportParser`): bug_type 309 is JSON throughout, 109 carries a classic text body.
    /// - Lines of glibc `backtrace_symbols` or sanitizer frames make a Linux log
    ///   (`LinuxLogParser`).
    /// - Anything else is read as a classic text report (`ClassicReportParser`).
    public static func parse(_ bytes: [UInt8], path: String) throws -> CrashReport {
        if IPSReportParser.looksLikeIPS(bytes) {
            return try IPSReportParser.parse(bytes, path: path)
        }
        if LinuxLogParser.looksLikeLinuxLog(bytes) {
            return try LinuxLogParser.parse(bytes, path: path)
        }
        return try ClassicReportParser.parse(bytes, path: path)
    }
}
