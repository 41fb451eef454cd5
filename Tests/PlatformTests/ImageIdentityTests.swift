import Foundation
import XCTest
@testable import Platform

/// The one type that reads and spells image identities, compared with Foundation's own UUID
/// parser and printer over random UUIDs, and with every spelling the formats use.
final class ImageIdentityTests: XCTestCase {
    /// UUIDs are written as Apple writes them: upper case, dashed 8-4-4-4-12, compared with
    /// Foundation's own spelling of random UUIDs; anything that is not 32 ASCII characters is
    /// only upper-cased.
    func testUUIDsAreDashedAsAppleWritesThem() {
        for _ in 0..<1000 {
            let uuid = UUID()
            let plain = uuid.uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            XCTAssertEqual(ImageIdentity.dashedUUID(plain), uuid.uuidString)
            XCTAssertEqual(ImageIdentity(hex: plain, kind: .uuid).spelled, uuid.uuidString)
        }
        XCTAssertEqual(ImageIdentity.dashedUUID("abc"), "ABC")
        XCTAssertEqual(ImageIdentity.dashedUUID(String(repeating: "é", count: 16)), String(repeating: "É", count: 16))
    }

    /// Every spelling of a UUID the formats write reads as the same digits, and the digits
    /// are those of Foundation's parse of the dashed form; the bytes of `LC_UUID` give them too.
    func testEverySpellingOfAUUIDReadsAsTheSameDigits() {
        for _ in 0..<1000 {
            let uuid = UUID()
            let dashed = uuid.uuidString
            let digits = dashed.replacingOccurrences(of: "-", with: "").lowercased()
            for spelling in [dashed, dashed.lowercased(), digits, digits.uppercased()] {
                XCTAssertEqual(ImageIdentity.compactUUID(spelling), digits, spelling)
                XCTAssertEqual(ImageIdentity(uuid: spelling)?.hex, digits, spelling)
                XCTAssertEqual(ImageIdentity(uuid: spelling)?.kind, .uuid)
            }
            let fromBytes = withUnsafeBytes(of: uuid.uuid) { ImageIdentity(uuidBytes: $0) }
            XCTAssertEqual(fromBytes, ImageIdentity(uuid: dashed))
            XCTAssertEqual(UUID(uuidString: fromBytes.spelled), uuid)
        }
    }

    /// What is not a UUID is not read as one: too few or too many digits, a byte that is not a
    /// hexadecimal digit, more dashes than Apple writes, nothing at all.
    func testWhatIsNotAUUIDIsRefused() {
        let digits = String(repeating: "0123456789abcdef", count: 2)
        for text in ["", "-", String(digits.dropLast()), digits + "0", String(digits.dropLast()) + "g",
                     String(digits.dropLast()) + " ", "----" + digits + "-", "{" + digits + "}",
                     String(repeating: "é", count: 16)] {
            XCTAssertNil(ImageIdentity.compactUUID(text), text)
        }
        XCTAssertEqual(ImageIdentity.compactUUID("-" + digits + "---"), digits)
    }

    /// A build-id keeps its digits as they are, whatever their count, and is spelled so.
    func testBuildIDsAreSpelledAsTheirDigits() {
        let bytes: [UInt8] = (0..<20).map { UInt8($0 * 13 & 0xff) }
        let identity = bytes.withUnsafeBytes { ImageIdentity(buildIDBytes: $0) }
        XCTAssertEqual(identity.hex, bytes.map { String(format: "%02x", $0) }.joined())
        XCTAssertEqual(identity.spelled, identity.hex)
        XCTAssertEqual(identity.kind, .buildID)
        XCTAssertNotEqual(identity, ImageIdentity(hex: identity.hex, kind: .uuid))
        XCTAssertEqual([UInt8]().withUnsafeBytes { ImageIdentity.hex(of: $0) }, "")
    }
}
