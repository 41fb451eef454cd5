import CDwarf
import Platform

/// One subprogram or inlined-subroutine entry of a ``SymbolIndex``, in DIE order: the
/// entries inlined into a function follow it, up to `end`. One record holds all a lookup
/// reads of an entry, so an inline chain costs a cache line or two per frame.
struct FunctionRecord: BitwiseCopyable, Equatable {
    /// Offset of the (linkage) name in the strings.
    var name: UInt32
    /// One past the last entry nested in this one (its subtree).
    var end: Int32
    /// The enclosing entry, or -1.
    var parent: Int32
    /// Where an inlined entry was called: offset of the path in the strings, line, column.
    var callFile: UInt32
    var callLine: UInt32
    var callColumn: UInt32
    /// The entry's address ranges: `rangeCount` ranges from `firstRange`.
    var firstRange: UInt32
    var rangeCount: UInt32
    /// 1 for inlined subroutines, 0 for subprograms.
    var inlined: UInt32
}

/// Where an out-of-line function's ``InlineSegment``s are: `count` from `first` (none for
/// other records).
struct SegmentPlace: BitwiseCopyable, Equatable {
    var first: UInt32
    var count: UInt32
}

/// From `start` up to the next segment's start, `entry` is the deepest inlined call (the
/// first in DIE order of equally deep ones) holding the address, or -1 for none: the answer
/// of the walk through an out-of-line function's inlined calls, made once for every address
/// when the index is built. A lookup finds its segment by a binary search in its function's
/// segments, where a large C++ function would otherwise have thousands of calls to look at.
struct InlineSegment: BitwiseCopyable, Equatable {
    var start: UInt64
    var entry: Int32
    var reserved: UInt32 = 0
}

/// An address range `[low, high)`.
struct AddressRange: BitwiseCopyable, Equatable {
    var low: UInt64
    var high: UInt64
}

/// A range of an out-of-line function, in a table sorted by `low`; `maxHigh` is the largest
/// `high` up to this one, so that a search for ranges holding an address can stop early.
///
/// 24 bytes: the range's length and `maxHigh` are kept as 32-bit distances from `low`. A
/// range is shorter than 4 GiB (the tables leave longer ones out, as no function or line
/// sequence is), so `maxHigh − low`, the end of a range that starts at or before `low`, is
/// too. Read from a damaged index, the fields give wrong ranges, never a fault.
struct SortedRange: BitwiseCopyable, Equatable {
    var low: UInt64
    /// `high − low`.
    private var length: UInt32
    /// `maxHigh − low`.
    private var reach: UInt32
    /// The function's block (concrete ranges: `first..<end` of the function bytes) or its
    /// line blocks (line sequences: `first..<end`).
    var first: Int32
    var end: Int32

    var high: UInt64 { low &+ UInt64(length) }
    var maxHigh: UInt64 {
        get { low &+ UInt64(reach) }
        set { reach = UInt32(truncatingIfNeeded: newValue &- low) }
    }

    /// A range of less than 4 GiB, `low ≤ high ≤ maxHigh < low + 4 GiB` (kept modulo 4 GiB otherwise).
    init(low: UInt64, high: UInt64, maxHigh: UInt64, first: Int32, end: Int32) {
        self.low = low
        length = UInt32(truncatingIfNeeded: high &- low)
        reach = UInt32(truncatingIfNeeded: maxHigh &- low)
        self.first = first
        self.end = end
    }

    /// Whether `low..<high` can be kept: not empty, and shorter than 4 GiB.
    static func fits(low: UInt64, high: UInt64) -> Bool {
        low < high && high - low <= UInt64(UInt32.max)
    }
}

/// A line-table row as the DWARF pass leaves it, before it is encoded (``LineRows``): from
/// its address (an offset from its sequence's start) up to the next row's, the code is at
/// `file:line:column`.
struct PlainLineRow: BitwiseCopyable, Equatable {
    var offset: UInt32
    /// Offset of the path in the DWARF pass's strings.
    var file: UInt32
    var line: UInt32
    var column: UInt32
}

