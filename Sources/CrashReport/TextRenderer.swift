/// Prints a symbolicated report as text, line for line in place of the input.
///
/// Every line that is not a resolved frame is copied byte for byte, so a report with nothing
/// resolved comes back exactly as it was read (line endings and a missing final newline included).
/// A resolved frame line keeps its bytes up to the text after the address (index, image, address
/// and padding as they were) and gets `function + offset (File.m:42)` and its own line terminator
/// in place of the rest. Inlined frames each get a line of their own with the same prefix, innermost
/// first and marked ` [inlined]`; the concrete frame comes last:
///
///     3   App                           	0x0000000104a3c5e0 clamp + 8 (Math.h:12) [inlined]
///     3   App                           	0x0000000104a3c5e0 compute + 40 (main.c:42)
public struct TextRenderer: Sendable {
    /// Print each source file as the debug information records it, rather than its file name.
    public var fullPath: Bool

    /// Creates a renderer that prints file names (or full paths if `fullPath`).
    public init(fullPath: Bool = false) {
        self.fullPath = fullPath
    }

    /// Appends the text of `symbolicated` to `out`.
    public func render(_ symbolicated: SymbolicatedReport, into out: inout [UInt8]) {
        let report = symbolicated.report
        var edits: [(line: Int, restStart: Int, frames: [SourceFrame])] = []
        edits.reserveCapacity(symbolicated.frames.count)
        for (key, sourceFrames) in symbolicated.frames where !sourceFrames.isEmpty {
            guard report.threads.indices.contains(key.thread),
                  report.threads[key.thread].frames.indices.contains(key.frame)
            else { continue }
            let frame = report.threads[key.thread].frames[key.frame]
            guard let restStart = frame.restStart, report.lines.indices.contains(frame.line) else { continue }
            edits.append((frame.line, restStart, sourceFrames))
        }
        guard !edits.isEmpty else {
            out.append(contentsOf: report.bytes)
            return
        }
        edits.sort { $0.line < $1.line }

        report.bytes.withUnsafeBufferPointer { b in
            var copied = 0
            var previousLine = -1
            for edit in edits where edit.line != previousLine {
                previousLine = edit.line
                let range = report.lines[edit.line]
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[copied..<range.lowerBound]))
                let contentEnd = Self.contentEnd(b, range)
                let prefixEnd = min(range.lowerBound + edit.restStart, contentEnd)
                let needsBlank = prefixEnd == range.lowerBound || !isBlank(b[prefixEnd - 1])
                let terminator = UnsafeBufferPointer(rebasing: b[contentEnd..<range.upperBound])
                // Lines added for inlined frames need a terminator even when the frame's own line,
                // the report's last, has none: take the previous line's.
                var innerTerminator = terminator
                if terminator.isEmpty {
                    if edit.line > 0 {
                        let previous = report.lines[edit.line - 1]
                        innerTerminator = UnsafeBufferPointer(
                            rebasing: b[Self.contentEnd(b, previous)..<previous.upperBound])
                    }
                }
                for (k, sourceFrame) in edit.frames.enumerated() {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: b[range.lowerBound..<prefixEnd]))
                    if needsBlank { out.append(ASCII.space) }
                    if report.format == .linuxLog {
                        appendLinux(sourceFrame, to: &out)
                    } else {
                        append(sourceFrame, to: &out)
                    }
                    if k == edit.frames.count - 1 {
                        out.append(contentsOf: terminator)
                    } else if innerTerminator.isEmpty {
                        out.append(ASCII.newline)
                    } else {
                        out.append(contentsOf: innerTerminator)
                    }
                }
                copied = range.upperBound
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[copied..<b.count]))
        }
    }

    /// `function + offset (file:line)`, then ` [inlined]` for inlined frames.
    private func append(_ frame: SourceFrame, to out: inout [UInt8]) {
        out.append(utf8: frame.function)
        if let offset = frame.offset {
            out.append(literal: " + ")
            out.append(decimal: offset)
        }
        if let file = frame.file {
            out.append(literal: " (")
            if fullPath {
                out.append(utf8: file)
            } else {
                out.append(contentsOf: basename(file).utf8)
            }
            if let line = frame.line, line > 0 {
                out.append(ASCII.colon)
                out.append(decimal: line)
            }
            out.append(ASCII.closeParen)
        }
        if frame.inlined { out.append(literal: " [inlined]") }
    }

    /// The end of a line's text: before its "\n" or "\r\n".
    private static func contentEnd(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int {
        var end = range.upperBound
        if end > range.lowerBound && b[end - 1] == ASCII.newline {
            end -= 1
            if end > range.lowerBound && b[end - 1] == ASCII.carriageReturn { end -= 1 }
        }
        return end
    }
}
