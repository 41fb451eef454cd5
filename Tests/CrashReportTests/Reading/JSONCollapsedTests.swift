@testable import CrashReport
import Foundation
import TestSupport
import XCTest

/// A JSON value parsed with its deeper values collapsed (`recordingDepth`) reads as the same
/// value parsed whole: the same nodes down to that depth, the same errors, and the same values
/// below it when read with `forEachElement` or `expanded`. Checked over random documents (and
/// their broken copies) at every depth, and over the `.ips` fixtures.
final class JSONCollapsedTests: XCTestCase {
    /// Compares the parse of `bytes` at every recording depth with the whole parse.
    private func assertReadsAlike(_ bytes: [UInt8], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let broken = ReportFuzzChecks.jsonCollapsing(bytes)
        XCTAssertTrue(broken.isEmpty, "\(what): \(broken.joined(separator: "; "))", file: file, line: line)
    }

    /// A random JSON value, nested at most `depth` deep, with spaces between tokens at times.
    private func randomValue(_ rng: inout SplitMix64, depth: Int) -> String {
        let space = ["", "", " ", "\n  "].randomElement(using: &rng)!
        switch Int.random(in: 0..<(depth > 0 ? 8 : 4), using: &rng) {
        case 0: return String(Int.random(in: -5...100_000, using: &rng))
        case 1: return ["\"a\"", "\"\\u00e9\\n\"", "\"\"", "\"x\\\"y\""].randomElement(using: &rng)!
        case 2: return ["true", "false", "null", "1.5e3"].randomElement(using: &rng)!
        case 3: return "[]"
        case 4, 5:
            let count = Int.random(in: 0...4, using: &rng)
            return "[" + (0..<count).map { _ in space + randomValue(&rng, depth: depth - 1) }.joined(separator: ",") + space + "]"
        default:
            let count = Int.random(in: 0...4, using: &rng)
            return "{" + (0..<count).map { k in space + "\"k\(k)\"" + space + ":" + randomValue(&rng, depth: depth - 1) }
                .joined(separator: ",") + "}"
        }
    }

    func testCollapsedValuesReadAsTheWholeParse() {
        var rng = SplitMix64(seed: 0x4A53_4F4E)
        for k in 0..<400 {
            let text = randomValue(&rng, depth: 6)
            assertReadsAlike(Array(text.utf8), "document \(k): \(text)")
        }
    }

    /// Broken documents fail with the same error whatever the depth: the collapsed values are
    /// checked as strictly as recorded ones.
    func testBrokenDocumentsFailAlike() {
        var rng = SplitMix64(seed: 0xBAD0_4A53)
        var broken = 0
        for k in 0..<400 {
            var bytes = Array(randomValue(&rng, depth: 6).utf8)
            guard bytes.count > 2 else { continue }
            switch k % 3 {
            case 0: bytes.removeLast(Int.random(in: 1..<bytes.count, using: &rng))
            case 1: bytes[Int.random(in: 0..<bytes.count, using: &rng)] = [0x2C, 0x5D, 0x7D, 0x22, 0x01, 0x5C].randomElement(using: &rng)!
            default: bytes.insert(0x3A, at: Int.random(in: 0..<bytes.count, using: &rng))
            }
            if (try? JSONScanner.parse(bytes)) == nil { broken += 1 }
            assertReadsAlike(bytes, "broken document \(k): \(String(decoding: bytes, as: UTF8.self))")
        }
        XCTAssertGreaterThan(broken, 200, "most of the changed documents are broken")
    }

    /// The bodies of the `.ips` fixtures and of the shared corpus's real `.ips` reports.
    func testIPSReportsReadAlike() throws {
        var directories = [Corpus.directory]
        if let fixtures = TestPaths.fixtures { directories.append(fixtures.appendingPathComponent("ips")) }
        var checked = 0
        for directory in directories {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { continue }
            for name in names.sorted() where name.hasSuffix(".ips") {
                let bytes = Array(try Data(contentsOf: directory.appendingPathComponent(name)))
                guard let newline = bytes.firstIndex(of: 0x0A) else { continue }
                assertReadsAlike(Array(bytes[(newline + 1)...]), name)
                checked += 1
            }
        }
        if checked == 0 { throw XCTSkip("neither the shared corpus nor Fixtures/build/ips is present") }
        print("\(checked) .ips reports read alike at every depth")
    }

    /// Reading a collapsed array's elements reuses one buffer for their nodes, and a reader
    /// that keeps an element's tree past its call keeps it as it was.
    func testAnElementKeptPastItsCallStaysAsItWas() throws {
        let bytes = Array(#"{"frames":[{"a":1},{"b":[2,3]},{"c":"d"}]}"#.utf8)
        let tree = try JSONScanner.parse(bytes, recordingDepth: 1).tree
        let frames = try XCTUnwrap(tree.member("frames", of: tree.root))
        XCTAssertTrue(tree.nodes[frames].isCollapsed)
        XCTAssertEqual(tree.nodes[frames].collapsedObjects, 3)
        XCTAssertEqual(tree.elementCountEstimate(of: frames), 3)
        var kept: [JSONTree] = []
        tree.forEachElement(of: frames) { element, node in
            XCTAssertEqual(node, 0)
            kept.append(element)
        }
        XCTAssertEqual(kept.map { String(decoding: bytes[$0.nodes[0].range], as: UTF8.self) },
                       [#"{"a":1}"#, #"{"b":[2,3]}"#, #"{"c":"d"}"#])
        XCTAssertEqual(kept.map(\.nodes.count), [2, 4, 2])
    }
}