/// Every ``stride``th key of a sorted table, so that a search reads this small array and
/// then one block of the table: a couple of pages instead of one per halving.
///
/// A stride of 8 keeps the block searched in one place (8 ranges of 24 bytes: 3 cache lines),
/// where the halvings through 128 of them each waited for memory; the fence, an eighth of its
/// table's keys, stays in the processor's caches over a batch. A warm batch of 1,000 reports
/// over an 85 MB dSYM (44,571 functions) at `-j 1`, ranges of 32 bytes then: 209 ms with 128,
/// 183 with 16, 176 with 8. The fences add 8 bytes per 8 entries to the index (0.6% of that one).
enum Fence {
    static let stride = 8

    /// The fence of `count` sorted keys.
    static func make(count: Int, key: (Int) -> UInt64) -> FlatArray<UInt64> {
        FlatArray(count: (count + stride - 1) / stride) { key($0 * stride) }
    }

    /// Whether `fence` has the length a fence of `count` keys has.
    static func fits<Key>(_ fence: FlatArray<Key>, count: Int) -> Bool {
        fence.count == (count + stride - 1) / stride
    }

    /// The position of the last of `count` sorted keys that is ≤ `value`, or -1. `key(i)` is
    /// read only in the block the fence points to.
    @inline(__always)
    static func lastNotAbove(_ value: UInt64, fence: FlatArray<UInt64>, count: Int, key: (Int) -> UInt64) -> Int {
        var low = 0, high = fence.count
        while low < high {
            let mid = (low &+ high) >> 1
            if fence[mid] <= value { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return -1 }
        let blockStart = (low - 1) * stride
        low = blockStart
        high = min(blockStart + stride, count)
        while low < high {
            let mid = (low &+ high) >> 1
            if key(mid) <= value { low = mid + 1 } else { high = mid }
        }
        return low - 1
    }
}

extension SymbolIndex {
    /// The DWARF side of the index: every array a lookup reads, as it is stored (see
    /// ``IndexCache``).
    struct Tables {
        /// NUL-terminated names and paths, those the index uses; offset 0 is the empty string
        /// standing for none.
        var strings = FlatArray<UInt8>([0])
        /// Source paths: offsets in the strings; index 0 stands for none.
        var files = FlatArray<UInt32>([0])
        /// The ``FunctionBlock``s of the out-of-line functions.
        var functionBytes = FlatArray<UInt8>()
        /// Ranges of out-of-line functions, sorted; `first..<end` is the function's block.
        var concrete = FlatArray<SortedRange>()
        var concreteFence = FlatArray<UInt64>()
        /// Line sequences, sorted; `first..<end` are their ``LineBlock``s.
        var sequences = FlatArray<SortedRange>()
        var sequenceFence = FlatArray<UInt64>()
        var lineBlocks = FlatArray<LineBlock>()
        /// The rows of every line block (``LineRows``).
        var lineBytes = FlatArray<UInt8>()

        /// Hands every array with its section kind (its number in the cache format) to `visitor`.
        mutating func visit(_ visitor: inout some IndexSectionVisitor) {
            visitor.visit(1, &strings)
            visitor.visit(2, &files)
            visitor.visit(3, &functionBytes)
            visitor.visit(4, &concrete)
            visitor.visit(5, &concreteFence)
            visitor.visit(6, &sequences)
            visitor.visit(7, &sequenceFence)
            visitor.visit(8, &lineBlocks)
            visitor.visit(9, &lineBytes)
        }

        /// Whether the strings end in a NUL and the fences fit their tables: all a lookup needs
        /// to stay inside the arrays and finish, since it checks every index it reads from one
        /// array before using it in another, and decodes blocks with ``LEB128Cursor``. Constant
        /// time: what a stored index is checked for when it is mapped.
        var hasConsistentShape: Bool {
            strings.last == 0 && strings.count <= Int(UInt32.max) && !files.isEmpty
                && functionBytes.count < Int(Int32.max) && lineBytes.count <= Int(UInt32.max)
                && lineBlocks.count < Int(Int32.max)
                && Fence.fits(concreteFence, count: concrete.count) && Fence.fits(sequenceFence, count: sequences.count)
        }

        /// Whether, beyond ``hasConsistentShape``, everything stored is where it points: every
        /// function block and line block decodes whole, files and names lie inside the strings,
        /// and the sorted tables and their fences agree. A linear pass: what a freshly built
        /// index is checked for, so that a fault of the DWARF pass is an error, not a wrong answer.
        var isWellFormed: Bool {
            guard hasConsistentShape, files.allSatisfy({ Int($0) < strings.count }) else { return false }
            // The line tables are checked on a thread of their own while the function blocks
            // are, when they are large and there is a core for it.
            let tables = self
            let (functions, lines) = WorkerThread.both(together: lineBytes.count >= 1 << 20 && Tables.hasASecondCore,
                                                       { functionTablesAreWellFormed }, { tables.lineTablesAreWellFormed })
            return functions && lines
        }

