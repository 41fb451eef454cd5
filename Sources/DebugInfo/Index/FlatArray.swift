#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// A read-only array of plain values (integers, bytes) that lives in one contiguous block:
/// either memory it owns, or a part of a mapped file (``IndexCache``).
///
/// ``SymbolIndex`` and ``SymbolTable`` keep every table in one of these, so the lookup code
/// reads an index built from DWARF a moment ago and one mapped from the cache the same way,
/// and a mapped index is used where it lies: no element is decoded or copied when it is
/// loaded, and a lookup faults in only the pages it reads.
///
///     FlatArray([3, 5, 8] as [UInt64])            owns a copy of the three values
///     FlatArray(start: base + 4096, count: 3,     three values inside a mapped file,
///               owner: mappedFile)                kept mapped while the array lives
///
/// Elements are read without a bounds check in optimized builds, as with
/// `UnsafeBufferPointer`: the lookups of ``SymbolIndex`` and ``SymbolTable`` check every
/// index they read from one table before using it in another.
struct FlatArray<Element: BitwiseCopyable>: RandomAccessCollection, @unchecked Sendable {
    /// The elements.
    let buffer: UnsafeBufferPointer<Element>
    /// What keeps `buffer` valid: an ``OwnedBlock``, the mapping of a file, or the
    /// ``IndexBlocks`` of a mapped index.
    private let owner: AnyObject?
    /// For an array in a mapped index: checks each block the first time it is read. Kept
    /// alive by `owner`, and used without a retain: an element read is the hot path of every
    /// lookup, and a retain and release per read on the one object all threads share costs a
    /// quarter of a warm run and keeps two threads from being faster than one.
    private let blocks: Unmanaged<IndexBlocks>?

    /// A copy of `elements`, in memory of its own.
    init(_ elements: [Element]) {
        guard !elements.isEmpty else {
            self.init()
            return
        }
        let block = OwnedBlock(byteCount: elements.count * MemoryLayout<Element>.stride,
                               alignment: MemoryLayout<Element>.alignment)
        elements.withUnsafeBytes { block.base.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        self.init(start: block.base, count: elements.count, owner: block)
    }

    /// `count` elements, the `i`th being `element(i)`, in memory of its own.
    init(count: Int, _ element: (Int) throws -> Element) rethrows {
        guard count > 0 else {
            self.init()
            return
        }
        let block = OwnedBlock(byteCount: count * MemoryLayout<Element>.stride, alignment: MemoryLayout<Element>.alignment)
        let typed = block.base.bindMemory(to: Element.self, capacity: count)
        for i in 0..<count { (typed + i).initialize(to: try element(i)) }
        self.init(start: block.base, count: count, owner: block)
    }

    /// `count` elements at `base`, which `owner` keeps valid (and unchanged) while it lives.
    init(start base: UnsafeRawPointer, count: Int, owner: AnyObject) {
        buffer = UnsafeBufferPointer(start: base.bindMemory(to: Element.self, capacity: count), count: count)
        self.owner = owner
        blocks = nil
    }

    /// `count` elements at `base`, inside the mapped index that `blocks` checks and keeps.
    init(start base: UnsafeRawPointer, count: Int, blocks: IndexBlocks) {
        buffer = UnsafeBufferPointer(start: base.bindMemory(to: Element.self, capacity: count), count: count)
        owner = blocks
        self.blocks = Unmanaged.passUnretained(blocks)
    }

    /// No elements.
    init() {
        buffer = UnsafeBufferPointer(start: nil, count: 0)
        owner = nil
        blocks = nil
    }

    var startIndex: Int { 0 }
    var endIndex: Int { buffer.count }

    @inline(__always)
    subscript(position: Int) -> Element {
        if let blocks, let base = buffer.baseAddress {
            blocks._withUnsafeGuaranteedRef { $0.verify(UnsafeRawPointer(base + position), MemoryLayout<Element>.size) }
        }
        return buffer[position]
    }

    /// Checks elements `range` of an array in a mapped index (``IndexBlocks``), for code that
    /// reads them through `buffer`; nothing for an array in memory.
    func verify(_ range: Range<Int>) {
        guard let blocks, let base = buffer.baseAddress, !range.isEmpty else { return }
        blocks._withUnsafeGuaranteedRef {
            $0.verifyAll(UnsafeRawPointer(base + range.lowerBound), range.count * MemoryLayout<Element>.stride)
        }
    }

    /// The elements' bytes, as they are stored.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(buffer) }

    /// The memory of this array, taken over for an array of `T`: `fill` reads the old
    /// elements through the raw bytes it is given and writes the new ones over them (never
    /// ahead of what it has still to read), and returns how many it wrote. Whole pages past
    /// them are given back. For converting a table of millions of rows into a smaller one
    /// without holding both; this must be the last array reading the memory, which must be
    /// its own (an ``OwnedBlock``).
    consuming func reusingMemory<T: BitwiseCopyable>(as _: T.Type, _ fill: (UnsafeMutableRawBufferPointer) -> Int)
        -> FlatArray<T> {
        guard let owner = owner as? OwnedBlock, let start = buffer.baseAddress else { return FlatArray<T>() }
        let base = UnsafeMutableRawPointer(mutating: start)
        precondition(Int(bitPattern: base) % MemoryLayout<T>.alignment == 0)
        let bytes = buffer.count * MemoryLayout<Element>.stride
        let count = fill(UnsafeMutableRawBufferPointer(start: base, count: bytes))
        precondition(count >= 0 && count * MemoryLayout<T>.stride <= bytes)
        let used = count * MemoryLayout<T>.stride
        System.releasePages(UnsafeRawBufferPointer(start: base + used, count: bytes - used))
        return count > 0 ? FlatArray<T>(start: base, count: count, owner: owner) : FlatArray<T>()
    }
}

extension FlatArray where Element == UInt8 {
    /// The NUL-terminated string at `offset` of a string table that ends in a NUL (checked
    /// when the table is made or mapped); nil for 0, which stands for none, and for an offset
    /// outside the table.
    func cString(at offset: UInt32) -> String? {
        guard let start = verifiedCString(at: offset) else { return nil }
        return String(cString: start)
    }

