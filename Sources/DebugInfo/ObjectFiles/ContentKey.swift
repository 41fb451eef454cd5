#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// What identifies a debug file's contents on any machine, read without reading it whole: the
/// key of an index that other machines may use (``IndexCache``, shared caches).
///
/// The usual key of a stored index — the debug file's size, mtime, inode and device — holds
/// on one machine only: a copy of the file elsewhere, or the same file seen through NFS from
/// another machine, has another inode, device or mtime. The content key is the file's size
/// and a hash of bytes sampled from the slice:
///
///     slice:  [ first 64 KiB | 16 blocks of 4 KiB, evenly spread ... | last 64 KiB ]
///     key:    file size, IndexChecksum of the sampled bytes
///
/// With the UUID or build-id, architecture and slice that the index header also records, a
/// file with the same key is taken to be the same file: the headers (load commands, section
/// headers, which sit at the start and the end) and a spread of the contents agree. Two files
/// of one UUID that differ only between the samples (the same build made into a dSYM twice,
/// differently, to the byte the same size) would share an index; the local key (which any
/// rewrite changes) is always tried first, so only an index from another machine is taken on
/// the samples' word.
struct ContentKey: Equatable, Sendable {
    /// The file's size.
    var size: UInt64
    /// The hash of the sampled bytes.
    var hash: UInt64

    static let edge = 64 * 1024
    static let blockSize = 4 * 1024
    static let blocks = 16

    /// The key of `file` (its slice) as it is now; nil when it cannot be read.
    init?(_ file: DebugFile) {
        let fd = FileName.withCString(file.path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, file.sliceOffset >= 0, file.sliceSize >= 0,
              Int(info.st_size) >= file.sliceOffset + file.sliceSize
        else { return nil }
        let start = file.sliceOffset, size = file.sliceSize
        var places: [(offset: Int, count: Int)] = [(start, min(size, ContentKey.edge))]
        if size > 2 * ContentKey.edge {
            let middle = size - 2 * ContentKey.edge
            for i in 0..<ContentKey.blocks {
                let offset = start + ContentKey.edge + middle / ContentKey.blocks * i
                places.append((offset, min(ContentKey.blockSize, start + size - ContentKey.edge - offset)))
            }
        }
        if size > ContentKey.edge { places.append((start + size - min(size - ContentKey.edge, ContentKey.edge), min(size - ContentKey.edge, ContentKey.edge))) }
        var sample = [UInt8](repeating: 0, count: places.reduce(0) { $0 + $1.count })
        var at = 0
        for place in places {
            var done = 0
            while done < place.count {
                let n = sample.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + at + done, place.count - done, off_t(place.offset + done)) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return nil }
                done += n
            }
            at += place.count
        }
        self.size = UInt64(info.st_size)
        self.hash = sample.withUnsafeBytes { IndexChecksum.hash($0) }
    }

    init(size: UInt64, hash: UInt64) {
        self.size = size
        self.hash = hash
    }

    /// The key in the stamp fields of an index header: size, 0, hash, 0.
    var stamp: DebugFileStamp { DebugFileStamp(size: size, modified: 0, inode: hash, device: 0) }
}
