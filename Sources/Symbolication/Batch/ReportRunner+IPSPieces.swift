import CrashReport

extension ReportRunner {
    /// The text a piece of a large `.ips` report takes before the next is made (``IPSPieces``).
    static let ipsPieceSize = 1 << 20

    /// Whether a report of `size` bytes is read a piece at a time when it is a JSON `.ips`
    /// report: a large one (from ``renderedWhenWritten``) written to the stream as text or
    /// frame lines, whose pieces' outputs follow each other as the report's would. Its JSON
    /// output is one entry, a file of its own is written back as `.ips`, and a summary reads
    /// the report whole.
    func readsInPieces(size: Int, summarizing: Bool) -> Bool {
        !summarizing && options.destination == .stream && (options.format == .text || options.format == .frames)
            && size >= Self.renderedWhenWritten
    }

    /// Reads, symbolicates and renders the pieces of a large `.ips` report one at a time, in
    /// order, until `stopped` (the reader of the output went away): their outputs, one after
    /// another, are the report's. So are their counts: one report, its frames, and each image
    /// left without a debug file counted in one report.
    func render(_ pieces: IPSPieces, into bytes: inout [UInt8], flush: OutputFlush?, stopped: () -> Bool) -> Tally {
        var tally = Tally()
        var needed = MissingDebugFiles()
        var framed = false
        while let piece = stopped() ? nil : pieces.next() {
            diagnostics.say(piece.warnings)
            framed = framed || piece.threads.contains { !$0.frames.isEmpty }
            let symbolicated = symbolicated(piece)
            var counted = Tally(symbolicated, listingMissing: options.missingList != nil)
            needed.add(pieceOfTheSameReport: counted.needed)
            counted.needed = MissingDebugFiles()
            tally.add(counted)
            render(symbolicated, toFile: false, marked: options.markFrames, into: &bytes, flush: flush)
            flush?.handOn(&bytes)
        }
        tally.reports = 1
        tally.needed = needed
        if pieces.isFinished && !framed {
            diagnostics.warn("\(pieces.path): no backtrace found (no frame line in any thread); the report is written as it is")
        }
        return tally
    }
}
