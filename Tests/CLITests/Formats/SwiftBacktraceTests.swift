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
                    // Two runs of one program with ASLR off crash alike: the crashed thread's raw
                    // frames are the same in both. The other threads are not: how many worker
                    // threads the async task's executor has started, in which order they are
                    // listed, where each is caught, and whether the backtracer could stop it at
                    // all ("failed to suspend thread") vary from run to run. So the crashed
                    // threads of the two runs are compared, and each other thread of the input
                    // with one of the oracle whose raw frames are the same (when there is one).
                    // The backtracer may fail to write a log on a busy machine: the pair is made
                    // again then.
                    var input = "", expected = ""
                    for _ in 0..<4 {
                        input = try crashLog(program, mode, symbolicate: "off", format: format)
                        expected = try crashLog(program, mode, symbolicate: "full", format: format)
                        if threads(input, format: format).contains(where: \.crashed),
                           threads(expected, format: format).contains(where: \.crashed) { break }
                    }
                    let raw = threads(input, format: format), full = threads(expected, format: format)
                    let pairs = Self.pairThreads(raw, full)
                    XCTAssertEqual(raw.filter(\.crashed).count, 1, "\(label): one crashed thread in the input:\n\(input)")
                    XCTAssertEqual(full.filter(\.crashed).count, 1, "\(label): one crashed thread in the oracle:\n\(expected)")
                    XCTAssertTrue(pairs.contains { raw[$0.input].crashed && full[$0.oracle].crashed },
                                  "\(label): the crashed thread's raw frames differ between two runs:\n\(input)\n\(expected)")
                    let log = dir.appendingPathComponent("\(variant)-\(mode)-\(format).log")
                    try Data(input.utf8).write(to: log)
                    let result = try CLI.run(["-d", program, log.path])
                    XCTAssertEqual(result.status, .success, "\(label): \(result.stderrText)")
                    let want = programFrames(expected, image: name, format: format)
                    let got = programFrames(result.stdoutText, image: name, format: format)
                    XCTAssertEqual(got.count, raw.count, "\(label): every thread of the log is written")
                    let wanted = pairs.filter { $0.oracle < want.count }.flatMap { want[$0.oracle] }
                    let gotten = pairs.filter { $0.oracle < want.count }.flatMap { $0.input < got.count ? got[$0.input] : [] }
                    XCTAssertFalse(wanted.isEmpty, "\(label): the runtime named no frame of the program:\n\(expected)")
                    XCTAssertEqual(gotten, wanted, "\(label):\n\(result.stdoutText)")
                    if format == "text" { assertKeepsEveryLine(input, in: result.stdoutText, label) }
                    compared += wanted.count
                }
            }
        }
        print("swift backtraces: \(compared) frames of the program agree with the runtime's own symbolication")
    }

    /// Threads of two runs with the same raw frames, as (index in the input, index in the
    /// oracle), in the input's order: the crashed thread with the crashed thread, each other
    /// thread with the first thread of the oracle not yet taken whose frames are the same.
    static func pairThreads(_ input: [(crashed: Bool, addresses: [String])],
                            _ oracle: [(crashed: Bool, addresses: [String])]) -> [(input: Int, oracle: Int)] {
        var taken = Set<Int>()
        var pairs: [(input: Int, oracle: Int)] = []
        for (i, thread) in input.enumerated() where !thread.addresses.isEmpty {
            guard let j = oracle.indices.first(where: {
                !taken.contains($0) && oracle[$0].crashed == thread.crashed && oracle[$0].addresses == thread.addresses
            }) else { continue }
            taken.insert(j)
            pairs.append((i, j))
        }
        return pairs
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

    /// Per thread, the frames of image `image` with a Swift source location, in order.
    private func programFrames(_ log: String, image: String, format: String) -> [[ProgramFrame]] {
        let threads = format == "json" ? jsonFrames(log, image: image) : textFrames(log, image: image)
        return threads.map { frames in
            frames.filter { !$0.location.contains("<compiler-generated>") && !$0.name.hasPrefix("Swift runtime failure") }
        }
    }

    /// Per thread of a log, whether it crashed and its frames' addresses (an address repeated
    /// by inlined frames once; the frames a log leaves out as `...` are not compared).
    private func threads(_ log: String, format: String) -> [(crashed: Bool, addresses: [String])] {
        var result: [(crashed: Bool, addresses: [String])] = []
        func add(_ address: String) {
            guard !result.isEmpty, result[result.count - 1].addresses.last != address else { return }
            result[result.count - 1].addresses.append(address)
        }
        if format == "json" {
            for thread in jsonThreads(log) {
                result.append((thread["crashed"] as? Bool ?? false, []))
                for case let address? in (thread["frames"] as? [[String: Any]] ?? []).map({ $0["address"] as? String }) { add(address) }
            }
            return result
        }
        let frame = try! NSRegularExpression(pattern: #"^\s*\d+\s+(?:\[[a-z]+\]\s+)*(0x[0-9a-f]+)"#)
        for line in log.split(separator: "\n").map(String.init) {
            if line.hasPrefix("Thread ") {
                result.append((line.hasSuffix(" crashed:"), []))
            } else if let match = frame.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
                      let address = Range(match.range(at: 1), in: line) {
                add(String(line[address]))
            }
        }
        return result
    }

    private func textFrames(_ log: String, image: String) -> [[ProgramFrame]] {
        let pattern = try! NSRegularExpression(
            pattern: #"^\s*\d+\s+((?:\[[a-z]+\]\s+)*)0x[0-9a-f]+ (.*) in (\S+) at (.*)$"#)
        var threads: [[ProgramFrame]] = []
        for line in log.split(separator: "\n") {
            let text = String(line)
            if text.hasPrefix("Thread ") { threads.append([]) }
            guard !threads.isEmpty, let match = pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                  let attributes = Range(match.range(at: 1), in: text), let name = Range(match.range(at: 2), in: text),
                  let found = Range(match.range(at: 3), in: text), let location = Range(match.range(at: 4), in: text),
                  text[found] == image else { continue }
            threads[threads.count - 1].append(ProgramFrame(name: String(text[name]), location: String(text[location]),
                                                           inlined: text[attributes].contains("[inlined]")))
        }
        return threads
    }

    /// The threads of the JSON crash log in `log`.
    private func jsonThreads(_ log: String) -> [[String: Any]] {
        guard let line = log.split(separator: "\n").first(where: { $0.hasPrefix("{") && $0.contains("crashReport") }),
              let document = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return [] }
        return document["threads"] as? [[String: Any]] ?? []
    }

    private func jsonFrames(_ log: String, image: String) -> [[ProgramFrame]] {
        return jsonThreads(log).map { thread in
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
