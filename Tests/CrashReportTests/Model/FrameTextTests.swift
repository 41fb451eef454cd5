@testable import CrashReport
import XCTest

/// `FrameText` holds each name once: a name interned by its bytes and by its string is one
/// entry, whether its bytes are ASCII, UTF-8, or not UTF-8 at all (kept as they decode, with
/// U+FFFD, which every spelling of them shares).
final class FrameTextTests: XCTestCase {
    func testANameIsHeldOnceHoweverItIsSpelled() {
        let text = FrameText()
        let spellings: [[UInt8]] = [
            Array("/srv/app".utf8), Array("/srv/ünïcode/app".utf8), [0x2F, 0xFF, 0x2F], [0x2F, 0xFE, 0x2F],
            [0xC3], Array("/srv/app".utf8), [0x2F, 0xFF, 0x2F],
        ]
        var ids: [Int32] = []
        for bytes in spellings {
            ids.append(bytes.withUnsafeBufferPointer { text.intern($0, 0, $0.count) })
        }
        XCTAssertEqual(ids[0], ids[5])
        XCTAssertEqual(ids[2], ids[3], "bytes that decode alike are one name")
        XCTAssertEqual(ids[2], ids[6])
        XCTAssertEqual(Set(ids).count, 4)
        XCTAssertEqual(text[ids[2]], "/\u{FFFD}/")
        XCTAssertEqual(text[ids[4]], "\u{FFFD}")
        XCTAssertEqual(text.intern("/\u{FFFD}/"), ids[2])
        XCTAssertEqual(text.intern("/srv/ünïcode/app"), ids[1])
        XCTAssertEqual(text[ids[1]], "/srv/ünïcode/app")
        // Among many names, each is still found by its bytes.
        var many: [Int32] = []
        for k in 0..<2_000 { many.append(text.intern("name \(k)")) }
        for k in stride(from: 0, to: 2_000, by: 7) {
            let bytes = Array("name \(k)".utf8)
            XCTAssertEqual(bytes.withUnsafeBufferPointer { text.intern($0, 0, $0.count) }, many[k])
        }
    }
}
