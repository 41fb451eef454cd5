/// Writes the ``FunctionBlock``s of an index from the function records, ranges and inline
/// segments the DWARF pass made, one out-of-line function after another.
struct FunctionBlockWriter {
    private var bytes = LEB128Writer()
    /// Per record: its position in the call bytes of the block being written, or -1.
    private var positions: [Int32]
    private var placed: [Int] = []
    private var calls = LEB128Writer()
    private var segmentBytes = LEB128Writer()
    private var groups: [(start: UInt32, position: UInt32)] = []

    init(recordCount: Int) {
        positions = [Int32](repeating: -1, count: recordCount)
    }

    /// The blocks written, as the index's table; the writer is left empty.
    mutating func takeBytes() -> FlatArray<UInt8> { bytes.take() }

    /// The number of bytes of the blocks written so far.
    var byteCount: Int { bytes.count }

    /// Appends the blocks `other` wrote, which then begin at the ``byteCount`` before.
    mutating func appendBlocks(of other: FunctionBlockWriter) {
        bytes.append(contentsOf: other.bytes)
    }

    /// Appends the block of out-of-line function `function` (a record with ranges, whose
    /// segments are `place` of `segments`) and returns where it lies in the bytes. `name` and
    /// `file` give a record's name as an offset in the strings kept and its call's path as an
    /// index in the file table.
    mutating func append(function: Int, records: FlatArrayWriter<FunctionRecord>, ranges: FlatArray<AddressRange>,
                         segments: FlatArray<InlineSegment>, place: SegmentPlace,
                         name: (Int) -> UInt32, file: (Int) -> UInt32) -> Range<Int> {
        let record = records[function]
        let own = Self.ranges(of: record, in: ranges)
        let lowest = own.map { ranges[$0].low }.min() ?? 0

        // The calls reached from the function through inlined calls only, in DIE order.
        calls.removeAll()
        for i in placed { positions[i] = -1 }
        placed.removeAll(keepingCapacity: true)
        var i = function + 1
        let end = min(Int(record.end), records.count)
        while i < end {
            let call = records[i]
            guard call.inlined != 0 else {
                i = max(Int(call.end), i + 1)
                continue
            }
            let position = calls.count
            let parent = Int(call.parent)
            let parentPosition = parent > function && parent < i ? Int(positions[parent]) : -1
            calls.unsigned(parentPosition >= 0 ? UInt64(position - parentPosition) : 0)
            calls.unsigned(UInt64(name(i)))
            calls.unsigned(UInt64(file(i)))
            calls.unsigned(UInt64(call.callLine))
            calls.unsigned(UInt64(call.callColumn))
            let callRanges = Self.ranges(of: call, in: ranges)
            calls.unsigned(UInt64(callRanges.count))
            for r in callRanges {
                calls.signed(Int64(bitPattern: ranges[r].low &- lowest))
                calls.unsigned(ranges[r].high &- ranges[r].low)
            }
            positions[i] = Int32(position)
            placed.append(i)
            i += 1
        }

        // The segments: those that begin below the function's lowest address matter only
        // from there on (no lookup of a lower address comes here).
        let first = min(Int(place.first), segments.count)
        var kept = first..<min(first + Int(place.count), segments.count)
        while kept.count > 1, segments[kept.lowerBound + 1].start <= lowest { kept = (kept.lowerBound + 1)..<kept.upperBound }
        segmentBytes.removeAll()
        groups.removeAll(keepingCapacity: true)
        var previous: UInt64 = 0, count = 0
        for s in kept {
            let start = max(segments[s].start, lowest) - lowest
            guard start <= UInt64(UInt32.max) else { break }  // a function of more than 4 GiB
            if count > 0, count % FunctionBlock.segmentsPerGroup == 0 {
                groups.append((UInt32(start), UInt32(segmentBytes.count)))
                previous = start
            }
            segmentBytes.unsigned(start - previous)
            previous = start
            let entry = Int(segments[s].entry)
            let position = entry > function && entry < end ? Int(positions[entry]) : -1
            segmentBytes.unsigned(position >= 0 ? UInt64(position + 1) : 0)
            count += 1
        }

        let blockStart = bytes.count
        bytes.unsigned(UInt64(name(function)))
        bytes.unsigned(lowest)
        bytes.unsigned(UInt64(own.count))
        for r in own {
            bytes.unsigned(ranges[r].low - lowest)
            bytes.unsigned(ranges[r].high &- ranges[r].low)
        }
        bytes.unsigned(UInt64(count))
        for group in groups {
            bytes.word(group.start)
            bytes.word(group.position)
        }
        bytes.unsigned(UInt64(segmentBytes.count))
        bytes.append(contentsOf: segmentBytes)
        bytes.append(contentsOf: calls)
        return blockStart..<bytes.count
    }

    private static func ranges(of record: FunctionRecord, in ranges: FlatArray<AddressRange>) -> Range<Int> {
        let first = min(Int(record.firstRange), ranges.count)
        return first..<min(first + Int(record.rangeCount), ranges.count)
    }
}

extension FunctionBlock {
    /// Whether the block at `bytes[start..<end]` decodes whole: every segment's call is a call
    /// of the block, every call's parent one before it, names inside the strings and files in
    /// the file table, the groups where their segments are (a freshly built index's check).
    static func isWellFormed(_ bytes: FlatArray<UInt8>, start: Int, end: Int, stringCount: Int, fileCount: Int) -> Bool {
        guard let block = FunctionBlock(bytes, start: start, end: end), Int(block.name) < stringCount,
              let base = bytes.buffer.baseAddress
        else { return false }
        // The calls, in order.
        var c = LEB128Cursor(base, position: block.callsPosition, end: end)
        var calls: [Int] = []
        while !c.atEnd {
            let position = c.position - block.callsPosition
            let up = c.unsigned()
            let name = c.unsigned(), file = c.unsigned()
            _ = c.unsigned()
            _ = c.unsigned()
            let count = c.unsigned()
            guard !c.failed, up <= UInt64(position), up == 0 || calls.sortedContains(position - Int(up)),
                  name < UInt64(stringCount), file < UInt64(fileCount), count <= UInt64(c.remaining / 2)
            else { return false }
            for _ in 0..<Int(count) {
                _ = c.signed()
                _ = c.unsigned()
            }
            calls.append(position)
        }
        guard !c.failed else { return false }
        // The segments, group by group.
        var s = LEB128Cursor(base, position: block.segmentsPosition, end: block.callsPosition)
        var at: UInt64 = 0
        for k in 0..<block.segmentCount {
            if k > 0, k % segmentsPerGroup == 0 {
                let group = k / segmentsPerGroup - 1
                guard block.groupWord(group, 1) == UInt32(s.position - block.segmentsPosition),
                      UInt64(block.groupWord(group, 0)) >= at
                else { return false }
                at = UInt64(block.groupWord(group, 0))
            }
            let previous = at
            at &+= s.unsigned()
            let call = s.unsigned()
            guard !s.failed, at >= previous, call == 0 || calls.sortedContains(Int(call - 1)) else { return false }
        }
        return s.position == block.callsPosition
    }
}

private extension [Int] {
    /// Whether the array, sorted, holds `value`.
    func sortedContains(_ value: Int) -> Bool {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) >> 1
            if self[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low < count && self[low] == value
    }
}
