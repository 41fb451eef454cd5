/// Writes integers as LEB128 (seven bits a byte, the high bit set on every byte but the last,
/// as DWARF writes them) and fixed 32-bit little-endian words: how the line and function
/// blocks of a ``SymbolIndex`` are stored, most numbers in one byte.
struct LEB128Writer {
    private(set) var bytes: [UInt8] = []

    var count: Int { bytes.count }

    mutating func unsigned(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func signed(_ value: Int64) {
        var rest = value
        while true {
            let byte = UInt8(truncatingIfNeeded: rest) & 0x7f
            rest >>= 7
            if (rest == 0 && byte & 0x40 == 0) || (rest == -1 && byte & 0x40 != 0) {
                bytes.append(byte)
                return
            }
            bytes.append(byte | 0x80)
        }
    }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func append(contentsOf other: [UInt8]) { bytes.append(contentsOf: other) }

    mutating func word(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Writes `value` as a word at `position`, where room was left for it.
    mutating func setWord(_ value: UInt32, at position: Int) {
        withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(position..<(position + 4), with: $0) }
    }

    /// Takes the bytes, leaving the writer empty.
    mutating func take() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }
}

/// Reads what ``LEB128Writer`` wrote, from bytes that may be anything (a damaged or hostile
/// index file): never before `start` or past `end`. A read past the end, or an integer longer
/// than ten bytes, gives 0 and sets `failed`, and every later read gives 0: a caller checks
/// `failed` once, after the reads whose results it is going to use.
struct LEB128Cursor {
    private let base: UnsafePointer<UInt8>
    /// The next byte to read.
    private(set) var position: Int
    let end: Int
    private(set) var failed = false

    /// A cursor over `base[position..<end]`.
    init(_ base: UnsafePointer<UInt8>, position: Int, end: Int) {
        self.base = base
        self.position = position
        self.end = end
        failed = position < 0 || position > end
    }

    /// Whether every byte has been read (or a read failed).
    var atEnd: Bool { failed || position >= end }

    /// Bytes not read yet: a bound on how many more integers there can be.
    var remaining: Int { failed ? 0 : end - position }

    @inline(__always)
    mutating func byte() -> UInt8 {
        guard !failed, position < end else {
            failed = true
            return 0
        }
        defer { position += 1 }
        return base[position]
    }

    @inline(__always)
    mutating func unsigned() -> UInt64 {
        let first = byte()
        guard first >= 0x80 else { return UInt64(first) }
        var value = UInt64(first & 0x7f), shift: UInt64 = 7
        while true {
            let next = byte()
            guard !failed, shift < 64 else {
                failed = true
                return 0
            }
            value |= UInt64(next & 0x7f) << shift
            if next < 0x80 { return value }
            shift += 7
        }
    }

    @inline(__always)
    mutating func signed() -> Int64 {
        var value: UInt64 = 0, shift: UInt64 = 0
        while true {
            let next = byte()
            guard !failed, shift < 64 else {
                failed = true
                return 0
            }
            value |= UInt64(next & 0x7f) << shift
            shift += 7
            if next < 0x80 {
                if shift < 64, next & 0x40 != 0 { value |= ~UInt64(0) << shift }
                return Int64(bitPattern: value)
            }
        }
    }

    /// A 32-bit little-endian word.
    @inline(__always)
    mutating func word() -> UInt32 {
        guard !failed, end - position >= 4 else {
            failed = true
            return 0
        }
        defer { position += 4 }
        return UInt32(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt32.self))
    }

    /// Moves to `position` (inside `start...end` of what the cursor was made over; a position
    /// outside fails).
    @inline(__always)
    mutating func move(to newPosition: Int, notBefore start: Int) {
        guard !failed, newPosition >= start, newPosition <= end else {
            failed = true
            return
        }
        position = newPosition
    }
}
