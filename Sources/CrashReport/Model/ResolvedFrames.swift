/// The source frames of a report's resolved frames, by `FrameKey`: four bytes per frame of the
/// report, in one array for all its threads, naming an entry of a table of the distinct arrays
/// of source frames. Frames at the same address share one array (a lookup's answer is given to
/// every frame at its address), so that a report of millions of frames pays four bytes per
/// frame and one array per address resolved, not an array or a hash table entry per frame. An
/// empty array is the same as none.
public struct ResolvedFrames: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// `slots[starts[t] + f]`: 0 when frame `f` of thread `t` has no source frames, else one
    /// more than the index of its array in `arrays`. Empty until a frame has source frames.
    private var slots: [UInt32] = []
    /// Where each thread's slots start; a thread has `starts[t + 1] - starts[t]` of them. Four
    /// bytes a thread: a report of many one-frame backtraces has nearly as many threads as
    /// frames (and fewer than 2^32 frames: it is read only up to 1 GiB).
    private var starts: [UInt32] = [0]
    /// The distinct arrays of source frames.
    private var arrays: [[SourceFrame]] = []
    /// The slot of each array of `arrays`, by the address of its elements: an array given again
    /// (the same storage) takes the slot it has.
    private var arraySlots: [UInt: UInt32] = [:]
    /// The number of frames with source frames.
    public private(set) var count = 0

    /// Creates an empty table.
    public init() {}

    /// Creates an empty table with room for every frame of `report`.
    public init(for report: CrashReport) {
        starts.reserveCapacity(report.threads.count + 1)
        for thread in report.threads { starts.append(starts[starts.count - 1] + UInt32(thread.frames.count)) }
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

    /// The slot of `key`, when the table has one.
    private func place(_ key: FrameKey) -> Int? {
        guard key.thread >= 0, key.thread < starts.count - 1, key.frame >= 0,
              key.frame < Int(starts[key.thread + 1] - starts[key.thread]) else { return nil }
        return Int(starts[key.thread]) + key.frame
    }

    /// The source frames of frame `key`; nil if it has none.
    public subscript(key: FrameKey) -> [SourceFrame]? {
        get {
            guard let place = place(key), place < slots.count, slots[place] != 0 else { return nil }
            return arrays[Int(slots[place] - 1)]
        }
        set {
            let new = newValue ?? []
            guard let place = place(key) ?? (new.isEmpty || key.thread < 0 || key.frame < 0 ? nil : makeRoom(for: key))
            else { return }
            if slots.isEmpty {
                guard !new.isEmpty else { return }
                slots = Array(repeating: 0, count: Int(starts[starts.count - 1]))
            }
            count += (new.isEmpty ? 0 : 1) - (slots[place] == 0 ? 0 : 1)
            slots[place] = new.isEmpty ? 0 : slot(of: new)
        }
    }

    /// The slot of `sourceFrames` in `arrays`, added if new.
    private mutating func slot(of sourceFrames: [SourceFrame]) -> UInt32 {
        let address = sourceFrames.withUnsafeBufferPointer { $0.baseAddress.map { UInt(bitPattern: $0) } }
        if let address, let known = arraySlots[address] { return known }
        arrays.append(sourceFrames)
        let slot = UInt32(arrays.count)
        if let address { arraySlots[address] = slot }
        return slot
    }

    /// Adds threads and frames up to `key` (a table made without a report, or a key past its
    /// frames), and gives its slot.
    private mutating func makeRoom(for key: FrameKey) -> Int {
        while starts.count - 1 <= key.thread { starts.append(starts[starts.count - 1]) }
        let have = Int(starts[key.thread + 1] - starts[key.thread])
        if have <= key.frame {
            let more = key.frame + 1 - have
            if !slots.isEmpty { slots.insert(contentsOf: repeatElement(0, count: more), at: Int(starts[key.thread + 1])) }
            for t in (key.thread + 1)..<starts.count { starts[t] += UInt32(more) }
        }
        return Int(starts[key.thread]) + key.frame
    }

    /// The frames with source frames, in report order.
    public func makeIterator() -> Iterator {
        Iterator(table: self)
    }

    /// Walks the frames with source frames, in report order.
    public struct Iterator: IteratorProtocol {
        fileprivate let table: ResolvedFrames
        private var thread = 0
        private var place = 0

        fileprivate init(table: ResolvedFrames) {
            self.table = table
        }

        /// The next frame with source frames, with its key.
        public mutating func next() -> (key: FrameKey, value: [SourceFrame])? {
            while place < table.slots.count {
                while Int(table.starts[thread + 1]) <= place { thread += 1 }
                let p = place
                place += 1
                let slot = table.slots[p]
                if slot != 0 {
                    return (FrameKey(thread: thread, frame: p - Int(table.starts[thread])), table.arrays[Int(slot - 1)])
                }
            }
            return nil
        }
    }
}
