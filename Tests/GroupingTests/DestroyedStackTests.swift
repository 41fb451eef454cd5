import Foundation
import CrashReport
import Grouping
import XCTest

/// Crashes whose stack is destroyed, and simulator frames: what remains decides the signature.
final class DestroyedStackTests: XCTestCase {
    private let app: UInt64 = 0x100004000

    /// A jump to an address no image holds, with only that frame left: the lr of the crashed
    /// thread's state names the function; two such crashes of two callers are two groups,
    /// where before both were one group of their exception reason.
    func testTheLinkRegisterTellsJumpsIntoNowhereApart() throws {
        let a = try signature(text(frames: [(nil, 0x4141414140, nil)], lr: app + 0x1234, pc: 0x4141414140, fault: 0x4141414140))
        let b = try signature(text(frames: [(nil, 0x4141414140, nil)], lr: app + 0x2234, pc: 0x4141414140, fault: 0x4141414140))
        XCTAssertEqual(a.source, .destroyedStack)
        XCTAssertEqual(a.frames, ["App+0x1234"])
        XCTAssertEqual(a.text, "stack destroyed: App+0x1234")
        XCTAssertNotEqual(a.id, b.id)

        // The namer resolves the lr at its call site.
        let named = try signature(text(frames: [(nil, 0x0, nil)], lr: app + 0x1234, pc: 0, fault: 0)) { _, places in
            XCTAssertEqual(places.map(\.isReturn), [true])
            return ["engine_run(int)"]
        }
        XCTAssertEqual(named.frames, ["engine_run"])
    }

    /// Stack smashing: the first app frame below `__stack_chk_fail` decides, alone.
    func testStackSmashingKeepsTheVictimOnly() throws {
        let frames: [(String?, UInt64, String?)] = [
            ("libsystem_kernel.dylib", 0x1c0a8b010, "__pthread_kill + 8"), ("libsystem_c.dylib", 0x1a7e59030, "abort + 124"),
            ("libsystem_c.dylib", 0x1a7e59040, "__stack_chk_fail + 20"), ("App", app + 0x500, nil), (nil, 0x4141414141, nil),
            ("App", app + 0x900, nil),
        ]
        let smashed = try signature(text(frames: frames, exception: "EXC_CRASH (SIGABRT)", lr: 0x1a7e59000, pc: 0x1c0a8b010))
        XCTAssertEqual(smashed.source, .destroyedStack)
        XCTAssertEqual(smashed.frames, ["App+0x500"])
        XCTAssertEqual(smashed.kind, "abort")
    }

    /// Nothing remains: `stack destroyed` and the reason.
    func testNothingLeftSaysStackDestroyed() throws {
        let none = try signature(text(frames: [(nil, 0x4141414140, nil)], lr: 0x4141414141, pc: 0x4141414140, fault: 0x4141414140))
        XCTAssertEqual(none.source, .destroyedStack)
        XCTAssertEqual(none.frames, [])
        XCTAssertTrue(none.text.hasPrefix("stack destroyed: EXC_BAD_ACCESS (SIGSEGV)"), none.text)
    }

    /// A whole stack is not touched; nor is a killed process's one-frame thread.
    func testWholeStacksAndKillsAreNotDestroyed() throws {
        let whole = try signature(text(frames: [("App", app + 0x100, nil), ("App", app + 0x200, nil)], lr: app + 0x200, pc: app + 0x100))
        XCTAssertEqual(whole.source, .appFrames)
        XCTAssertEqual(whole.frames, ["App+0x100", "App+0x200"])
        let killed = try signature(text(frames: [("libsystem_kernel.dylib", 0x1c0a8b010, "mach_msg_trap + 8")],
                                        exception: "EXC_CRASH (SIGKILL)", lr: app + 0x200, pc: 0x1c0a8b010))
        XCTAssertNotEqual(killed.source, .destroyedStack)
    }

    /// An arm64e lr with pointer-authentication bits is stripped before it is placed.
    func testSignedLinkRegisterIsStripped() throws {
        let signed = try signature(text(frames: [(nil, 0, nil)], lr: 0x8f2d_0000_0000_0000 | (app + 0x1234), pc: 0, fault: 0))
        XCTAssertEqual(signed.frames, ["App+0x1234"])
    }

    /// An `.ips` report's `source: A` image (a placeholder holding every address) does not hide
    /// the app image a signed lr points into once its bits are stripped: a jump into nowhere
    /// in an arm64e `.ips` report is named by its lr as in its `.crash` twin.
    func testSignedLinkRegisterIsStrippedPastAPlaceholder() throws {
        let plain = text(frames: [(nil, 0x283a4c120, nil)], lr: 0x2d4f_0000_0000_0000 | (app + 0x1234), pc: 0x283a4c120, fault: 0x283a4c120)
        let placeholder = "0x0 - 0xffffffffffffffff ??? (*) <00000000-0000-0000-0000-000000000000> ???\n"
        let withPlaceholder = plain.replacingOccurrences(of: "Binary Images:\n", with: "Binary Images:\n" + placeholder)
        XCTAssertNotEqual(plain, withPlaceholder)
        XCTAssertEqual(try signature(plain).frames, ["App+0x1234"])
        XCTAssertEqual(try signature(withPlaceholder).frames, ["App+0x1234"])
    }

