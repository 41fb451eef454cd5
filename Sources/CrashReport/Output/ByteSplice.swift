/// Writes a report's original bytes to the output with ranges of them replaced: what a renderer
/// does that keeps every byte it does not rewrite (frame lines, JSON frame objects).
///
/// The edits come in ascending order. Each one copies the bytes from the end of the last edit
/// (the ``cursor``) up to its range, writes its replacement, and moves the cursor to the end of
/// its range; ``finish(in:)`` copies the rest. An edit that starts before the cursor (it
/// overlaps one already made) or ends past the bytes is skipped: nothing is written for it and
/// the cursor stays. With an ``OutputFlush``, the copied runs go out as ``OutputFlush`` passes
/// the parts of the input it keeps (a large one without being copied into the buffer), and the
/// buffer is handed on after each edit once it holds enough.
///
///     var splice = ByteSplice(b, flush: flush)
///     for (range, bytes) in edits { splice.replace(range, with: bytes, in: &out) }
///     splice.finish(in: &out)
struct ByteSplice {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let flush: OutputFlush?
    /// Where the bytes not yet written start: the end of the last edit made.
    private(set) var cursor: Int
    /// Where the bytes written end.
    private let end: Int

    /// A splice of `bytes`, written to the output as `flush` says (nil: all of it to the buffer);
    /// of `window` of them alone when given (a piece of a report written back in pieces).
    init(_ bytes: UnsafeBufferPointer<UInt8>, flush: OutputFlush?, window: Range<Int>? = nil) {
        self.bytes = bytes
        self.flush = flush
        let window = window.map { $0.clamped(to: 0..<bytes.count) } ?? 0..<bytes.count
        (cursor, end) = (window.lowerBound, window.upperBound)
    }

    /// Whether an edit of `range` would be made: it starts at or after the cursor and ends
    /// within the bytes written.
    @inline(__always)
    func accepts(_ range: Range<Int>) -> Bool {
        range.lowerBound >= cursor && range.upperBound <= end
    }

    /// Replaces `range` with what `write` appends to `out`, after copying the bytes before it;
    /// returns false, writing nothing and calling nothing, when the edit is skipped (``accepts(_:)``).
    @discardableResult
    @inline(__always)
    mutating func replace(_ range: Range<Int>, in out: inout [UInt8], with write: (inout [UInt8]) -> Void) -> Bool {
        guard accepts(range) else { return false }
        flush.append(UnsafeBufferPointer(rebasing: bytes[cursor..<range.lowerBound]), to: &out)
        write(&out)
        cursor = range.upperBound
        flush.check(&out)
        return true
    }

    /// Replaces `range` with `replacement`, after copying the bytes before it; returns false,
    /// writing nothing, when the edit is skipped (``accepts(_:)``).
    @discardableResult
    @inline(__always)
    mutating func replace(_ range: Range<Int>, with replacement: [UInt8], in out: inout [UInt8]) -> Bool {
        replace(range, in: &out) { $0.append(contentsOf: replacement) }
    }

    /// Copies the bytes after the last edit: the end of the splice.
    mutating func finish(in out: inout [UInt8]) {
        flush.append(UnsafeBufferPointer(rebasing: bytes[cursor..<end]), to: &out)
        cursor = end
    }
}
