import Platform

extension SymbolIndex.Tables {
    /// The ``InlineSegment``s of every out-of-line function with inlined calls, and where
    /// each record's are (a place per record, empty but for such functions). The calls that
    /// count are those reached from the function through inlined calls only (a function
    /// nested in it is not part of its code), each as deep as the inlined calls around it; a
    /// sweep over their ranges' ends keeps, between two ends, the deepest call holding the
    /// addresses, the first in DIE order of equals.
    ///
    /// A function's segments depend on its own subtree alone, so with many of them and a
    /// second core, the records are cut in two at a top-level entry, about half the inlined
    /// ranges on each side, and the second part is swept on a thread of its own.
    static func inlineSegments(_ records: FlatArrayWriter<FunctionRecord>, _ ranges: FlatArray<AddressRange>,
                               splittingFrom minimum: Int = 1 << 16)
        -> (segments: FlatArray<InlineSegment>, places: FlatArray<SegmentPlace>) {
        let (bound, cut) = segmentBound(records)
        let segments = FlatArrayWriter<InlineSegment>(count: bound)
        let placeWriter = FlatArrayWriter<SegmentPlace>(count: records.count)
        for i in 0..<records.count { placeWriter[i] = SegmentPlace(first: 0, count: 0) }
        guard bound >= minimum, cut.bound > 0, cut.bound < bound, hasASecondCore || minimum <= 1 else {
            var sweep = InlineSegmentSweep()
            let made = sweep.run(0..<records.count, records, ranges, into: segments, from: 0, places: placeWriter)
            return (segments.array(first: made), placeWriter.array)
        }
        // Each part writes its own functions' places and its own part of the segments.
        let (made, secondEnd) = WorkerThread.both(together: true, {
            var sweep = InlineSegmentSweep()
            return sweep.run(0..<cut.record, records, ranges, into: segments, from: 0, places: placeWriter)
        }, {
            var sweep = InlineSegmentSweep()
            return sweep.run(cut.record..<records.count, records, ranges, into: segments, from: cut.bound, places: placeWriter)
        })
        // The second part's segments follow the first's.
        let shift = cut.bound - made, count = secondEnd - cut.bound
        if shift > 0 {
            segments.moveElements(cut.bound..<secondEnd, to: made)
            for function in cut.record..<records.count where placeWriter[function].count > 0 {
                placeWriter[function].first -= UInt32(shift)
            }
        }
        return (segments.array(first: made + count, releasingTheRest: true), placeWriter.array)
    }

    /// The most segments the records can have (two per range of an inlined call), and where
    /// to cut the records in two: the top-level entry before which about half of them lie,
    /// and the most segments before it. Each inlined entry's segments are its nearest
    /// out-of-line ancestor's, which lies in the same top-level subtree.
    static func segmentBound(_ records: FlatArrayWriter<FunctionRecord>) -> (bound: Int, cut: (record: Int, bound: Int)) {
        var bound = 0
        var boundaries: [(record: Int, bound: Int)] = []
        var topLevelEnd = 0
        for i in 0..<records.count {
            let record = records[i]
            if i >= topLevelEnd {
                boundaries.append((i, bound))
                topLevelEnd = max(Int(record.end), i + 1)
            }
            if record.inlined != 0 { bound += 2 * Int(record.rangeCount) }
        }
        let cut = boundaries.min { abs(2 * $0.bound - bound) < abs(2 * $1.bound - bound) } ?? (records.count, bound)
        return (bound, cut)
    }
}

/// The sweep of ``SymbolIndex/Tables/inlineSegments(_:_:)`` over some functions, its buffers
/// reused from one function to the next.
struct InlineSegmentSweep {
    /// The calls' ranges, the points where the answer may change, and a max-heap of the
    /// ranges that have begun, by (depth, earlier entry first).
    private var pieces: [(low: UInt64, high: UInt64, depth: Int32, entry: Int32)] = []
    private var points: [UInt64] = []
    private var heap: [(high: UInt64, depth: Int32, entry: Int32)] = []
    /// Subtree ends of the inlined calls around the one at hand.
    private var openEnds: [Int32] = []

    private static func before(_ a: (high: UInt64, depth: Int32, entry: Int32),
                               _ b: (high: UInt64, depth: Int32, entry: Int32)) -> Bool {
        a.depth != b.depth ? a.depth > b.depth : a.entry < b.entry
    }

    private mutating func push(_ element: (high: UInt64, depth: Int32, entry: Int32)) {
        heap.append(element)
        var i = heap.count - 1
        while i > 0, Self.before(heap[i], heap[(i - 1) / 2]) {
            heap.swapAt(i, (i - 1) / 2)
            i = (i - 1) / 2
        }
    }

    private mutating func pop() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var best = i
            if l < heap.count, Self.before(heap[l], heap[best]) { best = l }
            if r < heap.count, Self.before(heap[r], heap[best]) { best = r }
            if best == i { break }
            heap.swapAt(i, best)
            i = best
        }
    }

    /// Writes the segments of the out-of-line functions among `functions` into `segments`
    /// from `start`, and where they are into those functions' `places`; returns the end of
    /// what it wrote. Reads only the records of those functions' subtrees.
    mutating func run(_ functions: Range<Int>, _ records: FlatArrayWriter<FunctionRecord>, _ ranges: FlatArray<AddressRange>,
                      into segments: FlatArrayWriter<InlineSegment>, from start: Int,
                      places: FlatArrayWriter<SegmentPlace>) -> Int {
        var made = start
        for function in functions where records[function].inlined == 0 && records[function].rangeCount > 0 {
            pieces.removeAll(keepingCapacity: true)
            openEnds.removeAll(keepingCapacity: true)
            var i = function + 1
            let end = Int(records[function].end)
            while i < end {
                while let last = openEnds.last, i >= last { openEnds.removeLast() }
                let record = records[i]
                guard record.inlined != 0 else {
                    i = max(Int(record.end), i + 1)
                    continue
                }
                let first = min(Int(record.firstRange), ranges.count)
                for r in first..<min(first + Int(record.rangeCount), ranges.count) where ranges[r].low < ranges[r].high {
                    pieces.append((ranges[r].low, ranges[r].high, Int32(openEnds.count + 1), Int32(i)))
                }
                openEnds.append(record.end)
                i += 1
            }
            guard !pieces.isEmpty else { continue }
            pieces.sort { $0.low < $1.low }
            points.removeAll(keepingCapacity: true)
            for piece in pieces {
                points.append(piece.low)
                points.append(piece.high)
            }
            points.sort()
            heap.removeAll(keepingCapacity: true)
            let firstSegment = made
            var next = 0, previousPoint = UInt64.max
            for point in points where point != previousPoint {
                previousPoint = point
                while next < pieces.count, pieces[next].low <= point {
                    push((pieces[next].high, pieces[next].depth, pieces[next].entry))
                    next += 1
                }
                while let top = heap.first, top.high <= point { pop() }
                let entry = heap.first?.entry ?? -1
                if made == firstSegment ? entry != -1 : segments[made - 1].entry != entry {
                    segments[made] = InlineSegment(start: point, entry: entry)
                    made += 1
                }
            }
            places[function] = SegmentPlace(first: UInt32(firstSegment), count: UInt32(made - firstSegment))
        }
        return made
    }
}
