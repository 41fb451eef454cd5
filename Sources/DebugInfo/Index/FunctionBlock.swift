/// One out-of-line function of a ``SymbolIndex`` with the calls inlined into it, encoded in
/// the function bytes: a lookup decodes the header, searches the segments and reads the few
/// inlined calls of its answer, jumping to each by its position.
///
///     LEB128  name                       (offset in the strings)
///     LEB128  lowest                     (the lowest address of the function's ranges)
///     LEB128  range count, then per range: LEB128 low − lowest, LEB128 high − low  (as listed)
///     LEB128  segment count S
///     word    for every ``segmentsPerGroup``th segment after the first: its start − lowest,
///     word      and its position in the segment bytes (⌊(S − 1) / 16⌋ pairs)
///     LEB128  length of the segment bytes
///             segments (``InlineSegment``), starts rising: LEB128 start − the start before
///             (the first of a group: − the group's start; of the first group: − lowest),
///             LEB128 call + 1 (the inlined call's position in the call bytes; 0: none)
///             calls inlined into the function, in DIE order, each:
///     LEB128    position of the call − its parent's (0: the parent is the function)
///     LEB128    name, call file (index in the file table), call line, call column
///     LEB128    range count, then per range: signed LEB128 low − lowest, LEB128 high − low
///
/// The blocks of an 88 MB dSYM's 44,571 functions take 5.3 MB, where their fixed-size records,
/// ranges and segments took 29 MB.
struct FunctionBlock {
    static let segmentsPerGroup = 16

    private let base: UnsafePointer<UInt8>
    private let end: Int
    /// The function's name (offset in the strings).
    let name: UInt32
    /// The lowest address of the function's ranges: what every address in the block is
    /// stored relative to.
    let lowest: UInt64
    private let rangesPosition: Int
    private let rangeCount: Int
    let segmentCount: Int
    private let groupsPosition: Int
    /// Where the segments and the calls start in the bytes.
    let segmentsPosition: Int
    let callsPosition: Int

    /// The header of the block at `bytes[start..<end]` (its bytes checked against their
    /// checksums); nil when it is not a block's (a damaged index).
    init?(_ bytes: FlatArray<UInt8>, start: Int, end: Int) {
        guard start >= 0, start < end, end <= bytes.count, let base = bytes.buffer.baseAddress else { return nil }
        bytes.verify(start..<end)
        var c = LEB128Cursor(base, position: start, end: end)
        name = UInt32(truncatingIfNeeded: c.unsigned())
        lowest = c.unsigned()
        let ranges = c.unsigned()
        guard ranges <= UInt64(c.remaining / 2) else { return nil }
        rangeCount = Int(ranges)
        rangesPosition = c.position
        for _ in 0..<(2 * rangeCount) { _ = c.unsigned() }
        let segments = c.unsigned()
        guard segments <= UInt64(c.remaining / 2) else { return nil }
        segmentCount = Int(segments)
        groupsPosition = c.position
        let groups = segmentCount > 0 ? (segmentCount - 1) / FunctionBlock.segmentsPerGroup : 0
        c.move(to: c.position + 8 * groups, notBefore: start)
        let length = c.unsigned()
        guard !c.failed, length <= UInt64(c.remaining) else { return nil }
        segmentsPosition = c.position
        callsPosition = segmentsPosition + Int(length)
        self.base = base
        self.end = end
    }

