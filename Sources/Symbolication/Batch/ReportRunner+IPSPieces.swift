import CrashReport

extension ReportRunner {
    /// The text a piece of a large `.ips` report takes before the next is made (``IPSPieces``).
    static let ipsPieceSize = 1 << 20

    /// What a report of `size` bytes is read for when it is read a piece at a time, if it is a
    /// JSON `.ips` report: a large one (from ``renderedWhenWritten``) written as text or frame
    /// lines (for its text), or written back as `.ips` (for its document), whose pieces'
    /// outputs follow each other as the report's would; nil when it is read whole (its JSON
    /// output is one entry, and a summary reads it whole).
    func piecesUse(size: Int, summarizing: Bool) -> ReportUse? {
        guard !summarizing, size >= Self.renderedWhenWritten else { return nil }
        let use = ReportRendering.use(format: options.format, toFile: options.destination != .stream)
        return use == .text || use == .document ? use : nil
    }

    /// Does a report read in pieces as ``process(_:streamed:)`` does one: to the stream, its
    /// pieces are read and rendered when the writer comes to it; to a file, as it is written.
    func process(_ pieces: IPSPieces, job: Job, streamed: Bool) -> Outcome {
        let target: String, original: String?, root: String?
        switch options.destination {
        case .stream:
            var outcome = Outcome(pieces: [streamHeader(job, streamed: streamed)], status: .success, tally: Tally())
            outcome.ipsPieces = pieces
            return outcome
        case .directory(let folder):
            (target, original, root) = (self.target(of: job), nil, folder)
        case .inPlace:
            (target, original, root) = (job.path, job.path, nil)
        }
        var done: (tally: Tally, pending: [UpdateRecord.PendingImage])?
        let written = writeRendering(to: target, replacing: original, below: root) { bytes, flush in
            done = render(pieces, toFile: true, into: &bytes, flush: flush)
        }
        var outcome = Outcome(pieces: nil, status: written ? .success : .outputFailed, tally: done?.tally ?? Tally(reports: 1))
        if written && options.update { outcome.pending = done?.pending ?? [] }
        return outcome
    }

    /// Reads, symbolicates and renders the pieces of a large `.ips` report one at a time, in
    /// order, for the stream or (`toFile`) a file of its own, until `stopped` (the reader of
    /// the output went away): their outputs, one after another, are the report's. So are their
    /// counts: one report, its frames, and each image left without a debug file counted in one
    /// report; and, for `--update`, its images left without lines.
    func render(_ pieces: IPSPieces, toFile: Bool, into bytes: inout [UInt8], flush: OutputFlush?,
                stopped: () -> Bool = { false }) -> (tally: Tally, pending: [UpdateRecord.PendingImage]) {
        var tally = Tally()
        var needed = MissingDebugFiles()
        var pending: [UpdateRecord.PendingImage] = []
        var pendingSeen = Set<UpdateRecord.PendingImage>()
        var framed = false
        while let piece = stopped() ? nil : pieces.next() {
            diagnostics.say(piece.warnings)
            framed = framed || piece.threads.contains { !$0.frames.isEmpty }
            let symbolicated = symbolicated(piece)
            var counted = Tally(symbolicated, listingMissing: options.missingList != nil)
            needed.add(pieceOfTheSameReport: counted.needed)
            counted.needed = MissingDebugFiles()
            tally.add(counted)
            if toFile && options.update {
                for image in OutputUpdate.pendingImages(symbolicated) where pendingSeen.insert(image).inserted {
                    pending.append(image)
                }
            }
            render(symbolicated, toFile: toFile, marked: !toFile && options.markFrames, into: &bytes, flush: flush)
            flush?.handOn(&bytes)
        }
        tally.reports = 1
        tally.needed = needed
        if pieces.isFinished && !framed {
            warnNoBacktrace(pieces.path)
        }
        return (tally, pending)
    }
}
