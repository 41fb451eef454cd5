import CrashReport

/// What writes one symbolicated report: a renderer, with the document it writes from.
///
/// ``init(source:format:toFile:)`` is the one table of output: it picks the renderer from what
/// the report was read from (``ReportSource``) and the output format, and no renderer looks at
/// the source to pick another.
enum ReportRendering {
    /// The report's text, line for line, frames resolved in place (`TextRenderer`); for `.ips`
    /// and MetricKit JSON, the text they were translated to.
    case text
    /// A call-tree report's text, each resolved frame as its tool writes one (`CallTreeRenderer`).
    case callTree(CallTreeDocument)
    /// A Swift runtime JSON crash log written back, its resolved frame objects filled in
    /// (`SwiftBacktraceJSONRenderer`).
    case swiftBacktraceJSON(SwiftBacktraceDocument)
    /// The `.ips` document written back, its resolved frame objects filled in (`IPSRenderer`).
    case ips(IPSDocument)
    /// The MetricKit payload written back, its resolved frame objects given symbols
    /// (`MetricKitRenderer`).
    case metricKit(MetricKitDocument)
    /// The KSCrash report written back, its resolved frame objects given symbols
    /// (`KSCrashRenderer`).
    case kscrash(KSCrashDocument)
    /// The report's entry of the one JSON document written to the stream
    /// (`JSONRenderer.renderReport`).
    case jsonEntry
    /// A JSON document of the report alone, for a file of its own (`JSONRenderer.renderDocument`).
    case jsonDocument
    /// One tab-separated line per frame (`FramesRenderer`).
    case frames

    /// How a report read from `source` is written in `format`, to the stream or, with `toFile`,
    /// to a file of its own (`-o`, `--in-place`):
    ///
    ///     source \ format     text                     ips         metrickit   kscrash     json  frames
    ///     .ips                text; a file: .ips       .ips        text        text        JSON  frames
    ///     MetricKit           text; a file: MetricKit  text        MetricKit   text        JSON  frames
    ///     KSCrash JSON        text; a file: KSCrash    text        text        KSCrash     JSON  frames
    ///     call tree           call tree                call tree   call tree   call tree   JSON  frames
    ///     Swift runtime JSON  Swift JSON               Swift JSON  Swift JSON  Swift JSON  JSON  frames
    ///     any other           text                     text        text        text        JSON  frames
    ///
    /// The write-back formats write a report of another source as text; a file of its own keeps
    /// an `.ips` report `.ips`, a MetricKit payload MetricKit JSON and a KSCrash report its JSON
    /// in the text format, so that a folder written with `-o` or `--in-place` holds files of
    /// the kinds it was given.
    init(source: ReportSource, format: OutputFormat, toFile: Bool) {
        switch (format, source) {
        case (.json, _):
            self = toFile ? .jsonDocument : .jsonEntry
        case (.frames, _):
            self = .frames
        case (.ips, .ips(let document)):
            self = .ips(document)
        case (.text, .ips(let document)) where toFile:
            self = .ips(document)
        case (.metricKit, .metricKit(let document)):
            self = .metricKit(document)
        case (.text, .metricKit(let document)) where toFile:
            self = .metricKit(document)
        case (.kscrash, .kscrash(let document)):
            self = .kscrash(document)
        case (.text, .kscrash(let document)) where toFile:
            self = .kscrash(document)
        case (_, .callTree(let tree)):
            self = .callTree(tree)
        case (_, .swiftBacktrace(let document?)):
            self = .swiftBacktraceJSON(document)
        case (.text, _), (.ips, _), (.metricKit, _), (.kscrash, _):
            self = .text
        }
    }

    /// What a report written in `format` (to a file of its own with `toFile`) is read for: an
    /// `.ips` report written back as `.ips` for its document, as JSON for its model, any other
    /// for its text.
    static func use(format: OutputFormat, toFile: Bool) -> ReportUse {
        switch format {
        case .ips: .document
        case .text: toFile ? .document : .text
        case .json: .model
        case .metricKit, .kscrash, .frames: .text
        }
    }
}

extension CrashReport {
    /// The bytes the report holds for its output: its text, an `.ips` report's document
    /// (which is all a report read for its document holds), and its frames' records (all a
    /// report read for its model holds of its threads; JSON writes some 150 bytes for each).
    var heldByteCount: Int {
        let frames = threads.reduce(0) { $0 + $1.frames.count } * FrameList.recordSize
        if case .ips(let document) = source { return bytes.count + document.bytes.count + frames }
        return bytes.count + frames
    }
}