        /// Whether the function blocks decode and the sorted ranges of functions and their
        /// fence agree.
        private var functionTablesAreWellFormed: Bool {
            var checked = Set<Int64>()
            for (i, c) in concrete.enumerated() {
                guard i % Fence.stride != 0 || concreteFence[i / Fence.stride] == c.low,
                      i == 0 || concrete[i - 1].low <= c.low
                else { return false }
                if checked.insert(Int64(c.first) << 32 | Int64(UInt32(bitPattern: c.end))).inserted {
                    guard FunctionBlock.isWellFormed(functionBytes, start: Int(c.first), end: Int(c.end),
                                                     stringCount: strings.count, fileCount: files.count)
                    else { return false }
                }
            }
            return true
        }

        /// Whether the line sequences and their fence agree and every line block decodes.
        var lineTablesAreWellFormed: Bool {
            for (i, s) in sequences.enumerated() {
                guard s.high &- s.low <= UInt64(UInt32.max), i % Fence.stride != 0 || sequenceFence[i / Fence.stride] == s.low,
                      i == 0 || sequences[i - 1].low <= s.low
                else { return false }
            }
            return lineRowsAreWellFormed
        }

        /// The tables of what the DWARF pass collected: one pass over the functions, sorts
        /// instead of searches; the line rows and functions encoded in blocks, and only the
        /// strings they name kept.
        ///
        /// Each of `raw`'s arrays is freed once used (when the caller hands over its last
        /// reference), so the raw and the finished arrays of a large file are not all held at once.
        ///
        /// `parallel` says whether parts are made on threads of their own (nil: when the file
        /// is large and there is a second core); the tables are the same either way.
        init(_ raw: consuming RawDWARF, parallel: Bool? = nil) {
            var kept = StringsKept(raw.strings.last == 0 ? raw.strings : raw.strings + [0])
            raw.strings = []
            // The function records and their inline segments use no strings: the records are
            // made on a thread of their own while the line rows are encoded, and the segments
            // while the names the function blocks use are kept, when there is a core for it.
            // Alone, the line rows come first: converted in place, they shrink by a third or
            // more before the function records are made.
            let functionTables = FunctionTables(functions: raw.functions, ranges: raw.ranges, files: raw.files)
            raw.functions = []
            raw.ranges = FlatArray()
            let parallel = parallel ?? functionTables.worthAThread
            var recordsWorker: WorkerThread?
            let rawFiles = raw.files
            rawFiles.withUnsafeBufferPointer { files in
                encodeLines(&raw.rows, files, &kept) {
                    // Once the rows have shrunk.
                    if parallel { recordsWorker = WorkerThread { functionTables.makeRecords() } }
                }
            }
            if let recordsWorker { recordsWorker.join() } else { functionTables.makeRecords() }
            let (records, ranges, concrete) = functionTables.records!
            let order = Tables.blockOrder(concrete, functionCount: records.count)
            let (names, segments) = WorkerThread.both(together: parallel, { Tables.keepNames(of: order, records, &kept) },
                                                      { Tables.inlineSegments(records, ranges) })
            (functionBytes, self.concrete) = Tables.functionBlocks(records, ranges, segments, concrete,
                                                                   order: order, names: names)
            concreteFence = Fence.make(count: concrete.count) { concrete[$0].low }
            strings = FlatArray(kept.strings)
            files = FlatArray(kept.files)
        }

