import CrashReport
import DebugInfo
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// How symbolicated reports are written.
public enum OutputFormat: String, CaseIterable, Sendable {
    /// The report line for line, frames resolved in place.
    case text
    /// One JSON document for all reports.
    case json
    /// `.ips` reports written back as `.ips` with symbols filled in; other reports as text.
    case ips
    /// MetricKit payloads written back as MetricKit JSON with symbols filled in; other reports
    /// as text.
    case metricKit = "metrickit"
    /// KSCrash (and SentryCrash) reports written back as their JSON with symbols filled in;
    /// other reports as text.
    case kscrash
    /// One tab-separated line per frame: report, thread, frame, image, address, function,
    /// file:line, `[inlined]`.
    case frames
}

extension OutputFormat {
    /// Whether reports are written one after the other as they are (text, `.ips`, MetricKit,
    /// KSCrash), each after a `==> path <==` line when there are several.
    var isReportText: Bool { self == .text || self == .ips || self == .metricKit || self == .kscrash }
}

/// Reads reports, symbolicates them and writes them out: the work of one `symbolicate` run.
///
/// Independent reports are symbolicated on several threads; each debug file is indexed once
/// for the whole run (see ``Symbolicator``). Reports are written as they finish, in input
/// order: to one stream (a `==> path <==` line before each text report when there are
/// several), to one file per report in a folder that mirrors the input tree, or over each
/// report, atomically.
public final class ReportRunner {
    /// Where the symbolicated reports go.
    public enum Destination: Sendable, Equatable {
        /// One stream (standard output).
        case stream
        /// One file per report under this folder, mirroring the input tree.
        case directory(String)
        /// Each report replaced by its symbolicated self.
        case inPlace
    }

    /// How to write the reports.
    public struct Options: Sendable {
        /// Text, JSON, .ips or frame lines.
        public var format: OutputFormat
        /// Full source paths instead of file names.
        public var fullPath: Bool
        /// Stream, folder or in place.
        public var destination: Destination
        /// How many reports are symbolicated at once; 0 means one per core.
        public var jobs: Int
        /// Whether to show a progress line on stderr (when it is a terminal).
        public var progress: Bool
        /// Whether to print the summary on stderr at the end.
        public var summary: Bool
        /// The most bytes a report is read to: a larger one is an error.
        public var maxReportSize: Int
        /// Whether text written to the stream (a terminal) sets the lines of the app's resolved
        /// frames in bold (``TerminalMarks``). Files are never marked.
        public var markFrames: Bool
        /// Whether the summary shows its problems (unresolved frames, missing debug files) in
        /// red, for stderr on a terminal.
        public var markSummary: Bool
        /// Where to write the list of missing debug files as CSV (``MissingDebugFiles``), `-`
        /// for standard output; nil for none.
        public var missingList: String?
        /// With a folder destination: only the reports whose output a full run would write
        /// otherwise are done (``OutputUpdate``); what the outputs were written with is
        /// `updateSignature`.
        public var update = false
        public var updateSignature = ""

        public init(format: OutputFormat = .text, fullPath: Bool = false, destination: Destination = .stream,
                    jobs: Int = 0, progress: Bool = false, summary: Bool = false,
                    maxReportSize: Int = System.defaultReadLimit, markFrames: Bool = false, markSummary: Bool = false,
                    missingList: String? = nil, update: Bool = false, updateSignature: String = "") {
            self.missingList = missingList
            self.update = update
            self.updateSignature = updateSignature
            self.maxReportSize = maxReportSize
            self.markFrames = markFrames
            self.markSummary = markSummary
            self.format = format
            self.fullPath = fullPath
            self.destination = destination
            self.jobs = jobs
            self.progress = progress
            self.summary = summary
        }
    }

    let symbolicator: Symbolicator
    let options: Options
    let diagnostics: Diagnostics

    /// A runner that symbolicates with `symbolicator` and reports problems to `diagnostics`.
    public init(symbolicator: Symbolicator, options: Options, diagnostics: Diagnostics) {
        self.symbolicator = symbolicator
        self.options = options
        self.diagnostics = diagnostics
    }

