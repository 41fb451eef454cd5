/// Prints a symbolicated report as text, line for line in place of the input.
///
/// Every line that is not a resolved frame is copied byte for byte, so a report with nothing
/// resolved comes back exactly as it was read (line endings and a missing final newline included).
/// A resolved frame line keeps its bytes up to the text after the address (index, image, address
/// and padding as they were) and gets `function + offset (File.m:42)` and its own line terminator
/// in place of the rest. Inlined frames each get a line of their own with the same prefix, innermost
/// first and marked ` [inlined]`; the concrete frame comes last. What is written in place of the
/// rest (names from the debug file) is escaped by `OutputEscaping`, so that it stays on its line
/// and cannot drive a terminal:
///
///     3   App                           	0x0000000104a3c5e0 clamp + 8 (Math.h:12) [inlined]
///     3   App                           	0x0000000104a3c5e0 compute + 40 (main.c:42)
///
/// With `marks` (a terminal), the lines of frames resolved in the app's images are set in bold
/// (``TerminalMarks``); without, no escape sequence is written.
///
/// A frame line is written as the report writes its frames (``ReportSource/frameLines``): as
/// above, as a sanitizer or glibc does, as the Swift runtime does, or after an Android
/// tombstone's line. This is the text output of
/// every report but two, which have writers of their own: a call-tree report
/// (``CallTreeRenderer``) and a Swift runtime JSON crash log (``SwiftBacktraceJSONRenderer``).
public struct TextRenderer: Sendable {
    /// Print each source file as the debug information records it, rather than its file name.
    public var fullPath: Bool
    /// How the app's frames are marked for a terminal; nil for none.
    public var marks: TerminalMarks?

    /// Creates a renderer that prints file names (or full paths if `fullPath`), marking the
    /// app's resolved frames when given `marks`.
    public init(fullPath: Bool = false, marks: TerminalMarks? = nil) {
        self.fullPath = fullPath
        self.marks = marks
    }

    /// Appends the text of `symbolicated` to `out`; with `flush`, hands it on as it goes
    /// (``OutputFlush``), the lines kept as they are without a copy.
    public func render(_ symbolicated: SymbolicatedReport, into out: inout [UInt8], flush: OutputFlush? = nil) {
        let report = symbolicated.report
        // The edits come in report order, which is line order but for odd reports: they are
        // then written as they come, else gathered and sorted first.
        var count = 0
        var ordered = true
        var last = -1
        Self.forEachEdit(symbolicated, marks: marks) { edit in
            count += 1
            if edit.lines.lowerBound <= last { ordered = false }
            last = edit.lines.lowerBound
        }
        guard count > 0 else {
            report.bytes.withUnsafeBufferPointer { flush.append($0, to: &out) }
            return
        }
        flush.reserve(symbolicated.estimatedTextSize, in: &out)
        report.bytes.withUnsafeBufferPointer { b in
            var splice = ByteSplice(b, flush: flush)
            func write(_ edit: Edit) {
                let first = report.lines[edit.lines.lowerBound], last = report.lines[edit.lines.upperBound - 1]
                splice.replace(first.lowerBound..<last.upperBound, in: &out) { out in
                    switch edit.kind {
                    case .frame(let restStart, let frames, let marked, let thread):
                        renderFrame(report, b, line: edit.lines.upperBound - 1, restStart: restStart, frames: frames,
                                    form: report.frameLines(ofThread: thread), marked: marked, into: &out)
                    case .addressList(let thread):
                        renderAddressList(symbolicated, b, thread: thread, lines: edit.lines, into: &out, flush: flush)
                    }
                }
            }
            if ordered {
                Self.forEachEdit(symbolicated, marks: marks, write)
            } else {
                var edits: [Edit] = []
                edits.reserveCapacity(count)
                Self.forEachEdit(symbolicated, marks: marks) { edits.append($0) }
                edits.sort { $0.lines.lowerBound < $1.lines.lowerBound }
                for edit in edits { write(edit) }
            }
            splice.finish(in: &out)
        }
    }

