@testable import CrashReport
import XCTest

/// Image lines whose end address is `???`, as microstackshot and resource reports print them.
final class BinaryImageLineTests: XCTestCase {
    private let report = """
        Incident Identifier: 6156848E-344E-4D9E-84E0-87AFD0D0AE7B
        Code Type:           ARM-64 (Native)

        Thread 0 Crashed:
        0   libsystem_kernel.dylib        0x00000001c0a8cbc4 swtch_pri + 8
        1   App                           0x0000000104a34344 0x104a30000 + 17220
        2   Helper                        0x0000000104b40010 0x104b40000 + 16
        3   Unlisted                      0x00000001a0000010 0x1a0000000 + 16

        Binary Images:
               0x104a30000 -                ???  com.example.App 1.2 (3)  <4C4C44C3-5555-3144-A19B-AF60D4F21F14>  /private/var/containers/Bundle/Application/X/App.app/App
               0x104b40000 -        0x104b47fff  Helper arm64  <4c4c440855553144a1c293818143d9eb> /private/var/X/App.app/Frameworks/Helper
               0x1c0a86000 -        0x1c0abffff  libsystem_kernel.dylib arm64e  <70b99e4d6c1a9d32e0ebd6119c04ba86> /usr/lib/system/libsystem_kernel.dylib

        """

    func testAnImageWithoutAnEndIsAnImage() throws {
        let parsed = try parse(report)
        XCTAssertEqual(parsed.images.count, 3)
        let app = parsed.images[0]
        XCTAssertEqual(app.name, "com.example.App")
        XCTAssertEqual(app.uuid, "4c4c44c355553144a19baf60d4f21f14")
        XCTAssertEqual(app.path, "/private/var/containers/Bundle/Application/X/App.app/App")
        XCTAssertEqual(app.loadAddress, 0x104a30000)
        XCTAssertFalse(app.endIsKnown)
        XCTAssertTrue(parsed.images[1].endIsKnown)
    }

    func testItReachesUpToTheNextImage() throws {
        let parsed = try parse(report)
        XCTAssertEqual(parsed.images[0].endAddress, 0x104b3ffff)
        let frames = parsed.threads[0].frames
        XCTAssertEqual(frames[1].image, 0, "the app's frame lands in the app")
        XCTAssertEqual(frames[2].image, 1, "the next image keeps its own frames")
        XCTAssertNil(frames[3].image, "an address past every image is no image's")
    }

    func testTheLastImageReachesALimitedWay() throws {
        let text = "Binary Images:\n0x104a30000 - ??? App <4C4C44C3-5555-3144-A19B-AF60D4F21F14> /App\n"
        let parsed = try parse(text)
        XCTAssertEqual(parsed.images.count, 1)
        XCTAssertEqual(parsed.images[0].endAddress, 0x104a30000 + BinaryImageLine.openEndReach - 1)
        XCTAssertFalse(parsed.images[0].isPlaceholder)
    }

    func testAnEndOfOtherTextIsNoImage() throws {
        let parsed = try parse("Binary Images:\n0x104a30000 - ???? App <4C4C44C3-5555-3144-A19B-AF60D4F21F14> /App\n")
        XCTAssertTrue(parsed.images.isEmpty)
    }
}