    /// One report to do: where it is read from and, for `-o`, where it goes below the folder.
    struct Job {
        var path: String
        var relativePath: String
        /// Named on the command line (which may name a pipe), not found in a folder.
        var named = true
        /// The report written before it to the same output file, if any: this one is not written.
        var outputTakenBy: String?
    }

    /// What one report gave: the pieces to write to the stream, in order (nil when written
    /// elsewhere or failed), then, for a large report, the report itself, rendered as it is
    /// written; how it went and its counts.
    struct Outcome {
        var pieces: [[UInt8]]?
        var rendered: SymbolicatedReport?
        /// For a large file of several reports, the file, whose reports are read, symbolicated
        /// and rendered one at a time as they are written.
        var several: SeveralReports?
        /// For a large `.ips` report, its pieces, each read, symbolicated and rendered as they
        /// are written.
        var ipsPieces: IPSPieces?
        var status: ExitStatus
        var tally: Tally
        /// For `--update`: the report's images left without lines, when its output file was
        /// written (``OutputUpdate/pendingImages(_:)``).
        var pending: [UpdateRecord.PendingImage]?

        init(pieces: [[UInt8]]?, rendered: SymbolicatedReport? = nil, status: ExitStatus, tally: Tally) {
            self.pieces = pieces
            self.rendered = rendered
            self.status = status
            self.tally = tally
        }

        /// What it holds while it waits for the writer: its pieces, the report to render, or the
        /// file of several.
        var weight: Int {
            (pieces?.reduce(0) { $0 + $1.count } ?? 0) + (rendered?.report.heldByteCount ?? 0)
                + (several?.input.count ?? 0) + (ipsPieces?.inputSize ?? 0)
        }
    }

    /// The input size from which a report written to the stream is rendered as it is
    /// written, by the writer, rather than whole beforehand by its worker: its output is
    /// then never held whole (``OutputFlush``).
    static let renderedWhenWritten = 4 << 20

    /// Symbolicates the reports at `inputs` (files, directories of reports as
    /// ``isReportFileName(_:)`` finds them, or `-` for standard input) and writes them to
    /// `output` or to files; the worst status of its reports is the run's.
    public func run(inputs: [String], output: OutputWriter) -> ExitStatus {
        var status = ExitStatus.success
        var jobs = expand(inputs, status: &status)
        if options.destination != .stream, jobs.contains(where: { $0.path == "-" }) {
            diagnostics.warn("standard input cannot be written to a file: use a report file with -o or --in-place")
            return .reportFailed
        }
        if case .directory(let folder) = options.destination {
            do {
                try System.createDirectories(folder)
            } catch {
                diagnostics.warn("\(folder): \(error.reason)")
                return .outputFailed
            }
        }
        markSharedOutputs(&jobs)
        // With --update, the reports whose outputs are up to date are passed over.
        var update: OutputUpdate?
        if options.update, case .directory(let folder) = options.destination {
            let made = OutputUpdate(folder: folder, signature: options.updateSignature, symbolicator: symbolicator)
            if let problem = made.problem { diagnostics.warn(problem) }
            update = made
        }
        let todo = update.map { update in
            jobs.indices.filter { update.reason(relative: jobs[$0].relativePath, report: jobs[$0].path, target: target(of: jobs[$0])) != nil }
        } ?? Array(jobs.indices)
        let progress = Progress(total: todo.count, enabled: options.progress && todo.count > 3)
        var total = Tally()

        if options.format == .json && options.destination == .stream { output.write(JSONRenderer.documentStart) }
        var written = 0
        // Finished reports may wait for the writer up to 32 MB of output in all.
        let pool = OrderedWork(count: todo.count, workers: options.jobs > 0 ? options.jobs : System.processorCount,
                               weight: { $0.weight }, budget: 32 << 20) { k in
            self.process(jobs[todo[k]], streamed: jobs.count > 1)
        }
        pool.forEachInOrder { k, outcome in
            status = status.worse(outcome.status)
            total.add(outcome.tally)
            if let update {
                let job = jobs[todo[k]]
                if let pending = outcome.pending {
                    update.written(relative: job.relativePath, target: target(of: job), pending: pending)
                } else {
                    update.notWritten(relative: job.relativePath)
                }
            }
            if let pieces = outcome.pieces {
                // Between reports: a comma in the JSON array, a blank line between text reports.
                if written > 0 && options.format == .json { output.write(JSONRenderer.separator) }
                if written > 0 && options.format.isReportText && jobs.count > 1 {
                    output.write([0x0a])
                }
                for piece in pieces { output.write(piece) }
                if let symbolicated = outcome.rendered {
                    var buffer: [UInt8] = []
                    render(symbolicated, toFile: false, marked: options.markFrames, into: &buffer,
                           flush: OutputFlush { output.write($0) })
                    output.write(buffer)
                }
                if let pieces = outcome.ipsPieces {
                    var buffer: [UInt8] = []
                    total.add(render(pieces, toFile: false, into: &buffer, flush: OutputFlush { output.write($0) },
                                     stopped: { output.closed }).tally)
                    output.write(buffer)
                }
                if let several = outcome.several {
                    var buffer: [UInt8] = []
                    let done = render(several, toFile: false, into: &buffer, flush: OutputFlush { output.write($0) },
                                      stopped: { output.closed })
                    output.write(buffer)
                    status = status.worse(done.status)
                    total.add(done.tally)
                }
                written += 1
            }
            progress.advance()
            return !output.closed
        }
        if options.format == .json && options.destination == .stream { output.write(JSONRenderer.documentEnd) }
        if !output.finish(diagnostics: diagnostics) { status = status.worse(.outputFailed) }
        progress.finish()
        if options.summary && !output.closed && !(update != nil && todo.isEmpty) { printSummary(total, reports: total.reports) }
        if let update {
            do {
                try update.save()
            } catch {
                diagnostics.warn("\(error): the next --update does every report again")
                status = status.worse(.outputFailed)
            }
            if options.summary { diagnostics.say([update.summary]) }
        }
        if !writeMissingList(total.needed) { status = status.worse(.outputFailed) }
        return status
    }