    private struct Edit {
        enum Kind {
            /// A frame line whose text after `restStart` is replaced; `marked` for a terminal.
            case frame(restStart: Int, frames: [SourceFrame], marked: Bool, thread: Int)
            /// A parenthesized address list replaced by numbered frame lines.
            case addressList(thread: Int)
        }
        var lines: Range<Int>
        var kind: Kind
    }

    /// Hands `body` the lines to rewrite, in report order (thread by thread, frame by frame):
    /// resolved frame lines, and the address lists of which at least one frame was resolved.
    private static func forEachEdit(_ symbolicated: SymbolicatedReport, marks: TerminalMarks?, _ body: (Edit) -> Void) {
        let report = symbolicated.report
        var lists: Set<Int> = []
        for (key, sourceFrames) in symbolicated.frames where !sourceFrames.isEmpty {
            guard report.threads.indices.contains(key.thread),
                  report.threads[key.thread].frames.indices.contains(key.frame)
            else { continue }
            let thread = report.threads[key.thread]
            let frame = thread.frames[key.frame]
            if let restStart = frame.restStart, report.lines.indices.contains(frame.line) {
                // Inlined lines the report already had for this frame are replaced too.
                let first = thread.inlinedRun(endingAt: key.frame).lowerBound
                let lines = thread.frames[first].line..<frame.line + 1
                let marked = marks?.marks(image: frame.image) ?? false
                body(Edit(lines: lines, kind: .frame(restStart: restStart, frames: sourceFrames, marked: marked, thread: key.thread)))
            } else if let lines = thread.addressListLines, !lines.isEmpty, lines.upperBound <= report.lines.count,
                      lists.insert(key.thread).inserted {
                body(Edit(lines: lines, kind: .addressList(thread: key.thread)))
            }
        }
    }

    /// One frame line: its bytes up to `restStart`, then each source frame, innermost first,
    /// each on a line of its own with the same prefix, in `form` (its backtrace's producer's);
    /// each line set in bold when `marked`.
    private func renderFrame(_ report: CrashReport, _ b: UnsafeBufferPointer<UInt8>, line: Int, restStart: Int,
                             frames: [SourceFrame], form: FrameLineForm, marked: Bool, into out: inout [UInt8]) {
        let range = report.lines[line]
        let contentEnd = b.contentEnd(range)
        let prefixEnd = min(range.lowerBound + restStart, contentEnd)
        if form == .swiftRuntime {
            let terminators = (UnsafeBufferPointer(rebasing: b[contentEnd..<range.upperBound]),
                               Self.innerTerminator(report, b, line: line))
            renderSwiftFrame(report, b, line: range.lowerBound..<prefixEnd, frames: frames, terminators: terminators,
                             marked: marked, into: &out)
            return
        }
        let needsBlank = prefixEnd == range.lowerBound || !isBlank(b[prefixEnd - 1])
        let terminator = UnsafeBufferPointer(rebasing: b[contentEnd..<range.upperBound])
        let innerTerminator = Self.innerTerminator(report, b, line: line)
        let prefix = UnsafeBufferPointer(rebasing: b[range.lowerBound..<prefixEnd])
        for (k, sourceFrame) in frames.enumerated() {
            out.appendMarkStart(marked)
            out.append(contentsOf: prefix)
            if needsBlank { out.append(ASCII.space) }
            if form == .linux {
                appendLinux(sourceFrame, prefix: prefix, replacing: UnsafeBufferPointer(rebasing: b[prefixEnd..<contentEnd]),
                            to: &out)
            } else if form == .tombstone {
                appendTombstone(sourceFrame, to: &out)
            } else {
                append(sourceFrame, to: &out)
            }
            out.appendMarkEnd(marked)
            out.append(contentsOf: k == frames.count - 1 ? terminator : innerTerminator)
        }
    }

