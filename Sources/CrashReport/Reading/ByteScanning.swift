#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

// Small byte-level helpers shared by the parsers and renderers. Reports are scanned as UTF-8
// bytes; only the pieces that end up in the model are turned into `String`s.

enum ASCII {
    static let tab: UInt8 = 0x09
    static let newline: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22
    static let plus: UInt8 = 0x2B
    static let openParen: UInt8 = 0x28
    static let closeParen: UInt8 = 0x29
    static let comma: UInt8 = 0x2C
    static let minus: UInt8 = 0x2D
    static let slash: UInt8 = 0x2F
    static let zero: UInt8 = 0x30
    static let colon: UInt8 = 0x3A
    static let less: UInt8 = 0x3C
    static let greater: UInt8 = 0x3E
    static let backslash: UInt8 = 0x5C
    static let lowerX: UInt8 = 0x78
    static let upperX: UInt8 = 0x58
}

/// What the digits after a `0x` make (`hexToken`).
enum HexToken: Equatable {
    /// A number of at most 64 bits.
    case value(UInt64)
    /// No digits, or more than 64 bits of them: a number no address can be.
    case unreadable
}

/// Space or tab: the separators of every field in a classic report.
@inline(__always)
func isBlank(_ byte: UInt8) -> Bool {
    byte == ASCII.space || byte == ASCII.tab
}

@inline(__always)
func isDigit(_ byte: UInt8) -> Bool {
    byte &- ASCII.zero < 10
}

@inline(__always)
func isLetter(_ byte: UInt8) -> Bool {
    (byte | 0x20) &- 0x61 < 26
}

