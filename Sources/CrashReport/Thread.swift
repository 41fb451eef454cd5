/// Which kind of backtrace a `Thread` value holds.
public enum ThreadKind: Sendable, Equatable {
    /// `Thread N:` and its variants; the associated value is N.
    case thread(Int)
    /// `Last Exception Backtrace:`, the stack of an uncaught Objective-C exception.
    case lastExceptionBacktrace
    /// `Application Specific Backtrace N:` (macOS); the associated value is N.
    case applicationSpecificBacktrace(Int)
}

/// One backtrace of a report: a thread's stack, or the Last Exception / Application Specific
/// Backtrace, which the report prints the same way.
///
/// Inside this module `Thread` means this type. Code that also imports Foundation, whose
/// `Thread` class has the same name, can write `CrashReport.Thread` or `ReportThread`.
public struct Thread: Sendable, Equatable {
    /// Which backtrace this is.
    public var kind: ThreadKind
    /// The thread's name: the text after `Crashed:` or `::` on the header, else the text of a
    /// preceding `Thread N name:` line (e.g. "Dispatch queue: com.apple.main-thread").
    public var name: String?
    /// Whether the header says "Crashed", or the report's "Crashed Thread" / "Triggered by
    /// Thread" names this thread.
    public var crashed: Bool
    /// The frames in report order (innermost first).
    public var frames: [Frame]
    /// The 0-based index of the header line in the report.
    public var headerLine: Int?
    /// For a backtrace printed as a parenthesized list of addresses, the lines the list takes,
    /// from the one with `(` to the one with `)`.
    public var addressListLines: Range<Int>?

    /// Creates a thread from its parts.
    public init(kind: ThreadKind, name: String? = nil, crashed: Bool = false, frames: [Frame] = [],
                headerLine: Int? = nil) {
        self.kind = kind
        self.name = name
        self.crashed = crashed
        self.frames = frames
        self.headerLine = headerLine
    }
}

extension Thread {
    /// The frames that print frame `f` in an already symbolicated report: `f` itself and the
    /// inlined lines just before it that belong to it, i.e. `f..<f + 1` widened down while the
    /// previous frame is inlined, has the same address as `f` and sits on the line just before.
    /// When `f` is resolved anew, its new source frames take the place of all these lines.
    ///
    /// `f` must be an index of `frames`.
    public func inlinedRun(endingAt f: Int) -> Range<Int> {
        var first = f
        while first > 0, frames[first - 1].inlined, frames[first - 1].address == frames[f].address,
              frames[first - 1].line == frames[first].line - 1 {
            first -= 1
        }
        return first..<f + 1
    }
}

/// Another name for this module's `Thread`, for code that also imports Foundation.
public typealias ReportThread = Thread

extension CrashReport {
    /// This module's `Thread`, reachable as `CrashReport.Thread` where Foundation's `Thread`
    /// is also visible.
    public typealias Thread = ReportThread
}

extension Array where Element == Frame {
    /// Moves the frames to a buffer of their own size when growing by doubling left much more
    /// room: a parser calls it as each backtrace ends, so that of a report with many threads
    /// the spare room of one is held at a time, not of each.
    mutating func shrinkToFit() {
        guard capacity - count > count / 8 + 2 else { return }
        self = withUnsafeBufferPointer { Array($0) }
    }
}
