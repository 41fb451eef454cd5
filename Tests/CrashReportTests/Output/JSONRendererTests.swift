import CrashReport
import XCTest

final class JSONRendererTests: XCTestCase {
    static let text = """
        Triggered by Thread:  0

        Last Exception Backtrace:
        (0x104a3c5e0 0x9999)

        Thread 0 Crashed:
        0   App                           \t0x0000000104a3c5e0 0x104a30000 + 50656
        1   App                           \t0x0000000104a3c600 helper + 12
        2   App                           \t0x0000000104a3c620 main + 4 (main.m:16)
        3   App                           \t0x0000000104a3c640 ???

        Thread 1:: Worker "A"
        0   libsystem_kernel.dylib        \t0x18da6eec4 0x18da6b000 + 16068

        Binary Images:
        0x104a30000 - 0x104a3ffff +App arm64  <6B0A6A3F-1BDE-3C4A-9E2D-5F0A1B2C3D4E> /private/var/App.app/App
        0x18da6b000 - 0x18da9ffff libsystem_kernel.dylib arm64e  <d2f1b2c3a4b54c6d8e9f0a1b2c3d4e5f> /usr/lib/system/libsystem_kernel.dylib

        """

    private func json(_ reports: [SymbolicatedReport]) -> (bytes: [UInt8], object: [String: Any]) {
        var out: [UInt8] = []
        JSONRenderer.render(reports, into: &out)
        let object = (try? JSONSerialization.jsonObject(with: Data(out))) as? [String: Any]
        XCTAssertNotNil(object, "not valid JSON: \(String(decoding: out, as: UTF8.self))")
        return (out, object ?? [:])
    }

    private func symbolicated() throws -> SymbolicatedReport {
        let report = try parse(Self.text, path: "/reports/a.crash")
        return SymbolicatedReport(
            report: report,
            frames: [FrameKey(thread: 2, frame: 0): TextRendererTests.inlinedAndConcrete],
            debugFiles: [0: "/dsyms/App.app.dSYM/Contents/Resources/DWARF/App"])
    }

    func testFieldByField() throws {
        let (_, root) = json([try symbolicated()])
        let reports = try XCTUnwrap(root["reports"] as? [[String: Any]])
        XCTAssertEqual(reports.count, 1)
        let report = reports[0]
        XCTAssertEqual(report["path"] as? String, "/reports/a.crash")

        let threads = try XCTUnwrap(report["threads"] as? [[String: Any]])
        XCTAssertEqual(threads.count, 3)

        let backtrace = threads[0]
        XCTAssertTrue(backtrace["index"] is NSNull)
        XCTAssertEqual(backtrace["kind"] as? String, "last_exception_backtrace")
        XCTAssertEqual(backtrace["crashed"] as? Bool, false)
        XCTAssertTrue(backtrace["name"] is NSNull)
        let listed = try XCTUnwrap(backtrace["frames"] as? [[String: Any]])
        XCTAssertEqual(listed.count, 2)
        XCTAssertEqual(listed[0]["index"] as? Int, 0)
        XCTAssertEqual(listed[0]["image"] as? String, "App", "the matched image's name")
        XCTAssertEqual(listed[0]["address"] as? String, "0x104a3c5e0")
        XCTAssertTrue(listed[0]["symbol"] is NSNull)
        XCTAssertEqual(listed[1]["index"] as? Int, 1)
        XCTAssertTrue(listed[1]["image"] is NSNull, "no image contains 0x9999")
        XCTAssertEqual(listed[1]["address"] as? String, "0x9999")

        let crashed = threads[1]
        XCTAssertEqual(crashed["index"] as? Int, 0)
        XCTAssertEqual(crashed["kind"] as? String, "thread")
        XCTAssertEqual(crashed["crashed"] as? Bool, true)
        XCTAssertTrue(crashed["name"] is NSNull)
        let frames = try XCTUnwrap(crashed["frames"] as? [[String: Any]])
        XCTAssertEqual(frames.count, 4)
        XCTAssertEqual(frames[0]["image"] as? String, "App")
        XCTAssertEqual(frames[0]["address"] as? String, "0x104a3c5e0")
        for key in ["symbol", "offset", "file", "line", "column"] {
            XCTAssertTrue(frames[0][key] is NSNull, "unsymbolicated frame: \(key)")
        }
        XCTAssertEqual(frames[0]["inlined"] as? Bool, false)
        XCTAssertEqual(frames[1]["symbol"] as? String, "helper")
        XCTAssertEqual(frames[1]["offset"] as? Int, 12)
        XCTAssertTrue(frames[1]["file"] is NSNull)
        XCTAssertEqual(frames[2]["symbol"] as? String, "main")
        XCTAssertEqual(frames[2]["offset"] as? Int, 4)
        XCTAssertEqual(frames[2]["file"] as? String, "main.m")
        XCTAssertEqual(frames[2]["line"] as? Int, 16)
        XCTAssertTrue(frames[2]["column"] is NSNull)
        XCTAssertEqual(frames[3]["index"] as? Int, 3)
        XCTAssertTrue(frames[3]["symbol"] is NSNull)

        let worker = threads[2]
        XCTAssertEqual(worker["index"] as? Int, 1)
        XCTAssertEqual(worker["crashed"] as? Bool, false)
        XCTAssertEqual(worker["name"] as? String, "Worker \"A\"")
        let resolved = try XCTUnwrap(worker["frames"] as? [[String: Any]])
        XCTAssertEqual(resolved.count, 2, "one entry per source frame")
        XCTAssertEqual(resolved[0]["index"] as? Int, 0)
        XCTAssertEqual(resolved[0]["image"] as? String, "libsystem_kernel.dylib")
        XCTAssertEqual(resolved[0]["address"] as? String, "0x18da6eec4")
        XCTAssertEqual(resolved[0]["symbol"] as? String, "clamp")
        XCTAssertEqual(resolved[0]["offset"] as? Int, 8)
        XCTAssertEqual(resolved[0]["file"] as? String, "/src/include/Math.h")
        XCTAssertEqual(resolved[0]["line"] as? Int, 12)
        XCTAssertEqual(resolved[0]["column"] as? Int, 3)
        XCTAssertEqual(resolved[0]["inlined"] as? Bool, true)
        XCTAssertEqual(resolved[1]["index"] as? Int, 0)
        XCTAssertEqual(resolved[1]["symbol"] as? String, "compute")
        XCTAssertEqual(resolved[1]["file"] as? String, "/src/main.c")
        XCTAssertEqual(resolved[1]["line"] as? Int, 42)
        XCTAssertEqual(resolved[1]["column"] as? Int, 5)
        XCTAssertEqual(resolved[1]["inlined"] as? Bool, false)

        let images = try XCTUnwrap(report["images"] as? [[String: Any]])
        XCTAssertEqual(images.count, 2)
        XCTAssertEqual(images[0]["name"] as? String, "App")
        XCTAssertEqual(images[0]["uuid"] as? String, "6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e")
        XCTAssertEqual(images[0]["arch"] as? String, "arm64")
        XCTAssertEqual(images[0]["load_address"] as? String, "0x104a30000")
        XCTAssertEqual(images[0]["debug_file"] as? String, "/dsyms/App.app.dSYM/Contents/Resources/DWARF/App")
        XCTAssertEqual(images[1]["arch"] as? String, "arm64e")
        XCTAssertTrue(images[1]["debug_file"] is NSNull)
    }