    /// Symbolicates the reports at `inputs` as ``run(inputs:output:)`` does — the same inputs,
    /// reading, warnings, progress line and summary — but writes none of them: each report is
    /// handed to `summarize` on the thread that symbolicated it, and let go, and what
    /// `summarize` returns is handed to `consume` in input order, with the report's path. A
    /// report that cannot be read or parsed (said on stderr) is handed over as nil. The memory
    /// of a run is that of the reports in flight, one per worker, and of what `consume` keeps.
    public func summarize<Summary>(inputs: [String], _ summarize: @escaping (SymbolicatedReport) -> Summary,
                                   consume: (String, Summary?) -> Void) -> ExitStatus {
        var status = ExitStatus.success
        let jobs = expand(inputs, status: &status)
        let progress = Progress(total: jobs.count, enabled: options.progress && jobs.count > 3)
        var total = Tally()
        // Summaries are small: workers run up to eight reports ahead each.
        let pool = OrderedWork(count: jobs.count, workers: options.jobs > 0 ? options.jobs : System.processorCount,
                               budget: Int.max) {
            i -> (summaries: [Summary?], tally: Tally) in
            switch self.read(jobs[i], summarizing: true) {
            case .parsed(let report):
                let symbolicated = self.symbolicator.symbolicate(report)
                return ([summarize(symbolicated)], Tally(symbolicated, listingMissing: self.options.missingList != nil))
            case .several(let several):
                var summaries: [Summary?] = []
                var tally = Tally()
                self.forEachReport(of: several, summarizing: true) { part in
                    guard case .symbolicated(let symbolicated) = part else {
                        summaries.append(nil)
                        tally.add(Tally(reports: 1))
                        return
                    }
                    summaries.append(summarize(symbolicated))
                    tally.add(Tally(symbolicated, listingMissing: self.options.missingList != nil))
                }
                return (summaries, tally)
            case .unread, .unparsed, .pieces:  // a report summarized is never read in pieces
                return ([nil], Tally(reports: 1))
            }
        }
        pool.forEachInOrder { i, outcome in
            total.add(outcome.tally)
            for summary in outcome.summaries {
                if summary == nil { status = status.worse(.reportFailed) }
                consume(jobs[i].path == "-" ? "<stdin>" : jobs[i].path, summary)
            }
            progress.advance()
            return true
        }
        progress.finish()
        if options.summary { printSummary(total, reports: total.reports) }
        if !writeMissingList(total.needed) { status = status.worse(.outputFailed) }
        return status
    }

