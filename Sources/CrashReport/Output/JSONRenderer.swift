/// Prints symbolicated reports as one JSON document, written straight into bytes.
///
/// The shape, keys in this order (one line, a newline at the end):
///
///     {"reports":[{"path":"a.crash",
///       "threads":[{"index":0,"kind":"thread","crashed":true,"name":null,
///         "frames":[{"index":0,"image":"App","address":"0x104a3c5e0","symbol":"compute",
///                    "offset":40,"file":"/src/main.c","line":42,"column":5,"inlined":false}]}],
///       "images":[{"name":"App","uuid":"6b0a...","arch":"arm64","load_address":"0x104a30000",
///                  "debug_file":"/path/App.dSYM/Contents/Resources/DWARF/App","unresolved":null}]}]}
///
/// - A thread's `index` is its number: null for the Last Exception Backtrace, N for
///   Application Specific Backtrace N; `kind` ("thread", "last_exception_backtrace",
///   "application_specific_backtrace", "call_tree") tells them apart.
/// - A call tree of a sampled report (spindump, `sample`, microstackshot) is a thread of kind
///   "call_tree" whose frames are its nodes in report order, each with its depth as `index`
///   and its sample count as `samples`.
/// - A resolved frame gives one entry per source frame, inlined ones first with `"inlined":true`.
///   An unresolved frame gives one entry with what the report itself says: symbol and offset from
///   `symbol + 12` or `symbol + 12 (File.m:42)`, file and line from the latter, null otherwise.
/// - Inlined lines of an already symbolicated report (`... [inlined]`) give `"inlined":true`
///   entries, unless their frame was resolved anew.
/// - A frame's `image` is its image name as printed, or for frames of an address list the name of
///   the image its address falls in. `line` and `column` are null when unknown (nil or 0), and
///   so is `address` when the report gives none that can be read (`Frame.addressUnknown`).
/// - An image's `unresolved` says why an app image with frames in the report was left without
///   file and line (``UnresolvedImage``), null for the others.
/// - A frame of a MetricKit payload also gives its `sample_count` (after `inlined`), null when
///   the payload has none; a call stack is a thread, its frames in tree order, `index` their depth.
public enum JSONRenderer {
    /// What a document starts with, before its first report; for writers that stream reports.
    public static let documentStart = Array("{\"reports\":[".utf8)
    /// What goes between two reports.
    public static let separator: [UInt8] = [ASCII.comma]
    /// What a document ends with, after its last report.
    public static let documentEnd = Array("]}\n".utf8)

    /// Appends the JSON document describing `reports` to `out`.
    public static func render(_ reports: [SymbolicatedReport], into out: inout [UInt8]) {
        out.append(contentsOf: documentStart)
        for (r, symbolicated) in reports.enumerated() {
            if r > 0 { out.append(contentsOf: separator) }
            renderObject(symbolicated, into: &out)
        }
        out.append(contentsOf: documentEnd)
    }

    /// Appends the JSON document describing one report to `out`, handing it on as it goes
    /// with `flush` (``OutputFlush``).
    public static func renderDocument(_ symbolicated: SymbolicatedReport, into out: inout [UInt8], flush: OutputFlush?) {
        out.append(contentsOf: documentStart)
        renderObject(symbolicated, into: &out, flush: flush)
        out.append(contentsOf: documentEnd)
    }

    /// Appends the JSON object of one report (an element of the `reports` array) to `out`, for
    /// writers that stream the document report by report; with `flush`, hands it on as it goes.
    public static func renderReport(_ symbolicated: SymbolicatedReport, into out: inout [UInt8],
                                    flush: OutputFlush? = nil) {
        renderObject(symbolicated, into: &out, flush: flush)
    }

