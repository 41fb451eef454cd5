/// A JSON `.ips` report as read: the original bytes and where each frame of the translated
/// report sits in them, so that `IPSRenderer` can write the document back with symbols.
///
/// The parser translates the JSON body into the classic text form (which the text and JSON
/// renderers print) and notes, for every frame line it writes, the JSON object the line came
/// from. A frame of `CrashReport.threads` is named by its `FrameKey`; for
///
///     "threads" : [{"frames":[{"imageOffset":16900,"imageIndex":0}, ...]}]
///
/// `frameObjects[FrameKey(thread: 0, frame: 0)]` is the byte range of
/// `{"imageOffset":16900,"imageIndex":0}`. Frames of `asiBacktraces`, which are lines of text
/// inside a JSON string, are found through `textBacktraces` instead.
public struct IPSDocument: Sendable {
    /// The file's bytes, unchanged; none, and no frame objects, for a report read for its
    /// text alone (``ReportUse/text``).
    public var bytes: [UInt8]
    /// For each frame that came from a JSON frame object (threads and the Last Exception
    /// Backtrace): the object's byte range in `bytes`, braces included.
    public var frameObjects: FrameObjects
    /// For a frame whose object is directly preceded by objects of frames inlined into it
    /// (`"inline":true`, same `imageOffset` and `imageIndex`): the keys of those inlined frames,
    /// in document order. A renderer that resolves the frame anew replaces them.
    public var inlinedFrames: [FrameKey: [FrameKey]]
    /// The strings of `asiBacktraces`, in order.
    public var textBacktraces: [TextBacktrace]
    /// The UUID of the dyld shared cache the process ran with (`sharedCache.uuid`), as 32
    /// lowercase hex digits; nil when the report gives none.
    public var sharedCacheUUID: String?
    /// For a piece of a report read in pieces (``IPSPieces``), the part of `bytes` it writes
    /// back, its frames' objects among them; nil for a whole report.
    public var window: Range<Int>?

    /// One string of `asiBacktraces`: a backtrace printed as text inside the JSON document.
    public struct TextBacktrace: Sendable, Equatable {
        /// The string token's byte range in `bytes`, quotes included.
        public var range: Range<Int>
        /// The decoded text of the string.
        public var text: [UInt8]
        /// The lines of the translated report (indices into `CrashReport.lines`) that hold the
        /// text, one per line of `text`.
        public var lines: Range<Int>

        /// Creates a text backtrace from its parts.
        public init(range: Range<Int>, text: [UInt8], lines: Range<Int>) {
            self.range = range
            self.text = text
            self.lines = lines
        }
    }

    /// The byte range of each frame's JSON object, by `FrameKey`: one pair of 32-bit offsets
    /// per frame, the frames of all threads in one array, so that a report of millions of frames
    /// holds 8 bytes for each (an input is read only up to 1 GiB, so offsets fit 32 bits).
    public struct FrameObjects: Sendable, Equatable {
        /// `firstFrame[t]..<firstFrame[t + 1]`: where the frames of thread `t` are in `bounds`.
        private var firstFrame: [Int] = [0]
        /// Each frame's object as its first and last-plus-one offsets; (0, 0) for none.
        private var bounds: [(UInt32, UInt32)] = []
        /// How many frames have an object.
        public private(set) var count = 0

        /// No frame has an object.
        public init() {}

        /// The objects of the frames of each thread in turn: `frames[firstFrame[t] + f]` is the
        /// object of frame `f` of thread `t` (empty for none), `firstFrame` one entry per
        /// thread and one past the last.
        init(firstFrame: [Int], frames: [(UInt32, UInt32)]) {
            self.firstFrame = firstFrame
            bounds = frames
            count = frames.reduce(0) { $0 + ($1.0 < $1.1 ? 1 : 0) }
        }

        /// The object of frame `key`; nil when it has none. (An object is never empty: it
        /// holds its braces.)
        public subscript(key: FrameKey) -> Range<Int>? {
            guard key.thread >= 0, key.thread + 1 < firstFrame.count, key.frame >= 0,
                  firstFrame[key.thread] + key.frame < firstFrame[key.thread + 1] else { return nil }
            let (start, end) = bounds[firstFrame[key.thread] + key.frame]
            return start < end ? Int(start)..<Int(end) : nil
        }

        public static func == (a: FrameObjects, b: FrameObjects) -> Bool {
            a.firstFrame == b.firstFrame && a.bounds.elementsEqual(b.bounds, by: ==)
        }
    }

    /// Creates a document over the file's bytes; with the defaults, one that knows no frames.
    public init(bytes: [UInt8], frameObjects: FrameObjects = FrameObjects(),
                inlinedFrames: [FrameKey: [FrameKey]] = [:], textBacktraces: [TextBacktrace] = [],
                sharedCacheUUID: String? = nil) {
        self.bytes = bytes
        self.frameObjects = frameObjects
        self.inlinedFrames = inlinedFrames
        self.textBacktraces = textBacktraces
        self.sharedCacheUUID = sharedCacheUUID
    }
}