    /// Writes the list of missing debug files, when asked for (`-`: to standard output, which
    /// the reports do not use then); false, said, when it cannot be written.
    private func writeMissingList(_ list: MissingDebugFiles) -> Bool {
        guard let path = options.missingList else { return true }
        if path == "-" {
            let stream = OutputWriter()
            stream.write(list.csv())
            return stream.finish(diagnostics: diagnostics)
        }
        do {
            try AtomicFile.write(list.csv(), to: path, permissionsFrom: nil, below: nil)
            return true
        } catch {
            diagnostics.warn("\(path): cannot write: \(error)")
            return false
        }
    }

    // MARK: One report

    private func process(_ job: Job, streamed: Bool) -> Outcome {
        if let first = job.outputTakenBy {
            diagnostics.warn("\(job.path): not written: its output \(target(of: job)) is the output of \(first)")
            return Outcome(pieces: nil, status: .outputFailed, tally: Tally(reports: 1))
        }
        let report: CrashReport
        switch read(job) {
        case .unread:
            return Outcome(pieces: nil, status: .reportFailed, tally: Tally(reports: 1))
        case .unparsed(let bytes, let path, let error):
            return passThrough(bytes, path: path, error: error, job: job, streamed: streamed)
        case .parsed(let parsed):
            report = parsed
        case .several(let several):
            return process(several, job: job, streamed: streamed)
        case .pieces(let pieces):
            return process(pieces, job: job, streamed: streamed)
        }
        let symbolicated = self.symbolicated(report)
        let tally = Tally(symbolicated, listingMissing: options.missingList != nil)
        switch options.destination {
        case .stream:
            var bytes = streamHeader(job, streamed: streamed)
            if symbolicated.report.heldByteCount >= Self.renderedWhenWritten {
                return Outcome(pieces: [bytes], rendered: symbolicated, status: .success, tally: tally)
            }
            render(symbolicated, toFile: false, marked: options.markFrames, into: &bytes)
            return Outcome(pieces: [bytes], status: .success, tally: tally)
        case .directory(let folder):
            let written = write(symbolicated, to: target(of: job), replacing: nil, below: folder)
            var outcome = Outcome(pieces: nil, status: written ? .success : .outputFailed, tally: tally)
            if written && options.update { outcome.pending = OutputUpdate.pendingImages(symbolicated) }
            return outcome
        case .inPlace:
            // A protobuf report has no write-back: its file would become its text translation.
            if let kind = symbolicated.report.source.protobufKind {
                diagnostics.warn("\(job.path): \(kind) is not written back in place (its protobuf would become text); "
                                 + "the file is left as it is: use -o DIR for its symbolicated text")
                return Outcome(pieces: nil, status: .reportFailed, tally: tally)
            }
            let written = write(symbolicated, to: job.path, replacing: job.path, below: nil)
            return Outcome(pieces: nil, status: written ? .success : .outputFailed, tally: tally)
        }
    }

    /// The line a report written to the stream among others starts with, in text formats:
    /// `==> path <==`, the name escaped, then spelled with the bytes the file system gave it.
    func streamHeader(_ job: Job, streamed: Bool) -> [UInt8] {
        guard streamed && options.format.isReportText else { return [] }
        return FileName.bytes("==> " + OutputEscaping.escaped(job.path) + " <==\n")
    }

    /// `report` symbolicated; for JSON output, its messages spelled in valid UTF-8.
    func symbolicated(_ report: CrashReport) -> SymbolicatedReport {
        var symbolicated = symbolicator.symbolicate(report)
        if options.format == .json {
            // JSON must be valid UTF-8: bytes of a name that are not are spelled U+FFFD there.
            for (i, var unresolved) in symbolicated.unresolvedImages {
                unresolved.file = unresolved.file.map(FileName.replacingRawBytes)
                unresolved.message = FileName.replacingRawBytes(unresolved.message)
                symbolicated.unresolvedImages[i] = unresolved
            }
        }
        return symbolicated
    }

