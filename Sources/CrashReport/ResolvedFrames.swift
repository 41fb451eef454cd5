/// The source frames of a report's resolved frames, by `FrameKey`: one array per thread indexed
/// by frame, so that a report of millions of frames pays one reference per frame, not a hash
/// table entry per resolved one. Frames at the same address can share one array of source
/// frames. An empty array is the same as none.
public struct ResolvedFrames: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// `threads[t][f]`: the source frames of frame `f` of thread `t`; empty if unresolved.
    private var threads: [[[SourceFrame]]] = []
    /// The number of frames with source frames.
    public private(set) var count = 0

    /// Creates an empty table.
    public init() {}

    /// Creates an empty table with room for every frame of `report`.
    public init(for report: CrashReport) {
        threads = report.threads.map { Array(repeating: [], count: $0.frames.count) }
    }

    /// Creates a table holding the entries of `dictionary`.
    public init(_ dictionary: [FrameKey: [SourceFrame]]) {
        for (key, sourceFrames) in dictionary { self[key] = sourceFrames }
    }

    /// Creates a table holding the listed entries.
    public init(dictionaryLiteral elements: (FrameKey, [SourceFrame])...) {
        for (key, sourceFrames) in elements { self[key] = sourceFrames }
    }

    /// Whether no frame has source frames.
    public var isEmpty: Bool { count == 0 }

    /// The keys of the frames with source frames, in report order.
    public var keys: [FrameKey] { map(\.key) }

    /// The source frames of frame `key`; nil if it has none.
    public subscript(key: FrameKey) -> [SourceFrame]? {
        get {
            guard threads.indices.contains(key.thread), threads[key.thread].indices.contains(key.frame) else { return nil }
            let sourceFrames = threads[key.thread][key.frame]
            return sourceFrames.isEmpty ? nil : sourceFrames
        }
        set {
            guard key.thread >= 0, key.frame >= 0 else { return }
            let new = newValue ?? []
            if !threads.indices.contains(key.thread) || !threads[key.thread].indices.contains(key.frame) {
                guard !new.isEmpty else { return }
                if threads.count <= key.thread {
                    threads.append(contentsOf: repeatElement([], count: key.thread + 1 - threads.count))
                }
                let frames = threads[key.thread].count
                if frames <= key.frame {
                    threads[key.thread].append(contentsOf: repeatElement([], count: key.frame + 1 - frames))
                }
            }
            count += (new.isEmpty ? 0 : 1) - (threads[key.thread][key.frame].isEmpty ? 0 : 1)
            threads[key.thread][key.frame] = new
        }
    }

    /// The frames with source frames, in report order.
    public func makeIterator() -> Iterator {
        Iterator(threads: threads)
    }

    /// Walks the frames with source frames, in report order.
    public struct Iterator: IteratorProtocol {
        fileprivate let threads: [[[SourceFrame]]]
        private var thread = 0
        private var frame = 0

        fileprivate init(threads: [[[SourceFrame]]]) {
            self.threads = threads
        }

        /// The next frame with source frames, with its key.
        public mutating func next() -> (key: FrameKey, value: [SourceFrame])? {
            while thread < threads.count {
                while frame < threads[thread].count {
                    let f = frame
                    frame += 1
                    if !threads[thread][f].isEmpty { return (FrameKey(thread: thread, frame: f), threads[thread][f]) }
                }
                thread += 1
                frame = 0
            }
            return nil
        }
    }
}
