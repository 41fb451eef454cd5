import CrashReport
import XCTest

/// Classes of real reports the shared rules must read whole: resource reports' attributed
/// threads, watchdog frames without an address, third-party thread headers, and frames a tool
/// already named. Each report is small and made from the real ones' shapes.
final class ReportEraTests: XCTestCase {
    /// An EXC_RESOURCE CPU report (iOS 12 to 14): the thread the resource was charged to is
    /// `Thread N Attributed:`, and `Triggered by Thread:` names it.
    static let cpuResource = """
        Incident Identifier: 1F4C2A7B-5D3E-4C8A-9B0F-2E6D7A1C3B5F
        Hardware Model:      iPhone10,6
        Process:             Sample [812]
        Code Type:           ARM-64 (Native)
        OS Version:          iPhone OS 13.3 (17C54)
        Exception Type:  EXC_RESOURCE
        Exception Subtype: CPU
        Exception Message: (Limit 80%) Observed 89% over 60 secs
        Triggered by Thread:  3

        Thread 0 name:  Dispatch queue: com.apple.main-thread
        Thread 0:
        0   libsystem_kernel.dylib        \t0x00000001a5d0c634 mach_msg_trap + 8

        Thread 3 name:  Dispatch queue: com.example.worker
        Thread 3 Attributed:
        0   Sample                        \t0x0000000104a3c5e0 0x104a30000 + 50656
        1   Sample                        \t0x0000000104a3c600 0x104a30000 + 50688

        Thread 4 Attributed:: com.example.second
        0   Sample                        \t0x0000000104a3c620 0x104a30000 + 50720

        Thread 3 crashed with ARM Thread State (64-bit):
            x0: 0x0000000000000000   x1: 0x0000000000000000

        Binary Images:
        0x104a30000 - 0x104a3ffff Sample arm64  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /private/var/containers/Bundle/Application/5A1B/Sample.app/Sample
        0x1a5d0b000 - 0x1a5d3ffff libsystem_kernel.dylib arm64e  <d2f1b2c3a4b54c6d8e9f0a1b2c3d4e5f> /usr/lib/system/libsystem_kernel.dylib

        """

    func testAttributedThreadIsAThreadAndTheTriggeredOneIsCrashed() throws {
        let report = try parse(Self.cpuResource)
        XCTAssertEqual(report.threads.map(\.kind), [.thread(0), .thread(3), .thread(4)])
        XCTAssertEqual(report.threads.map(\.frames.count), [1, 2, 1])
        XCTAssertEqual(report.threads.map(\.crashed), [false, true, false])
        XCTAssertEqual(report.crashedThread, 3)
        XCTAssertEqual(report.threads[1].name, "Dispatch queue: com.example.worker")
        XCTAssertEqual(report.threads[2].name, "com.example.second")
        XCTAssertEqual(report.threads[1].frames.map(\.image), [0, 0])
        XCTAssertEqual(renderedUnchanged(report), Array(Self.cpuResource.utf8))
    }

    /// `Thread 0: Crashed:` (third-party reporters) is the crashed thread, not a thread named
    /// "Crashed:"; register blocks still are not threads.
    func testColonBeforeCrashedMark() throws {
        let report = try parse("""
            Thread 0 name:  com.apple.main-thread
            Thread 0: Crashed:
            0   libobjc.A.dylib                 0x000000018ac37530 _objc_msgSend (in libobjc.A.dylib) + 16
            1   UIKitCore                       0x00000001b80b6058 -[UIKeyboardImpl _keyboardBehaviorState] (in UIKitCore) + 436

            Thread 1:
            0   libsystem_kernel.dylib          0x00000001a5d0c634 mach_msg_trap + 8

            Thread 0 crashed with ARM Thread State (64-bit):
                x0: 0x0000000000000000

            """)
        XCTAssertEqual(report.threads.map(\.kind), [.thread(0), .thread(1)])
        XCTAssertEqual(report.threads.map(\.crashed), [true, false])
        XCTAssertEqual(report.threads[0].name, "com.apple.main-thread")
        XCTAssertEqual(report.crashedThread, 0)
        XCTAssertEqual(report.threads[0].frames.count, 2)
    }

    /// A watchdog (0x8badf00d) report whose first frame has image `???` and an address
    /// without `0x`: an unresolvable frame, and the frames after it are frames.
    static let watchdog = """
        Exception Type:  EXC_CRASH (SIGKILL)
        Exception Codes: 0x0000000000000000, 0x0000000000000000
        Termination Reason: Namespace SPRINGBOARD, Code 0x8badf00d
        Triggered by Thread:  0

        Thread 0 name:  Dispatch queue: com.apple.main-thread
        Thread 0 Crashed:
        0   ???                           \t000000000000000000 0 + 0
        1   Sample                        \t0x0000000104a3c5e0 0x104a30000 + 50656
        2   Sample                        \t0x0000000104a3c600 0x104a30000 + 50688

        Thread 1:
        0   ???                           \t???
        1   Sample                        \t0x0000000104a3c620 0x104a30000 + 50720

        Binary Images:
        0x104a30000 - 0x104a3ffff Sample arm64  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /private/var/containers/Bundle/Application/5A1B/Sample.app/Sample

        """

