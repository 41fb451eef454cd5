/// What a report is read for, so that a parser can leave out what that use never reads.
///
/// Only a JSON `.ips` report is read differently: it is translated to the classic text, and
/// its document (the JSON it came from) is what `IPSRenderer` writes back. Its text and its
/// document are each about the size of the file; a report read for one of them does not hold
/// the other, and one read for its model alone holds neither. Every other report is read the
/// same for every use.
public enum ReportUse: Sendable, Equatable {
    /// Everything is kept: the text and, for an `.ips` report, its document.
    case any
    /// The report's text and model, written as text or frame lines: an `.ips` report's
    /// ``IPSDocument`` holds none of its bytes or frame objects.
    case text
    /// An `.ips` report written back as `.ips` (`IPSRenderer`): the text of its threads is let
    /// go as it is translated, their lines left empty in the report's text; its header, text
    /// backtraces and images stay.
    case document
    /// The report's model, written as JSON (which reads no line of the report): an `.ips`
    /// report's threads' text is let go as it is translated, as for `.document`, and its
    /// document holds none of its bytes or frame objects, as for `.text`.
    case model

    /// Whether an `.ips` report's document keeps its bytes and frame objects.
    var keepsDocument: Bool { self == .any || self == .document }

    /// Whether an `.ips` report's translated threads' text is let go (their lines left empty).
    var dropsThreadsText: Bool { self == .document || self == .model }
}
