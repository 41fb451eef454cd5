#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// Writes a symbol server's file as the debug file it holds: as it comes, or inflated when
/// it is zstd-compressed (it starts with the zstd magic number, as `symsorter -z` writes
/// them). Which one is told by the first four bytes; the bytes are given in pieces of any
/// size, as a download receives them.
final class ServerFileWriter {
    /// Why the file could not be written as a debug file.
    enum Failure: Error, Equatable {
        /// It is zstd-compressed and cannot be inflated (``ZstdInflater/Problem``).
        case notInflated(ZstdInflater.Problem)
        /// It could not be read (a local file) or stored: the reason.
        case io(String)
    }

    private let output: (UnsafeRawBufferPointer) -> Bool
    private let limit: Int
    /// The first bytes, kept until there are enough to tell whether the file is compressed.
    private var head: [UInt8] = []
    /// Set once the head is known, nil for a file written as it comes.
    private var inflater: ZstdInflater?
    private var decided = false

    /// A writer giving the debug file's bytes to `write` (which returns false once a write
    /// fails). A compressed file may inflate to `limit` bytes at most.
    init(limit: Int, write: @escaping (UnsafeRawBufferPointer) -> Bool) {
        self.limit = limit
        output = write
    }

    /// Whether the file is zstd-compressed (false until its first four bytes were given).
    var isCompressed: Bool { inflater != nil }

    /// Why the bytes could not be inflated, once ``write(_:)`` or ``finish()`` returned false
    /// for that reason (nil when the write to the destination failed).
    var problem: ZstdInflater.Problem? { inflater?.problem }

    /// Writes the next bytes of the file; false when they cannot be inflated (``problem``)
    /// or the write failed.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if decided { return pass(bytes) }
        head += bytes
        guard head.count >= ZstdInflater.magic.count else { return true }
        return decide()
    }

    /// Ends the file: writes what the head kept back of a short file, and says whether a
    /// compressed one ended with its last frame (else ``problem`` says why).
    func finish() -> Bool {
        if !decided, !decide() { return false }
        return inflater?.finish() ?? true
    }

    private func decide() -> Bool {
        decided = true
        if ZstdInflater.isCompressed(head) { inflater = ZstdInflater(limit: limit) }
        let kept = head
        head = []
        return kept.withUnsafeBytes { pass($0) }
    }

    private func pass(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let inflater else { return bytes.isEmpty || output(bytes) }
        return inflater.write(bytes, to: output)
    }

    /// Inflates the zstd-compressed file at `path` into `target`, atomically (see
    /// ``AtomicFile``): `target` is whole or not there, never half written. At most `limit`
    /// bytes are written.
    static func inflate(_ path: String, to target: String, limit: Int) -> Failure? {
        let fd = FileName.withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return .io("\(path): \(SystemError.reason(errno))") }
        defer { close(fd) }
        var failure: Failure?
        do {
            try AtomicFile.write(to: target) { out in withoutActuallyEscaping(out) { out in
                let writer = ServerFileWriter(limit: limit, write: out)
                let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
                defer { chunk.deallocate() }
                while true {
                    let count = read(fd, chunk.baseAddress, chunk.count)
                    if count < 0, errno == EINTR { continue }
                    guard count >= 0 else {
                        failure = .io("\(path): \(SystemError.reason(errno))")
                        return false
                    }
                    let piece = UnsafeRawBufferPointer(rebasing: chunk[0..<count])
                    if count == 0 ? !writer.finish() : !writer.write(piece) {
                        failure = writer.problem.map { .notInflated($0) }
                        return false
                    }
                    if count == 0 { return true }
                }
            } }
        } catch {
            return failure ?? .io("\(error)")
        }
        return nil
    }
}