/// The value of a hexadecimal digit, or nil.
@inline(__always)
func hexDigitValue(_ byte: UInt8) -> UInt64? {
    if byte &- 0x30 < 10 { return UInt64(byte &- 0x30) }
    let lower = byte | 0x20
    if lower &- 0x61 < 6 { return UInt64(lower &- 0x61 + 10) }
    return nil
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// `p..<e` as a UUID's 32 lowercase digits (`ImageIdentity.compactUUID`); nil when it is
    /// not one, or the range is empty or reversed.
    func compactUUID(_ p: Int, _ e: Int) -> String? {
        guard p >= 0, p < e, e <= count else { return nil }
        return ImageIdentity.compactUUID(UnsafeBufferPointer(rebasing: self[p..<e]))
    }

    /// The byte ranges of the lines, each with its "\n"; the last line may have none. Empty
    /// input has no lines, and a final "\n" starts none. Every parser splits its input this way,
    /// so line `k` means the same bytes everywhere.
    func lineRanges() -> [Range<Int>] {
        var lines: [Range<Int>] = []
        lines.reserveCapacity(count / 64 + 1)
        forEachLine { line in
            lines.append(line)
            return true
        }
        return lines
    }

    /// Hands the byte ranges of the lines, as ``lineRanges()`` makes them, to `body` one by
    /// one until it returns false: for a scan that may stop early, without the array.
    @inline(__always)
    func forEachLine(_ body: (Range<Int>) -> Bool) {
        guard let base = baseAddress else { return }
        var start = 0
        while start < count {
            guard let found = memchr(base + start, Int32(ASCII.newline), count - start) else {
                _ = body(start..<count)
                return
            }
            let end = UnsafeRawPointer(found) - UnsafeRawPointer(base) + 1
            guard body(start..<end) else { return }
            start = end
        }
    }

    /// Whether `range` holds a NUL byte. Such a line is kept as it is but never read as a frame
    /// or an image: a NUL is no part of any report's text.
    func containsNUL(_ range: Range<Int>) -> Bool {
        guard let base = baseAddress, !range.isEmpty else { return false }
        return memchr(base + range.lowerBound, 0, range.count) != nil
    }

    /// Where the line `range` (one of ``lineRanges()``) ends without its line end: before its
    /// "\n" or "\r\n"; `range.upperBound` for a last line without "\n" (a "\r" there is
    /// text). The bytes from here to `range.upperBound` are the line's terminator, which a
    /// renderer gives the lines it writes in its place. A parser that trims trailing blanks
    /// as well (`trimEnd`) trims any "\r" left before them.
    @inline(__always)
    func contentEnd(_ range: Range<Int>) -> Int {
        var end = range.upperBound
        if end > range.lowerBound && self[end - 1] == ASCII.newline {
            end -= 1
            if end > range.lowerBound && self[end - 1] == ASCII.carriageReturn { end -= 1 }
        }
        return end
    }

    /// The length of the UTF-8 byte-order mark the bytes start with: 3, or 0 if there is none.
    var byteOrderMarkLength: Int {
        count >= 3 && self[0] == 0xEF && self[1] == 0xBB && self[2] == 0xBF ? 3 : 0
    }

    /// The first index at or after `index` that is not a space or tab (at most `end`).
    @inline(__always)
    func skipBlanks(from index: Int, to end: Int) -> Int {
        var i = index
        while i < end && isBlank(self[i]) { i += 1 }
        return i
    }

    /// The first index at or after `index` that is a space or tab (at most `end`).
    @inline(__always)
    func skipToken(from index: Int, to end: Int) -> Int {
        var i = index
        while i < end && !isBlank(self[i]) { i += 1 }
        return i
    }

    /// `end` moved back over trailing spaces, tabs and carriage returns, not before `start`.
    @inline(__always)
    func trimEnd(_ start: Int, _ end: Int) -> Int {
        var e = end
        while e > start {
            let byte = self[e - 1]
            guard isBlank(byte) || byte == ASCII.carriageReturn else { break }
            e -= 1
        }
        return e
    }

    /// The bytes `start..<end` decoded as UTF-8 (invalid sequences become U+FFFD).
    @inline(__always)
    func string(_ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: self[start..<end]), as: UTF8.self)
    }

    /// Whether the bytes at `index` spell `literal` (which must be ASCII) before `end`.
    @inline(__always)
    func matches(_ literal: StaticString, at index: Int, end: Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= end else { return false }
        let text = literal.utf8Start
        for k in 0..<count where self[index + k] != text[k] { return false }
        return true
    }

    /// Whether the ASCII `literal` occurs anywhere in the buffer.
    func contains(_ literal: StaticString) -> Bool {
        firstIndex(of: literal, in: 0..<count) != nil
    }

    /// Where the ASCII `literal` first occurs within `range`; nil when it does not. Its first
    /// byte is found by `memchr` (many times faster than a loop over the bytes, for the tests
    /// that scan whole reports), the rest compared there.
    func firstIndex(of literal: StaticString, in range: Range<Int>) -> Int? {
        let length = literal.utf8CodeUnitCount
        guard let base = baseAddress, length > 0, range.lowerBound >= 0, range.upperBound <= count,
              range.count >= length else { return nil }
        let first = Int32(literal.utf8Start[0])
        let last = range.upperBound - length
        var i = range.lowerBound
        while i <= last {
            guard let hit = memchr(base + i, first, last - i + 1) else { return nil }
            i = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if memcmp(base + i, literal.utf8Start, length) == 0 { return i }
            i += 1
        }
        return nil
    }

    /// Like `matches`, ignoring ASCII case; `literal` must be lowercase.
    @inline(__always)
    func matchesIgnoringCase(_ literal: StaticString, at index: Int, end: Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= end else { return false }
        let text = literal.utf8Start
        for k in 0..<count {
            var byte = self[index + k]
            if byte &- 0x41 < 26 { byte |= 0x20 }
            if byte != text[k] { return false }
        }
        return true
    }

    /// Whether `start..<end` is exactly `literal`.
    @inline(__always)
    func equals(_ literal: StaticString, _ start: Int, _ end: Int) -> Bool {
        end - start == literal.utf8CodeUnitCount && matches(literal, at: start, end: end)
    }

    /// Parses a `0x`-prefixed hexadecimal number starting at `index`: 1 or more digits, at most
    /// 16 of them after leading zeros. Returns the value and the index after the last digit;
    /// nil if there is no such number — no `0x`, no digit, or a value of more than 64 bits
    /// (`hexToken` tells the last two from the first).
    @inline(__always)
    func hexNumber(at index: Int, end: Int) -> (value: UInt64, next: Int)? {
        guard let (token, next) = hexToken(at: index, end: end), case .value(let value) = token else { return nil }
        return (value, next)
    }

    /// What a `0x` at `index` starts: a number, or digits that make none — none at all (`0x`
    /// alone) or more than 64 bits' worth (`0x1ffffffffffffffffff`) — with the index after the
    /// last digit; nil if there is no `0x` at `index`. A parser that meets an unreadable number
    /// where an address belongs must not take another number of the line in its place.
    @inline(__always)
    func hexToken(at index: Int, end: Int) -> (HexToken, next: Int)? {
        guard index + 1 < end, self[index] == ASCII.zero,
              self[index + 1] == ASCII.lowerX || self[index + 1] == ASCII.upperX
        else { return nil }
        var i = index + 2
        var value: UInt64 = 0
        var significant = 0
        while i < end, let digit = hexDigitValue(self[i]) {
            if significant > 0 || digit != 0 { significant += 1 }
            value = value << 4 | digit
            i += 1
        }
        guard i > index + 2, significant <= 16 else { return (.unreadable, i) }
        return (.value(value), i)
    }

    /// Whether `start..<end` is one token that a `0x` starts and whose value cannot be read:
    /// no digits or more than 64 bits of them (`hexToken`), or digits written as `?`
    /// (`0x????????`). Where a frame's address belongs, such a token is an address that no
    /// image can hold.
    func isUnreadableHexToken(_ start: Int, _ end: Int) -> Bool {
        if let (token, next) = hexToken(at: start, end: end), case .unreadable = token, next == end { return true }
        guard end - start > 2, self[start] == ASCII.zero, self[start + 1] | 0x20 == ASCII.lowerX else { return false }
        for i in (start + 2)..<end where self[i] != 0x3F { return false }  // ?
        return true
    }

    /// Parses an unsigned decimal number starting at `index`; nil if there is none or it overflows.
    @inline(__always)
    func decimalNumber(at index: Int, end: Int) -> (value: UInt64, next: Int)? {
        var i = index
        var value: UInt64 = 0
        while i < end, isDigit(self[i]) {
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(self[i] &- ASCII.zero))
            guard !o1, !o2 else { return nil }
            value = sum
            i += 1
        }
        guard i > index else { return nil }
        return (value, i)
    }
}

