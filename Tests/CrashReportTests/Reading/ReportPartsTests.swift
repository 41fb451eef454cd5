import CrashReport
import Foundation
import TestSupport
import XCTest

/// Where the reports of a file that holds several begin (`ReportParts`): each report copied
/// into one file is found whole, and no report of one file is ever cut in two.
final class ReportPartsTests: XCTestCase {
    /// Every report file of the fixtures and of the shared corpus, each with its bytes.
    private func reportFiles() throws -> [(name: String, bytes: [UInt8])] {
        var directories: [URL] = []
        if let fixtures = TestPaths.fixtures {
            for folder in ["reports", "ips", "kscrash", "metrickit", "android", "group"] {
                directories.append(fixtures.appendingPathComponent(folder))
            }
        }
        if let corpus = TestPaths.corpus { directories.append(corpus.appendingPathComponent("reports")) }
        guard !directories.isEmpty else { throw XCTSkip(TestPaths.fixturesAbsent) }
        var files: [(String, [UInt8])] = []
        for directory in directories {
            let names = (try? FileManager.default.subpathsOfDirectory(atPath: directory.path)) ?? []
            for name in names.sorted() where !name.hasSuffix(".tsv") {
                let url = directory.appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                      let data = FileManager.default.contents(atPath: url.path) else { continue }
                files.append((url.path, [UInt8](data)))
            }
        }
        return files
    }

    /// Whether a file starts as the reports `ReportParts` tells apart do: a classic header
    /// line or an `.ips` metadata line.
    private func isSplittable(_ bytes: [UInt8]) -> Bool {
        let firstLine = String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
        return ["Incident Identifier:", "Hardware Model:", "Process:"].contains { firstLine.hasPrefix($0) }
            || (firstLine.hasPrefix("{") && firstLine.contains("\"bug_type\""))
    }

    func testNoReportOfTheFixturesOrTheCorpusIsCutInTwo() throws {
        let files = try reportFiles()
        XCTAssertGreaterThan(files.count, 20)
        for file in files {
            XCTAssertEqual(ReportParts.ranges(in: file.bytes), [0..<file.bytes.count], file.name)
        }
    }

    /// The reports the parsers' tests are written around (every era and producer), alone and
    /// each copied twice into one file: one part alone, and for the kinds told apart, two
    /// parts each whole; the others stay one, as before.
    func testTheParsersReportsAreFoundWholeAloneAndTwice() throws {
        let reports: [(String, String)] = [
            ("classic", ClassicReportParserTests.modern), ("PLCrashReporter text", PLCrashReporterTextTests.report),
            ("CPU resource", ReportEraTests.cpuResource), ("watchdog", ReportEraTests.watchdog),
            (".ips", IPSReportParserTests.report()), ("JSON renderer's", JSONRendererTests.text),
            ("tombstone", TombstoneParserTests.tombstone), ("Swift backtrace", SwiftBacktraceParserTests.textLog),
            ("Swift backtrace JSON", SwiftBacktraceParserTests.jsonLog), ("sanitizer", LinuxLogParserTests.asanLog),
            ("mixed", MixedProducersTests.swiftPart + MixedProducersTests.llvmPart + MixedProducersTests.glibcPart),
        ]
        for (name, text) in reports {
            let one = Array((text.hasSuffix("\n") ? text : text + "\n").utf8)
            XCTAssertEqual(ReportParts.ranges(in: one), [0..<one.count], name)
            let expected = isSplittable(one) && one.count >= ReportParts.minimumPart
                ? [0..<one.count, one.count..<2 * one.count] : [0..<2 * one.count]
            XCTAssertEqual(ReportParts.ranges(in: one + one), expected, name)
        }
    }

    /// Real reports of every kind told apart, copied into one file in two orders, with and
    /// without blank lines between them: each is found whole, from its first byte (a blank
    /// line between two goes with the one before).
    func testReportsCopiedIntoOneFileAreFoundEachWhole() throws {
        let reports = try reportFiles().filter { isSplittable($0.bytes) }
        XCTAssertGreaterThan(reports.count, 10, "classic and .ips reports of the fixtures and corpus")
        for order in [reports, reports.reversed()] {
            for between in [[], Array("\n\n".utf8)] as [[UInt8]] {
                var file: [UInt8] = []
                var expected: [Range<Int>] = []
                for (k, report) in order.enumerated() {
                    let start = file.count
                    file += report.bytes
                    // A file without a last newline runs on into the next report's first line.
                    if report.bytes.last != 0x0A { file.append(0x0A) }
                    if k < order.count - 1 { file += between }
                    expected.append(start..<file.count)
                }
                XCTAssertEqual(ReportParts.ranges(in: file), expected,
                               "\(order.map { URL(fileURLWithPath: $0.name).lastPathComponent })")
            }
        }
    }

