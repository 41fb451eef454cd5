#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension System {
    /// The size of a page of memory.
    public static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Gives the whole pages inside `bytes` back to the system (`madvise(MADV_DONTNEED)`), so
    /// that they no longer count towards the process's memory. The pages read as zeros
    /// afterwards: only for bytes that nothing will read again, in a buffer the caller owns.
    /// The bytes of partial pages at either end are kept.
    public static func releasePages(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count >= pageSize else { return }
        let start = (UInt(bitPattern: base) + UInt(pageSize) - 1) & ~UInt(pageSize - 1)
        let end = (UInt(bitPattern: base) + UInt(bytes.count)) & ~UInt(pageSize - 1)
        guard end > start, let pointer = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(pointer, Int(end - start), Int32(MADV_DONTNEED))
    }
}
