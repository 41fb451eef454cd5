/// Up to ``LineRows/rowsPerBlock`` rows of one line sequence of a ``SymbolIndex``, encoded
/// in the line bytes from `position` to the next block's position.
struct LineBlock: BitwiseCopyable, Equatable {
    /// The first row's address, as an offset from its sequence's start.
    var offset: UInt32
    /// Where the block's rows start in the line bytes.
    var position: UInt32
}

/// A line-table row as a lookup returns it: from its address up to the next row's, the code
/// is at `file:line:column`.
struct LineRow: Equatable {
    /// The file's index in the index's file table (0: none).
    var file: UInt32
    var line: UInt32
    var column: UInt32
}

/// The line rows of a ``SymbolIndex``, delta-encoded in blocks: a lookup searches the blocks
/// of its sequence by their first offset and decodes at most one block.
///
/// A block starts with a byte: the address unit's shift (addresses of a sequence whose
/// deltas are all multiples of 4, as on arm64, are counted in fours). Each row then is,
/// against the row before it in its block (the first against the block's offset, file, line
/// and column 0):
///
///     byte    bits 0-3: address delta in units, 15: a LEB128 delta in units follows
///             bit 4: a file index follows (LEB128)
///             bit 5: a column follows (LEB128)
///             bits 6-7: line delta 0, +1, a signed byte follows, a signed LEB128 follows
///     ...     what the bits say follows, in that order
///
/// A row is 2 to 3 bytes where it was 16 as fixed fields.
enum LineRows {
    static let rowsPerBlock = 32

    /// Appends the `count` rows of one sequence — `offset(i)` and `row(i)` give the `i`th
    /// row's offset and row, offsets rising, each row saying something the one before it does
    /// not — to `blocks` and `bytes`. False when the bytes would pass the 4 GiB a block
    /// position can hold.
    @inline(__always)
    static func append(_ count: Int, offset: (Int) -> UInt32, row: (Int) -> LineRow,
                       to blocks: inout [LineBlock], bytes: inout LEB128Writer) -> Bool {
        // The unit: the largest of 4, 2 and 1 dividing every delta.
        var deltas: UInt32 = 0
        for i in 1..<max(count, 1) { deltas |= offset(i) &- offset(i - 1) }
        let shift: UInt32 = deltas & 3 == 0 ? 2 : deltas & 1 == 0 ? 1 : 0
        var previous = LineRow(file: 0, line: 0, column: 0), previousOffset: UInt32 = 0
        for i in 0..<count {
            let offset = offset(i), row = row(i)
            if i % rowsPerBlock == 0 {
                guard bytes.count <= Int(UInt32.max) else { return false }
                blocks.append(LineBlock(offset: offset, position: UInt32(bytes.count)))
                bytes.byte(UInt8(shift))
                previous = LineRow(file: 0, line: 0, column: 0)
                previousOffset = offset
            }
            let units = UInt64((offset &- previousOffset) >> shift)
            previousOffset = offset
            let lineDelta = Int64(row.line) - Int64(previous.line)
            let lineMode: UInt8 = lineDelta == 0 ? 0 : lineDelta == 1 ? 1 : (lineDelta >= -128 && lineDelta <= 127) ? 2 : 3
            var header = UInt8(min(units, 15)) | lineMode << 6
            if row.file != previous.file { header |= 0x10 }
            if row.column != previous.column { header |= 0x20 }
            bytes.byte(header)
            if units >= 15 { bytes.unsigned(units) }
            if row.file != previous.file { bytes.unsigned(UInt64(row.file)) }
            if row.column != previous.column { bytes.unsigned(UInt64(row.column)) }
            if lineMode == 2 { bytes.byte(UInt8(bitPattern: Int8(lineDelta))) }
            if lineMode == 3 { bytes.signed(lineDelta) }
            previous = row
        }
        return bytes.count <= Int(UInt32.max)
    }

    /// Decodes the rows of the block from `position` to `end` of `base`, whose first row is at
    /// `offset`, and hands each to `body` with its offset until `body` returns false. False
    /// when the bytes are not a block's (a damaged index).
    @inline(__always)
    static func decode(_ base: UnsafePointer<UInt8>, from position: Int, to end: Int, offset: UInt32,
                       _ body: (UInt64, LineRow) -> Bool) -> Bool {
        var cursor = LEB128Cursor(base, position: position, end: end)
        let shift = UInt64(cursor.byte() & 3)
        var row = LineRow(file: 0, line: 0, column: 0), at = UInt64(offset)
        while !cursor.atEnd {
            let header = cursor.byte()
            let units = header & 15
            at &+= (units == 15 ? cursor.unsigned() : UInt64(units)) << shift
            if header & 0x10 != 0 { row.file = UInt32(truncatingIfNeeded: cursor.unsigned()) }
            if header & 0x20 != 0 { row.column = UInt32(truncatingIfNeeded: cursor.unsigned()) }
            switch header >> 6 {
            case 0: break
            case 1: row.line &+= 1
            case 2: row.line = UInt32(truncatingIfNeeded: Int64(row.line) &+ Int64(Int8(bitPattern: cursor.byte())))
            default: row.line = UInt32(truncatingIfNeeded: Int64(row.line) &+ cursor.signed())
            }
            if cursor.failed { return false }
            if !body(at, row) { return true }
        }
        return !cursor.failed
    }
}

extension SymbolIndex.Tables {
    /// The row of `address` in `sequence` (which holds it): the last at or below it.
    func lineRow(inSequence sequence: SortedRange, at address: UInt64) -> LineRow? {
        let blocks = lineBlocks
        let first = max(Int(sequence.first), 0), end = max(first, min(Int(sequence.end), blocks.count))
        let target = address &- sequence.low
        var low = first, high = end
        while low < high {
            let mid = (low &+ high) >> 1
            if UInt64(blocks[mid].offset) <= target { low = mid + 1 } else { high = mid }
        }
        guard low > first, let base = lineBytes.buffer.baseAddress else { return nil }
        let block = blocks[low - 1]
        let start = Int(block.position), stop = min(low < blocks.count ? Int(blocks[low].position) : lineBytes.count,
                                                    lineBytes.count)
        guard start <= stop else { return nil }
        lineBytes.verify(start..<stop)
        var found: LineRow?
        _ = LineRows.decode(base, from: start, to: stop, offset: block.offset) { at, row in
            guard at <= target else { return false }
            found = row
            return true
        }
        return found
    }

    /// Whether every block of every sequence decodes, its rows' offsets rising inside the
    /// sequence and their files in the file table (a freshly built index's check).
    var lineRowsAreWellFormed: Bool {
        guard let base = lineBytes.buffer.baseAddress else { return sequences.isEmpty && lineBlocks.isEmpty }
        for s in sequences {
            guard s.first >= 0, s.first <= s.end, Int(s.end) <= lineBlocks.count else { return false }
            var previous: UInt64?
            for b in Int(s.first)..<Int(s.end) {
                let block = lineBlocks[b]
                let stop = b + 1 < lineBlocks.count ? Int(lineBlocks[b + 1].position) : lineBytes.count
                guard Int(block.position) <= stop, stop <= lineBytes.count else { return false }
                var rows = 0, good = true
                let decoded = LineRows.decode(base, from: Int(block.position), to: stop, offset: block.offset) { at, row in
                    rows += 1
                    good = good && (previous.map { at > $0 } ?? true) && at < s.high &- s.low && Int(row.file) < files.count
                    previous = at
                    return good
                }
                guard decoded, good, rows > 0, rows <= LineRows.rowsPerBlock else { return false }
            }
        }
        return true
    }
}