    /// Writes a report that could not be parsed as it came in (said already): text output
    /// never loses a report. JSON gives it an entry saying why; frame lines have nothing to
    /// print; a report to be replaced in place is left as it is. The input is written as it
    /// is, not copied.
    private func passThrough(_ input: [UInt8], path: String, error: ReportError, job: Job, streamed: Bool) -> Outcome {
        let tally = Tally(reports: 1)
        var pieces: [[UInt8]] = []
        switch options.format {
        case .text, .ips, .metricKit, .kscrash:
            if options.destination == .stream { pieces.append(streamHeader(job, streamed: streamed)) }
            pieces.append(input)
        case .json:
            var bytes: [UInt8] = []
            let name = FileName.replacingRawBytes(path)
            if options.destination == .stream {
                JSONRenderer.renderUnread(path: name, reason: error.reason, into: &bytes)
            } else {
                bytes += JSONRenderer.documentStart
                JSONRenderer.renderUnread(path: name, reason: error.reason, into: &bytes)
                bytes += JSONRenderer.documentEnd
            }
            pieces.append(bytes)
        case .frames:
            return Outcome(pieces: nil, status: .reportFailed, tally: tally)
        }
        switch options.destination {
        case .stream:
            return Outcome(pieces: pieces, status: .reportFailed, tally: tally)
        case .directory(let folder):
            let written = write(to: target(of: job), replacing: nil, below: folder) { out in
                pieces.allSatisfy { piece in piece.withUnsafeBytes { out($0) } }
            }
            var outcome = Outcome(pieces: nil, status: written ? .reportFailed : .outputFailed, tally: tally)
            if written && options.update { outcome.pending = [] }
            return outcome
        case .inPlace:
            return Outcome(pieces: nil, status: .reportFailed, tally: tally)
        }
    }

    /// Says that the report at `path` has no frame line: it is written as it is.
    func warnNoBacktrace(_ path: String, summarizing: Bool = false) {
        diagnostics.warn("\(path): no backtrace found (no frame line in any thread)"
                         + (summarizing ? "" : "; the report is written as it is"))
    }

    /// What becomes of a report that could not be parsed, for its message.
    func passThroughNote(summarizing: Bool) -> String {
        if summarizing { return "; it is left out" }
        switch (options.format, options.destination) {
        case (_, .inPlace): return "; the file is left as it is"
        case (.frames, _): return ""
        case (.json, _): return "; its JSON entry gives the error"
        default: return "; the report is written as it is"
        }
    }

    /// The file a report is written to with `-o` or `--in-place`.
    func target(of job: Job) -> String {
        if case .directory(let folder) = options.destination { return Path.join(folder, job.relativePath) }
        return job.path
    }

    /// Marks each report whose output file is already that of an earlier one (two files of
    /// one name given from different folders, one report named twice): it is not written,
    /// rather than written over the other.
    private func markSharedOutputs(_ jobs: inout [Job]) {
        guard options.destination != .stream else { return }
        var owners: [String: String] = [:]
        for i in jobs.indices {
            let key = Path.normalized(target(of: jobs[i]))
            if let first = owners[key] {
                jobs[i].outputTakenBy = first
            } else {
                owners[key] = jobs[i].path
            }
        }
    }

