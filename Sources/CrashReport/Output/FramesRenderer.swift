/// Prints a symbolicated report as one tab-separated line per frame, for `grep`, `cut`,
/// `sort` and `uniq -c`:
///
///     REPORT  THREAD  FRAME  IMAGE  ADDRESS  FUNCTION  FILE:LINE  [inlined]
///     a.crash 0       0      App    0x104a34204  load_word  parser.c:8  [inlined]
///     a.crash 0       0      App    0x104a34204  parse_record  parser.c:27
///
/// - THREAD is the thread number, `exception` for the Last Exception Backtrace and `asi-N` for
///   Application Specific Backtrace N.
/// - FRAME is the frame number as printed; inlined frames repeat their frame's number, innermost
///   first, and end in `[inlined]`; the last field is empty otherwise.
/// - ADDRESS is empty for a frame whose address the report gives in no readable form
///   (`Frame.addressUnknown`).
/// - FUNCTION and FILE:LINE are what the debug file says, or for an unresolved frame what the
///   report itself says (`<redacted>`, `foo (File.m:42)`); empty where nothing is known.
/// - Control characters inside a field (tabs and line breaks included) are written as `\x09`,
///   `\x0a`, ... (`OutputEscaping`), so every line has exactly eight fields and nothing in a
///   name can drive a terminal.
public struct FramesRenderer: Sendable {
    /// Print each source file as the debug information records it, rather than its file name.
    public var fullPath: Bool

    /// Creates a renderer that prints file names (or full paths if `fullPath`).
    public init(fullPath: Bool = false) {
        self.fullPath = fullPath
    }

    /// Appends the frame lines of `symbolicated` to `out`. Each line starts with
    /// `reportField` when given (the report's path as the caller spells it, a file name's own
    /// bytes), else with the report's path escaped. With `flush`, hands them on as it goes
    /// (``OutputFlush``).
    public func render(_ symbolicated: SymbolicatedReport, reportField: [UInt8]? = nil, into out: inout [UInt8],
                       flush: OutputFlush? = nil) {
        let report = symbolicated.report
        let reportField = reportField ?? {
            var field: [UInt8] = []
            appendField(report.path, to: &field)
            return field
        }()
        flush.reserve(symbolicated.estimatedRecordsSize(perFrame: 96 + reportField.count, perImage: 0), in: &out)
        for (t, thread) in report.threads.enumerated() {
            let threadField: String
            switch thread.kind {
            case .thread(let number): threadField = String(number)
            case .lastExceptionBacktrace: threadField = "exception"
            case .applicationSpecificBacktrace(let number): threadField = "asi-\(number)"
            }
            for (f, frame) in thread.frames.enumerated() {
                let image = frame.image.flatMap { report.images.indices.contains($0) ? report.images[$0].name : nil }
                    ?? frame.imageName ?? ""
                let resolved = symbolicated.frames[FrameKey(thread: t, frame: f)] ?? []
                if symbolicated.replacesInlinedLine(thread: t, frame: f) { continue }
                if resolved.isEmpty {
                    var function = ""
                    var location = ""
                    switch frame.form {
                    case .symbol(let name, _):
                        function = name
                    case .symbolicated(let name, _, let file, let line):
                        function = name
                        location = "\(file):\(line)"
                    default:
                        break
                    }
                    appendLine(reportField, threadField, frame, image, function, location, frame.inlined, to: &out)
                } else {
                    for source in resolved {
                        var location = ""
                        if let file = source.file {
                            location = fullPath ? file : String(basename(file))
                            if let line = source.line, line > 0 { location += ":\(line)" }
                        }
                        appendLine(reportField, threadField, frame, image, source.function, location, source.inlined,
                                   to: &out)
                    }
                }
                flush.check(&out)
            }
        }
    }

    private func appendLine(_ reportField: [UInt8], _ thread: String, _ frame: Frame, _ image: String, _ function: String,
                            _ location: String, _ inlined: Bool, to out: inout [UInt8]) {
        out += reportField
        out.append(ASCII.tab)
        appendField(thread, to: &out)
        out.append(ASCII.tab)
        out.append(decimal: UInt64(max(0, frame.index)))
        out.append(ASCII.tab)
        appendField(image, to: &out)
        out.append(ASCII.tab)
        if !frame.addressUnknown {
            out.append(literal: "0x")
            out.append(utf8: String(frame.address, radix: 16))
        }
        out.append(ASCII.tab)
        appendField(function, to: &out)
        out.append(ASCII.tab)
        appendField(location, to: &out)
        out.append(ASCII.tab)
        if inlined { out.append(literal: "[inlined]") }
        out.append(ASCII.newline)
    }

    private func appendField(_ text: String, to out: inout [UInt8]) {
        OutputEscaping.append(text, to: &out)
    }
}
