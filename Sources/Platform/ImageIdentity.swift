/// The identity of a binary image, and its spellings.
///
/// A Mach-O image is identified by its 16-byte UUID (`LC_UUID`), an ELF image by its GNU
/// build-id (the `NT_GNU_BUILD_ID` note, 20 bytes of SHA-1 from most linkers, 8 or 16 from
/// others). Reports, debug files and servers write them in several ways:
///
/// | where                                        | spelling                                   |
/// |----------------------------------------------|--------------------------------------------|
/// | classic reports' Binary Images, spindumps     | `<6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e>`       |
/// | `.ips` usedImages, MetricKit, dsymutil, atos  | `6B0A6A3F-1BDE-3C4A-9E2D-5F0A1B2C3D4E`     |
/// | build-ids (Linux logs, debuginfod, `.debug`)  | `0f8e3c...` (lowercase, any even length)   |
///
/// Every table of the program is keyed by ``hex``: lowercase hexadecimal digits without dashes,
/// which is how a report's UUID, a debug file's UUID and a build-id compare. ``spelled`` is the
/// form shown to users: a UUID as Apple's tools write it, a build-id as it is.
public struct ImageIdentity: Hashable, Sendable, CustomStringConvertible {
    /// Which kind of identity this is.
    public enum Kind: Sendable {
        /// A Mach-O `LC_UUID`.
        case uuid
        /// An ELF GNU build-id.
        case buildID
    }

    /// Which kind of identity this is.
    public let kind: Kind
    /// Lowercase hexadecimal digits without dashes: the key every table uses.
    public let hex: String

    /// An identity whose digits are already in ``hex`` form (lowercase, no dashes).
    public init(hex: String, kind: Kind) {
        self.hex = hex
        self.kind = kind
    }

    /// A UUID written with or without dashes, in any case; nil when `text` is not one
    /// (see ``compactUUID(_:)``).
    public init?(uuid text: String) {
        guard let hex = Self.compactUUID(text) else { return nil }
        self.init(hex: hex, kind: .uuid)
    }

    /// A UUID from its 16 bytes, as `LC_UUID` and a dyld cache's image list hold it.
    public init(uuidBytes bytes: UnsafeRawBufferPointer) {
        self.init(hex: Self.hex(of: bytes), kind: .uuid)
    }

    /// A build-id from the bytes of its note.
    public init(buildIDBytes bytes: UnsafeRawBufferPointer) {
        self.init(hex: Self.hex(of: bytes), kind: .buildID)
    }

    /// As users read it: `6B0A6A3F-1BDE-3C4A-9E2D-5F0A1B2C3D4E` for a UUID (the spelling of
    /// dSYM searches, `dwarfdump --uuid` and `.ips` files), the digits for a build-id.
    public var spelled: String {
        kind == .uuid ? Self.dashedUUID(hex) : hex
    }

    public var description: String { spelled }

    // MARK: Spellings of strings

    /// `70B89F27-1634-3580-A695-57CDB41D7743` (or the digits without dashes, in any case) →
    /// `70b89f2716343580a69557cdb41d7743`; nil when `text` is not 32 hexadecimal digits, with
    /// dashes anywhere among them and 36 characters at most (four dashes, as Apple writes it).
    public static func compactUUID(_ text: String) -> String? {
        var text = text
        return text.withUTF8 { compactUUID($0) }
    }

    /// The bytes of `text` read as by ``compactUUID(_:)``: the form parsers call on a
    /// range of their input, without making a string of it first.
    public static func compactUUID(_ text: UnsafeBufferPointer<UInt8>) -> String? {
        guard text.count >= 32, text.count <= 36 else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digits in
            var count = 0
            for byte in text where byte != minus {
                guard count < 32, let lower = lowercaseHexDigit(byte) else { return nil }
                digits[count] = lower
                count += 1
            }
            guard count == 32 else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: digits[0..<32]), as: UTF8.self)
        }
    }

    /// `6b0a6a3f...` (32 digits) → `6B0A6A3F-1BDE-3C4A-9E2D-5F0A1B2C3D4E`. Anything else, which
    /// no UUID of the program is, comes back uppercased.
    public static func dashedUUID(_ hex: String) -> String {
        let digits = hex.utf8
        guard digits.count == 32, digits.allSatisfy({ $0 < 0x80 }) else { return hex.uppercased() }
        var dashed: [UInt8] = []
        dashed.reserveCapacity(36)
        for (i, byte) in digits.enumerated() {
            if i == 8 || i == 12 || i == 16 || i == 20 { dashed.append(minus) }
            dashed.append(byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte)
        }
        return String(decoding: dashed, as: UTF8.self)
    }

    /// `hex` (in ``hex`` form) as users read an identity of `kind`: ``spelled``, for callers
    /// that hold the digits and know the kind but have no identity at hand.
    public static func spelled(_ hex: String, kind: Kind) -> String {
        ImageIdentity(hex: hex, kind: kind).spelled
    }

    /// The bytes as lowercase hexadecimal digits, two per byte.
    public static func hex(of bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (i, byte) in bytes.enumerated() {
                out[2 * i] = hexDigits[Int(byte >> 4)]
                out[2 * i + 1] = hexDigits[Int(byte & 15)]
            }
            return bytes.count * 2
        }
    }

    private static let minus = UInt8(ascii: "-")

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// A hexadecimal digit in lowercase; nil for any other byte.
    private static func lowercaseHexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): return byte
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte | 0x20
        default: return nil
        }
    }
}