    /// Where the NUL-terminated string at `offset` starts, its bytes checked (``verify(_:)``);
    /// nil for 0 and for an offset outside the table.
    func verifiedCString(at offset: UInt32) -> UnsafePointer<UInt8>? {
        guard offset != 0, Int(offset) < count, let base = buffer.baseAddress else { return nil }
        let start = base + Int(offset)
        verify(Int(offset)..<(Int(offset) + strnlen(UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self), count - Int(offset)) + 1))
        return start
    }
}

/// Memory for a ``FlatArray`` of `count` elements, written by index (in any order, any number
/// of times) and then taken as the array: building a table this way copies nothing. Every
/// element must be written before the array is taken (the memory starts uninitialized: not
/// clearing it first saves a pass over tables of millions of rows).
struct FlatArrayWriter<Element: BitwiseCopyable> {
    private let block: OwnedBlock?
    private let base: UnsafeMutablePointer<Element>?
    let count: Int

    init(count: Int) {
        self.count = count
        guard count > 0 else {
            block = nil
            base = nil
            return
        }
        let block = OwnedBlock(byteCount: count * MemoryLayout<Element>.stride, alignment: MemoryLayout<Element>.alignment)
        self.block = block
        base = block.base.bindMemory(to: Element.self, capacity: count)
    }

    @inline(__always)
    subscript(position: Int) -> Element {
        get {
            precondition(position >= 0 && position < count)
            return base![position]  // written before it is read
        }
        nonmutating set {
            precondition(position >= 0 && position < count)
            base![position] = newValue
        }
    }

    /// Where the elements go, for a C function that fills them all.
    var baseAddress: UnsafeMutablePointer<Element>? { base }

    /// The elements written; the writer must not be written to afterwards.
    var array: FlatArray<Element> { array(first: count) }

    /// The first `count` elements, when fewer were needed than room was made for (the pages
    /// of the rest, never written, are never given memory).
    func array(first count: Int) -> FlatArray<Element> {
        precondition(count >= 0 && count <= self.count)
        guard let block, let base, count > 0 else { return FlatArray() }
        return FlatArray(start: UnsafeRawPointer(base), count: count, owner: block)
    }

    /// The first `count` elements, the whole pages past them given back when
    /// `releasingTheRest` (for room that was written to and is no longer needed).
    func array(first count: Int, releasingTheRest: Bool) -> FlatArray<Element> {
        if releasingTheRest, let base {
            System.releasePages(UnsafeRawBufferPointer(start: base + count, count: (self.count - count) * MemoryLayout<Element>.stride))
        }
        return array(first: count)
    }

    /// Moves the elements of `range` (written) to start at `destination`, which may overlap it.
    func moveElements(_ range: Range<Int>, to destination: Int) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count && destination >= 0
                     && destination + range.count <= count)
        guard let base, !range.isEmpty else { return }
        memmove(base + destination, base + range.lowerBound, range.count * MemoryLayout<Element>.stride)
    }
}

/// Memory allocated for one ``FlatArray``, freed with the last array that shares it.
///
/// On Linux, blocks of 4 MiB and more are aligned to 2 MiB and offered transparent huge
/// pages: a table of millions of line rows, written once, otherwise takes a page fault every
/// 4 KiB (a third of the time spent converting the rows of a large debug file).
final class OwnedBlock: @unchecked Sendable {
    let base: UnsafeMutableRawPointer

    init(byteCount: Int, alignment: Int) {
        let huge = byteCount >= 4 << 20
        var memory: UnsafeMutableRawPointer?
        guard posix_memalign(&memory, huge ? 2 << 20 : max(alignment, MemoryLayout<Int>.size), max(byteCount, 1)) == 0,
              let memory
        else { fatalError("out of memory: \(byteCount) bytes") }
        #if os(Linux)
        if huge { _ = madvise(memory, byteCount, MADV_HUGEPAGE) }
        #endif
        base = memory
    }

    deinit { free(base) }
}
