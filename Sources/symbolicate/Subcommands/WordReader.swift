#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The words of a stream separated by white space, read in chunks: memory stays bounded
/// whatever the stream holds (`/dev/zero` has no line end; `readLine()` would take it whole).
final class WordReader {
    /// What the stream holds next.
    enum Item: Equatable {
        /// A word.
        case word(String)
        /// A word longer than ``maximumLength``, by its first bytes; the rest is skipped.
        case tooLong(String)
        /// The end of a line: answers so far can be flushed.
        case endOfLine
    }

    /// Longer than any address (`0x` and 16 digits) by far.
    static let maximumLength = 64

    private let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0, end = 0
    private var word: [UInt8] = []
    private var overlong = false
    private var atEnd = false
    /// The `errno` of a failed read; reading stops there.
    private(set) var error: Int32?

    init(fd: Int32) { self.fd = fd }

    /// Whether the next ``next()`` may have to wait for the writer: nothing read is left to
    /// hand out and the stream has nothing ready now (a regular file always has; a pipe has
    /// when its writer has written more, or has gone).
    var mayWait: Bool {
        guard start == end, !atEnd else { return false }
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let n = poll(&ready, 1, 0)
            if n < 0 && errno == EINTR { continue }
            return n <= 0
        }
    }

    /// The next item, or nil at the end of the stream.
    func next() -> Item? {
        while true {
            if start == end {
                if atEnd { return finishWord() }
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 {
                    if n < 0 { error = errno }
                    atEnd = true
                    continue
                }
                (start, end) = (0, n)
            }
            // The word's bytes up to the next blank or line end, a run at a time.
            let (stop, separator) = buffer.withUnsafeBufferPointer { b -> (Int, UInt8?) in
                for i in start..<end {
                    let byte = b[i]
                    if byte == 0x0a || byte == 0x20 || byte == 0x09 || byte == 0x0d { return (i, byte) }
                }
                return (end, nil)
            }
            if stop > start {
                let room = Self.maximumLength - word.count
                if stop - start > room { overlong = true }
                word.append(contentsOf: buffer[start..<start + min(room, stop - start)])
                start = stop
            }
            guard let separator else { continue }
            if let item = finishWord() { return item }
            start += 1
            if separator == 0x0a { return .endOfLine }
        }
    }

    private func finishWord() -> Item? {
        guard !word.isEmpty else { return nil }
        let text = String(decoding: word, as: UTF8.self)
        let item: Item = overlong ? .tooLong(text) : .word(text)
        word.removeAll(keepingCapacity: true)
        overlong = false
        return item
    }
}
