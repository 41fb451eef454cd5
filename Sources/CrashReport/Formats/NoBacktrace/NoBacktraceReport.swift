/// `.ips` reports that hold nothing to symbolicate — a jetsam event, a kernel panic's text, a
/// stackshot or resource report without frames — passed through as they are: the report is
/// written back byte for byte, and one warning line names its type, so a run never reports a
/// silent success with nothing in it.
///
/// Whether a report is one is decided by its content, not by its `bug_type`: `ReportParser`
/// reads every `.ips` body as what it holds (a JSON crash, a stackshot, a call tree, a classic
/// text report), and only a body in which no frame is found comes here. The bug_type then
/// names what kind of report it was, for the warning.
enum NoBacktraceReport {
    /// What each bug_type that often comes without frames is, for the warning.
    static let kinds: [String: String] = [
        "298": "a jetsam event report (bug_type 298)",
        "151": "a kernel panic report (bug_type 151)",
        "210": "a kernel panic report (bug_type 210)",
        "185": "a resource or watchdog report (bug_type 185)",
        "284": "a stackshot report (bug_type 284)",
    ]

    /// Whether `report`, read from an `.ips` body, has no frame at all: nothing that a debug
    /// file could resolve, so that it is better written as it is with one warning.
    static func hasNoFrames(_ report: CrashReport) -> Bool {
        report.threads.allSatisfy { $0.frames.isEmpty }
    }

    /// The report for `bytes`, read from `path`, of the kind `kind` (a value of `kinds`).
    ///
    /// - Throws: the errors of `ClassicReportParser.checkText` (empty or binary input).
    static func report(_ bytes: [UInt8], path: String, kind: String) throws -> CrashReport {
        let lines = try bytes.withUnsafeBufferPointer { b -> LineRanges in
            try ClassicReportParser.checkText(b, path: path)
            return LineRanges(b)
        }
        var report = CrashReport(path: path, bytes: bytes, lines: lines, source: .noBacktraces)
        report.warnings.append("\(path): \(kind) holds no frames to symbolicate; written as it is")
        return report
    }
}
