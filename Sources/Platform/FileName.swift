#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File names are bytes; the tool keeps them as `String`s. This is the reversible mapping
/// between the two, so that a name that is not UTF-8 is still found, opened and printed as
/// the file system spells it.
///
/// Bytes to string: valid UTF-8 scalars stand for themselves, except the 256 private-use
/// scalars U+F700–U+F7FF; each byte of an invalid sequence, and each byte of a valid U+F7xx
/// scalar, becomes U+F700 + byte. String to bytes: U+F700–U+F7FF become that byte, every
/// other scalar its UTF-8. Bytes → string → bytes is the identity for every byte string.
public enum FileName {
    /// The first and last scalars that stand for raw bytes.
    static let rawByteBase: UInt32 = 0xF700
    static let rawByteLast: UInt32 = 0xF7FF

    /// The string for the file-system bytes `bytes`.
    public static func decode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        let array = Array(bytes)
        var scalars = String.UnicodeScalarView()
        var i = 0
        while i < array.count {
            if let (scalar, length) = decodeScalar(array, at: i), !isRawByteScalar(scalar.value) {
                scalars.append(scalar)
                i += length
            } else {
                // An invalid sequence, or a valid U+F7xx: its bytes one by one. A valid
                // U+F7xx is three bytes, all mapped.
                let length = decodeScalar(array, at: i)?.1 ?? 1
                for byte in array[i..<i + length] { scalars.append(Unicode.Scalar(rawByteBase + UInt32(byte))!) }
                i += length
            }
        }
        return String(scalars)
    }

    /// The file-system bytes of `name`.
    public static func bytes(_ name: String) -> [UInt8] {
        guard holdsRawBytes(name) else { return Array(name.utf8) }
        var result: [UInt8] = []
        result.reserveCapacity(name.utf8.count)
        for scalar in name.unicodeScalars {
            if isRawByteScalar(scalar.value) {
                result.append(UInt8(scalar.value - rawByteBase))
            } else {
                result.append(contentsOf: String(scalar).utf8)
            }
        }
        return result
    }

    /// Calls `body` with `name` as the NUL-terminated bytes system calls take.
    public static func withCString<Result>(_ name: String, _ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        guard holdsRawBytes(name) else { return try name.withCString(body) }
        let bytes = self.bytes(name).map { CChar(bitPattern: $0) } + [0]
        return try bytes.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// `name` as valid UTF-8: its bytes decoded, what is not UTF-8 spelled U+FFFD (a valid
    /// U+F7xx is itself again). For output that must be valid UTF-8 (JSON).
    public static func replacingRawBytes(_ name: String) -> String {
        guard holdsRawBytes(name) else { return name }
        return String(decoding: bytes(name), as: UTF8.self)
    }

    /// The command-line arguments as the process got them, decoded byte for byte
    /// (`CommandLine.arguments` has already replaced what is not UTF-8).
    public static var arguments: [String] {
        (0..<Int(CommandLine.argc)).map { i in
            guard let pointer = CommandLine.unsafeArgv[i] else { return "" }
            return decode(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
                                              count: strlen(pointer)))
        }
    }

    /// Whether `name` holds a scalar that stands for a raw byte (U+F700–U+F7FF, UTF-8
    /// EF 9C 80 – EF 9F BF): the test for the fast path, on the UTF-8 bytes.
    static func holdsRawBytes(_ name: String) -> Bool {
        var utf8 = name.utf8.makeIterator()
        while let byte = utf8.next() {
            if byte == 0xEF, let next = utf8.next(), (0x9C...0x9F).contains(next) { return true }
        }
        return false
    }

    private static func isRawByteScalar(_ value: UInt32) -> Bool {
        value >= rawByteBase && value <= rawByteLast
    }

    /// The scalar strictly encoded at `i` (no overlong forms, surrogates or values past
    /// U+10FFFF) and its length; nil when the bytes there are not valid UTF-8.
    private static func decodeScalar(_ bytes: [UInt8], at i: Int) -> (Unicode.Scalar, Int)? {
        let first = bytes[i]
        let length: Int, minimum: UInt32
        var value: UInt32
        switch first {
        case 0x00...0x7F: return (Unicode.Scalar(first), 1)
        case 0xC2...0xDF: length = 2; minimum = 0x80; value = UInt32(first & 0x1F)
        case 0xE0...0xEF: length = 3; minimum = 0x800; value = UInt32(first & 0x0F)
        case 0xF0...0xF4: length = 4; minimum = 0x10000; value = UInt32(first & 0x07)
        default: return nil
        }
        guard i + length <= bytes.count else { return nil }
        for byte in bytes[(i + 1)..<(i + length)] {
            guard byte & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }
}
