/// Parses a JSON `.ips` report (bug_type 309). (Being written.)
public enum IPSReportParser {
    /// Whether `bytes` start with an `.ips` metadata line: a JSON object with a `bug_type`.
    public static func looksLikeIPS(_ bytes: [UInt8]) -> Bool {
        false
    }

    /// Parses the `.ips` file at `path`.
    public static func parse(_ bytes: [UInt8], path: String) throws -> CrashReport {
        try ClassicReportParser.parse(bytes, path: path)
    }
}
