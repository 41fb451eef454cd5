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
    /// The file's bytes, unchanged.
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

    /// The byte range of each frame's JSON object, by `FrameKey`: an array per thread, indexed
    /// by frame, so that a report of millions of frames holds a range per frame rather than
    /// a hash table entry.
    public struct FrameObjects: Sendable, ExpressibleByDictionaryLiteral {
        /// `threads[t][f]`: the range of frame `f` of thread `t`; empty when it has none.
        private var threads: [[Range<Int>]] = []
        /// How many frames have an object.
        public private(set) var count = 0

        /// Room for the frames of `report`, none with an object yet.
        public init(_ report: CrashReport) {
            threads = report.threads.map { Array(repeating: 0..<0, count: $0.frames.count) }
        }

        /// The objects given by key.
        public init(dictionaryLiteral elements: (FrameKey, Range<Int>)...) {
            for (key, range) in elements { self[key] = range }
        }

        /// The object of frame `key`; nil when it has none. (An object is never empty: it
        /// holds its braces.)
        public subscript(key: FrameKey) -> Range<Int>? {
            get {
                guard threads.indices.contains(key.thread), threads[key.thread].indices.contains(key.frame) else { return nil }
                let range = threads[key.thread][key.frame]
                return range.isEmpty ? nil : range
            }
            set {
                guard key.thread >= 0, key.frame >= 0 else { return }
                let new = newValue ?? 0..<0
                if threads.count <= key.thread {
                    guard !new.isEmpty else { return }
                    threads.append(contentsOf: repeatElement([], count: key.thread + 1 - threads.count))
                }
                if threads[key.thread].count <= key.frame {
                    guard !new.isEmpty else { return }
                    threads[key.thread].append(contentsOf: repeatElement(0..<0, count: key.frame + 1 - threads[key.thread].count))
                }
                count += (new.isEmpty ? 0 : 1) - (threads[key.thread][key.frame].isEmpty ? 0 : 1)
                threads[key.thread][key.frame] = new
            }
        }
    }

    /// Creates a document over the file's bytes; with the defaults, one that knows no frames.
    public init(bytes: [UInt8], frameObjects: FrameObjects = [:],
                inlinedFrames: [FrameKey: [FrameKey]] = [:], textBacktraces: [TextBacktrace] = []) {
        self.bytes = bytes
        self.frameObjects = frameObjects
        self.inlinedFrames = inlinedFrames
        self.textBacktraces = textBacktraces
    }
}
