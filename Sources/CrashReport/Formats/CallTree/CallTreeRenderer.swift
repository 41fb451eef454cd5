/// Prints a symbolicated call-tree report (spindump, `sample`, microstackshot) as text, line for
/// line in place of the input, each resolved frame written the way its tool writes a frame it
/// knows the symbol of:
///
///     spindump:  `  16  ??? (App + 16900) [0x104a34204] 1-16`
///            →   `  16  parse_record + 28 (parser.c:27 in App + 16900) [0x104a34204] 1-16`
///     sample:    `    + 2757 ???  (in App)  load address 0x104a30000 + 0x4204  [0x104a34204]`
///            →   `    + 2757 parse_record  (in App) + 28  [0x104a34204]  parser.c:27`
///
/// Frames inlined into a resolved frame are lines of their own before it, with the same prefix
/// (guides, sample count, depth) and the same address, ending in ` [inlined]`. Every other line,
/// and every frame not resolved, is copied byte for byte; names from debug files are escaped
/// (`OutputEscaping`). With `marks` (a terminal), the lines of frames resolved in the app's
/// images are set in bold (``TerminalMarks``).
public struct CallTreeRenderer: Sendable {
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

    /// Appends the text of `symbolicated`, a call-tree report whose frames `tree` describes
    /// (``ReportSource/callTree(_:)``), to `out`; with `flush`, hands it on as it goes
    /// (``OutputFlush``).
    public func render(_ symbolicated: SymbolicatedReport, tree: CallTreeDocument, into out: inout [UInt8],
                       flush: OutputFlush? = nil) {
        let report = symbolicated.report
        guard !symbolicated.frames.isEmpty else {
            report.bytes.withUnsafeBufferPointer { flush.append($0, to: &out) }
            return
        }
        var edits: [(line: Int, key: FrameKey)] = []
        for (key, sourceFrames) in symbolicated.frames where !sourceFrames.isEmpty {
            guard report.threads.indices.contains(key.thread),
                  report.threads[key.thread].frames.indices.contains(key.frame),
                  tree.node(key) != nil
            else { continue }
            let frame = report.threads[key.thread].frames[key.frame]
            guard frame.restStart != nil, report.lines.indices.contains(frame.line) else { continue }
            edits.append((frame.line, key))
        }
        edits.sort { $0.line < $1.line }
        flush.reserve(symbolicated.estimatedTextSize, in: &out)
        report.bytes.withUnsafeBufferPointer { b in
            var splice = ByteSplice(b, flush: flush)
            for edit in edits {
                let range = report.lines[edit.line]
                splice.replace(range, in: &out) { out in
                    let frame = report.threads[edit.key.thread].frames[edit.key.frame]
                    renderLine(b, range, restStart: frame.restStart ?? 0,
                               node: tree.nodes[edit.key.thread][edit.key.frame], style: tree.style,
                               sourceFrames: symbolicated.frames[edit.key] ?? [],
                               marked: marks?.marks(image: frame.image) ?? false, into: &out)
                }
            }
            splice.finish(in: &out)
        }
    }

    private func renderLine(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, restStart: Int,
                            node: CallTreeDocument.Node, style: CallTreeDocument.Style,
                            sourceFrames: [SourceFrame], marked: Bool, into out: inout [UInt8]) {
        let contentEnd = b.contentEnd(range)
        let length = contentEnd - range.lowerBound
        // The parts must lie in the line's text, in order; otherwise the line stays as it is.
        let image = Int(node.image.lowerBound)..<Int(node.image.upperBound)
        let groupEnd = Int(node.groupEnd)
        let address = node.address.map { Int($0.lowerBound)..<Int($0.upperBound) }
        // A node without an image group (`??? [0x...]`) has nothing to write a symbol into.
        guard !image.isEmpty, restStart <= image.lowerBound, image.upperBound <= groupEnd, groupEnd <= length,
              address.map({ $0.lowerBound >= groupEnd && $0.upperBound <= length }) ?? true
        else {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[range]))
            return
        }
        let line = UnsafeBufferPointer(rebasing: b[range.lowerBound..<contentEnd])
        let terminator = UnsafeBufferPointer(rebasing: b[contentEnd..<range.upperBound])
        for (k, source) in sourceFrames.enumerated() {
            out.appendMarkStart(marked)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: line[0..<restStart]))
            OutputEscaping.append(source.function, to: &out)
            switch style {
            case .spindump:
                if let offset = source.offset {
                    out.append(literal: " + ")
                    out.append(decimal: offset)
                }
                out.append(literal: " (")
                if let file = source.file {
                    OutputEscaping.append(fullPath ? file[...] : basename(file), to: &out)
                    if let number = source.line, number > 0 {
                        out.append(ASCII.colon)
                        out.append(decimal: number)
                        if let column = source.column, column > 0 {
                            out.append(ASCII.comma)
                            out.append(decimal: column)
                        }
                    }
                    out.append(literal: " in ")
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: line[image]))
                out.append(ASCII.closeParen)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: line[groupEnd..<length]))
            case .sample:
                out.append(literal: "  ")
                out.append(contentsOf: UnsafeBufferPointer(rebasing: line[image]))
                if let offset = source.offset {
                    out.append(literal: " + ")
                    out.append(decimal: offset)
                }
                if let address {
                    out.append(literal: "  ")
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: line[address]))
                }
                if let file = source.file {
                    out.append(literal: "  ")
                    OutputEscaping.append(fullPath ? file[...] : basename(file), to: &out)
                    if let number = source.line, number > 0 {
                        out.append(ASCII.colon)
                        out.append(decimal: number)
                    }
                }
            }
            if source.inlined { out.append(literal: " [inlined]") }
            out.appendMarkEnd(marked)
            out.append(contentsOf: k == sourceFrames.count - 1 ? terminator : innerTerminator(terminator))
        }
    }

    /// The line end of added lines: the line's own, or "\n" for a last line without one.
    private func innerTerminator(_ terminator: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        terminator.isEmpty ? Self.newline : terminator
    }

    private static let newline: UnsafeBufferPointer<UInt8> = {
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1)
        storage[0] = ASCII.newline
        return UnsafeBufferPointer(storage)
    }()
}