        /// The line sequences, their blocks and their bytes, from the DWARF pass's rows, which
        /// are taken: converted in place to their plain form (`converted` is called then, once
        /// they have shrunk), which is freed on return.
        private mutating func encodeLines(_ rawRows: inout FlatArray<cdw_row>, _ files: UnsafeBufferPointer<UInt32>,
                                          _ kept: inout StringsKept, converted: () -> Void) {
            let (rows, sorted) = Tables.plainLines(rawRows, files)
            rawRows = FlatArray()  // the plain rows now own the memory: freed on return
            converted()
            var blocks: [LineBlock] = [], lineWriter = LEB128Writer()
            var maximum: UInt64 = 0
            var sequences: [SortedRange] = []
            sequences.reserveCapacity(sorted.count)
            for sequence in sorted {
                let first = blocks.count
                let start = Int(sequence.first)
                guard LineRows.append(Int(sequence.end) - start, offset: { rows[start + $0].offset }, row: { i in
                    let row = rows[start + i]
                    return LineRow(file: kept.file(row.file), line: row.line, column: row.column)
                }, to: &blocks, bytes: &lineWriter) else { break }  // past 4 GiB: the rest is left out
                maximum = max(maximum, sequence.high)
                sequences.append(SortedRange(low: sequence.low, high: sequence.high, maxHigh: maximum,
                                             first: Int32(first), end: Int32(blocks.count)))
            }
            self.sequences = FlatArray(sequences)
            sequenceFence = Fence.make(count: sequences.count) { sequences[$0].low }
            lineBlocks = FlatArray(blocks)
            lineBytes = lineWriter.take()
        }

        /// Empty tables, to be filled by ``visit(_:)``.
        init() {}

        /// The DWARF pass's address ranges as the index keeps them, in their own memory (the
        /// two have the same layout): `ranges` must be the last array reading it.
        static func addressRanges(_ ranges: consuming FlatArray<cdw_range>) -> FlatArray<AddressRange> {
            precondition(MemoryLayout<cdw_range>.stride == MemoryLayout<AddressRange>.stride
                         && MemoryLayout<cdw_range>.offset(of: \.high) == MemoryLayout<AddressRange>.offset(of: \.high))
            let count = ranges.count
            return ranges.reusingMemory(as: AddressRange.self) { _ in count }
        }

        /// The function records of the entries whose subtree has code, and the ranges of the out-of-line functions sorted (`first`
        /// is the function record); the records' ranges are `ranges` (``addressRanges(_:)``).
        /// An entry none of whose descendants has an address range (a declaration, an abstract
        /// instance) can never be part of an answer, and half the entries of a C++ program are such.
        static func functionRecords(_ functions: UnsafeBufferPointer<cdw_function>,
                                    _ ranges: UnsafeBufferPointer<cdw_range>, _ files: UnsafeBufferPointer<UInt32>)
            -> (FlatArrayWriter<FunctionRecord>, [SortedRange]) {
            let count = functions.count
            func ownRanges(_ i: Int) -> Range<Int> {
                let first = min(Int(functions[i].first_range), ranges.count)
                return first..<min(first + Int(functions[i].range_count), ranges.count)
            }
            func parent(_ i: Int) -> Int {
                let parent = Int(functions[i].parent)
                return parent >= 0 && parent < i ? parent : -1
            }
            // Which entries have code in their subtree (children come after their parents).
            var hasCode = [Bool](repeating: false, count: count)
            for i in stride(from: count - 1, through: 0, by: -1) {
                if !ownRanges(i).isEmpty { hasCode[i] = true }
                if hasCode[i], parent(i) >= 0 { hasCode[parent(i)] = true }
            }
            var newIndex = [Int32](repeating: -1, count: count)
            var kept = 0
            for i in 0..<count where hasCode[i] {
                newIndex[i] = Int32(kept)
                kept += 1
            }

            let next = Tables.nameSources(functions)
            let records = FlatArrayWriter<FunctionRecord>(count: kept)
            var concrete: [(low: UInt64, high: UInt64, function: Int32)] = []
            for i in 0..<count where hasCode[i] {
                let f = functions[i], n = Int(newIndex[i])
                // The name: the linkage name wherever the chain of abstract origins and
                // specifications has one, else the plain name (as llvm-symbolizer does).
                var name: UInt32 = 0, current = i
                for _ in 0..<16 {
                    let g = functions[current]
                    if g.linkage_name != 0 {
                        name = g.linkage_name
                        break
                    }
                    if name == 0 { name = g.name }
                    let following = Int(next[current])
                    if following < 0 { break }
                    current = following
                }
                let up = parent(i)
                records[n] = FunctionRecord(
                    name: name, end: Int32(n + 1), parent: up >= 0 ? newIndex[up] : -1,
                    callFile: Int(f.call_file) < files.count ? files[Int(f.call_file)] : 0,
                    callLine: f.call_line, callColumn: f.call_column,
                    firstRange: f.first_range, rangeCount: f.range_count,
                    inlined: f.tag == UInt32(CDW_TAG_INLINED_SUBROUTINE) ? 1 : 0)
                if f.tag == UInt32(CDW_TAG_SUBPROGRAM) {
                    // An empty or inverted range holds no address; one of 4 GiB or more is no
                    // function's (and does not fit a ``SortedRange``).
                    for r in ownRanges(i) where SortedRange.fits(low: ranges[r].low, high: ranges[r].high) {
                        concrete.append((ranges[r].low, ranges[r].high, Int32(n)))
                    }
                }
            }
            // Subtree ends: children come after their parents.
            for n in stride(from: kept - 1, through: 0, by: -1) {
                let up = Int(records[n].parent)
                if up >= 0, records[up].end < records[n].end { records[up].end = records[n].end }
            }
            // Of equal ranges the later function comes later, as a stable sort leaves them.
            concrete.sort {
                $0.low != $1.low ? $0.low < $1.low : $0.high != $1.high ? $0.high > $1.high : $0.function < $1.function
            }
            var maximum: UInt64 = 0
            let sorted = concrete.map { range in
                maximum = max(maximum, range.high)
                return SortedRange(low: range.low, high: range.high, maxHigh: maximum, first: range.function, end: 0)
            }
            return (records, sorted)
        }

