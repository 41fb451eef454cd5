import Foundation
import TestSupport
import XCTest

/// The shared corpus: real reports none of whose images has a debug file, so every byte must
/// come back as it was, with or without the corpus's own debug files.
final class CorpusTests: XCTestCase {
    static func reports(_ corpus: URL) throws -> [String] {
        let dir = corpus.appendingPathComponent("reports")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".txt") }.sorted()
        XCTAssertFalse(names.isEmpty, "no reports in \(dir.path)")
        return names.map { dir.appendingPathComponent($0).path }
    }

    private func corpus() throws -> URL {
        guard let corpus = TestPaths.corpus else { throw XCTSkip(TestPaths.corpusAbsent) }
        return corpus
    }

    /// Where two byte strings first differ, for messages.
    static func firstDifference(_ a: Data, _ b: Data) -> String {
        let x = [UInt8](a), y = [UInt8](b)
        let common = zip(x, y).prefix(while: { $0 == $1 }).count
        let lineNumber = x[..<common].filter { $0 == 0x0A }.count + 1
        func around(_ bytes: [UInt8]) -> String {
            let start = max(0, common - 40)
            let end = min(bytes.count, common + 40)
            return String(decoding: bytes[start..<end], as: UTF8.self).debugDescription
        }
        return "first difference at byte \(common) (line \(lineNumber)) of \(x.count) vs \(y.count) bytes:\n  expected: \(around(x))\n  output:   \(around(y))"
    }

    func testEveryCorpusReportComesBackByteForByte() throws {
        let corpus = try corpus()
        let debug = corpus.appendingPathComponent("debug").path
        for path in try Self.reports(corpus) {
            let input = try Data(contentsOf: URL(fileURLWithPath: path))
            for arguments in [[path], ["-d", debug, path], ["-d", debug, "--full-path", path]] {
                let result = try CLI.run(arguments)
                XCTAssertEqual(result.status, .success, result.summary(arguments))
                // A report cut before its threads (xcode16.txt) is said to have no backtrace.
                let text = String(decoding: input, as: UTF8.self)
                let hasFrames = text.range(of: #"(?m)^[0-9]+[ \t]+\S.*0x[0-9a-fA-F]+"#, options: .regularExpression) != nil
                let expected = hasFrames ? [] : ["symbolicate: \(path): no backtrace found (no frame line in any thread); the report is written as it is"]
                XCTAssertEqual(result.problemLines, expected, "warnings from \(CLI.describe(arguments))")
                // No debug file matches these apps: each app image with frames is named once.
                let notes = result.stderrLines.filter { $0.contains(": no debug file for ") }
                XCTAssertEqual(Set(notes).count, notes.count, "each image is named once: \(result.stderrText)")
                XCTAssert(notes.allSatisfy { $0.hasPrefix("symbolicate: \(path): ") && $0.contains("UUID ") },
                          "the notes name the report and the UUID: \(result.stderrText)")
                if result.stdout != input {
                    XCTFail("\(CLI.describe(arguments)): the output should be the input byte for byte; "
                            + Self.firstDifference(input, result.stdout))
                }
            }
        }
    }

    func testCorpusReportsFromStandardInput() throws {
        let corpus = try corpus()
        let debug = corpus.appendingPathComponent("debug").path
        for path in try Self.reports(corpus) {
            let input = try Data(contentsOf: URL(fileURLWithPath: path))
            let result = try CLI.run(["-d", debug], input: input)
            XCTAssertEqual(result.status, .success, result.summary(["-d", debug, "<", path]))
            if result.stdout != input {
                XCTFail("symbolicate -d \(debug) < \(path): " + Self.firstDifference(input, result.stdout))
            }
        }
    }

    func testSeveralCorpusReportsGetHeaders() throws {
        let corpus = try corpus()
        let paths = try Self.reports(corpus)
        var expected = Data()
        for (k, path) in paths.enumerated() {
            if k > 0 { expected.append(0x0A) }
            expected.append(Data("==> \(path) <==\n".utf8))
            expected.append(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        for arguments in [paths, ["-d", corpus.appendingPathComponent("debug").path] + paths] {
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, .success, result.summary(arguments))
            let headers = result.stdoutText.components(separatedBy: "\n").filter { $0.hasPrefix("==> ") }
            XCTAssertEqual(headers, paths.map { "==> \($0) <==" }, "one header per report, in order: \(CLI.describe(arguments))")
            if result.stdout != expected {
                XCTFail("\(CLI.describe(arguments)): each report byte for byte after its `==> path <==` line, "
                        + "a blank line between reports; " + Self.firstDifference(expected, result.stdout))
            }
        }
    }
}
