#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// Buffered output to a file descriptor, written in large chunks.
///
/// When the reader goes away (`symbolicate ... | head`), writing stops quietly: `closed`
/// becomes true and later writes are dropped, so the run can end without an error message.
public final class OutputWriter {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private let capacity: Int
    /// True once the reader has closed its end of the pipe.
    public private(set) var closed = false

    /// Writes to `fd` (standard output by default) in chunks of `capacity` bytes.
    public init(fd: Int32 = STDOUT_FILENO, capacity: Int = 1 << 16) {
        self.fd = fd
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
        signal(SIGPIPE, SIG_IGN)
    }

    deinit { flush() }

    /// Appends `bytes`, writing out when the buffer is full.
    public func write(_ bytes: [UInt8]) {
        guard !closed else { return }
        if bytes.count >= capacity {
            // A whole report's output goes out as it is, not copied into the buffer first.
            flush()
            if !closed, !bytes.withUnsafeBytes({ System.writeAll(fd, $0) }) { closed = true }
            return
        }
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { flush() }
    }

    /// Appends `text` as UTF-8.
    public func write(_ text: String) { write(Array(text.utf8)) }

    /// Writes out what is buffered.
    public func flush() {
        guard !closed, !buffer.isEmpty else { return }
        if !buffer.withUnsafeBytes({ System.writeAll(fd, $0) }) { closed = true }
        buffer.removeAll(keepingCapacity: true)
    }
}