    private static func renderObject(_ symbolicated: SymbolicatedReport, into out: inout [UInt8], flush: OutputFlush? = nil) {
        let report = symbolicated.report
        flush.reserve(symbolicated.estimatedRecordsSize(perFrame: 192, perImage: 320), in: &out)
        out.append(literal: "{\"path\":")
        appendString(report.path, to: &out)
        out.append(literal: ",\"threads\":[")
        // A call-tree report's threads are call trees (or heaviest stacks) of sampled frames.
        let callTrees: Bool
        if case .callTree = report.source { callTrees = true } else { callTrees = false }
        for (t, thread) in report.threads.enumerated() {
            if t > 0 { out.append(ASCII.comma) }
            out.append(literal: "{\"index\":")
            switch thread.kind {
            case .thread(let number) where callTrees:
                out.append(decimal: number)
                out.append(literal: ",\"kind\":\"call_tree\"")
            case .thread(let number):
                out.append(decimal: number)
                out.append(literal: ",\"kind\":\"thread\"")
            case .lastExceptionBacktrace:
                out.append(literal: "null,\"kind\":\"last_exception_backtrace\"")
            case .applicationSpecificBacktrace(let number):
                out.append(decimal: number)
                out.append(literal: ",\"kind\":\"application_specific_backtrace\"")
            }
            out.append(literal: ",\"crashed\":")
            out.append(literal: thread.crashed ? "true" : "false")
            out.append(literal: ",\"name\":")
            appendString(thread.name, to: &out)
            out.append(literal: ",\"frames\":[")
            var first = true
            for (f, frame) in thread.frames.enumerated() {
                if symbolicated.replacesInlinedLine(thread: t, frame: f) { continue }
                let imageName = frame.imageName ?? frame.image.flatMap {
                    report.images.indices.contains($0) ? report.images[$0].name : nil
                }
                let samples = sampleCount(report, FrameKey(thread: t, frame: f))
                if let sourceFrames = symbolicated.frames[FrameKey(thread: t, frame: f)], !sourceFrames.isEmpty {
                    for sourceFrame in sourceFrames {
                        if !first { out.append(ASCII.comma) }
                        first = false
                        appendFrame(frame, image: imageName, symbol: sourceFrame.function,
                                    offset: sourceFrame.offset, file: sourceFrame.file,
                                    line: sourceFrame.line, column: sourceFrame.column,
                                    inlined: sourceFrame.inlined, samples: samples, to: &out)
                    }
                } else {
                    if !first { out.append(ASCII.comma) }
                    first = false
                    var symbol: String?
                    var offset: UInt64?
                    var file: String?
                    var line: Int?
                    switch frame.form {
                    case .symbol(let name, let symbolOffset):
                        symbol = name
                        offset = symbolOffset
                    case .symbolicated(let name, let symbolOffset, let sourceFile, let sourceLine):
                        symbol = name
                        offset = symbolOffset
                        file = sourceFile
                        line = sourceLine
                    case .unsymbolicated, .imageOffset, .unknown, .addressOnly:
                        break
                    }
                    appendFrame(frame, image: imageName, symbol: symbol, offset: offset, file: file,
                                line: line, column: nil, inlined: frame.inlined, samples: samples, to: &out)
                }
                flush.check(&out)
            }
            out.append(literal: "]}")
        }
        out.append(literal: "],\"images\":[")
        for (i, image) in report.images.enumerated() {
            if i > 0 { out.append(ASCII.comma) }
            out.append(literal: "{\"name\":")
            appendString(image.name, to: &out)
            out.append(literal: ",\"uuid\":")
            appendString(image.uuid, to: &out)
            out.append(literal: ",\"arch\":")
            appendString(image.arch, to: &out)
            out.append(literal: ",\"load_address\":\"")
            out.append(hex: image.loadAddress)
            out.append(literal: "\",\"debug_file\":")
            appendString(symbolicated.debugFiles[i], to: &out)
            out.append(literal: ",\"unresolved\":")
            appendUnresolved(symbolicated.unresolvedImages[i], to: &out)
            out.append(literal: "}")
            flush.check(&out)
        }
        out.append(literal: "]}")
    }

    private static func appendFrame(
        _ frame: Frame, image: String?, symbol: String?, offset: UInt64?, file: String?,
        line: Int?, column: Int?, inlined: Bool, samples: SampleCount?, to out: inout [UInt8]
    ) {
        out.append(literal: "{\"index\":")
        out.append(decimal: frame.index)
        out.append(literal: ",\"image\":")
        appendString(image, to: &out)
        if frame.addressUnknown {
            out.append(literal: ",\"address\":null,\"symbol\":")
        } else {
            out.append(literal: ",\"address\":\"")
            out.append(hex: frame.address)
            out.append(literal: "\",\"symbol\":")
        }
        appendString(symbol, to: &out)
        out.append(literal: ",\"offset\":")
        if let offset { out.append(decimal: offset) } else { out.append(literal: "null") }
        out.append(literal: ",\"file\":")
        appendString(file, to: &out)
        out.append(literal: ",\"line\":")
        appendPositive(line, to: &out)
        out.append(literal: ",\"column\":")
        appendPositive(column, to: &out)
        out.append(literal: ",\"inlined\":")
        out.append(literal: inlined ? "true" : "false")
        if let samples {
            out.append(literal: ",\"sample_count\":")
            if let value = samples.value { out.append(decimal: value) } else { out.append(literal: "null") }
        }
        out.append(literal: "}")
    }

