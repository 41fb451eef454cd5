/// Which kind of backtrace a `Backtrace` value holds.
public enum BacktraceKind: Sendable, Equatable {
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
/// Called `Backtrace`, not `Thread`: it also holds the exception backtraces, and Foundation's
/// `Thread` keeps its name in code that imports both.
public struct Backtrace: Sendable, Equatable {
    // A report can hold a hundred thousand backtraces of a few frames each, so a thread is
    // kept in 48 bytes: its kind as a tag and a number, its lines as 32-bit numbers (a report
    // is read only up to 1 GiB, so its lines number fewer than 2^31).
    /// The thread's name: the text after `Crashed:` or `::` on the header, else the text of a
    /// preceding `Thread N name:` line (e.g. "Dispatch queue: com.apple.main-thread").
    public var name: String?
    /// The frames in report order (innermost first).
    public var frames: FrameList
    /// The number of `kind`, when it has one.
    private var number: Int
    /// `headerLine`, or -1 for none.
    private var storedHeaderLine: Int32 = -1
    /// The bounds of `addressListLines`, or -1 for none.
    private var listStart: Int32 = -1
    private var listEnd: Int32 = -1
    /// 0 for `thread`, 1 for `lastExceptionBacktrace`, 2 for `applicationSpecificBacktrace`.
    private var kindTag: UInt8
    /// Whether the header says "Crashed", or the report's "Crashed Thread" / "Triggered by
    /// Thread" names this thread.
    public var crashed: Bool

    /// Which backtrace this is.
    public var kind: BacktraceKind {
        get {
            switch kindTag {
            case 0: return .thread(number)
            case 1: return .lastExceptionBacktrace
            default: return .applicationSpecificBacktrace(number)
            }
        }
        set {
            switch newValue {
            case .thread(let n): (kindTag, number) = (0, n)
            case .lastExceptionBacktrace: (kindTag, number) = (1, 0)
            case .applicationSpecificBacktrace(let n): (kindTag, number) = (2, n)
            }
        }
    }

    /// The 0-based index of the header line in the report.
    public var headerLine: Int? {
        get { storedHeaderLine < 0 ? nil : Int(storedHeaderLine) }
        set { storedHeaderLine = newValue.flatMap { Int32(exactly: $0) } ?? -1 }
    }

    /// For a backtrace printed as a parenthesized list of addresses, the lines the list takes,
    /// from the one with `(` to the one with `)`.
    public var addressListLines: Range<Int>? {
        get { listStart < 0 ? nil : Int(listStart)..<Int(listEnd) }
        set {
            if let newValue, let start = Int32(exactly: newValue.lowerBound), let end = Int32(exactly: newValue.upperBound) {
                (listStart, listEnd) = (start, end)
            } else {
                (listStart, listEnd) = (-1, -1)
            }
        }
    }

    /// Creates a thread from its parts.
    public init(kind: BacktraceKind, name: String? = nil, crashed: Bool = false, frames: FrameList = [],
                headerLine: Int? = nil) {
        self.name = name
        self.frames = frames
        self.number = 0
        self.kindTag = 0
        self.crashed = crashed
        self.kind = kind
        self.headerLine = headerLine
    }
}

extension Backtrace {
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