    /// Renders one report as ``ReportRendering`` says for its source and the output format, for
    /// the stream or (`toFile`) a file of its own; text output is marked for a terminal when
    /// `marked`. With `flush`, the output is handed on as it is made (``OutputFlush``).
    func render(_ symbolicated: SymbolicatedReport, toFile: Bool, marked: Bool = false,
                        into bytes: inout [UInt8], flush: OutputFlush? = nil) {
        let fullPath = options.fullPath
        func marks() -> TerminalMarks? { marked && options.format == .text ? Self.marks(for: symbolicated) : nil }
        switch ReportRendering(source: symbolicated.report.source, format: options.format, toFile: toFile) {
        case .text:
            TextRenderer(fullPath: fullPath, marks: marks()).render(symbolicated, into: &bytes, flush: flush)
        case .callTree(let tree):
            CallTreeRenderer(fullPath: fullPath, marks: marks())
                .render(symbolicated, tree: tree, into: &bytes, flush: flush)
        case .swiftBacktraceJSON(let document):
            SwiftBacktraceJSONRenderer.render(symbolicated, document: document, into: &bytes, flush: flush)
        case .ips(let document):
            IPSRenderer.render(symbolicated, document: document, fullPath: fullPath, into: &bytes, flush: flush)
        case .metricKit(let document):
            MetricKitRenderer.render(symbolicated, document: document, fullPath: fullPath, into: &bytes, flush: flush)
        case .kscrash(let document):
            KSCrashRenderer.render(symbolicated, document: document, fullPath: fullPath, into: &bytes, flush: flush)
        case .jsonEntry:
            JSONRenderer.renderReport(symbolicated, into: &bytes, flush: flush)
        case .jsonDocument:
            JSONRenderer.renderDocument(symbolicated, into: &bytes, flush: flush)
        case .frames:
            // Frame lines start with the report's path: spelled with the file system's own
            // bytes, as everywhere else in text output, when the name is not UTF-8.
            let reportField = FileName.bytes(OutputEscaping.escaped(symbolicated.report.path))
            FramesRenderer(fullPath: fullPath).render(symbolicated, reportField: reportField, into: &bytes,
                                                      flush: flush)
        }
    }

    /// Writes one report to `target` through a temporary file in the same folder, renamed
    /// over it: a reader (or a run killed midway) never sees half a report. A file written in
    /// place keeps its permissions. An `.ips` report stays `.ips` in the text format, a
    /// MetricKit payload MetricKit JSON, a KSCrash report its JSON (``ReportRendering``). The output is written as it is
    /// made, never held whole.
    private func write(_ symbolicated: SymbolicatedReport, to target: String, replacing original: String?,
                       below root: String?) -> Bool {
        writeRendering(to: target, replacing: original, below: root) { bytes, flush in
            render(symbolicated, toFile: true, into: &bytes, flush: flush)
        }
    }

    /// Writes to `target` atomically (``write(to:replacing:below:_:)``) what `render` appends to
    /// the buffer it is given and hands on with the flush it is given, as it is made.
    func writeRendering(to target: String, replacing original: String?, below root: String?,
                        _ render: (inout [UInt8], OutputFlush) -> Void) -> Bool {
        write(to: target, replacing: original, below: root) { write in withoutActuallyEscaping(write) { out in
            // Once a write fails the rest is not written; the failure's errno is what is said.
            var failure: Int32 = 0
            let flush = OutputFlush { bytes in
                if failure == 0 && !out(bytes) { failure = errno }
            }
            var bytes: [UInt8] = []
            render(&bytes, flush)
            flush.handOn(&bytes)
            if failure != 0 { errno = failure }
            return failure == 0
        } }
    }

    /// Writes to `target` atomically what `body` writes through the function it is given
    /// (see ``AtomicFile/write(to:temporary:permissionsFrom:below:_:)``); false, said, when it
    /// cannot.
    func write(to target: String, replacing original: String?, below root: String?,
                       _ body: ((UnsafeRawBufferPointer) -> Bool) -> Bool) -> Bool {
        do {
            try AtomicFile.write(to: target, permissionsFrom: original, below: root, body)
            return true
        } catch {
            diagnostics.warn("\(target): cannot write: \(error)")
            return false
        }
    }

    /// What reading one report gave.
    enum ReadResult {
        /// The file could not be read (said).
        case unread
        /// The bytes were read but are not a report this tool can parse (said): the bytes, the
        /// path as messages name it, and why.
        case unparsed([UInt8], path: String, error: ReportError)
        /// The report, parsed.
        case parsed(CrashReport)
        /// A file that holds several reports, each read in its turn.
        case several(SeveralReports)
        /// A large `.ips` report read a piece at a time as it is written (``IPSPieces``).
        case pieces(IPSPieces)
    }