    /// The position of the deepest inlined call holding `address` (in the call bytes), or
    /// nil when it is in no inlined call: the segment starting last at or below it says.
    ///
    /// The deepest call decides, even when a call between it and the function does not hold
    /// the address itself: strict DWARF 2 has no range lists, so an inlined call whose code is
    /// split records only its first piece, while the calls nested in it still say where they
    /// were inlined (llvm-symbolizer reads it the same way).
    func deepestCall(at address: UInt64) -> Int? {
        guard segmentCount > 0, address >= lowest else { return nil }
        let target = address - lowest
        // The group: the last whose first segment starts at or below the address.
        var low = 0, high = (segmentCount - 1) / FunctionBlock.segmentsPerGroup
        while low < high {
            let mid = (low &+ high &+ 1) >> 1
            if UInt64(word(groupsPosition + 8 * (mid - 1))) <= target { low = mid } else { high = mid - 1 }
        }
        var start: UInt64 = low == 0 ? 0 : UInt64(word(groupsPosition + 8 * (low - 1)))
        let from = low == 0 ? 0 : Int(word(groupsPosition + 8 * (low - 1) + 4))
        var c = LEB128Cursor(base, position: segmentsPosition + from, end: callsPosition)
        var found: UInt64 = 0
        for _ in 0..<min(FunctionBlock.segmentsPerGroup, segmentCount - low * FunctionBlock.segmentsPerGroup) {
            start &+= c.unsigned()
            let call = c.unsigned()
            guard !c.failed, start <= target else { break }
            found = call
        }
        guard found > 0, found - 1 < UInt64(end - callsPosition) else { return nil }
        return Int(found - 1)
    }

    /// Field `field` (0: start, 1: position) of the group of segments after the first.
    func groupWord(_ group: Int, _ field: Int) -> UInt32 { word(groupsPosition + 8 * group + 4 * field) }

    private func word(_ position: Int) -> UInt32 {
        guard position >= groupsPosition, position + 4 <= segmentsPosition else { return 0 }
        return UInt32(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt32.self))
    }

    /// An inlined call of the block.
    struct Call {
        /// The position of the call it is inlined into, nil for the function itself.
        var parent: Int?
        var name: UInt32
        /// Index in the file table.
        var callFile: UInt32
        var callLine: UInt32
        var callColumn: UInt32
        /// Where its first listed range starts, or, when the address lies below that, the
        /// start of its range holding the address (nil when none does).
        var start: UInt64?
    }

    /// The inlined call at `position` of the call bytes, its start as seen from `address`;
    /// nil when the bytes there are not a call's (a damaged index).
    func call(at position: Int, address: UInt64) -> Call? {
        guard position >= 0, position < end - callsPosition else { return nil }
        var c = LEB128Cursor(base, position: callsPosition + position, end: end)
        let up = c.unsigned()
        guard up <= UInt64(position) else { return nil }
        var call = Call(parent: up == 0 ? nil : position - Int(up), name: UInt32(truncatingIfNeeded: c.unsigned()),
                        callFile: UInt32(truncatingIfNeeded: c.unsigned()), callLine: UInt32(truncatingIfNeeded: c.unsigned()),
                        callColumn: UInt32(truncatingIfNeeded: c.unsigned()), start: nil)
        call.start = FunctionBlock.start(&c, lowest: lowest, signed: true, address: address)
        return c.failed ? nil : call
    }

    /// The function's own start as seen from `address` (see ``Call/start``).
    func start(address: UInt64) -> UInt64? {
        var c = LEB128Cursor(base, position: rangesPosition, end: end)
        return FunctionBlock.start(&c, lowest: lowest, signed: false, address: address, count: rangeCount)
    }

    /// Reads a range count (unless given) and the ranges after it: the first range's start,
    /// or, when `address` lies below it, the start of the range holding `address`.
    private static func start(_ c: inout LEB128Cursor, lowest: UInt64, signed: Bool, address: UInt64,
                              count given: Int? = nil) -> UInt64? {
        let count = given.map(UInt64.init) ?? c.unsigned()
        guard count > 0, count <= UInt64(c.remaining / 2) else { return nil }
        var first: UInt64?
        for _ in 0..<Int(count) {
            let low = signed ? lowest &+ UInt64(bitPattern: c.signed()) : lowest &+ c.unsigned()
            let high = low &+ c.unsigned()
            guard !c.failed else { return nil }
            if first == nil {
                first = low
                if low <= address { return low }
            }
            if low <= address && address < high { return low }
        }
        return nil
    }
}
