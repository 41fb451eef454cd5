/// Makes text that came from a report or a debug file safe to print on a terminal or in a
/// line- and tab-separated stream.
///
/// Names reach the output from files strangers made: a function name or source path with a
/// newline would split a frame over two lines, a tab would shift the columns of the frames
/// format, and an escape sequence would drive the reader's terminal. Every such byte is written
/// visibly as `\xNN`, two lowercase hexadecimal digits:
///
/// - C0 controls U+0000–U+001F (`\x1b`, `\x0a`, `\x09`, ...) and DEL U+007F;
/// - C1 controls U+0080–U+009F, as the two bytes of their UTF-8 (`\xc2\x9b`);
/// - each byte that is not part of valid UTF-8 (`\xff`).
///
/// Everything else is copied as is: backslashes (Windows paths hold them), and any other
/// Unicode scalar, private-use ones included. Text without such bytes is copied in one piece.
public enum OutputEscaping {
    /// Appends the UTF-8 of `text` to `out`, escaped.
    public static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { append($0, to: &out) }
    }

    /// Appends the UTF-8 of `text` to `out`, escaped.
    public static func append(_ text: Substring, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { append($0, to: &out) }
    }

    /// Appends `bytes` to `out`, escaped.
    public static func append(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var copied = 0
        var i = 0
        let count = bytes.count
        while i < count {
            i = printableASCIIEnd(bytes, from: i)
            guard i < count else { break }
            let byte = bytes[i]
            let length = byte >= 0x80 ? validSequenceLength(bytes, at: i) : 0
            let escapedCount: Int
            if length == 0 {
                escapedCount = 1
            } else if length == 2 && byte == 0xC2 && bytes[i + 1] < 0xA0 {
                escapedCount = 2
            } else {
                i += length
                continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<i]))
            for k in i..<(i + escapedCount) { appendHexEscape(bytes[k], to: &out) }
            i += escapedCount
            copied = i
        }
        if copied == 0 {
            out.append(contentsOf: bytes)
        } else {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<count]))
        }
    }

    /// `text` escaped, or `text` itself when nothing in it needs escaping.
    public static func escaped(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            guard needsEscaping(bytes) else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + 16)
            append(bytes, to: &out)
            return String(decoding: out, as: UTF8.self)
        } ?? text
    }

    /// Whether any byte of `bytes` would be escaped.
    public static func needsEscaping(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i < bytes.count {
            i = printableASCIIEnd(bytes, from: i)
            guard i < bytes.count else { break }
            let byte = bytes[i]
            guard byte >= 0x80 else { return true }
            let length = validSequenceLength(bytes, at: i)
            if length == 0 || (length == 2 && byte == 0xC2 && bytes[i + 1] < 0xA0) { return true }
            i += length
        }
        return false
    }

    /// The index of the first byte at or after `start` that is not printable ASCII
    /// (0x20–0x7E), or `bytes.count`. Names and paths are nearly all printable ASCII: they are
    /// read eight bytes at a time. In a word `x`, a byte below 0x20 sets its top bit in
    /// `(x - 0x2020...) & ~x`, and a byte of 0x7F or above sets it in `(x + 0x0101...) | x`;
    /// a borrow or carry between bytes starts only at such a byte, so a word with neither is
    /// eight printable bytes.
    @inline(__always)
    static func printableASCIIEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var i = start
        let count = bytes.count
        if let base = bytes.baseAddress {
            while count - i >= 8 {
                let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                let control = (x &- 0x2020_2020_2020_2020) & ~x
                let high = (x &+ 0x0101_0101_0101_0101) | x
                if (control | high) & 0x8080_8080_8080_8080 != 0 { break }
                i += 8
            }
        }
        while i < count && bytes[i] >= 0x20 && bytes[i] < 0x7F { i += 1 }
        return i
    }

    @inline(__always)
    private static func appendHexEscape(_ byte: UInt8, to out: inout [UInt8]) {
        let digits: StaticString = "0123456789abcdef"
        out.append(ASCII.backslash)
        out.append(ASCII.lowerX)
        out.append(digits.utf8Start[Int(byte >> 4)])
        out.append(digits.utf8Start[Int(byte & 0xF)])
    }

    /// The length of the well-formed UTF-8 sequence (RFC 3629: no overlong forms, no
    /// surrogates, nothing above U+10FFFF) starting at `index`, or 0 if there is none.
    @inline(__always)
    static func validSequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        let lead = bytes[index]
        let remaining = bytes.count - index
        func continuation(_ k: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            k < remaining && bytes[index + k] >= low && bytes[index + k] <= high
        }
        switch lead {
        case 0x00..<0x80:
            return 1
        case 0xC2...0xDF:
            return continuation(1) ? 2 : 0
        case 0xE0:
            return continuation(1, 0xA0) && continuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF:
            return continuation(1) && continuation(2) ? 3 : 0
        case 0xED:
            return continuation(1, 0x80, 0x9F) && continuation(2) ? 3 : 0
        case 0xF0:
            return continuation(1, 0x90) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3:
            return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4:
            return continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default:
            return 0
        }
    }
}
