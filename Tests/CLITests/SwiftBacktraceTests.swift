import Foundation
import TestSupport
import XCTest

/// Swift runtime backtraces end to end, with the runtime itself as the oracle: the program of
/// `Fixtures/src/swiftcrash` is compiled (`-g -Onone`, and `-g -O` with every frame pointer
/// kept), crashed with ASLR off in each mode (generics and closures, a second thread, an async
/// task), once with `symbolicate=off` (the input) and once with `symbolicate=full` (what is
/// expected), as text and as JSON. Every frame of the program's image in the runtime's
/// symbolicated log — name and offset, file, line, column, inlined or not, in order — must
/// be in `symbolicate -d PROGRAM` of the unsymbolicated one.
///
/// Frames the runtime and the DWARF disagree on are left out of the comparison: compiler-made
/// frames (`<compiler-generated>`, `Swift runtime failure: ...`), which the runtime names from
/// its own reading of the DWARF and partly skips, while the tool gives all of them, as
/// llvm-symbolizer does.
final class SwiftBacktraceTests: XCTestCase {
    static let swiftc = "/opt/swift/usr/bin/swiftc"

    func testFramesAgreeWithTheRuntimesSymbolication() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.swiftc) else {
            throw XCTSkip("no Swift toolchain at \(Self.swiftc)")
        }
        guard (try? runProcess("/usr/bin/setarch", ["-R", "/bin/true"]).status) == 0 else {
            throw XCTSkip("setarch -R cannot turn address randomization off here")
        }
        let dir = try makeTemporaryDirectory("swift-backtrace")
        defer { try? FileManager.default.removeItem(at: dir) }
        let sources = try FileManager.default.contentsOfDirectory(
            at: TestPaths.packageRoot.appendingPathComponent("Fixtures/src/swiftcrash"), includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" }.map(\.path).sorted()
        var compared = 0
        for (variant, flags) in [("onone", ["-Onone"]), ("o", ["-O", "-Xllvm", "-frame-pointer=all"])] {
            let program = dir.appendingPathComponent("swiftcrash-\(variant)").path
            let build = try runProcess(Self.swiftc, ["-g"] + flags + sources + ["-o", program])
            XCTAssertEqual(build.status, 0, build.stderrText)
            guard build.status == 0 else { continue }
            for mode in ["generic", "thread", "async"] {
                for format in ["text", "json"] {
                    let label = "\(variant) \(mode) \(format)"
                    let name = (program as NSString).lastPathComponent
                    // The backtracer sometimes fails to stop a thread on a busy machine and
                    // writes nothing: such a run is made again.
                    var input = "", expected = ""
                    for _ in 0..<3 where programFrames(expected, image: name, format: format).isEmpty
                        || !input.contains("crash") {
                        input = try crashLog(program, mode, symbolicate: "off", format: format)
                        expected = try crashLog(program, mode, symbolicate: "full", format: format)
                    }
                    let log = dir.appendingPathComponent("\(variant)-\(mode)-\(format).log")
                    try Data(input.utf8).write(to: log)
                    let result = try CLI.run(["-d", program, log.path])
                    XCTAssertEqual(result.status, 0, "\(label): \(result.stderrText)")
                    let want = programFrames(expected, image: name, format: format)
                    let got = programFrames(result.stdoutText, image: name, format: format)
                    XCTAssertFalse(want.isEmpty, "\(label): the runtime named no frame of the program:\n\(expected)")
                    XCTAssertEqual(got, want, "\(label):\n\(result.stdoutText)")
                    if format == "text" { assertKeepsEveryLine(input, in: result.stdoutText, label) }
                    compared += want.count
                }
            }
        }
        print("swift backtraces: \(compared) frames of the program agree with the runtime's own symbolication")
    }

    /// Every input line is in the output, in order: as it was, or (a frame) extended.
    private func assertKeepsEveryLine(_ input: String, in output: String, _ label: String) {
        var remaining = output.split(separator: "\n", omittingEmptySubsequences: false)[...]
        for line in input.split(separator: "\n", omittingEmptySubsequences: false) {
            guard let found = remaining.firstIndex(where: { $0 == line || (!line.isEmpty && $0.hasPrefix(line + " ")) })
            else { return XCTFail("\(label): the line \(line.debugDescription) is not in the output") }
            remaining = remaining[(found + 1)...]
        }
    }

    /// The program's stderr when it crashes in `mode` under the runtime's backtracer.
    private func crashLog(_ program: String, _ mode: String, symbolicate: String, format: String) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=yes,symbolicate=\(symbolicate),format=\(format),interactive=no,color=no"
        let result = try runProcess("/usr/bin/setarch", ["-R", program, mode], environment: environment)
        return result.stderrText + result.stdoutText
    }

    /// One program frame: `NAME [+ OFFSET]`, source location, inlined.
    struct ProgramFrame: Equatable, CustomStringConvertible {
        var name: String
        var location: String
        var inlined: Bool
        var description: String { "\(inlined ? "[inlined] " : "")\(name) at \(location)" }
    }

    /// The frames of image `image` with a Swift source location, in order.
    private func programFrames(_ log: String, image: String, format: String) -> [ProgramFrame] {
        let frames = format == "json" ? jsonFrames(log, image: image) : textFrames(log, image: image)
        return frames.filter { !$0.location.contains("<compiler-generated>") && !$0.name.hasPrefix("Swift runtime failure") }
    }

    private func textFrames(_ log: String, image: String) -> [ProgramFrame] {
        let pattern = try! NSRegularExpression(
            pattern: #"^\s*\d+\s+((?:\[[a-z]+\]\s+)*)0x[0-9a-f]+ (.*) in (\S+) at (.*)$"#)
        return log.split(separator: "\n").compactMap { line in
            let text = String(line)
            guard let match = pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                  let attributes = Range(match.range(at: 1), in: text), let name = Range(match.range(at: 2), in: text),
                  let found = Range(match.range(at: 3), in: text), let location = Range(match.range(at: 4), in: text),
                  text[found] == image else { return nil }
            return ProgramFrame(name: String(text[name]), location: String(text[location]),
                                inlined: text[attributes].contains("[inlined]"))
        }
    }

    private func jsonFrames(_ log: String, image: String) -> [ProgramFrame] {
        guard let line = log.split(separator: "\n").first(where: { $0.hasPrefix("{") && $0.contains("crashReport") }),
              let document = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let threads = document["threads"] as? [[String: Any]] else { return [] }
        return threads.flatMap { thread in
            ((thread["frames"] as? [[String: Any]]) ?? []).compactMap { frame -> ProgramFrame? in
                guard frame["image"] as? String == image, let name = frame["description"] as? String,
                      let location = frame["sourceLocation"] as? [String: Any], let file = location["file"] as? String
                else { return nil }
                return ProgramFrame(name: name, location: "\(file):\(location["line"] ?? 0):\(location["column"] ?? 0)",
                                    inlined: frame["inlined"] as? Bool ?? false)
            }
        }
    }
}
