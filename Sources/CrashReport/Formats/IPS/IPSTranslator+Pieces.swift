/// The translator as ``IPSPieces`` drives it: it writes what it is told to (``writeOpening()``,
/// ``writeThread(element:number:faulting:buffer:)``, ``writeClosing()``), and what it wrote
/// since the last piece is taken as a report of its own (``takePiece(path:appending:images:window:)``).
extension IPSTranslator {
    /// Gives back the input's bytes as they are read, from now on; `input` is the input as it
    /// is now (the same bytes, and so the same place, each time).
    mutating func releasing(_ input: UnsafeRawBufferPointer) {
        if release == nil {
            release = InputRelease(input)
        } else {
            release!.attach(input)
        }
    }

    /// The text written since the last piece was taken, that let go included.
    var pieceTextSize: Int { writer.text.count + writer.droppedBytes }

    /// Makes room for the text of thread `element` of the body's threads, when the text kept
    /// has too little (``textPerFrameObject`` a frame, as for a whole report), so that a thread
    /// of many frames does not grow the text by copies of itself (each of which holds the old
    /// and the new buffer at once); the room at least doubles, so a piece of many small
    /// threads is not copied for each.
    mutating func reserveText(forThread element: Int) {
        guard !use.dropsThreadsText else { return }
        let needed = body.nodes[element].collapsedObjects * Self.textPerFrameObject + 4096
        let room = writer.text.capacity - writer.text.count
        guard room < needed else { return }
        writer.text.reserveCapacity(max(2 * writer.text.capacity, writer.text.count + needed))
    }

    /// The JSON of the first thread written as crashed, whose state is written last (kept
    /// until then); nil until one is met.
    var crashedThreadRange: Range<Int>? {
        crashed.map { $0.thread.nodes[$0.thread.root].range }
    }

    /// The images of the report's image list, each at line 0: a piece's before the piece that
    /// writes the list (``writeClosing()``) has its lines.
    func imagesNotWritten() -> [BinaryImage] {
        listedImages().map { reportImage(images[Int($0)], line: 0) }
    }

    /// What was written since the last piece, and `trailing` after it, as a report of its own
    /// (``IPSReportParser/report(_:path:input:use:window:)``); its images are `images`, or
    /// those it lists itself, and its shared cache `sharedCache`. For `.document`, its
    /// document is the whole input's, of which it writes back `window`. The next piece starts
    /// afresh: its text, lines, names and frame objects its own.
    mutating func takePiece(path: String, appending trailing: ArraySlice<UInt8> = [], images pieceImages: [BinaryImage]?,
                            sharedCache: String?, window: Range<Int>) -> CrashReport {
        writer.text += trailing
        let report = IPSReportParser.report(translation(images: pieceImages, sharedCacheUUID: sharedCache), path: path,
                                            input: body.bytes, use: use, window: window)
        writer = ClassicTextWriter(fieldStyle: writer.fieldStyle)
        var next = IPSReportParts()
        (next.header, next.codeType, next.crashedFromHeader) = (parts.header, parts.codeType, parts.crashedFromHeader)
        parts = next
        names = FrameText()
        textBacktraces = []
        return report
    }
}
