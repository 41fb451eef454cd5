import CrashReport
import Platform

/// A file that holds several reports one after another (``ReportParts``): its bytes, the range
/// of each report, whether the last is the rest of a file of more reports than it is read as,
/// and the path messages name it by.
struct SeveralReports {
    let input: [UInt8]
    let parts: [Range<Int>]
    let lastIsRest: Bool
    let path: String
}

extension ReportRunner {
    /// One report of a file of several, read and symbolicated, or why not (said on stderr).
    enum PartResult {
        case symbolicated(SymbolicatedReport)
        /// Not read as a report (one that cannot be, or the rest of a file of more reports than
        /// it is read as): its range of the file, written as it is, and why.
        case unread(Range<Int>, reason: String)
    }

    /// Reads and symbolicates the reports of `several` one at a time, in order, and hands each
    /// to `body`: a run holds the file and one report's model, not those of all its reports.
    func forEachReport(of several: SeveralReports, summarizing: Bool, _ body: (PartResult) -> Void) {
        for k in several.parts.indices { body(report(k, of: several, summarizing: summarizing)) }
    }

    /// The report `k` of `several`, read and symbolicated, or why not (said). Its bytes are
    /// copied out of the file before it is parsed (the parse takes them), so the file itself is
    /// kept whole.
    private func report(_ k: Int, of several: SeveralReports, summarizing: Bool) -> PartResult {
        let range = several.parts[k]
        if several.lastIsRest && k == several.parts.count - 1 {
            diagnostics.warn("\(several.path): holds more than \(k) reports, \(ReportParts.minimumPart) bytes or less "
                             + "each on average: the rest, \(range.count) bytes from byte \(range.lowerBound), is "
                             + "not read\(passThroughNote(summarizing: summarizing))")
            return .unread(range, reason: "more reports than a file is read as")
        }
        var bytes = Array(several.input[range])
        switch parse(&bytes, path: several.path, summarizing: summarizing) {
        case .parsed(let report):
            return .symbolicated(symbolicated(report))
        case .unparsed(_, _, let error):
            return .unread(range, reason: error.reason)
        case .unread, .several, .pieces:
            // A part is text: none is protobuf, and a parse fails with a ReportError. Its
            // bytes are written as they are all the same.
            return .unread(range, reason: ReportError.notAReport(several.path).reason)
        }
    }

    /// A report of a file of several, done by a worker: what it gave and, unless it is large
    /// (rendered as it is written, ``renderedWhenWritten``), its output.
    private struct RenderedPart {
        var part: PartResult
        var output: [UInt8]?

        var weight: Int {
            guard let output else {
                if case .symbolicated(let symbolicated) = part { return symbolicated.report.heldByteCount }
                return 0
            }
            return output.count
        }
    }

