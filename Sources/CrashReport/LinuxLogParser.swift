/// Parses Linux crash-style logs. (Being written.)
public enum LinuxLogParser {
    /// Whether `bytes` hold glibc `backtrace_symbols` or sanitizer frame lines.
    public static func looksLikeLinuxLog(_ bytes: [UInt8]) -> Bool {
        false
    }

    /// Parses the log at `path`.
    public static func parse(_ bytes: [UInt8], path: String) throws -> CrashReport {
        try ClassicReportParser.parse(bytes, path: path)
    }
}
