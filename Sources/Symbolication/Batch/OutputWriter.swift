#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// Buffered output to a file descriptor, written in large chunks.
///
/// When the reader goes away (`symbolicate ... | head`, EPIPE: the program ignores SIGPIPE, in
/// `Entry.main`, so that a closed pipe is an error of the write), writing stops quietly:
/// `closed` becomes true and later writes are dropped, so the run can end without an error
/// message. Any other write error (a full disk, an I/O error, a descriptor that is not open
/// for writing) stops writing too, and is kept in `failure` for the run to report and fail on.
public final class OutputWriter {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private let capacity: Int
    /// What the output is called in messages: "standard output" or a path.
    public let name: String
    /// True once writing has stopped: the reader closed its end, or a write failed.
    public private(set) var closed = false
    /// The reason a write failed, other than a closed pipe; nil while all is well.
    public private(set) var failure: String?

    /// Writes to `fd` (standard output by default), called `name` in messages, in chunks of
    /// `capacity` bytes.
    public init(fd: Int32 = STDOUT_FILENO, name: String = "standard output", capacity: Int = 1 << 16) {
        self.fd = fd
        self.name = name
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
    }

    deinit { flush() }

    /// Appends `bytes`, writing out when the buffer is full.
    public func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { write($0) }
    }

    /// Appends `bytes`, writing out when the buffer is full.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        write(bytes.bindMemory(to: UInt8.self))
    }

    /// Appends `bytes`, writing out when the buffer is full.
    public func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !closed else { return }
        guard bytes.count < capacity else {
            // A large block (a whole report) goes out as it is: no copy the size of a report.
            flush()
            guard !closed else { return }
            if !System.writeAll(fd, UnsafeRawBufferPointer(bytes)) { stop() }
            return
        }
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { flush() }
    }

    /// Writes the `spans` of `text`, in their order: what ``write(_:)-(UnsafeBufferPointer<UInt8>)``
    /// of each in turn writes, but with no copy of the spans (a batch of `atos` answers, made
    /// in address order and written in the order they were asked, can be tens of megabytes).
    /// What is buffered goes out first.
    public func write(spans: [Range<Int>], of text: UnsafeBufferPointer<UInt8>) {
        guard !closed, let base = text.baseAddress else { return }
        flush()
        let room = 1024
        withUnsafeTemporaryAllocation(of: iovec.self, capacity: room) { pieces in
            var count = 0, lastEnd = -1
            func send() {
                if !closed, count > 0, !System.writeAll(fd, gathering: pieces.baseAddress!, count: count) { stop() }
                count = 0
            }
            for span in spans where !span.isEmpty {
                precondition(span.lowerBound >= 0 && span.upperBound <= text.count, "span out of the text")
                if count > 0 && span.lowerBound == lastEnd {
                    pieces[count - 1].iov_len += span.count  // side by side: one piece
                } else {
                    if count == room { send() }
                    pieces[count] = iovec(iov_base: UnsafeMutableRawPointer(mutating: base + span.lowerBound),
                                          iov_len: span.count)
                    count += 1
                }
                lastEnd = span.upperBound
            }
            send()
        }
    }

    /// Appends `text` as UTF-8 (no copy of it is made first).
    public func write(_ text: String) {
        var text = text
        text.withUTF8 { write($0) }
    }

    /// Writes out what is buffered.
    public func flush() {
        guard !closed, !buffer.isEmpty else { return }
        if !buffer.withUnsafeBytes({ System.writeAll(fd, $0) }) { stop() }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Stops writing after a failed write: quietly for a closed pipe, keeping the reason
    /// otherwise.
    private func stop() {
        closed = true
        if errno != EPIPE { failure = String(cString: strerror(errno)) }
    }

    /// Flushes, and says whether everything reached the output: false (the reason said
    /// through `diagnostics`, naming the output) when a write failed other than on a closed pipe.
    public func finish(diagnostics: Diagnostics) -> Bool {
        flush()
        guard let failure else { return true }
        diagnostics.warn("\(name): cannot write: \(failure)")
        return false
    }
}
