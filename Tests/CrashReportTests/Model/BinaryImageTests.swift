import CrashReport
import XCTest

final class BinaryImageTests: XCTestCase {
    func testContainsBothEnds() {
        let image = BinaryImage(loadAddress: 0x104a30000, endAddress: 0x104a3ffff, name: "App")
        XCTAssertFalse(image.contains(0x104a2ffff))
        XCTAssertTrue(image.contains(0x104a30000))
        XCTAssertTrue(image.contains(0x104a3c5e0))
        XCTAssertTrue(image.contains(0x104a3ffff))
        XCTAssertFalse(image.contains(0x104a40000))
    }

    func testPlaceholderContainsEverything() {
        let image = BinaryImage(loadAddress: 0, endAddress: .max, name: "???")
        XCTAssertTrue(image.contains(0))
        XCTAssertTrue(image.contains(.max))
    }
}