extension Array where Element == UInt8 {
    /// Appends the bytes of an ASCII literal.
    @inline(__always)
    mutating func append(literal: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends the UTF-8 bytes of `string`.
    @inline(__always)
    mutating func append(utf8 string: String) {
        append(contentsOf: string.utf8)
    }

    /// Appends `value` in decimal.
    public mutating func append(decimal value: UInt64) {
        var divisor: UInt64 = 1
        while value / divisor >= 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            append(ASCII.zero + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Appends `value` in decimal, with a minus sign when negative.
    mutating func append(decimal value: Int) {
        if value < 0 {
            append(ASCII.minus)
            append(decimal: UInt64(value.magnitude))
        } else {
            append(decimal: UInt64(value))
        }
    }

    /// Appends `value` as `0x` followed by lowercase hexadecimal digits, no padding.
    public mutating func append(hex value: UInt64) {
        append(ASCII.zero)
        append(ASCII.lowerX)
        var shift = 60
        while shift > 0 && (value >> UInt64(shift)) & 0xF == 0 { shift -= 4 }
        while shift >= 0 {
            let digit = UInt8((value >> UInt64(shift)) & 0xF)
            append(digit < 10 ? ASCII.zero + digit : 0x61 + digit - 10)
            shift -= 4
        }
    }
}

/// The last path component of `path` (after the last `/`), or `path` itself.
func basename(_ path: String) -> Substring {
    let utf8 = path.utf8
    guard let slash = utf8.lastIndex(of: ASCII.slash) else { return path[...] }
    return path[utf8.index(after: slash)...]
}