    /// The report of `job`, parsed, or why not (said on stderr). A report named on the
    /// command line may be a pipe, unless it is to be replaced in place; none is read past
    /// the size limit, nor past its first block when that is no text. A report in which no
    /// frame is found, with no warning saying why, is said to have no backtrace.
    private func read(_ job: Job, summarizing: Bool = false) -> ReadResult {
        let path = job.path == "-" ? "<stdin>" : job.path
        var bytes: [UInt8]
        do {
            // Input that is no text is refused from its first block (BinaryInput), before the
            // rest is read.
            if job.path == "-" {
                bytes = try System.readStandardInput(limit: options.maxReportSize, firstBlock: BinaryInput.sampleSize,
                                                     check: BinaryInput.problem)
            } else {
                bytes = try System.readFile(job.path, limit: options.maxReportSize,
                                            streams: job.named && options.destination != .inPlace,
                                            firstBlock: BinaryInput.sampleSize, check: BinaryInput.problem)
            }
        } catch {
            diagnostics.warn("\(DebugInfoError.unreadable(path: path, reason: error.reason))")
            return .unread
        }
        let (parts, lastIsRest) = ReportParts.split(bytes)
        if parts.count > 1 { return .several(SeveralReports(input: bytes, parts: parts, lastIsRest: lastIsRest, path: path)) }
        if let use = piecesUse(size: bytes.count, summarizing: summarizing),
           let pieces = (try? ReportParser.pieces(taking: &bytes, path: path, pieceSize: Self.ipsPieceSize, use: use)) ?? nil {
            return .pieces(pieces)
        }
        return parse(&bytes, path: path, summarizing: summarizing)
    }

    /// The report `bytes` hold (taken), parsed, or why not (said on stderr), as ``read(_:summarizing:)``
    /// reads it.
    func parse(_ bytes: inout [UInt8], path: String, summarizing: Bool) -> ReadResult {
        do {
            let use = summarizing ? ReportUse.text
                : ReportRendering.use(format: options.format, toFile: options.destination != .stream)
            var report = try ReportParser.parse(taking: &bytes, path: path, use: use)
            // JSON must be valid UTF-8: bytes of a name that are not are spelled U+FFFD there.
            if options.format == .json { report.path = FileName.replacingRawBytes(report.path) }
            diagnostics.say(report.warnings)
            if report.warnings.isEmpty, report.threads.allSatisfy({ $0.frames.isEmpty }) {
                warnNoBacktrace(path, summarizing: summarizing)
            }
            return .parsed(report)
        } catch let error as ReportError {
            // A protobuf report that cannot be decoded is binary: never written out as text.
            if case .invalidProtobuf = error {
                diagnostics.warn("\(error)")
                return .unread
            }
            diagnostics.warn("\(error)\(passThroughNote(summarizing: summarizing))")
            return .unparsed(bytes, path: path, error: error)
        } catch {
            diagnostics.warn("\(error)")
            return .unread
        }
    }

    // MARK: Inputs

    /// Whether a file found under a directory is read as a report: `*.crash`, `*.ips`,
    /// `*.plcrash`, or an Android tombstone as the device names it (`tombstone_00` to
    /// `tombstone_31`, and Android 12's protobuf twins `tombstone_NN.pb`).
    static func isReportFileName(_ path: String) -> Bool {
        if path.hasSuffix(".crash") || path.hasSuffix(".ips") || path.hasSuffix(".plcrash") { return true }
        var name = Path.lastComponent(path).utf8[...]
        if name.count > 3, name.suffix(3).elementsEqual(".pb".utf8) { name = name.dropLast(3) }
        let prefix = "tombstone_".utf8
        guard name.count > prefix.count, name.starts(with: prefix) else { return false }
        return name.dropFirst(prefix.count).allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Files as named, and the reports under each directory (``isReportFileName(_:)``;
    /// relative paths kept for `-o`).
    func expand(_ inputs: [String], status: inout ExitStatus) -> [Job] {
        var jobs: [Job] = []
        for input in inputs {
            if input != "-", System.isDirectory(input) {
                let root = input.hasSuffix("/") ? String(input.dropLast()) : input
                let reports = DebugFileLocator.regularFiles(under: root).filter(ReportRunner.isReportFileName)
                if reports.isEmpty { diagnostics.warn("\(input): no *.crash, *.ips, *.plcrash or tombstone_NN[.pb] reports in this directory") }
                for path in reports {
                    let relative = path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : Path.lastComponent(path)
                    jobs.append(Job(path: path, relativePath: relative, named: false))
                }
            } else {
                jobs.append(Job(path: input, relativePath: Path.lastComponent(input)))
            }
        }
        return jobs
    }
}
