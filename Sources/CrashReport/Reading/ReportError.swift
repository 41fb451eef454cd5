/// Why a file could not be read as a crash report. Each case carries the file's path.
public enum ReportError: Error, Equatable, CustomStringConvertible {
    /// The file is binary data, not a report: an object file or archive, or mostly NUL bytes
    /// or control characters.
    case notAReport(String)
    /// The file is empty or holds only whitespace.
    case empty(String)
    /// The file starts like a JSON `.ips` report but is not one: the path, and what is wrong
    /// (e.g. "the JSON body ends before its value does (line 40, column 3): the file is cut short").
    case invalidIPS(String, reason: String)
    /// The file holds a MetricKit payload that cannot be read: the path, and what is wrong.
    case invalidMetricKit(String, reason: String)
    /// The file names a KSCrash report's images and crash but is not one JSON value: the path,
    /// and what is wrong (a report cut short, most often).
    case invalidKSCrash(String, reason: String)
    /// The file is a protobuf report (an Android protobuf tombstone, a `.plcrash` report) that
    /// cannot be decoded: the path, the format, and what is wrong (cut short, most often).
    case invalidProtobuf(String, format: String, reason: String)
    /// The file is too dense to be read: its frames, backtraces or images would take more than
    /// a bounded multiple of its size in memory (``FrameText/limitFactor``), which no real
    /// report does; the path, and what it holds and would take (``FrameText/tooDense(_:factor:)``).
    case tooDense(String, reason: String)

    /// Why the file is not a report, without the path the message starts with.
    public var reason: String {
        switch self {
        case .notAReport: return "not a crash report (the file holds binary data)"
        case .empty: return "not a crash report (the file is empty)"
        case .invalidIPS(_, let reason): return "not a valid .ips report: \(reason)"
        case .invalidMetricKit(_, let reason): return "not a valid MetricKit payload: \(reason)"
        case .invalidKSCrash(_, let reason): return "not a valid KSCrash report: \(reason)"
        case .invalidProtobuf(_, let format, let reason): return "not a valid \(format): \(reason)"
        case .tooDense(_, let reason): return "too dense to read: \(reason)"
        }
    }

    /// A one-line message naming the file.
    public var description: String {
        switch self {
        case .notAReport(let path), .empty(let path), .invalidIPS(let path, _), .invalidMetricKit(let path, _),
             .invalidKSCrash(let path, _), .invalidProtobuf(let path, _, _), .tooDense(let path, _):
            return "\(path): \(reason)"
        }
    }
}