    /// Frames of the simulator's runtime are system frames, not the app's.
    func testSimulatorRuntimeFramesAreSystemFrames() throws {
        XCTAssertTrue(SignatureRules.isSimulatorRuntime("/Applications/Xcode.app/Contents/Developer/Platforms/iPhoneOS.platform/Library/Developer/CoreSimulator/Profiles/Runtimes/iOS.simruntime/Contents/Resources/RuntimeRoot/System/Library/PrivateFrameworks/UIKitCore.framework/UIKitCore"))
        XCTAssertTrue(SignatureRules.isSimulatorRuntime("/Library/Developer/CoreSimulator/Volumes/iOS_21A328/Library/Developer/CoreSimulator/Profiles/Runtimes/iOS 17.0.simruntime/Contents/Resources/RuntimeRoot/usr/lib/libobjc.A.dylib"))
        XCTAssertTrue(SignatureRules.isSimulatorRuntime("/Applications/Xcode-beta.app/Contents/Developer/Platforms/iPhoneSimulator.platform/Developer/Library/Frameworks/XCTest.framework/XCTest"))
        XCTAssertFalse(SignatureRules.isSimulatorRuntime("/Users/me/Library/Developer/CoreSimulator/Devices/0C3E/data/Containers/Bundle/Application/9A1F/App.app/App"))
        XCTAssertFalse(SignatureRules.isSimulatorRuntime("/private/var/containers/Bundle/Application/X/App.app/App"))

        let uikit = "/Applications/Xcode.app/Contents/Developer/Platforms/iPhoneOS.platform/Library/Developer/CoreSimulator/Profiles/Runtimes/iOS.simruntime/Contents/Resources/RuntimeRoot/System/Library/PrivateFrameworks/UIKitCore.framework/UIKitCore"
        let sim = try signature(text(frames: [("UIKitCore", 0x1a8f06100, "-[UIApplication _run] + 10"), ("UIKitCore", 0x1a8f06200, "UIApplicationMain + 4"),
                                              ("App", app + 0x300, nil)], lr: 0, pc: 0x1a8f06100, extraImages: [("UIKitCore", 0x1a8f06000, uikit)]))
        XCTAssertEqual(sim.frames, ["App+0x300"])
    }

    // MARK: Helpers

    private func signature(_ text: String, namer: DestroyedStack.Namer? = nil) throws -> CrashSignature {
        let report = try ReportParser.parse(Array(text.utf8), path: "r.crash")
        return SignatureReader.read(SymbolicatedReport(report: report), namer: namer).signature
    }

    /// A classic iOS report whose thread 0 crashed with `frames` (image nil: `???`) and the
    /// given registers.
    private func text(frames: [(String?, UInt64, String?)], exception: String = "EXC_BAD_ACCESS (SIGSEGV)", lr: UInt64, pc: UInt64,
                      fault: UInt64? = nil, extraImages: [(String, UInt64, String)] = []) -> String {
        var lines = ["Process:             App [1234]", "Path:                /private/var/containers/Bundle/Application/X/App.app/App",
                     "Version:             1 (1.0)", "Code Type:           ARM-64 (Native)",
                     "Date/Time:           2021-03-14 09:26:53.5312 +0100", "", "Exception Type:  \(exception)"]
        if let fault { lines.append("Exception Subtype: KERN_INVALID_ADDRESS at 0x" + String(format: "%016llx", fault)) }
        lines += ["Termination Reason: Namespace SIGNAL, Code 0xb", "Triggered by Thread:  0", "", "Thread 0 Crashed:"]
        for (i, (image, address, rest)) in frames.enumerated() {
            let name = (image ?? "???").padding(toLength: 36, withPad: " ", startingAt: 0)
            lines.append("\(i)   " + name + "0x" + String(format: "%016llx", address) + " " + (rest ?? (image == nil ? "0x0 + 0" : "0x\(String(app, radix: 16)) + \(address - app)")))
        }
        lines += ["", "Thread 0 crashed with ARM Thread State (64-bit):",
                  "    fp: 0x000000016b3d2f60    lr: 0x" + String(format: "%016llx", lr),
                  "    sp: 0x000000016b3d2f10    pc: 0x" + String(format: "%016llx", pc) + " cpsr: 0x60000000", "", "Binary Images:"]
        for (name, start, path) in [("App", app, "/private/var/containers/Bundle/Application/X/App.app/App"),
                                    ("libsystem_kernel.dylib", 0x1c0a8b000, "/usr/lib/system/libsystem_kernel.dylib"),
                                    ("libsystem_c.dylib", 0x1a7e59000, "/usr/lib/system/libsystem_c.dylib")] + extraImages {
            lines.append("0x\(String(start, radix: 16)) - 0x\(String(start + 0xffff, radix: 16)) \(name) arm64  <\(String(repeating: "ab", count: 16))> \(path)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