    func testFrameWithoutHexAddressIsAnUnresolvableFrame() throws {
        let report = try parse(Self.watchdog)
        XCTAssertEqual(report.threads.map(\.frames.count), [3, 1])
        let first = report.threads[0].frames[0]
        XCTAssertEqual(first.imageName, "???")
        XCTAssertEqual(first.address, 0)
        XCTAssertEqual(first.form, .unknown)
        XCTAssertNil(first.image)
        XCTAssertEqual(report.threads[0].frames.map(\.index), [0, 1, 2])
        XCTAssertEqual(report.threads[0].frames[1].form, .unsymbolicated(loadAddress: 0x104a30000, offset: 50656))
        XCTAssertEqual(report.threads[1].frames.map(\.index), [1])
        XCTAssertEqual(report.threads[1].frames[0].image, 0)
        XCTAssertEqual(renderedUnchanged(report), Array(Self.watchdog.utf8))
    }

    /// A bare hexadecimal token is an address only when no `0x` token is on the line, and only
    /// with 8 digits or more: image names and symbols of a few hex letters stay what they are.
    func testBareAddressNeedsEightDigitsAndNoPrefixedOne() throws {
        let report = try parse("""
            Thread 0:
            0   cafe babe                     \t0x0000000104a3c5e0 add + 4
            1   Sample                        \t00000001a5d0c634 dead + 8

            """)
        let frames = report.threads[0].frames
        XCTAssertEqual(frames.map(\.imageName), ["cafe babe", "Sample"])
        XCTAssertEqual(frames.map(\.address), [0x104a3c5e0, 0x1a5d0c634])
        XCTAssertEqual(frames.map(\.form), [.symbol(name: "add", offset: 4), .symbol(name: "dead", offset: 8)])
    }

    /// Frames another tool already named: atos's `name (in Image) + N` is the symbol `name`;
    /// `_mh_execute_header + N` and `<UUID> + N` are offsets into the image, which place the
    /// frame even when no image range holds its address — by name, by UUID, or (a UUID the
    /// image list lacks, or no image list at all) in an image made from the frame.
    func testPartlySymbolicatedFramesStateTheirImageOffset() throws {
        let text = """
            Code Type:           ARM-64 (Native)

            Thread 0 Crashed:
            0   UIKitCore                     	0x00000001b80b6058 -[UIKeyboardImpl _keyboardBehaviorState] (in UIKitCore) + 436
            1   Sample                        	0x0000000204a3c5e0 _mh_execute_header + 50656
            2   Sample                        	0x0000000304a3c600 <6B0A6A3F-1BDE-3C4A-9E2D-5F0A1B2C3D4E> + 50688
            3   Other                         	0x0000000105000100 <0123456789abcdef0123456789abcdef> + 256
            4   Other                         	0x0000000105000200 <0123456789abcdef0123456789abcdef> + 512
            5   Sample                        	0x0000000104a3c620 main (in Sample) (main.m:16)
            6   Sample                        	0x0000000104a3c640 _mh_execute_header + 50752

            Binary Images:
            0x104a30000 - 0x104a3ffff Sample arm64  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /private/var/containers/Bundle/Application/5A1B/Sample.app/Sample
            0x1b7f00000 - 0x1b9f00000 UIKitCore arm64e  <d2f1b2c3a4b54c6d8e9f0a1b2c3d4e5f> /System/Library/PrivateFrameworks/UIKitCore.framework/UIKitCore

            """
        let report = try parse(text)
        let frames = report.threads[0].frames
        XCTAssertEqual(frames.map(\.form), [
            .symbol(name: "-[UIKeyboardImpl _keyboardBehaviorState]", offset: 436),
            .imageOffset(offset: 50656), .imageOffset(offset: 50688), .imageOffset(offset: 256),
            .imageOffset(offset: 512), .symbolicated(name: "main", offset: nil, file: "main.m", line: 16),
            .imageOffset(offset: 50752),
        ])
        XCTAssertEqual(frames.map(\.image), [1, 0, 0, 2, 2, 0, 0])
        // Placed by their range, the address says it all; placed otherwise, the offset does.
        XCTAssertEqual(frames.map(\.imageOffset), [nil, 50656, 50688, 256, 512, nil, nil])
        XCTAssertEqual(report.images.count, 3)
        XCTAssertEqual(report.images[2].uuid, "0123456789abcdef0123456789abcdef")
        XCTAssertEqual(report.images[2].name, "Other")
        XCTAssertEqual(report.images[2].loadAddress, 0x105000000)
        XCTAssertEqual(renderedUnchanged(report), Array(text.utf8))
    }
}
