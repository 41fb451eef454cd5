/// The frames of a translated `.ips` report found by the line they are on, for
/// `IPSReportParser`: the key of the frame (with a place in its line) on a given line.
///
/// The translation's frames ask in increasing line order, each inlined frame also for the
/// line of its concrete frame, a little further on: a cursor over the report's frames in
/// order answers the first, a look ahead of it (the last one kept, for every inlined frame
/// of a run asks for the same line) the second. When the report's frames are not in line
/// order, a table by line answers both.
///
/// It holds no copy of the threads (each call is handed them): the caller changes their
/// frames as it goes, which would then copy them all.
struct IPSFrameKeys {
    /// The first frame not before the line last asked for.
    private var thread = 0
    private var frame = 0
    private var ahead: (line: Int, key: FrameKey?)?
    private var table: [Int: FrameKey]?

    init(_ threads: [Backtrace]) {
        var last = -1
        var ordered = true
        for thread in threads {
            for frame in thread.frames where frame.restStart != nil {
                if frame.line <= last { ordered = false }
                last = frame.line
            }
        }
        guard !ordered else { return }
        var table: [Int: FrameKey] = [:]
        for (t, thread) in threads.enumerated() {
            for (f, frame) in thread.frames.enumerated() where frame.restStart != nil {
                table[frame.line] = FrameKey(thread: t, frame: f)
            }
        }
        self.table = table
    }

    /// The frame of `threads` on `line`, no line before the one last asked for; nil when
    /// none is.
    mutating func key(at line: Int, in threads: [Backtrace]) -> FrameKey? {
        if let table { return table[line] }
        while thread < threads.count {
            let frames = threads[thread].frames
            while frame < frames.count {
                let candidate = frames[frame]
                if candidate.restStart != nil && candidate.line >= line {
                    return candidate.line == line ? FrameKey(thread: thread, frame: frame) : nil
                }
                frame += 1
            }
            thread += 1
            frame = 0
        }
        return nil
    }

    /// The frame of `threads` on `line`, at or after the one last asked for by
    /// ``key(at:in:)``, without moving on.
    mutating func key(ahead line: Int, in threads: [Backtrace]) -> FrameKey? {
        if let table { return table[line] }
        if let ahead, ahead.line == line { return ahead.key }
        var found: FrameKey?
        var t = thread, f = frame
        search: while t < threads.count {
            let frames = threads[t].frames
            while f < frames.count {
                let candidate = frames[f]
                if candidate.restStart != nil && candidate.line >= line {
                    if candidate.line == line { found = FrameKey(thread: t, frame: f) }
                    break search
                }
                f += 1
            }
            t += 1
            f = 0
        }
        ahead = (line, found)
        return found
    }
}
