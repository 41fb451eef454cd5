#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The byte ranges of a report's lines, as ``lineRanges()`` makes them: each with its "\n",
/// one after the other from byte 0, the last perhaps without one. A report can have millions
/// of lines, so they are held as the offset where each ends, four bytes a line (eight when
/// the text is 4 GiB or more), not as a range of sixteen.
public struct LineRanges: RandomAccessCollection, Sendable, Equatable, ExpressibleByArrayLiteral {
    /// The end of each line, while every end fits in 32 bits.
    private var narrow: [UInt32] = []
    /// The end of each line, once one does not.
    private var wide: [Int]?

    /// No lines.
    public init() {}

    /// The lines of `bytes`.
    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        if bytes.count > Int(UInt32.max) { wide = [] }
        // Counted first (memchr runs at memory speed), so that the ends take their exact room.
        var count = 0
        bytes.forEachLine { _ in
            count += 1
            return true
        }
        if wide != nil { wide!.reserveCapacity(count) } else { narrow.reserveCapacity(count) }
        bytes.forEachLine { line in
            appendLine(endingAt: line.upperBound)
            return true
        }
    }

    /// The lines of `bytes`.
    public init(_ bytes: [UInt8]) {
        self = bytes.withUnsafeBufferPointer { LineRanges($0) }
    }

    /// Lines given as ranges, which must follow each other from 0.
    public init(_ ranges: [Range<Int>]) {
        for range in ranges {
            precondition(range.lowerBound == (isEmpty ? 0 : self[count - 1].upperBound) && range.upperBound >= range.lowerBound,
                         "lines must follow each other from byte 0")
            appendLine(endingAt: range.upperBound)
        }
    }

    /// Lines given as ranges, which must follow each other from 0.
    public init(arrayLiteral ranges: Range<Int>...) {
        self.init(ranges)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { wide?.count ?? narrow.count }

    /// The byte range of line `k`, its terminator included.
    @inline(__always)
    public subscript(k: Int) -> Range<Int> {
        if let wide { return (k == 0 ? 0 : wide[k - 1])..<wide[k] }
        return (k == 0 ? 0 : Int(narrow[k &- 1]))..<Int(narrow[k])
    }

    /// Adds the lines of `bytes`, which follow the last line (they start at `offset`, where
    /// it ends), as ``init(_:)-(UnsafeBufferPointer<UInt8>)`` finds them.
    mutating func appendLines(of bytes: UnsafeBufferPointer<UInt8>, at offset: Int) {
        precondition(offset == (isEmpty ? 0 : self[count - 1].upperBound), "lines must follow each other from byte 0")
        bytes.forEachLine { line in
            appendLine(endingAt: offset + line.upperBound)
            return true
        }
    }

    /// Makes room for `count` lines in all.
    mutating func reserveCapacity(_ count: Int) {
        if wide != nil { wide!.reserveCapacity(count) } else { narrow.reserveCapacity(count) }
    }

    /// Adds `count` empty lines at the end of the last one: lines whose text was let go.
    mutating func appendEmptyLines(_ count: Int) {
        let end = isEmpty ? 0 : self[self.count - 1].upperBound
        for _ in 0..<Swift.max(0, count) { appendLine(endingAt: end) }
    }

    /// Adds the line that runs from the end of the last one to `end`.
    private mutating func appendLine(endingAt end: Int) {
        if wide == nil && end > Int(UInt32.max) { wide = narrow.map { Int($0) }; narrow = [] }
        if wide != nil {
            wide!.append(end)
        } else {
            narrow.append(UInt32(truncatingIfNeeded: end))
        }
    }

    public static func == (a: LineRanges, b: LineRanges) -> Bool {
        a.count == b.count && a.indices.allSatisfy { a[$0] == b[$0] }
    }
}
