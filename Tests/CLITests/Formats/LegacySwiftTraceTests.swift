import Foundation
import TestSupport
import XCTest

/// The Swift runtime's "Current stack trace:" (Swift before 5.9, and later ones with
/// `SWIFT_BACKTRACE=enable=no`): `N  MODULE  0xADDR <unavailable> + OFFSET`, the offset from
/// the module's base. `Fixtures/src/linux/swift_crash.swift` is built and crashed; every frame
/// of the program must resolve as llvm-symbolizer resolves its call site (the frames are
/// return addresses), whole inline chain.
final class LegacySwiftTraceTests: XCTestCase {
    func testCurrentStackTraceAgreesWithLLVMSymbolizer() throws {
        let swiftc = "/opt/swift/usr/bin/swiftc"
        guard FileManager.default.isExecutableFile(atPath: swiftc) else { throw XCTSkip("no Swift compiler at \(swiftc)") }
        let dir = try makeTemporaryDirectory("legacy-swift")
        defer { try? FileManager.default.removeItem(at: dir) }
        let program = dir.appendingPathComponent("inventory").path
        let source = LinuxToolchain.sources.appendingPathComponent("swift_crash.swift").path
        let build = try runProcess(swiftc, ["-g", "-Onone", "-o", program, source])
        XCTAssertEqual(build.status, 0, build.stderrText)
        let log = try LinuxToolchain.crashLog(program, [], environment: ["SWIFT_BACKTRACE": "enable=no"], label: "swift")
        XCTAssertTrue(log.contains("Current stack trace:"), log)
        let logPath = dir.appendingPathComponent("crash.log").path
        try log.write(toFile: logPath, atomically: true, encoding: .utf8)

        let arguments = ["--no-demangle", "-d", program, logPath]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        let output = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var cursor = 0
        var compared = 0
        for line in log.split(separator: "\n").map(String.init) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard fields.count == 6, fields[1] == "inventory", fields[3] == "<unavailable>", let offset = UInt64(fields[5])
            else { continue }
            let expected = try LLVMSymbolizer.frames(object: program, address: offset - 1)
            XCTAssertFalse(expected.isEmpty)
            let prefix = String(line[..<line.range(of: " <unavailable>")!.lowerBound])
            let rendered = expected.map { frame in prefix + " " + frame.sanitizerText }
            while cursor < output.count && !output[cursor].hasPrefix(prefix) { cursor += 1 }
            let got = Array(output[cursor..<min(cursor + rendered.count, output.count)])
            XCTAssertEqual(got, rendered, "offset \(offset)\n" + result.summary(arguments))
            cursor += rendered.count
            compared += 1
        }
        XCTAssertGreaterThanOrEqual(compared, 3, "frames of the program in the log:\n\(log)")
    }
}