    func testKeyOrderAndLayout() throws {
        let (bytes, _) = json([try symbolicated()])
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("{\"reports\":[{\"path\":\"/reports/a.crash\",\"threads\":[{\"index\":null,"))
        XCTAssertTrue(text.contains(
            "{\"index\":1,\"kind\":\"thread\",\"crashed\":false,\"name\":\"Worker \\\"A\\\"\",\"frames\":["
            + "{\"index\":0,\"image\":\"libsystem_kernel.dylib\",\"address\":\"0x18da6eec4\",\"symbol\":\"clamp\","
            + "\"offset\":8,\"file\":\"/src/include/Math.h\",\"line\":12,\"column\":3,\"inlined\":true},"))
        XCTAssertTrue(text.contains(
            "\"images\":[{\"name\":\"App\",\"uuid\":\"6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e\",\"arch\":\"arm64\","
            + "\"load_address\":\"0x104a30000\",\"debug_file\":\"/dsyms/App.app.dSYM/Contents/Resources/DWARF/App\",\"unresolved\":null}"))
        XCTAssertTrue(text.hasSuffix("]}]}\n"))
        XCTAssertEqual(bytes.filter { $0 == 0x0A }.count, 1, "one line")
        XCTAssertFalse(text.contains(" \n"))
    }

    func testSeveralReportsAndNone() throws {
        let (_, root) = json([try symbolicated(), try symbolicated()])
        XCTAssertEqual((root["reports"] as? [Any])?.count, 2)
        var out: [UInt8] = []
        JSONRenderer.render([], into: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "{\"reports\":[]}\n")
    }

    func testStringEscaping() throws {
        let awkward = "a\"b\\c\nd\re\tf\u{01}g\u{1F}h\u{7F}i/é😀"
        var report = try parse(Self.text, path: awkward)
        report.threads[2].name = awkward
        let frames = [FrameKey(thread: 1, frame: 0): [SourceFrame(function: awkward, offset: 1, file: awkward, line: 1)]]
        let (bytes, root) = json([SymbolicatedReport(report: report, frames: frames)])
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertTrue(text.contains("a\\\"b\\\\c\\nd\\re\\tf\\u0001g\\u001fh\\u007fi/é😀"))
        XCTAssertFalse(bytes.dropLast().contains { $0 < 0x20 }, "no raw control characters")

        let parsed = try XCTUnwrap((root["reports"] as? [[String: Any]])?.first)
        XCTAssertEqual(parsed["path"] as? String, awkward)
        let threads = try XCTUnwrap(parsed["threads"] as? [[String: Any]])
        XCTAssertEqual(threads[2]["name"] as? String, awkward)
        let frame = try XCTUnwrap((threads[1]["frames"] as? [[String: Any]])?.first)
        XCTAssertEqual(frame["symbol"] as? String, awkward)
        XCTAssertEqual(frame["file"] as? String, awkward)
    }

    func testLargeNumbers() throws {
        let report = try parse("Thread 0:\n0   X  0xffffffffffffffff 0x0 + 18446744073709551615\n")
        let (bytes, _) = json([SymbolicatedReport(report: report)])
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertTrue(text.contains("\"address\":\"0xffffffffffffffff\""))
        XCTAssertTrue(text.contains("\"index\":0,\"image\":\"X\""))
        let frames = [FrameKey(thread: 0, frame: 0): [SourceFrame(function: "f", offset: .max, line: 0, column: 0)]]
        let (resolved, _) = json([SymbolicatedReport(report: report, frames: frames)])
        XCTAssertTrue(String(decoding: resolved, as: UTF8.self).contains(
            "\"symbol\":\"f\",\"offset\":18446744073709551615,\"file\":null,\"line\":null,\"column\":null"))
    }
}