        /// For each entry, the entry its name comes from when it has none itself: its
        /// abstract origin, else the declaration it specifies; -1 for none.
        private static func nameSources(_ functions: UnsafeBufferPointer<cdw_function>) -> FlatArrayWriter<Int32> {
            let count = functions.count
            // DIE offset → entry. Entries come in DIE order, so their offsets rise, and a
            // reference mostly points near the entry that makes it (an abstract origin in the
            // same unit): searched outwards from the referring entry. (Offsets that do not rise
            // are sorted first.) Of equal offsets the last entry counts.
            var rising = true
            for i in 1..<max(count, 1) where functions[i - 1].offset > functions[i].offset {
                rising = false
                break
            }
            // When they do not rise: the entries in offset order, and their offsets.
            var order = [Int32](), sortedOffsets = [UInt64]()
            if !rising {
                order = Array(0..<Int32(count))
                order.sort {
                    functions[Int($0)].offset != functions[Int($1)].offset
                        ? functions[Int($0)].offset < functions[Int($1)].offset : $0 < $1
                }
                sortedOffsets = order.map { functions[Int($0)].offset }
            }
            func offsets(_ k: Int) -> UInt64 { rising ? functions[k].offset : sortedOffsets[k] }
            func entry(at offset: UInt64, near i: Int) -> Int32 {
                guard offset != UInt64.max, count > 0 else { return -1 }
                // Bracket the offset between low and high by steps doubling from i, then bisect.
                var low = 0, high = count
                let start = rising ? i : count / 2
                if offsets(start) <= offset {
                    low = start
                    var step = 1
                    while low + step < count, offsets(low + step) <= offset {
                        low += step
                        step *= 2
                    }
                    high = min(count, low + step)
                } else {
                    high = start
                    var step = 1
                    while high - step >= 0, offsets(high - step) > offset {
                        high -= step
                        step *= 2
                    }
                    low = max(0, high - step)
                }
                // Now offsets(low) <= offset < offsets(high) (where those exist): the last ≤ offset.
                while low < high {
                    let mid = (low + high) / 2
                    if offsets(mid) <= offset { low = mid + 1 } else { high = mid }
                }
                guard low > 0, offsets(low - 1) == offset else { return -1 }
                return rising ? Int32(low - 1) : order[low - 1]
            }
            // A function inlined in many places is the origin of each: recent answers are
            // remembered (direct-mapped by a hash of the offset).
            let next = FlatArrayWriter<Int32>(count: count)
            var recentOffsets = [UInt64](repeating: UInt64.max, count: 4096)
            var recentEntries = [Int32](repeating: -1, count: 4096)
            for i in 0..<count {
                var origin: Int32 = -1
                let offset = functions[i].origin
                if offset != UInt64.max {
                    let slot = Int(truncatingIfNeeded: (offset &* 0x9E37_79B9_7F4A_7C15) >> 52)
                    if recentOffsets[slot] == offset {
                        origin = recentEntries[slot]
                    } else {
                        origin = entry(at: offset, near: i)
                        recentOffsets[slot] = offset
                        recentEntries[slot] = origin
                    }
                }
                next[i] = origin >= 0 ? origin : entry(at: functions[i].specification, near: i)
            }
            return next
        }

