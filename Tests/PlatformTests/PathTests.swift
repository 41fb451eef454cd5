import Foundation
import Platform
import XCTest

/// `Path` against `NSString`'s path methods, which it stands in for.
final class PathTests: XCTestCase {
    // (Foundation's own deletingLastPathComponent traps on "", so the empty path is checked alone.)
    static let samples = ["/a/b/c", "/a/b/c/", "a/b", "a", "/a", "/", "a/b.ips", "a/.hidden", "a/b.tar.gz",
                          "/x/App.app.dSYM/", "rel/dir/", "./a", "../b/c.crash"]

    func testLastComponentAndParentAsNSStringHasThem() {
        for path in Self.samples {
            XCTAssertEqual(Path.lastComponent(path), (path as NSString).lastPathComponent, path)
            XCTAssertEqual(Path.pathExtension(path), (path as NSString).pathExtension, path)
        }
    }

    /// (Checked by hand: Foundation's own deletingLastPathComponent traps on some inputs.)
    func testDeletingLastComponent() {
        let expected = ["/a/b/c": "/a/b", "/a/b/c/": "/a/b", "a/b": "a", "a": "", "/a": "/", "/": "/",
                        "rel/dir/": "rel", "./a": ".", "../b/c.crash": "../b"]
        for (path, parent) in expected { XCTAssertEqual(Path.deletingLastComponent(path), parent, path) }
    }

    func testEmptyPath() {
        XCTAssertEqual(Path.lastComponent(""), "")
        XCTAssertEqual(Path.deletingLastComponent(""), "")
        XCTAssertEqual(Path.pathExtension(""), "")
    }

    func testJoin() {
        for a in ["/a", "/a/", "a", ""] {
            for b in ["b", "b/c", "/abs"] {
                XCTAssertEqual(Path.join(a, b), b.hasPrefix("/") && !a.isEmpty ? b : (a as NSString).appendingPathComponent(b),
                               "\(a) + \(b)")
            }
        }
    }

    func testSystemServices() throws {
        XCTAssertTrue(System.isDirectory("/"))
        XCTAssertFalse(System.isDirectory("/etc/passwd"))
        XCTAssertEqual(System.environment["PATH"], ProcessInfo.processInfo.environment["PATH"])
        XCTAssertEqual(System.processorCount, ProcessInfo.processInfo.activeProcessorCount)
        XCTAssertEqual(System.currentDirectory, FileManager.default.currentDirectoryPath)
        let root = NSTemporaryDirectory() + "platform-\(UUID().uuidString)"
        try System.createDirectories(root + "/x/y/z")
        XCTAssertTrue(System.isDirectory(root + "/x/y/z"))
        // Files read whole: empty, small, larger than one read, and what cannot be read.
        for size in [0, 1, 4095, 70_000, 300_001] {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            try Data(bytes).write(to: URL(fileURLWithPath: root + "/file"))
            XCTAssertEqual(try System.readFile(root + "/file"), bytes, "\(size) bytes")
        }
        XCTAssertEqual(try System.readFile("/proc/self/stat").isEmpty, false, "a file whose size says 0")
        XCTAssertThrowsError(try System.readFile(root + "/missing")) { XCTAssertEqual(($0 as? SystemError)?.code, ENOENT) }
        XCTAssertThrowsError(try System.readFile(root + "/x")) { XCTAssertEqual(($0 as? SystemError)?.code, EISDIR) }
        try FileManager.default.removeItem(atPath: root)
    }

    func testLockAndConditionHandOver() {
        let condition = Condition()
        let lock = Lock()
        /// Set under the condition's lock; a class so that the waiting closure shares it.
        final class Flag: @unchecked Sendable { var ready = false }
        let flag = Flag()
        var count = 0
        DispatchQueue.concurrentPerform(iterations: 1000) { _ in lock.withLock { count += 1 } }
        XCTAssertEqual(count, 1000)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            condition.lock()
            while !flag.ready { condition.wait() }
            condition.unlock()
        }
        condition.lock()
        flag.ready = true
        condition.broadcast()
        condition.unlock()
        // A hang detector only: the wait ends as soon as the waiter is woken.
        XCTAssertEqual(group.wait(timeout: .now() + 120), .success)
    }
}
