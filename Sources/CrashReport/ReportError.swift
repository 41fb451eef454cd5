/// Why a file could not be read as a crash report. Each case carries the file's path.
public enum ReportError: Error, Equatable, CustomStringConvertible {
    /// The file holds NUL bytes or is mostly control characters: binary data, not a report.
    case notAReport(String)
    /// The file is empty or holds only whitespace.
    case empty(String)

    /// A one-line message naming the file.
    public var description: String {
        switch self {
        case .notAReport(let path):
            return "\(path): not a crash report (the file holds binary data)"
        case .empty(let path):
            return "\(path): not a crash report (the file is empty)"
        }
    }
}