        /// Line sequences: rows up to and including an end_sequence row, sorted by address.
        ///
        /// Rows a lookup can never return are left out (half the rows of gcc's line tables):
        /// of rows at one address a lookup finds the last, a row that says what the row
        /// before it said (file, line and column) answers nothing that row does not, and a row
        /// at the sequence's end or below the row before it (out of order) holds no address. A
        /// sequence longer than 4 GiB (row offsets are 32 bits) is left out.
        ///
        /// The rows are converted where the raw ones lie (16 bytes written behind each 20 read),
        /// sequence after sequence as they come: only the sequence records are sorted. Returns
        /// the rows and the sequences, sorted, `first..<end` being their rows (`maxHigh` their own `high`).
        private static func plainLines(_ raw: consuming FlatArray<cdw_row>, _ files: UnsafeBufferPointer<UInt32>)
            -> (FlatArray<PlainLineRow>, [SortedRange]) {
            var sequences: [(low: UInt64, high: UInt64, first: Int32, last: Int32)] = []
            var first = 0
            for i in 0..<raw.count where raw[i].end_sequence != 0 {
                let low = raw[first].address, high = raw[i].address
                if i > first, SortedRange.fits(low: low, high: high) {
                    sequences.append((low, high, Int32(first), Int32(i)))
                }
                first = i + 1
            }
            // Each sequence's rows, written over the raw rows: where they start and end.
            var placed = [(start: Int32, end: Int32)](repeating: (0, 0), count: sequences.count)
            let rowStride = MemoryLayout<cdw_row>.stride, lineStride = MemoryLayout<PlainLineRow>.stride
            let rows = raw.reusingMemory(as: PlainLineRow.self) { memory in
                var n = 0
                for (s, sequence) in sequences.enumerated() {
                    let start = n, last = Int(sequence.last)
                    var previous: (file: UInt32, line: UInt32, column: UInt32)?
                    var lastOffset: UInt64?
                    var row = memory.load(fromByteOffset: Int(sequence.first) * rowStride, as: cdw_row.self)
                    for r in Int(sequence.first)..<last {
                        // Read ahead before anything is written over this row.
                        let following = memory.load(fromByteOffset: (r + 1) * rowStride, as: cdw_row.self)
                        defer { row = following }
                        if r + 1 < last, following.address == row.address { continue }
                        // A row at the sequence's end (a row the end repeats) holds no code, and
                        // one below the row before it is out of order: no lookup finds either.
                        let offset = row.address &- sequence.low
                        guard row.address >= sequence.low, offset < sequence.high - sequence.low,
                              lastOffset.map({ offset > $0 }) ?? true else { continue }
                        lastOffset = offset
                        let file = Int(row.file) < files.count ? files[Int(row.file)] : 0
                        if let previous, previous.file == file, previous.line == row.line, previous.column == row.column {
                            continue
                        }
                        previous = (file, row.line, row.column)
                        memory.storeBytes(of: PlainLineRow(offset: UInt32(truncatingIfNeeded: offset), file: file,
                                                      line: row.line, column: row.column),
                                          toByteOffset: n * lineStride, as: PlainLineRow.self)
                        n += 1
                    }
                    placed[s] = (Int32(start), Int32(n))
                }
                return n
            }
            // Copies of one sequence (a function of a COMDAT group several units compiled, whose
            // discarded copies GNU ld points at the kept one) come last unit first: a lookup
            // takes the last sequence that holds the address, the first unit's, as
            // llvm-symbolizer takes the unit of lowest offset whose ranges hold it.
            var order = Array(sequences.indices)
            order.sort { a, b in
                let x = sequences[a], y = sequences[b]
                return x.low != y.low ? x.low < y.low : x.high != y.high ? x.high > y.high : x.first > y.first
            }
            let sorted = order.map { k in
                SortedRange(low: sequences[k].low, high: sequences[k].high, maxHigh: sequences[k].high, first: placed[k].start,
                            end: placed[k].end)
            }
            return (rows, sorted)
        }
    }
}