    /// Text after an `.ips` report's JSON body is a part of its own, to be written out; a body
    /// cut short, or a text body of call trees, leaves the file one part.
    func testWhatFollowsAnIPSBodyIsAPartOfItsOwn() {
        let metadata = #"{"app_name":"App","bug_type":"309"}"# + "\n"
        let body = "{\n  \"threads\" : [{\"frames\":[]}],\n  \"bug_type\" : \"309\"\n}\n"
        let rest = "trailing words\n"
        let file = Array((metadata + body + "\n" + rest).utf8)
        let split = file.count - rest.utf8.count
        XCTAssertEqual(ReportParts.ranges(in: file), [0..<split, split..<file.count])
        // Text on the body's last line starts the next part right after the body.
        let sameLine = Array((metadata + body.dropLast() + " tail\n").utf8)
        XCTAssertEqual(ReportParts.ranges(in: sameLine), [0..<sameLine.count - 6, sameLine.count - 6..<sameLine.count])
        for whole in [metadata + body, metadata + body + "\n\n", metadata + String(body.dropLast(3)) + "\n" + rest,
                      #"{"bug_type":"145"}"# + "\nDate/Time: 2021-03-14\nProcess: App [1]\nBinary Images:\nProcess: launchd [1]\n"] {
            XCTAssertEqual(ReportParts.ranges(in: Array(whole.utf8)).count, 1, whole)
        }
    }

    /// A spindump lists the images of each of its processes, each after a `Process:` line: it
    /// starts with `Date/Time:`, not with a report's header, and is one report.
    func testASpindumpOfManyProcessesIsOnePart() {
        var spindump = "Date/Time:        2021-03-14 09:26:53.531 +0100\nData Source:      Stackshots\n\n"
        for pid in 1...3 {
            spindump += "Process:          App\(pid) [\(pid)]\n  Thread 0x1a  1 sample\n  1  start + 4 (libdyld.dylib + 5512) [0x1a6d7a588]\n\n"
            spindump += "  Binary Images:\n  0x1a6d79000 - 0x1a6d7afff  libdyld.dylib  <70B99E4D-6C1A-9D32-E0EB-D6119C04BA86>  /usr/lib/system/libdyld.dylib\n"
            spindump += "Binary Images:\n\n"
        }
        XCTAssertEqual(ReportParts.ranges(in: Array(spindump.utf8)).count, 1)
    }

    /// A file of tiny reports: they are read together, 512 bytes or more at a time, and the
    /// parts hold every byte of the file.
    func testTinyClassicReportsAreReadTogether() {
        let one = Array("Process: a\nBinary Images:\n".utf8)
        var file: [UInt8] = []
        for _ in 0..<1000 { file += one }
        let ranges = ReportParts.ranges(in: file)
        XCTAssertEqual(ranges.count, file.count / (ReportParts.minimumPart / one.count * one.count + one.count))
        XCTAssertTrue(ranges.dropLast().allSatisfy { $0.count >= ReportParts.minimumPart && $0.count < ReportParts.minimumPart + one.count })
        XCTAssertEqual(ranges.last?.upperBound, file.count)
        XCTAssertTrue(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
    }

    /// A file of more tiny `.ips` reports (whose ends are exact, so each is a part) than a file
    /// is read as (one for each 512 bytes, and 65,536): the last part holds the rest, and the
    /// parts hold every byte of the file.
    func testPartsAreBoundedAndHoldTheWholeFile() {
        let one = Array("{\"bug_type\":\"309\"}\n{}\n".utf8)
        var file: [UInt8] = []
        file.reserveCapacity(one.count * (ReportParts.maxParts(size: 0) + 100))
        for _ in 0..<(ReportParts.maxParts(size: 0) + 100) { file += one }
        let ranges = ReportParts.ranges(in: file)
        XCTAssertEqual(ranges.count, ReportParts.maxParts(size: file.count))
        XCTAssertEqual(ranges.first?.lowerBound, 0)
        XCTAssertEqual(ranges.last?.upperBound, file.count)
        XCTAssertEqual(ranges.last?.count, one.count * 101)
        XCTAssertTrue(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
    }

    /// A binary report (PLCrashReporter, a protobuf tombstone) and UTF-16 text are read whole,
    /// whatever their bytes look like: their parts would not be reports of their own.
    func testBinaryReportsAndUTF16TextAreOnePart() throws {
        let path = "Path: /" + String(repeating: "p", count: ReportParts.minimumPart) + "\n"
        let two = "Process: a\n" + path + "Binary Images:\nProcess: b\n" + path + "Binary Images:\n"
        XCTAssertEqual(ReportParts.ranges(in: Array(two.utf8)).count, 2)
        let utf16: [UInt8] = [0xFF, 0xFE] + two.utf16.flatMap { unit -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        XCTAssertEqual(ReportParts.ranges(in: utf16), [0..<utf16.count])
        for name in ["App.plcrash", "tombstone_00.pb"] {
            let url = TestPaths.packageRoot.appendingPathComponent("Fuzz/seeds/" + name)
            let bytes = [UInt8](try Data(contentsOf: url)) + Array(("\n" + two).utf8)
            XCTAssertEqual(ReportParts.ranges(in: bytes), [0..<bytes.count], name)
        }
    }
}
