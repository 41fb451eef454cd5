/// A report together with what symbolication found for its frames: the input of the renderers.
public struct SymbolicatedReport: Sendable {
    /// The parsed report.
    public var report: CrashReport
    /// The source frames of each resolved frame: innermost inlined frame first, the concrete
    /// frame last. A frame without an entry (or with an empty one) is unresolved.
    public var frames: ResolvedFrames
    /// For each image index (into `report.images`), the path of the debug file used for it.
    public var debugFiles: [Int: String]
    /// The frames that are a signal trampoline (`_sigtramp`, `__restore_rt`), named so by the
    /// report or by the symbol table of their image's debug file: the frames before one are a
    /// signal handler's own, the frame after it the interrupted instruction.
    public var signalTrampolines: Set<FrameKey> = []
    /// For each app image (index into `report.images`) whose frames were left without file and
    /// line, why.
    public var unresolvedImages: [Int: UnresolvedImage] = [:]

    /// Creates a symbolicated report; with the defaults, one with nothing resolved.
    public init(report: CrashReport, frames: ResolvedFrames = ResolvedFrames(), debugFiles: [Int: String] = [:]) {
        self.report = report
        self.frames = frames
        self.debugFiles = debugFiles
    }

    /// Creates a symbolicated report whose resolutions are given by key.
    public init(report: CrashReport, frames: [FrameKey: [SourceFrame]], debugFiles: [Int: String] = [:]) {
        self.init(report: report, frames: ResolvedFrames(frames), debugFiles: debugFiles)
    }
}

extension SymbolicatedReport {
    /// Whether frame `f` of thread `t` is an inlined line of an already symbolicated report
    /// (`... [inlined]`) whose concrete frame — the next one that is not inlined — was resolved
    /// anew and claims it (`Backtrace.inlinedRun(endingAt:)`): the new inlined frames then take the
    /// old line's place.
    public func replacesInlinedLine(thread t: Int, frame f: Int) -> Bool {
        let thread = report.threads[t]
        guard thread.frames[f].inlined else { return false }
        var concrete = f + 1
        while concrete < thread.frames.count, thread.frames[concrete].inlined { concrete += 1 }
        guard concrete < thread.frames.count, thread.inlinedRun(endingAt: concrete).contains(f) else { return false }
        return !(self.frames[FrameKey(thread: t, frame: concrete)] ?? []).isEmpty
    }
}

/// Names one frame of a report: indices into `CrashReport.threads` and that thread's `frames`.
public struct FrameKey: Hashable, Sendable {
    /// The index into `CrashReport.threads` (not the thread number).
    public var thread: Int
    /// The index into the thread's `frames`.
    public var frame: Int

    /// Creates a key from the two indices.
    public init(thread: Int, frame: Int) {
        self.thread = thread
        self.frame = frame
    }
}

/// One resolved source frame, as produced by the symbolicator: a function and where in the
/// source the address falls.
public struct SourceFrame: Sendable, Equatable {
    /// The function's name, demangled if the symbolicator could.
    public var function: String
    /// Bytes from the function's start to the address; nil means "do not print".
    public var offset: UInt64?
    /// The source file as DWARF records it (usually a full path).
    public var file: String?
    /// The source line; nil or 0 when unknown.
    public var line: Int?
    /// The source column; nil or 0 when unknown.
    public var column: Int?
    /// Whether this frame was inlined into the next one.
    public var inlined: Bool

    /// Creates a source frame from its parts.
    public init(function: String, offset: UInt64? = nil, file: String? = nil, line: Int? = nil,
                column: Int? = nil, inlined: Bool = false) {
        self.function = function
        self.offset = offset
        self.file = file
        self.line = line
        self.column = column
        self.inlined = inlined
    }
}