    /// Why an app image was left unresolved, or null: `{"reason":…,"message":…,"file":…,
    /// "file_id":…,"file_archs":[…]}`.
    private static func appendUnresolved(_ unresolved: UnresolvedImage?, to out: inout [UInt8]) {
        guard let unresolved else {
            out.append(literal: "null")
            return
        }
        out.append(literal: "{\"reason\":")
        appendString(unresolved.reason, to: &out)
        out.append(literal: ",\"message\":")
        appendString(unresolved.message, to: &out)
        out.append(literal: ",\"file\":")
        appendString(unresolved.file, to: &out)
        out.append(literal: ",\"file_id\":")
        appendString(unresolved.fileIdentifier, to: &out)
        out.append(literal: ",\"file_archs\":[")
        for (a, architecture) in unresolved.fileArchitectures.enumerated() {
            if a > 0 { out.append(ASCII.comma) }
            appendString(architecture, to: &out)
        }
        out.append(literal: "]}")
    }

    /// A sampled frame's sample count (MetricKit, call-tree reports), nil when the report gives
    /// none; a frame of another source has no `SampleCount` at all and prints no member.
    private struct SampleCount {
        var value: UInt64?
    }

    private static func sampleCount(_ report: CrashReport, _ key: FrameKey) -> SampleCount? {
        switch report.source {
        case .metricKit(let document): return SampleCount(value: document.sampleCount(key))
        case .callTree(let tree): return SampleCount(value: tree.node(key)?.samples)
        case .classic, .ips, .linuxLog, .tombstone, .protobufTombstone, .swiftBacktrace, .kscrash, .plcrash,
             .noBacktraces: return nil
        }
    }

    /// A line or column number; null when nil or not positive (DWARF's 0 means "unknown").
    private static func appendPositive(_ value: Int?, to out: inout [UInt8]) {
        if let value, value > 0 {
            out.append(decimal: value)
        } else {
            out.append(literal: "null")
        }
    }

    /// A JSON string, or null. Quotes, backslashes, control characters (C0, DEL and the C1
    /// controls U+0080–U+009F, which some terminals obey) are escaped; all other text, valid
    /// UTF-8 as every `String` is, is copied in runs.
    public static func appendString(_ string: String?, to out: inout [UInt8]) {
        guard var string else {
            out.append(literal: "null")
            return
        }
        out.append(ASCII.quote)
        string.withUTF8 { bytes in
            var copied = 0
            var i = 0
            while i < bytes.count {
                let byte = bytes[i]
                let control: UInt8
                if byte == 0xC2, i + 1 < bytes.count, bytes[i + 1] < 0xA0 {
                    control = bytes[i + 1]
                } else if byte < 0x20 || byte == 0x7F || byte == ASCII.quote || byte == ASCII.backslash {
                    control = byte
                } else {
                    i += 1
                    continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<i]))
                appendEscape(control, to: &out)
                i += control >= 0x80 ? 2 : 1
                copied = i
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<bytes.count]))
        }
        out.append(ASCII.quote)
    }

    private static func appendEscape(_ scalar: UInt8, to out: inout [UInt8]) {
        switch scalar {
        case ASCII.quote: out.append(literal: "\\\"")
        case ASCII.backslash: out.append(literal: "\\\\")
        case ASCII.newline: out.append(literal: "\\n")
        case ASCII.carriageReturn: out.append(literal: "\\r")
        case ASCII.tab: out.append(literal: "\\t")
        case 0x08: out.append(literal: "\\b")
        case 0x0C: out.append(literal: "\\f")
        default:
            let digits: StaticString = "0123456789abcdef"
            out.append(literal: "\\u00")
            out.append(digits.utf8Start[Int(scalar >> 4)])
            out.append(digits.utf8Start[Int(scalar & 0xF)])
        }
    }
}
