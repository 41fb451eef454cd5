import CrashReport
import Symbolication
import XCTest

/// `Symbolicator.isAppImage`, the one rule for which images are the app's: the frames set in
/// bold, the images the summary names, the frames crash signatures are made of.
final class AppImageRuleTests: XCTestCase {
    static let process = "/private/var/containers/Bundle/Application/X/App.app/App"

    private func isApp(_ name: String, path: String?, marked: Bool = false, format: ImageFormat = .machO,
                       hasDebugFile: Bool = false) -> Bool {
        let image = BinaryImage(loadAddress: 0x1000, endAddress: 0x1fff, name: name, path: path, isApp: marked,
                                format: format)
        return Symbolicator.isAppImage(image, processPath: Self.process, hasDebugFile: hasDebugFile)
    }

    func testTheReportSaysWhichImagesAreTheApps() {
        XCTAssertTrue(isApp("App", path: Self.process), "the process itself")
        XCTAssertTrue(isApp("libGreeter.dylib", path: "/private/var/containers/Bundle/Application/X/App.app/Frameworks/libGreeter.dylib"))
        XCTAssertTrue(isApp("Tool", path: "/Applications/Tool.app/Contents/MacOS/Tool"))
        XCTAssertTrue(isApp("Helper", path: "/Users/me/Helper", marked: true), "marked + in Binary Images")
        XCTAssertTrue(isApp("prog", path: "/home/me/prog", format: .elf), "a Linux module outside the system's folders")
        XCTAssertFalse(isApp("UIKitCore", path: "/System/Library/PrivateFrameworks/UIKitCore.framework/UIKitCore"))
        XCTAssertFalse(isApp("libc.so.6", path: "/lib/x86_64-linux-gnu/libc.so.6", format: .elf))
        XCTAssertFalse(isApp("Other", path: "/Users/me/Other"), "neither marked nor in an app")
    }

    /// A runtime is the system's wherever it was loaded from, and an image in the system's
    /// folders is, even marked `+` (the process itself excepted).
    func testRuntimesAndSystemFoldersAreNeverTheApps() {
        XCTAssertFalse(isApp("libswiftCore.dylib", path: "/private/var/containers/Bundle/Application/X/App.app/Frameworks/libswiftCore.dylib",
                             marked: true, hasDebugFile: true))
        XCTAssertFalse(isApp("libc.so.6", path: "libc.so.6", format: .elf, hasDebugFile: true), "ThreadSanitizer's bare name")
        XCTAssertFalse(isApp("libssl.dylib", path: "/usr/local/lib/libssl.dylib", marked: true, hasDebugFile: true))
        let tool = BinaryImage(loadAddress: 0, endAddress: 1, name: "tool", path: "/usr/bin/tool")
        XCTAssertTrue(Symbolicator.isAppImage(tool, processPath: "/usr/bin/tool", hasDebugFile: false),
                      "the process, in a system folder")
    }

    /// MetricKit and call-tree reports name images without a path: one resolved with a debug
    /// file given for it is the app's.
    func testAnImageWithoutAPathIsTheAppsWhenADebugFileResolvedIt() {
        XCTAssertTrue(isApp("App", path: nil, hasDebugFile: true))
        XCTAssertFalse(isApp("App", path: nil))
        XCTAssertFalse(isApp("libswiftCore.dylib", path: nil, hasDebugFile: true))
    }
}
