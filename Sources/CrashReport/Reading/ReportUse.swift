/// What a report is read for, so that a parser can leave out what that use never reads.
///
/// Only a JSON `.ips` report is read differently: it is translated to the classic text, and
/// its document (the JSON it came from) is what `IPSRenderer` writes back. Its text and its
/// document are each about the size of the file; a report read for one of them does not hold
/// the other. Every other report is read the same for every use.
public enum ReportUse: Sendable, Equatable {
    /// Everything is kept: the text and, for an `.ips` report, its document.
    case any
    /// The report's text and model, written as text, JSON or frame lines: an `.ips` report's
    /// ``IPSDocument`` holds none of its bytes or frame objects.
    case text
    /// An `.ips` report written back as `.ips` (`IPSRenderer`): the text of its threads is let
    /// go as it is translated, their lines left empty in the report's text; its header, text
    /// backtraces and images stay.
    case document
}