    /// A parenthesized "Last Exception Backtrace" list, written as numbered frame lines the way
    /// Xcode prints them: image found by address range, resolved frames with their source
    /// frames, the others as `0xLOAD + OFFSET` (or `???` outside every image).
    ///
    ///     0   CoreFoundation                	0x000000018eee41c0 0x18edc8000 + 1163712
    ///     1   App                           	0x0000000104a3c5e0 compute + 40 (main.c:42)
    private func renderAddressList(_ symbolicated: SymbolicatedReport, _ b: UnsafeBufferPointer<UInt8>, thread: Int,
                                   lines: Range<Int>, into out: inout [UInt8], flush: OutputFlush?) {
        let report = symbolicated.report
        let last = report.lines[lines.upperBound - 1]
        let terminator = Array(UnsafeBufferPointer(rebasing: b[b.contentEnd(last)..<last.upperBound]))
        let inner = Array(Self.innerTerminator(report, b, line: lines.upperBound - 1))
        for (f, frame) in report.threads[thread].frames.enumerated() {
            let image = frame.image.flatMap { report.images.indices.contains($0) ? report.images[$0] : nil }
            var prefix: [UInt8] = []
            let number = String(f)
            prefix.append(utf8: number)
            prefix.append(contentsOf: repeatElement(ASCII.space, count: max(1, 4 - number.utf8.count)))
            let nameStart = prefix.count
            OutputEscaping.append(image?.name ?? "???", to: &prefix)
            prefix.append(contentsOf: repeatElement(ASCII.space, count: max(1, 30 - (prefix.count - nameStart))))
            prefix.append(ASCII.tab)
            prefix.append(literal: "0x")
            let hex = String(frame.address, radix: 16)
            prefix.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(0, 16 - hex.utf8.count)))
            prefix.append(utf8: hex)
            prefix.append(ASCII.space)
            let isLast = f == report.threads[thread].frames.count - 1
            if let sourceFrames = symbolicated.frames[FrameKey(thread: thread, frame: f)], !sourceFrames.isEmpty {
                let marked = marks?.marks(image: frame.image) ?? false
                for (k, sourceFrame) in sourceFrames.enumerated() {
                    out.appendMarkStart(marked)
                    out.append(contentsOf: prefix)
                    append(sourceFrame, to: &out)
                    out.appendMarkEnd(marked)
                    out.append(contentsOf: isLast && k == sourceFrames.count - 1 ? terminator : inner)
                }
            } else {
                out.append(contentsOf: prefix)
                if let image, frame.address >= image.loadAddress {
                    out.append(literal: "0x")
                    out.append(utf8: String(image.loadAddress, radix: 16))
                    out.append(literal: " + ")
                    out.append(decimal: frame.address - image.loadAddress)
                } else {
                    out.append(literal: "???")
                }
                out.append(contentsOf: isLast ? terminator : inner)
            }
            flush.check(&out)
        }
    }

    /// The line end for lines added after `line`: its own, or when it has none (the report's
    /// last line), the previous line's, or "\n".
    private static func innerTerminator(_ report: CrashReport, _ b: UnsafeBufferPointer<UInt8>, line: Int)
        -> UnsafeBufferPointer<UInt8> {
        for candidate in [line, line - 1] where candidate >= 0 {
            let range = report.lines[candidate]
            let end = b.contentEnd(range)
            if end < range.upperBound { return UnsafeBufferPointer(rebasing: b[end..<range.upperBound]) }
        }
        return newline
    }

    private static let newline: UnsafeBufferPointer<UInt8> = {
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1)
        storage[0] = ASCII.newline
        return UnsafeBufferPointer(storage)
    }()

    /// `function + offset (file:line)`, then ` [inlined]` for inlined frames.
    private func append(_ frame: SourceFrame, to out: inout [UInt8]) {
        OutputEscaping.append(frame.function, to: &out)
        if let offset = frame.offset {
            out.append(literal: " + ")
            out.append(decimal: offset)
        }
        if let file = frame.file {
            out.append(literal: " (")
            OutputEscaping.append(fullPath ? file[...] : basename(file), to: &out)
            if let line = frame.line, line > 0 {
                out.append(ASCII.colon)
                out.append(decimal: line)
            }
            out.append(ASCII.closeParen)
        }
        if frame.inlined { out.append(literal: " [inlined]") }
    }
}