    /// What the reports of a file of several gave, written in order as ``render(_:toFile:marked:into:flush:)``
    /// writes one: text formats one after another (the reports' outputs make the file's, as their
    /// bytes do), and a report that cannot be read as it is; JSON one entry each (in a document
    /// of their own for a file). The reports of a large file are read and rendered on every
    /// core, as a batch's are, and written in order, until `stopped` (the reader of the
    /// output went away). Returns the worst status of the reports, their counts and, for
    /// `--update`, their images left without lines.
    func render(_ several: SeveralReports, toFile: Bool, into bytes: inout [UInt8], flush: OutputFlush?,
                stopped: () -> Bool = { false }) -> (status: ExitStatus, tally: Tally, pending: [UpdateRecord.PendingImage]) {
        var status = ExitStatus.success
        var tally = Tally()
        var pending: [UpdateRecord.PendingImage] = []
        let json = options.format == .json
        let marked = !toFile && options.markFrames
        if json && toFile { bytes += JSONRenderer.documentStart }
        var written = 0
        let workers = several.input.count < Self.renderedWhenWritten ? 1
            : options.jobs > 0 ? options.jobs : System.processorCount
        // Rendered finished reports may wait for the writer up to 32 MB in all, as a batch's.
        let pool = OrderedWork(count: several.parts.count, workers: workers, weight: { $0.weight }, budget: 32 << 20) {
            k -> RenderedPart in
            let part = self.report(k, of: several, summarizing: false)
            guard case .symbolicated(let symbolicated) = part,
                  symbolicated.report.heldByteCount < Self.renderedWhenWritten else { return RenderedPart(part: part) }
            var output: [UInt8] = []
            if json {
                JSONRenderer.renderReport(symbolicated, into: &output, flush: nil)
            } else {
                self.render(symbolicated, toFile: toFile, marked: marked, into: &output)
            }
            return RenderedPart(part: part, output: output)
        }
        pool.forEachInOrder { _, done in
            switch done.part {
            case .symbolicated(let symbolicated):
                tally.add(Tally(symbolicated, listingMissing: options.missingList != nil))
                if json && written > 0 { bytes += JSONRenderer.separator }
                if let output = done.output {
                    bytes += output
                } else if json {
                    JSONRenderer.renderReport(symbolicated, into: &bytes, flush: flush)
                } else {
                    render(symbolicated, toFile: toFile, marked: marked, into: &bytes, flush: flush)
                }
                if toFile && options.update { pending += OutputUpdate.pendingImages(symbolicated) }
                written += 1
            case .unread(let range, let reason):
                status = status.worse(.reportFailed)
                tally.add(Tally(reports: 1))
                switch options.format {
                case .text, .ips, .metricKit, .kscrash:
                    several.input.withUnsafeBufferPointer { input in
                        let kept = UnsafeBufferPointer(rebasing: input[range])
                        if let flush { flush.pass(kept, after: &bytes) } else { bytes.append(contentsOf: kept) }
                    }
                case .json:
                    if written > 0 { bytes += JSONRenderer.separator }
                    JSONRenderer.renderUnread(path: FileName.replacingRawBytes(several.path), reason: reason, into: &bytes)
                    written += 1
                case .frames:
                    break
                }
            }
            flush?.handOn(&bytes)
            return !stopped()
        }
        if json && toFile { bytes += JSONRenderer.documentEnd }
        return (status, tally, pending)
    }

    /// Does the reports of a file of several as ``process(_:streamed:)`` does one. To the
    /// stream, a small file's reports are rendered by the worker; a large one's when the writer
    /// comes to it, as they are written, so that neither its output nor its reports' models are
    /// ever held whole.
    func process(_ several: SeveralReports, job: Job, streamed: Bool) -> Outcome {
        switch options.destination {
        case .stream:
            var bytes = streamHeader(job, streamed: streamed)
            if several.input.count >= Self.renderedWhenWritten {
                var outcome = Outcome(pieces: [bytes], status: .success, tally: Tally())
                outcome.several = several
                return outcome
            }
            let done = render(several, toFile: false, into: &bytes, flush: nil)
            return Outcome(pieces: [bytes], status: done.status, tally: done.tally)
        case .directory(let folder):
            return write(several, to: target(of: job), replacing: nil, below: folder)
        case .inPlace:
            return write(several, to: job.path, replacing: job.path, below: nil)
        }
    }

    /// Writes the reports of `several` to `target` as one file (see ``write(to:replacing:below:_:)``).
    private func write(_ several: SeveralReports, to target: String, replacing original: String?,
                       below root: String?) -> Outcome {
        var done: (status: ExitStatus, tally: Tally, pending: [UpdateRecord.PendingImage])?
        let written = writeRendering(to: target, replacing: original, below: root) { bytes, flush in
            done = render(several, toFile: true, into: &bytes, flush: flush)
        }
        let tally = done?.tally ?? Tally(reports: several.parts.count)
        var outcome = Outcome(pieces: nil, status: written ? done?.status ?? .success : .outputFailed, tally: tally)
        if written && options.update { outcome.pending = done?.pending ?? [] }
        return outcome
    }
}
