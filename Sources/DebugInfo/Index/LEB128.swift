#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes integers as LEB128 (seven bits a byte, the high bit set on every byte but the last,
/// as DWARF writes them) and fixed 32-bit little-endian words: how the line and function
/// blocks of a ``SymbolIndex`` are stored, most numbers in one byte.
struct LEB128Writer {
    /// Memory of its own (malloc'd), grown by `realloc`: a byte written is a store and a
    /// compare, with none of an array's checks (an index of millions of rows writes tens of
    /// millions), and the bytes become the index's table without a copy (``take()``).
    private final class Storage {
        var base: UnsafeMutablePointer<UInt8>
        var capacity: Int

        init(capacity: Int) {
            self.capacity = max(capacity, 16)
            guard let memory = malloc(self.capacity) else { fatalError("out of memory: \(self.capacity) bytes") }
            base = memory.assumingMemoryBound(to: UInt8.self)
        }

        deinit { free(base) }

        func resize(to capacity: Int) {
            guard let memory = realloc(base, max(capacity, 16)) else { fatalError("out of memory: \(capacity) bytes") }
            base = memory.assumingMemoryBound(to: UInt8.self)
            self.capacity = max(capacity, 16)
        }

        func grow(to needed: Int) {
            var capacity = self.capacity
            while capacity < needed { capacity *= 2 }
            resize(to: capacity)
        }
    }

    private var storage: Storage
    private(set) var count = 0

    /// A writer with room for `capacity` bytes before it grows.
    init(capacity: Int = 256) {
        storage = Storage(capacity: capacity)
    }

    /// The bytes written, copied out.
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: storage.base, count: count)) }

    /// Room for `more` bytes, in memory this writer alone uses (a copy of a writer shares its
    /// memory until one of them writes).
    @inline(__always)
    private mutating func reserve(_ more: Int) {
        if !isKnownUniquelyReferenced(&storage) {
            let copy = Storage(capacity: storage.capacity)
            copy.base.update(from: storage.base, count: count)
            storage = copy
        }
        if count + more > storage.capacity { storage.grow(to: count + more) }
    }

    @inline(__always)
    mutating func unsigned(_ value: UInt64) {
        reserve(10)
        var rest = value
        let base = storage.base
        while rest >= 0x80 {
            base[count] = UInt8(truncatingIfNeeded: rest) | 0x80
            count += 1
            rest >>= 7
        }
        base[count] = UInt8(rest)
        count += 1
    }

    mutating func signed(_ value: Int64) {
        reserve(10)
        var rest = value
        let base = storage.base
        while true {
            let byte = UInt8(truncatingIfNeeded: rest) & 0x7f
            rest >>= 7
            if (rest == 0 && byte & 0x40 == 0) || (rest == -1 && byte & 0x40 != 0) {
                base[count] = byte
                count += 1
                return
            }
            base[count] = byte | 0x80
            count += 1
        }
    }

    @inline(__always)
    mutating func byte(_ value: UInt8) {
        reserve(1)
        storage.base[count] = value
        count += 1
    }

    mutating func append(contentsOf other: LEB128Writer) {
        reserve(other.count)
        (storage.base + count).update(from: other.storage.base, count: other.count)
        count += other.count
    }

    mutating func word(_ value: UInt32) {
        reserve(4)
        UnsafeMutableRawPointer(storage.base + count).storeBytes(of: value.littleEndian, as: UInt32.self)
        count += 4
    }

    /// Empties the writer, keeping its memory for what comes next.
    mutating func removeAll() { count = 0 }

    /// The bytes as an index table (the writer's own memory, cut to size), leaving the writer
    /// empty.
    mutating func take() -> FlatArray<UInt8> {
        defer {
            storage = Storage(capacity: 256)
            count = 0
        }
        guard count > 0 else { return FlatArray() }
        if !isKnownUniquelyReferenced(&storage) {
            let copy = Storage(capacity: count)
            copy.base.update(from: storage.base, count: count)
            storage = copy
        }
        storage.resize(to: count)
        return FlatArray(start: storage.base, count: count, owner: storage)
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
        return first < 0x80 ? UInt64(first) : groups(first).value
    }

    @inline(__always)
    mutating func signed() -> Int64 {
        let (value, bits, last) = groups(byte())
        // The sign is the last group's bit 6.
        guard bits < 64, last & 0x40 != 0 else { return Int64(bitPattern: value) }
        return Int64(bitPattern: value | ~UInt64(0) << bits)
    }

    /// The seven-bit groups of one integer, `first` its first byte (already read): their
    /// value, how many bits they make, and the last byte. Zeros after a failure.
    @inline(__always)
    private mutating func groups(_ first: UInt8) -> (value: UInt64, bits: UInt64, last: UInt8) {
        var value: UInt64 = 0, shift: UInt64 = 0, next = first
        while true {
            guard !failed, shift < 64 else {
                failed = true
                return (0, 0, 0)
            }
            value |= UInt64(next & 0x7f) << shift
            shift += 7
            if next < 0x80 { return (value, shift, next) }
            next = byte()
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
