import Platform

/// A JSON `.ips` report read a piece at a time, so that a large one is never held whole as
/// text beside its model: each piece is a report of its own, symbolicated and written before
/// the next is made.
///
/// The pieces' texts, one after another, are the text of the report read whole
/// (``IPSReportParser/parse(_:path:use:releasingInput:)``), byte for byte; each piece is read
/// as that text's part would be:
/// - the first starts with the header, the Last Exception Backtrace and the text backtraces;
/// - then whole threads, until a piece's text reaches the piece size;
/// - the last ends with the crashed thread's state, the image list and the text after the body.
///
/// Every piece holds the report's header fields, code type and images (those before the last
/// on line 0: the list is written by the last), so that its frames find their images and are
/// looked up as the whole report's are. A thread is never cut: a frame's lookup depends on its
/// place in its thread (the first is the faulting PC) and on the frame before it (a signal
/// trampoline's), and a device-symbolicated frame's inlined lines come right before it.
///
/// Read for its document (``ReportUse/document``: written back as `.ips`), each piece's
/// document is the whole input with its frames' objects, of which it writes back its window
/// (``IPSDocument/window``): the first piece from the start of the file, each next one from its
/// first thread's object, the last to the end of the file. The pieces' windows, written back
/// one after another, are the document written back whole. The Last Exception Backtrace and the
/// text backtraces must come before the threads (as Apple writes them): they are the first
/// piece's.
///
/// Its JSON is given back as it goes (with ``ReportParser/pieces(taking:path:pieceSize:use:)``):
/// for its text, a thread's once it is translated; for its document, a piece's window once the
/// next piece is asked for (it has been written back then), but the crashed thread's, whose
/// state is written last. A report of threads of many frames each then takes, at its peak, its
/// JSON, one piece's text and model, and its images; read whole, its text or its document
/// besides its whole model (1.5 to 1.75 times its JSON).
public final class IPSPieces {
    /// The path messages name the report by.
    public let path: String
    /// The size of the report's file: the bytes it holds (less those given back).
    public var inputSize: Int { body.bytes.count }
    private let body: JSONTree
    private var translator: IPSTranslator
    /// The body's threads, in order.
    private let threads: [Int]
    private let faulting: Int?
    private let trailing: Range<Int>
    private let pieceSize: Int
    private let releasingInput: Bool
    private let forDocument: Bool
    /// `sharedCache.uuid`, read once (the JSON that holds it may be given back).
    private let sharedCache: String?
    /// The images of every piece but the last, once the first is written.
    private var imagesNotWritten: [BinaryImage] = []
    private var nextThread = 0
    private var opened = false
    private var finished = false
    /// Where the next piece's window of the document starts.
    private var windowStart = 0
    /// The window of the last piece made, for its document, until its JSON is given back.
    private var written: Range<Int>?
    /// The members of the thread being written, kept from one thread to the next.
    private var buffer: [JSONNode] = []

    /// Nil when the report cannot be read so: for its document, when the Last Exception
    /// Backtrace or the text backtraces come after the first thread.
    init?(path: String, metadata: JSONTree, body: JSONTree, threads: Int, trailing: Range<Int>, pieceSize: Int,
          use: ReportUse, releasingInput: Bool) {
        self.path = path
        self.body = body
        forDocument = use.keepsDocument
        translator = IPSTranslator(metadata: metadata, body: body, use: forDocument ? .document : .text)
        self.threads = Array(body.children(of: threads))
        if forDocument, let first = self.threads.first {
            let start = body.nodes[first].range.lowerBound
            for name in ["lastExceptionBacktrace", "asiBacktraces"] {
                if let node = body.member(name, of: body.root), body.nodes[node].range.upperBound > start { return nil }
            }
        }
        faulting = body.int(body.member("faultingThread", of: body.root))
        sharedCache = translator.sharedCacheUUID()
        self.trailing = trailing
        self.pieceSize = max(1, pieceSize)
        self.releasingInput = releasingInput
    }

    /// Whether the last piece was made.
    public var isFinished: Bool { finished }

    /// The next piece, or nil once the last was made.
    public func next() -> CrashReport? {
        guard !finished else { return nil }
        return body.bytes.withUnsafeBytes { input in
            if releasingInput {
                if forDocument {
                    if let written { giveBack(written, of: input) }
                } else {
                    translator.releasing(input)
                }
            }
            written = nil
            if !opened {
                translator.writeOpening()
                imagesNotWritten = translator.imagesNotWritten()
                opened = true
            }
            translator.startThreadsText()
            while nextThread < threads.count && translator.pieceTextSize < pieceSize {
                translator.reserveText(forThread: threads[nextThread])
                translator.writeThread(element: threads[nextThread], number: nextThread, faulting: faulting, buffer: &buffer)
                nextThread += 1
            }
            translator.endThreadsText()
            let window: Range<Int>
            guard nextThread == threads.count else {
                window = windowStart..<max(windowStart, body.nodes[threads[nextThread]].range.lowerBound)
                windowStart = window.upperBound
                written = window
                return translator.takePiece(path: path, images: imagesNotWritten, sharedCache: sharedCache, window: window)
            }
            translator.writeClosing()
            finished = true
            imagesNotWritten = []
            let after = trailing.upperBound <= body.bytes.count ? body.bytes[trailing] : []
            return translator.takePiece(path: path, appending: after, images: nil, sharedCache: sharedCache,
                                        window: windowStart..<body.bytes.count)
        }
    }

    /// Gives back the pages of `window` of the input, written back: all but those of the
    /// crashed thread, whose state is written last.
    private func giveBack(_ window: Range<Int>, of input: UnsafeRawBufferPointer) {
        let kept = translator.crashedThreadRange ?? window.upperBound..<window.upperBound
        for part in [window.lowerBound..<min(window.upperBound, max(window.lowerBound, kept.lowerBound)),
                     max(window.lowerBound, min(window.upperBound, kept.upperBound))..<window.upperBound] where !part.isEmpty {
            System.releasePages(UnsafeRawBufferPointer(rebasing: input[part]))
        }
    }
}
