/// A JSON `.ips` report read for its text a piece at a time, so that a large one is never
/// held whole as text: each piece is a report of its own, symbolicated and written before the
/// next is made.
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
/// A report of threads of many frames each takes, at its peak, its JSON (given back as its
/// threads are translated, with ``ReportParser/pieces(taking:path:pieceSize:)``), one piece's
/// text and model, and its images; read whole, its text and model besides (some 1.5 times its
/// JSON).
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
    /// The images of every piece but the last, once the first is written.
    private var imagesNotWritten: [BinaryImage] = []
    private var nextThread = 0
    private var opened = false
    private var finished = false
    /// The members of the thread being written, kept from one thread to the next.
    private var buffer: [JSONNode] = []

    init(path: String, metadata: JSONTree, body: JSONTree, threads: Int, trailing: Range<Int>, pieceSize: Int,
         releasingInput: Bool) {
        self.path = path
        self.body = body
        translator = IPSTranslator.forPieces(metadata: metadata, body: body)
        self.threads = Array(body.children(of: threads))
        faulting = body.int(body.member("faultingThread", of: body.root))
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
            if releasingInput { translator.releasing(input) }
            if !opened {
                translator.writeOpening()
                imagesNotWritten = translator.imagesNotWritten()
                opened = true
            }
            while nextThread < threads.count && translator.pieceTextSize < pieceSize {
                translator.writeThread(element: threads[nextThread], number: nextThread, faulting: faulting, buffer: &buffer)
                nextThread += 1
            }
            guard nextThread == threads.count else {
                return translator.takePiece(path: path, images: imagesNotWritten)
            }
            translator.writeClosing()
            finished = true
            imagesNotWritten = []
            let after = trailing.upperBound <= body.bytes.count ? body.bytes[trailing] : []
            return translator.takePiece(path: path, appending: after, images: nil)
        }
    }
}
