import CFaultGuard
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The checks of a mapped index file's tables: the file's data, from the end of its header
/// on, is cut in blocks of ``size`` bytes, each with a checksum in the header (see
/// ``IndexCacheFormat``). A block is hashed the first time a lookup reads in it, and marked
/// in a bitmap shared by all threads, so that later reads cost one bit test; a block whose
/// checksum does not match marks the whole file damaged, and so does a page of it that
/// vanished under a read (`CFaultGuard`: the file was cut short by someone else).
///
/// What a lookup reads from a damaged file is bounded garbage (every lookup checks the
/// indexes it reads): ``SymbolIndex`` asks ``isDamaged`` after each lookup and answers from
/// the debug file instead, so a damaged block never changes an answer.
///
/// Owns the arrays' memory for them: each ``FlatArray`` of a mapped index holds this object,
/// which holds the mapping.
final class IndexBlocks: @unchecked Sendable {
    /// Bytes per block.
    static let size = 64 * 1024
    static let shift = 16

    private let mapping: IndexMapping
    private let dataStart: UnsafeRawPointer
    private let dataSize: Int
    /// One 64-bit checksum per block, in the mapped header (itself checked when the file was opened).
    private let checksums: UnsafeRawPointer
    private let count: Int
    /// One byte per block, 1 once checked: a byte, not a bit, so that the test is one load.
    private let verified: UnsafeMutablePointer<UInt8>
    private let failed: UnsafeMutablePointer<Int32>
    /// The guard's flag for the mapping: set when a page vanished under a read.
    private let cutShort: UnsafePointer<Int32>

    /// The blocks of `mapping` from byte `dataOffset` to its end, with `count` checksums at
    /// byte `checksumsOffset`.
    init(mapping: IndexMapping, dataOffset: Int, checksumsOffset: Int, count: Int) {
        self.mapping = mapping
        dataStart = mapping.bytes.baseAddress! + dataOffset
        dataSize = mapping.bytes.count - dataOffset
        checksums = mapping.bytes.baseAddress! + checksumsOffset
        self.count = count
        verified = .allocate(capacity: max(count, 1))
        verified.initialize(repeating: 0, count: max(count, 1))
        failed = .allocate(capacity: 1)
        failed.initialize(to: 0)
        cutShort = mapping.damagedFlag
    }

    deinit {
        verified.deallocate()
        failed.deallocate()
    }

    /// Whether a block read so far did not match its checksum, or the file was cut short under
    /// a read: what was read from it may be wrong.
    @inline(__always)
    var isDamaged: Bool { cfg_load_flag(failed) | cfg_load_flag(cutShort) != 0 }

    /// Checks the blocks holding `[start, start + length)` (bytes of the mapped data) unless
    /// they were checked before.
    @inline(__always)
    func verify(_ start: UnsafeRawPointer, _ length: Int) {
        let offset = start - dataStart
        let block = offset >> IndexBlocks.shift
        // An element outside the data (an index a lookup has not checked yet) is not read.
        if UInt(bitPattern: block) < UInt(bitPattern: count), cfg_load_byte(verified, block) == 0 { verifyBlock(block) }
        if (offset & (IndexBlocks.size - 1)) + length > IndexBlocks.size { verifyAll(start, length) }
    }

    /// Checks every block of `[start, start + length)`.
    func verifyAll(_ start: UnsafeRawPointer, _ length: Int) {
        guard length > 0 else { return }
        let first = max(0, (start - dataStart) >> IndexBlocks.shift)
        let last = min(count - 1, (start - dataStart + length - 1) >> IndexBlocks.shift)
        guard first <= last else { return }
        for block in first...last where cfg_load_byte(verified, block) == 0 { verifyBlock(block) }
    }

    @inline(never)
    private func verifyBlock(_ block: Int) {
        guard cfg_load_flag(failed) == 0 else { return }
        let start = block << IndexBlocks.shift
        let bytes = UnsafeRawBufferPointer(start: dataStart + start, count: min(IndexBlocks.size, dataSize - start))
        if IndexChecksum.hash(bytes) == checksums.loadUnaligned(fromByteOffset: block * 8, as: UInt64.self) {
            cfg_store_byte(verified, block, 1)
        } else {
            cfg_store_flag(failed, 1)
        }
    }
}
