@testable import CrashReport
import TestSupport
import XCTest

/// The byte-level JSON reader under the `.ips` parser: value ranges, keys, decoding, errors.
final class IPSJSONScannerTests: XCTestCase {
    private func tree(_ text: String) throws -> JSONTree {
        try JSONScanner.parse(Array(text.utf8)).tree
    }

    /// An `.ips` report has a node per value of every frame: the tree must cost a fraction
    /// of the bytes it describes, not several times them.
    func testANodeIsSmall() throws {
        XCTAssertLessThanOrEqual(MemoryLayout<JSONNode>.stride, 28)
        let tree = try tree(#"{"a":[1,{"b":null}],"c":"d"}"#)
        XCTAssertEqual(tree.nodes.map(\.range), [0..<28, 5..<19, 6..<7, 8..<18, 13..<17, 24..<27])
        XCTAssertEqual(tree.nodes.map(\.firstChild), [1, 2, -1, 4, -1, -1])
        XCTAssertEqual(tree.nodes.map(\.nextSibling), [-1, 5, 3, -1, -1, -1])
        XCTAssertEqual(tree.nodes.map { $0.keyRange?.lowerBound ?? -1 }, [-1, 1, -1, -1, 9, 20])
    }

    private func text(_ tree: JSONTree, _ range: Range<Int>?) -> String? {
        range.map { String(decoding: tree.bytes[$0], as: UTF8.self) }
    }

    func testNodesKnowTheirBytesAndKeys() throws {
        let source = #"{"imageOffset":16900, "imageIndex" : 0,"s":"a\"b","list":[1,-2.5e3,true,null,{}]}"#
        let (tree, end) = try JSONScanner.parse(Array(source.utf8))
        XCTAssertEqual(end, source.utf8.count)
        let members = Array(tree.children(of: tree.root))
        XCTAssertEqual(members.map { text(tree, tree.nodes[$0].keyRange) },
                       [#""imageOffset""#, #""imageIndex""#, #""s""#, #""list""#])
        XCTAssertEqual(members.map { text(tree, tree.nodes[$0].range) }, ["16900", "0", #""a\"b""#, #"[1,-2.5e3,true,null,{}]"#])
        XCTAssertEqual(tree.unsigned(tree.member("imageOffset", of: tree.root)), 16900)
        XCTAssertEqual(tree.string(tree.member("s", of: tree.root)), "a\"b")
        let list = try XCTUnwrap(tree.member("list", of: tree.root))
        XCTAssertEqual(tree.children(of: list).map { tree.nodes[$0].kind }, [.number, .number, .bool, .null, .object])
        XCTAssertEqual(tree.children(of: list).map { tree.nodes[$0].keyRange }, [nil, nil, nil, nil, nil])
        XCTAssertNil(tree.member("missing", of: tree.root))
        XCTAssertNil(tree.member("imageOffset", of: list), "arrays have no members")
    }

    /// `members(_:of:)` finds in one pass what `member(_:of:)` finds for each name: the first
    /// member of that key, whether the key is spelled with escapes or not, and none for a key
    /// that only starts like a name or is longer.
    func testMembersFindWhatMemberFindsForEachName() throws {
        let names: [StaticString] = ["symbol", "imageIndex", "inline", "", "sourceLine"]
        let keys = ["symbol", #"\u0073ymbol"#, "imageIndex", "imageIndexes", "imageInde", "inline", #"in\u006cine"#,
                    "", "sourceLine", "Symbol", #"\""#, "other"]
        var generator = SplitMix64(seed: 0x4E7)
        var found: [Int?] = [1, 2]  // set anew by each call
        for _ in 0..<500 {
            let members = (0..<Int.random(in: 0...8, using: &generator)).map { k in
                #"""# + keys.randomElement(using: &generator)! + #"":"# + "\(k)"
            }
            let text = "{" + members.joined(separator: ",") + "}"
            let tree = try tree(text)
            tree.members(names, of: tree.root, into: &found)
            XCTAssertEqual(found, names.map { tree.member($0.description, of: tree.root) }, text)
        }
        let array = try tree("[1]")
        array.members(names, of: array.root, into: &found)
        XCTAssertEqual(found, Array(repeating: nil, count: names.count))
    }

    func testTheValueEndsWhereItEnds() throws {
        let bytes = Array("{\"bug_type\":\"309\"}\n{\"a\":1}\n".utf8)
        let (first, end) = try JSONScanner.parse(bytes)
        XCTAssertEqual(end, 18)
        XCTAssertEqual(first.text(first.member("bug_type", of: first.root)), "309")
        let (second, secondEnd) = try JSONScanner.parse(bytes, from: end)
        XCTAssertEqual(second.nodes[second.root].range, 19..<26, "ranges are offsets into the whole input")
        XCTAssertEqual(secondEnd, 26)
        XCTAssertThrowsError(try JSONScanner.parse(bytes, from: 0, to: 10), "a limit inside the value")
    }

    func testNumbers() throws {
        let tree = try tree("[0, 18446744073709551615, 18446744073709551616, -1, 1.0, 1.5, 2e3, 007]")
        XCTAssertEqual(tree.children(of: tree.root).map { tree.unsigned($0) },
                       [0, UInt64.max, nil, nil, 1, nil, nil, 7])
        XCTAssertEqual(tree.children(of: tree.root).map { tree.int($0) }, [0, nil, nil, nil, 1, nil, nil, 7])
        for bad in ["[-]", "[1.]", "[1e]", "[.5]", "[+1]"] {
            XCTAssertThrowsError(try self.tree(bad), bad)
        }
    }

    func testStringDecoding() throws {
        let tree = try tree(#"["\/usr\/lib", "\u00e9\u4e2d\ud83d\ude00", "\ud800", "\udc00z", "\b\f\n\r\t", "raw é 😀"]"#)
        XCTAssertEqual(tree.children(of: tree.root).map { tree.string($0) },
                       ["/usr/lib", "é中😀", "\u{FFFD}", "\u{FFFD}z", "\u{8}\u{C}\n\r\t", "raw é 😀"])
        XCTAssertNil(tree.string(tree.root), "an array is no string")
        let escapedKey = try self.tree(#"{"na\u006de":1}"#)
        XCTAssertEqual(escapedKey.int(escapedKey.member("name", of: escapedKey.root)), 1, "keys are compared decoded")
    }

    func testErrorsSayWhereAndWhetherTheInputEnded() {
        func error(_ text: String) -> JSONError? {
            do {
                _ = try JSONScanner.parse(Array(text.utf8))
                return nil
            } catch {
                return error as? JSONError
            }
        }
        let cases: [(String, Int, String, Bool)] = [
            ("", 0, "expected a value", true),
            ("{\"a\":1", 6, "the document ends before its value does", true),
            ("{\"a\":\"x", 7, "the document ends inside a string", true),
            ("{\"a\" 1}", 5, "expected ':' after a member name", false),
            ("{\"a\":1,}", 7, "expected a member name in quotes", false),
            ("[1 2]", 3, "expected ',' or ']'", false),
            ("{\"a\":1]", 6, "expected ',' or '}'", false),
            ("[\"a\u{1}\"]", 3, "control character in a string", false),
            ("[\"\\x\"]", 2, "bad escape in a string", false),
            ("[\"\\u12g4\"]", 6, "bad \\u escape in a string", false),
            ("[nul]", 1, "expected a value", false),
            ("[12", 3, "the document ends before its value does", true),
        ]
        for (text, offset, message, atEnd) in cases {
            let found = error(text)
            XCTAssertEqual(found?.offset, offset, text.debugDescription)
            XCTAssertEqual(found?.message, message, text.debugDescription)
            XCTAssertEqual(found?.atEnd, atEnd, text.debugDescription)
        }
    }
}
