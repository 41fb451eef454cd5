/// Backtraces of a report that another producer wrote than the one its ``ReportSource`` names:
/// a log can hold several producers' (``MixedProducers``), and each backtrace is named and
/// written back as its own producer names and writes frames.
public struct BacktraceProducer: Sendable, Equatable {
    /// The indexes of the report's `threads` this producer wrote.
    public var threads: Range<Int>
    /// How its frame lines are written (a Linux log's in a Swift runtime backtrace's log).
    public var frameLines: FrameLineForm
    /// How it names frames.
    public var frameNaming: FrameNaming

    /// Backtraces `threads` of a producer that writes and names frames so.
    public init(threads: Range<Int>, frameLines: FrameLineForm, frameNaming: FrameNaming) {
        self.threads = threads
        self.frameLines = frameLines
        self.frameNaming = frameNaming
    }
}

extension CrashReport {
    /// How the producer of backtrace `thread` writes its frame lines.
    public func frameLines(ofThread thread: Int) -> FrameLineForm {
        if otherProducers.isEmpty { return source.frameLines }
        return otherProducers.first { $0.threads.contains(thread) }?.frameLines ?? source.frameLines
    }

    /// How the producer of backtrace `thread` names frames.
    public func frameNaming(ofThread thread: Int) -> FrameNaming {
        if otherProducers.isEmpty { return source.frameNaming }
        return otherProducers.first { $0.threads.contains(thread) }?.frameNaming ?? source.frameNaming
    }
}
