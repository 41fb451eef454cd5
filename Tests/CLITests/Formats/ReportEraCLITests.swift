import Foundation
import TestSupport
import XCTest

/// Real reports' classes, end to end on the fixture report: a resource report's attributed
/// thread, a watchdog frame without an address, frames another tool named, a text body under
/// an `.ips` metadata line, and reports that cannot be parsed or hold no frame.
///
/// The oracle of each variant is the plain fixture report's output (checked against
/// llvm-symbolizer by `TextOutputTests`): the same address in the same role comes out the same.
final class ReportEraCLITests: XCTestCase {
    private typealias OutputFrame = ReportVariantTests.OutputFrame

    private func plain() throws -> (text: String, output: String, debug: String) {
        let debug = try Fixtures.path("macho")
        let path = try Fixtures.path("reports/App-arm64.crash")
        let result = try CLI.run(["-d", debug, path])
        XCTAssertEqual(result.status, .success, result.summary(["-d", debug, path]))
        return (try String(contentsOfFile: path, encoding: .utf8), result.stdoutText, debug)
    }

    private func write(_ text: String, named name: String) throws -> String {
        let path = try makeTemporaryDirectory("eras").appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func jsonThreads(_ data: Data) throws -> [[String: Any]] {
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let reports = try XCTUnwrap(document["reports"] as? [[String: Any]])
        return try XCTUnwrap(reports.first?["threads"] as? [[String: Any]])
    }

    /// `Thread 1 Attributed:` named by `Triggered by Thread:` is the crashed thread, and its
    /// frames resolve as the same thread's frames do in the plain report.
    func testAttributedThreadIsResolvedAndCrashed() throws {
        let plain = try plain()
        let variant = plain.text
            .replacingOccurrences(of: "Triggered by Thread:  0", with: "Triggered by Thread:  1")
            .replacingOccurrences(of: "Thread 0 Crashed:\n", with: "Thread 0:\n")
            .replacingOccurrences(of: "Thread 1:\n", with: "Thread 1 Attributed:\n")
        let path = try write(variant, named: "resource.crash")
        let text = try CLI.run(["-d", plain.debug, path])
        XCTAssertEqual(text.status, .success, text.summary([path]))
        let expected = ReportVariantTests.frames(in: plain.output, after: "Thread 1:")
        XCTAssertGreaterThan(expected.filter { $0.image == "App" }.count, 3)
        XCTAssertEqual(ReportVariantTests.frames(in: text.stdoutText, after: "Thread 1 Attributed:"), expected)

        let json = try CLI.run(["--format", "json", "-d", plain.debug, path])
        let threads = try jsonThreads(json.stdout)
        XCTAssertEqual(threads.compactMap { $0["index"] as? Int }, [0, 1, 2, 3, 4])
        XCTAssertEqual(threads.compactMap { $0["crashed"] as? Bool }, [false, true, false, false, false])
    }

    /// A watchdog frame `???  000000000000000000 0 + 0` is kept as it is, and the frames after
    /// it in its thread are frames, resolved.
    func testWatchdogFrameWithoutAddressKeepsItsThread() throws {
        let plain = try plain()
        let frame = "0   ???                                 000000000000000000 0 + 0\n"
        let variant = plain.text.replacingOccurrences(
            of: "Thread 2:\n0   libsystem_kernel.dylib              0x00000001c0aa83f8 write + 8\n",
            with: "Thread 2:\n" + frame)
        XCTAssertNotEqual(variant, plain.text)
        let path = try write(variant, named: "watchdog.crash")
        let result = try CLI.run(["-d", plain.debug, path])
        XCTAssertEqual(result.status, .success, result.summary([path]))
        XCTAssert(result.stdoutText.contains("Thread 2:\n" + frame), "the frame is kept as it is")
        let expected = ReportVariantTests.frames(in: plain.output, after: "Thread 2:").filter { $0.number > 0 }
        XCTAssertEqual(ReportVariantTests.frames(in: result.stdoutText, after: "Thread 2:"), expected)

        let json = try CLI.run(["--format", "json", "-d", plain.debug, path])
        let thread = try XCTUnwrap(try jsonThreads(json.stdout).first { $0["index"] as? Int == 2 })
        let frames = try XCTUnwrap(thread["frames"] as? [[String: Any]])
        XCTAssertEqual(frames.first?["image"] as? String, "???")
        XCTAssertEqual(frames.first?["address"] as? String, "0x0")
        XCTAssert(frames.contains { $0["symbol"] as? String == "greeter_emit" }, "\(frames)")
    }

    /// `_mh_execute_header + N`, `<UUID> + N` and atos's `name (in Image) + N` are resolved as
    /// the `0xLOAD + N` frames they replace — with or without the Binary Images list.
    func testPartlySymbolicatedFramesAreResolvedAgain() throws {
        let plain = try plain()
        let replacements = [
            ("0x0000000104a34344 0x104a30000 + 17220", "0x0000000104a34344 _mh_execute_header + 17220"),
            ("0x0000000104a340b8 0x104a30000 + 16568", "0x0000000104a340b8 <\(try Fixtures.uuid("App-arm64", arch: "arm64"))> + 16568"),
            ("0x0000000104a343b8 0x104a30000 + 17336", "0x0000000104a343b8 process_one (in App) + 8"),
        ]
        var variant = plain.text
        for (from, to) in replacements {
            XCTAssert(variant.contains(from))
            variant = variant.replacingOccurrences(of: from, with: to)
        }
        let path = try write(variant, named: "named.crash")
        let result = try CLI.run(["-d", plain.debug, path])
        XCTAssertEqual(result.status, .success, result.summary([path]))
        XCTAssertEqual(result.stdoutText, plain.output, "each frame resolves as the unsymbolicated one did")

        // Cut before its Binary Images: the frame named by its UUID still resolves.
        let cut = String(variant[..<variant.range(of: "Binary Images:")!.lowerBound])
        let cutPath = try write(cut, named: "cut.crash")
        let cutResult = try CLI.run(["-d", plain.debug, cutPath])
        let expected = ReportVariantTests.frames(in: plain.output, after: "Thread 0 Crashed:").filter { $0.number == 2 }
        let frames = ReportVariantTests.frames(in: cutResult.stdoutText, after: "Thread 0 Crashed:").filter { $0.number == 2 }
        XCTAssertEqual(frames.map(\.rest), expected.map(\.rest), cutResult.summary([cutPath]))
    }

    /// An `.ips` metadata line (bug_type 309) over a classic text body is a classic report.
    func testMetadataLineOverATextBody() throws {
        let plain = try plain()
        let metadata = #"{"app_name":"App","bug_type":"309","os_version":"iPhone OS 14.4 (18D52)"}"# + "\n"
        let path = try write(metadata + plain.text, named: "text-body.ips")
        let result = try CLI.run(["-d", plain.debug, path])
        XCTAssertEqual(result.status, .success, result.summary([path]))
        XCTAssertEqual(result.stdoutText, metadata + plain.output)
    }

    /// A report that cannot be parsed is said in one line and written byte for byte; JSON
    /// gives it an entry with the error; frame lines have nothing for it; exit status 1.
    func testAReportThatCannotBeParsedIsWrittenAsItCame() throws {
        let plain = try plain()
        let broken = #"{"app_name":"App","bug_type":"309"}"# + "\n{\n  \"threads\" : [{\"frames\" : [\n"
        let path = try write(broken, named: "broken.ips")
        let text = try CLI.run([path])
        XCTAssertEqual(text.status, .reportFailed, text.summary([path]))
        XCTAssertEqual(text.stdoutText, broken)
        XCTAssertEqual(text.stderrLines.count, 1, text.summary([path]))
        XCTAssert(text.stderrText.contains("\(path): not a valid .ips report:"), text.stderrText)

        let json = try CLI.run(["--format", "json", path])
        XCTAssertEqual(json.status, .reportFailed, json.summary([path]))
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        let entry = try XCTUnwrap((document["reports"] as? [[String: Any]])?.first)
        XCTAssertEqual(entry["path"] as? String, path)
        XCTAssert((entry["error"] as? String)?.hasPrefix("not a valid .ips report:") == true, "\(entry)")
        XCTAssertEqual((entry["threads"] as? [Any])?.count, 0)

        let frames = try CLI.run(["--format", "frames", path])
        XCTAssertEqual(frames.status, .reportFailed)
        XCTAssertEqual(frames.stdoutText, "")
        XCTAssertEqual(frames.stderrLines.count, 1, frames.summary([path]))

        // Among others, and into a folder: nothing is lost.
        let report = try Fixtures.path("reports/App-arm64.crash")
        let both = try CLI.run(["-q", "-d", plain.debug, path, report])
        XCTAssertEqual(both.stdoutText, "==> \(path) <==\n" + broken + "\n==> \(report) <==\n" + plain.output)
        let folder = try makeTemporaryDirectory("eras-out").appendingPathComponent("out").path
        let out = try CLI.run(["-q", "-o", folder, path])
        XCTAssertEqual(out.status, .reportFailed, out.summary([path]))
        XCTAssertEqual(try String(contentsOfFile: folder + "/broken.ips", encoding: .utf8), broken)
    }

    /// A report in which no frame is found says so in one line, and is written as it is.
    func testAReportWithoutFramesSaysSo() throws {
        let text = "Incident Identifier: 1F4C2A7B-5D3E-4C8A-9B0F-2E6D7A1C3B5F\nProcess: Sample [812]\n\nThe backtrace was not kept.\n"
        let path = try write(text, named: "empty-threads.crash")
        let result = try CLI.run([path])
        XCTAssertEqual(result.stdoutText, text)
        XCTAssertEqual(result.stderrLines, ["symbolicate: \(path): no backtrace found (no frame line in any thread); the report is written as it is"])
    }
}
