/// The `.ips` report types that are not crash reports and that this tool passes through as they
/// are: the report is written back byte for byte, and one warning line names the type, so a run
/// never reports a silent success with nothing in it.
enum NoBacktraceReport {
    /// What each such bug_type is, and why its frames are not symbolicated.
    static let kinds: [String: String] = [
        "298": "a jetsam event report (bug_type 298) holds no backtraces",
        "151": "a kernel panic report (bug_type 151) holds kernel backtraces, which are not symbolicated",
        "210": "a kernel panic report (bug_type 210) holds kernel backtraces, which are not symbolicated",
        "185": "a watchdog/stackshot report (bug_type 185) is not symbolicated",
        "284": "a stackshot report (bug_type 284) is not symbolicated",
    ]

    /// The report for `bytes`, read from `path`, of a bug_type in `kinds`.
    ///
    /// - Throws: the errors of `ClassicReportParser.checkText` (empty or binary input).
    static func report(_ bytes: [UInt8], path: String, kind: String) throws -> CrashReport {
        let lines = try bytes.withUnsafeBufferPointer { b -> LineRanges in
            try ClassicReportParser.checkText(b, path: path)
            return LineRanges(b)
        }
        var report = CrashReport(path: path, bytes: bytes, lines: lines, format: .noBacktraces)
        report.warnings.append("\(path): \(kind); written as it is")
        return report
    }
}
