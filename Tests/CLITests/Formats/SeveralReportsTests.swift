import Foundation
import TestSupport
import XCTest

/// Files that hold several reports one after another (`cat *.crash > all.crash`, a crash
/// server's export): each report comes out as it does alone, in every output, whatever the
/// reports before it. The oracle is the tool itself on each report in a file of its own, whose
/// symbolication the format tests check against llvm-symbolizer.
final class SeveralReportsTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try makeTemporaryDirectory("several-reports")
    }

    override func tearDownWithError() throws {
        if let root { try? FileManager.default.removeItem(at: root) }
    }

    /// The fixture report with its app loaded 0x1000 bytes higher, its frames with it: another
    /// launch of the same app, whose frames lie in the first launch's range of the app.
    private func relaunched(_ text: String) -> String {
        let pattern = try! NSRegularExpression(pattern: "0x0*104a3[0-7][0-9a-f]{3}\\b")
        var result = text
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed() {
            let range = Range(match.range, in: text)!
            let digits = text[range].dropFirst(2)
            let moved = String(UInt64(digits, radix: 16)! + 0x1000, radix: 16)
            let padded = String(repeating: "0", count: max(0, digits.count - moved.count)) + moved
            result.replaceSubrange(Range(match.range, in: result)!, with: "0x" + padded)
        }
        return result.replacingOccurrences(of: "7C1E6A52-93B4-4E0F-8D2A-5F6B1C9D3E47", with: "1B2C3D4E-93B4-4E0F-8D2A-5F6B1C9D3E47")
    }

    /// The reports, each in a file of its own, and the file of all of them one after another:
    /// two launches of the app, its `.ips` twin, the x86_64 report, a real report of the corpus
    /// when present; the last followed by text that is no report (which goes with it).
    private func reports() throws -> (parts: [String], all: String) {
        let crash = try String(contentsOfFile: try Fixtures.path("reports/App-arm64.crash"), encoding: .utf8)
        var texts = [crash, relaunched(crash), try String(contentsOfFile: try Fixtures.path("ips/App-arm64.ips"), encoding: .utf8),
                     try String(contentsOfFile: try Fixtures.path("reports/App-x86_64.crash"), encoding: .utf8)]
        if let corpus = TestPaths.corpus,
           let bruno = try? String(contentsOfFile: corpus.appendingPathComponent("reports/bruno.txt").path, encoding: .utf8) {
            texts.append(bruno)
        } else {
            print("\(TestPaths.corpusAbsent): the corpus report is left out")
        }
        texts[texts.count - 1] += "\n-- exported by the crash server --\n"
        var parts: [String] = []
        for (k, text) in texts.enumerated() {
            let text = text.hasSuffix("\n") ? text : text + "\n"
            let path = root.appendingPathComponent("part\(k).crash").path
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            parts.append(path)
        }
        let all = root.appendingPathComponent("all.crash").path
        try parts.map { try String(contentsOfFile: $0, encoding: .utf8) }.joined()
            .write(toFile: all, atomically: false, encoding: .utf8)
        return (parts, all)
    }

    /// Text and frame lines to standard output: the file's output is its reports' outputs one
    /// after another (frame lines name the file, not the part).
    func testEachReportOfAFileComesOutAsItDoesAlone() throws {
        let debug = try Fixtures.root().path
        let (parts, all) = try reports()
        for format in ["text", "frames"] {
            let whole = try CLI.run(["-q", "-d", debug, "--format", format, all])
            var expected = ""
            for part in parts {
                let alone = try CLI.run(["-q", "-d", debug, "--format", format, part])
                expected += alone.stdoutText.replacingOccurrences(of: part, with: all)
            }
            XCTAssertEqual(whole.stdoutText, expected, "--format \(format)")
            XCTAssertEqual(whole.status, .success, whole.stderrText)
        }
        // The second launch's frames are its own app's, resolved as when alone (and as the
        // first launch's and the `.ips` twin's).
        let text = try CLI.run(["-q", "-d", debug, all]).stdoutText
        XCTAssertEqual(text.components(separatedBy: "parse_record + 28 (parser.c:27)").count - 1, 3, text)
    }

    /// A large file (4 MiB and more) has its reports read on every core and written in order:
    /// the same output as one at a time, and as each report alone, to standard output and to
    /// a folder.
    func testTheReportsOfALargeFileComeOutInOrder() throws {
        let debug = try Fixtures.root().path
        let (parts, _) = try reports()
        var texts = try parts.map { try String(contentsOfFile: $0, encoding: .utf8) }
        // Reports of their own: each one's header apart, so that no two are alike.
        var whole = ""
        var k = 0
        while whole.utf8.count < 5 << 20 {
            whole += texts[k % texts.count].replacingOccurrences(of: "Hardware Model:", with: "Hardware Model:  \(k)")
            k += 1
        }
        texts = []
        let big = root.appendingPathComponent("big.crash").path
        try whole.write(toFile: big, atomically: false, encoding: .utf8)
        let parallel = try CLI.run(["-q", "-j", "2", "-d", debug, big])
        let serial = try CLI.run(["-q", "-j", "1", "-d", debug, big])
        XCTAssertEqual(parallel.stdout, serial.stdout)
        XCTAssertGreaterThan(parallel.stdout.count, 5 << 20)
        let out = root.appendingPathComponent("out").path
        _ = try CLI.run(["-q", "-j", "2", "-d", debug, "-o", out, big])
        let serialOut = root.appendingPathComponent("serial").path
        _ = try CLI.run(["-q", "-j", "1", "-d", debug, "-o", serialOut, big])
        XCTAssertEqual(FileManager.default.contents(atPath: out + "/big.crash"),
                       FileManager.default.contents(atPath: serialOut + "/big.crash"))
        // The first report, as alone.
        let first = try CLI.run(["-q", "-d", debug, parts[0]]).stdoutText
        XCTAssertTrue(parallel.stdoutText.hasPrefix(first.replacingOccurrences(of: "Hardware Model:", with: "Hardware Model:  0")),
                      "the first report")
    }

    /// Written to a folder with -o: one file, the reports' files one after another (the
    /// `.ips` report stays `.ips`).
    func testAFileOfSeveralReportsIsWrittenToOneFile() throws {
        let debug = try Fixtures.root().path
        let (parts, all) = try reports()
        let out = root.appendingPathComponent("out").path
        _ = try CLI.run(["-q", "-d", debug, "-o", out, all] + parts)
        let whole = try String(contentsOfFile: out + "/all.crash", encoding: .utf8)
        let expected = try parts.map { try String(contentsOfFile: out + "/" + URL(fileURLWithPath: $0).lastPathComponent, encoding: .utf8) }
        XCTAssertEqual(whole, expected.joined())
        // Replaced in place: the same file.
        let copy = root.appendingPathComponent("copy.crash").path
        try FileManager.default.copyItem(atPath: all, toPath: copy)
        _ = try CLI.run(["-q", "-d", debug, "--in-place", copy])
        XCTAssertEqual(try String(contentsOfFile: copy, encoding: .utf8), whole)
    }

    /// The summary (printed for more than one input) counts the file's reports.
    func testTheSummaryCountsEachReport() throws {
        let debug = try Fixtures.root().path
        let (parts, all) = try reports()
        let result = try CLI.run(["-d", debug, all, parts[0]])
        XCTAssertTrue(result.stderrText.contains("symbolicate: \(parts.count + 1) reports, "), result.stderrText)
    }

    /// JSON: one entry for each report, the same as its entry alone but for the path.
    func testEachReportOfAFileIsAJSONEntry() throws {
        let debug = try Fixtures.root().path
        let (parts, all) = try reports()
        func entries(_ arguments: [String]) throws -> [[String: Any]] {
            let result = try CLI.run(["-q", "-d", debug, "--format", "json"] + arguments)
            let document = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
            return try XCTUnwrap(document?["reports"] as? [[String: Any]], result.stderrText)
        }
        let whole = try entries([all])
        XCTAssertEqual(whole.count, parts.count)
        for (k, part) in parts.enumerated() where k < whole.count {
            var alone = try XCTUnwrap(try entries([part]).first)
            var mine = whole[k]
            alone["path"] = nil
            mine["path"] = nil
            XCTAssertEqual(NSDictionary(dictionary: mine), NSDictionary(dictionary: alone), part)
        }
    }

    /// `group` counts each report of the file, as it would each file.
    func testGroupCountsEachReportOfAFile() throws {
        let debug = try Fixtures.root().path
        let (parts, all) = try reports()
        let whole = try CLI.run(["group", "-q", "-d", debug, all]).stdoutText
        let separate = try CLI.run(["group", "-q", "-d", debug] + parts).stdoutText
        XCTAssertTrue(whole.contains(" in \(parts.count) reports\n"), whole)
        XCTAssertEqual(whole.components(separatedBy: "\n").first, separate.components(separatedBy: "\n").first)
    }

    /// A file of more reports than it is read as (200,000 empty `.ips` reports of 22 bytes, as
    /// one made to be): the reports past the bound are written as they are, with one line
    /// saying so, in memory of the file's size; before, all but the first were dropped.
    func testTheRestOfAFileOfTooManyReportsIsWrittenAsItIs() throws {
        let one = "{\"bug_type\":\"309\"}\n{}\n"
        let count = 200_000
        let file = root.appendingPathComponent("many.ips").path
        try String(repeating: one, count: count).write(toFile: file, atomically: false, encoding: .utf8)
        let result = try CLI.run([file])
        XCTAssertEqual(result.status, .reportFailed)
        let read = 65_535
        let rest = String(repeating: one, count: count - read)
        XCTAssertTrue(result.stdoutText.hasSuffix("\n" + rest), "\(result.stdout.count) bytes written")
        XCTAssertTrue(result.stderrText.contains("many.ips: holds more than \(read) reports, 512 bytes or less each on "
                                                 + "average: the rest, \(rest.utf8.count) bytes from byte "
                                                 + "\(read * one.utf8.count), is not read; the report is written as it is"),
                      result.stderrText)
    }

    /// Every classic and `.ips` report of the fixtures (the group fixtures' every kind too) and
    /// of the corpus, copied into files in random orders (a fixed seed), two to six a file, with
    /// and without blank lines between: each file's text and frame lines are its reports' own.
    func testRandomFilesOfTheFixturesReportsComeOutAsEachAlone() throws {
        let fixtures = try Fixtures.root()
        var names: [String] = []
        for folder in ["reports", "ips", "group"] {
            let directory = fixtures.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            where name.hasSuffix(".crash") || name.hasSuffix(".ips") {
                names.append(directory.appendingPathComponent(name).path)
            }
        }
        if let corpus = TestPaths.corpus {
            let directory = corpus.appendingPathComponent("reports")
            names += try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
                .map { directory.appendingPathComponent($0).path }
        }
        var reports: [[UInt8]] = []
        for name in names {
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: name)))
            let firstLine = String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
            guard ["Incident Identifier:", "Hardware Model:", "Process:"].contains(where: { firstLine.hasPrefix($0) })
                    || (firstLine.hasPrefix("{") && firstLine.contains("\"bug_type\"")) else { continue }
            if bytes.last != 0x0A { bytes.append(0x0A) }
            reports.append(bytes)
        }
        XCTAssertGreaterThan(reports.count, 20)
        var generator = SplitMix64(seed: 36)
        for trial in 0..<8 {
            let count = Int.random(in: 2...6, using: &generator)
            var paths: [String] = []
            var all: [UInt8] = []
            for k in 0..<count {
                var bytes = reports.randomElement(using: &generator)!
                if k < count - 1 { bytes += Array(repeating: 0x0A, count: Int.random(in: 0...2, using: &generator)) }
                let path = root.appendingPathComponent("t\(trial)-\(k).crash").path
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                paths.append(path)
                all += bytes
            }
            let allPath = root.appendingPathComponent("t\(trial).crash").path
            try Data(all).write(to: URL(fileURLWithPath: allPath))
            for format in ["text", "frames"] {
                let whole = try CLI.run(["-q", "-d", fixtures.path, "--format", format, allPath]).stdoutText
                let alone = try paths.map { path in
                    try CLI.run(["-q", "-d", fixtures.path, "--format", format, path]).stdoutText
                        .replacingOccurrences(of: path, with: allPath)
                }
                XCTAssertEqual(whole, alone.joined(), "trial \(trial), --format \(format): \(paths)")
            }
        }
    }
}
