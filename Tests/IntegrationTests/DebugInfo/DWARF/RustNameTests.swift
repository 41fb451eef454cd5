import CDemangle
@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

/// Rust names from the Rust fixtures (Fixtures/src/rust, built with v0 and with legacy mangling)
/// against llvm-symbolizer-19, whose demangler library the program links: every address of
/// their line tables and every function start, looked up through ``SymbolIndex`` with names
/// demangled, must give llvm-symbolizer's frames — function, file, line, column, the whole
/// inline chain.
///
/// Names are compared as llvm-symbolizer prints them, with two differences the program makes on
/// purpose, as Rust's own backtraces do, for legacy names (`_ZN...17h<hash>E`): the hash
/// (`::h0123456789abcdef`) is dropped, and the escapes of their identifiers (`$LT$`, `$u20$`,
/// `..`), which LLVM prints as they are, are decoded. So a legacy name must equal
/// llvm-symbolizer's less the hash; where that still holds an escape, it is compared with what
/// GNU c++filt's Rust demangler (libiberty's, which decodes them) prints, less the hash, and with
/// the name's `.suffix` as LLVM prints one (` (.llvm.123)`), since libiberty leaves it out, and
/// with the escapes of non-ASCII characters (`$uf6$`) decoded, which libiberty leaves as they
/// are and Rust's own demangler (rustc-demangle) decodes.
final class RustNameTests: XCTestCase {
    typealias Frame = SymbolizerOracle.Frame

    private static let hash = try! NSRegularExpression(pattern: "::h[0-9a-f]{16}(?=$| \\()")
    private static let legacy = try! NSRegularExpression(pattern: "^_ZN.*17h[0-9a-f]{16}E(\\..*)?$")

    func testNamesAgreeWithLLVMSymbolizer() throws {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        guard let symbolizer = TestPaths.llvm19("llvm-symbolizer"), let dwarfdump = TestPaths.llvm19("llvm-dwarfdump") else {
            throw XCTSkip("llvm-symbolizer-19 or llvm-dwarfdump-19 is not installed (`make setup` installs llvm-19)")
        }
        var v0Names = Set<String>()
        for fixture in ["rust-v0", "rust-legacy"] {
            var mismatches: [String] = []
            let path = fixtures.appendingPathComponent("elf/\(fixture)").path
            let file = try XCTUnwrap(DebugFile.identify(path: path).first { $0.hasDWARF }, "\(path) has no DWARF")
            let mapped = try MappedFile(path: path)
            let (textStart, textSize) = try XCTUnwrap(ObjectLayout(file, in: mapped).codeSection)
            // Rows of functions the linker dropped lie outside the code, at addresses near 0.
            let addresses = try Set(lineTableAddresses(dwarfdump, path) + functionStarts(path))
                .filter { $0 >= textStart && $0 < textStart + textSize }.sorted()
            let readable = try symbolize(symbolizer, path, addresses, demangle: true)
            let linkage = try symbolize(symbolizer, path, addresses, demangle: false)
            let gnu = try gnuRustNames(Set(linkage.joined().map(\.function).filter(isLegacy)))
            let index = try SymbolIndex.build(file)

            var counts: [String: Int] = [:]
            var frames = 0, agreed = 0
            var known: [String: (String, String)] = [:]  // by linkage and readable name
            for (k, address) in addresses.enumerated() {
                let ours = index.lookup(address).map {
                    Frame(function: $0.function == "??" ? "" : $0.function, file: $0.file ?? "", line: $0.line, column: $0.column)
                }
                var expected: [Frame] = []
                for (llvm, mangled) in zip(readable[k], linkage[k]) {
                    let key = mangled.function + "\n" + llvm.function
                    let (name, kind) = known[key] ?? expectedName(mangled: mangled.function, llvm: llvm.function, gnu: gnu)
                    known[key] = (name, kind)
                    counts[kind, default: 0] += 1
                    if mangled.function.hasPrefix("_R") { v0Names.insert(mangled.function) }
                    expected.append(Frame(function: name, file: llvm.file, line: llvm.line, column: llvm.column))
                }
                frames += expected.count
                if ours == expected || (ours.isEmpty && expected.allSatisfy { $0.function.isEmpty && $0.line == 0 }) {
                    agreed += expected.count
                } else if mismatches.count < 20 {
                    mismatches.append("\(fixture) 0x\(String(address, radix: 16)):\n    ours:     \(ours)\n    expected: \(expected)")
                }
            }
            print("rust names: \(fixture): \(agreed)/\(frames) frames agree at \(addresses.count) addresses; "
                  + counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
            XCTAssertEqual(agreed, frames, "disagreements in \(fixture):\n" + mismatches.joined(separator: "\n"))
            XCTAssertGreaterThan(counts["legacy, as llvm-symbolizer less the hash", default: 0], 1000, fixture)
            XCTAssertGreaterThan(counts["legacy with escapes, as c++filt less the hash", default: 0], 100, fixture)
            if fixture == "rust-v0" { XCTAssertGreaterThan(counts["v0, as llvm-symbolizer", default: 0], 1000) }
        }
        XCTAssertGreaterThan(v0Names.count, 200)
        assertV0BoundsHold(v0Names)
    }

    /// For every v0 name met, the bound the program checks before LLVM prints a name is no less
    /// than what LLVM prints, and no name LLVM reads is refused.
    private func assertV0BoundsHold(_ names: Set<String>) {
        var held = 0
        for name in names {
            let bound = cdm_rust_v0_bound(name, name.utf8.count)
            guard let out = cdm_rust_v0_demangle_unbounded(name, name.utf8.count) else { continue }
            defer { free(out) }
            XCTAssertNotEqual(bound, UInt64.max, "a name LLVM reads is refused: \(name)")
            XCTAssertGreaterThanOrEqual(bound, UInt64(strlen(out)), name)
            if bound >= UInt64(strlen(out)) { held += 1 }
        }
        print("rust names: the v0 bound holds for \(held) of \(names.count) v0 names")
    }

    /// The name to expect for a frame whose linkage name is `mangled` and which llvm-symbolizer
    /// prints `llvm`, and which rule it follows.
    private func expectedName(mangled: String, llvm: String, gnu: [String: String]) -> (String, String) {
        guard isLegacy(mangled) else {
            return (llvm, mangled.hasPrefix("_R") ? "v0, as llvm-symbolizer" : "other, as llvm-symbolizer")
        }
        let plain = Self.hash.stringByReplacingMatches(in: llvm, range: NSRange(llvm.startIndex..., in: llvm), withTemplate: "")
        if !plain.contains("$") && !plain.contains("..") { return (plain, "legacy, as llvm-symbolizer less the hash") }
        let decoded = decodingNonASCIIEscapes(gnu[mangled] ?? "(c++filt gave no name for \(mangled))")
        let end = mangled.range(of: "E", options: .backwards)!.upperBound
        let suffix = mangled[end...].isEmpty ? "" : " (\(mangled[end...]))"
        return (Self.hash.stringByReplacingMatches(in: decoded, range: NSRange(decoded.startIndex..., in: decoded), withTemplate: "") + suffix,
                "legacy with escapes, as c++filt less the hash")
    }

    private static let escape = try! NSRegularExpression(pattern: "\\$u([0-9a-f]{2,6})\\$")

    /// `größe` for `gr$uf6$$udf$e`.
    private func decodingNonASCIIEscapes(_ name: String) -> String {
        var result = name
        for match in Self.escape.matches(in: name, range: NSRange(name.startIndex..., in: name)).reversed() {
            guard let range = Range(match.range, in: result), let digits = Range(match.range(at: 1), in: result),
                  let value = UInt32(result[digits], radix: 16), value >= 0x80, let scalar = Unicode.Scalar(value) else { continue }
            result.replaceSubrange(range, with: String(Character(scalar)))
        }
        return result
    }

    private func isLegacy(_ name: String) -> Bool {
        Self.legacy.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
    }

    /// What GNU c++filt's Rust demangler prints for each of `names`.
    private func gnuRustNames(_ names: Set<String>) throws -> [String: String] {
        let list = Array(names)
        let result = try runProcess("/usr/bin/c++filt", ["--format=rust"], input: Data((list.joined(separator: "\n") + "\n").utf8))
        let lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertGreaterThanOrEqual(lines.count, list.count)
        return Dictionary(uniqueKeysWithValues: zip(list, lines))
    }

    /// Every distinct address of the line tables, as llvm-dwarfdump-19 prints their rows.
    private func lineTableAddresses(_ dwarfdump: String, _ path: String) throws -> [UInt64] {
        let result = try runProcess(dwarfdump, ["--debug-line", path])
        XCTAssertEqual(result.status, 0, result.stderrText)
        var addresses: [UInt64] = []
        for line in result.stdoutText.split(separator: "\n") where line.hasPrefix("0x") && line.count > 19 {
            let field = line.dropFirst(2).prefix(16)
            if field.count == 16, let address = UInt64(field, radix: 16), address != 0 { addresses.append(address) }
        }
        XCTAssertGreaterThan(addresses.count, 10000, "too few line-table rows in \(path)")
        return addresses
    }

    /// The start of every function in the symbol table.
    private func functionStarts(_ path: String) throws -> [UInt64] {
        try runProcess("/usr/bin/nm", ["--defined-only", path]).stdoutText.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 3, "tTwW".contains(fields[1]) else { return nil }
            return UInt64(fields[0], radix: 16)
        }
    }

    /// llvm-symbolizer's frames for each address, read from its LLVM output style: for each
    /// address a function line and a `file:line:column` line per frame, then an empty line.
    private func symbolize(_ symbolizer: String, _ path: String, _ addresses: [UInt64], demangle: Bool) throws -> [[Frame]] {
        let arguments = ["--obj=\(path)", "--inlines", "--functions=linkage", "--output-style=LLVM"] + (demangle ? [] : ["--no-demangle"])
        let input = addresses.map { "0x" + String($0, radix: 16) }.joined(separator: "\n") + "\n"
        let result = try runProcess(symbolizer, arguments, input: Data(input.utf8))
        XCTAssertEqual(result.status, 0, result.stderrText)
        var answers: [[Frame]] = [], frames: [Frame] = []
        var lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast()  // after the last newline
        while let function = lines.popFirst() {
            guard !function.isEmpty else {
                answers.append(frames)
                frames = []
                continue
            }
            let location = lines.popFirst() ?? ""
            let fields = location.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count >= 3, let line = Int(fields[fields.count - 2]), let column = Int(fields[fields.count - 1]) else {
                XCTFail("llvm-symbolizer printed \(location) after \(function)")
                continue
            }
            let file = fields.dropLast(2).joined(separator: ":")
            frames.append(Frame(function: function == "??" ? "" : String(function), file: file == "??" ? "" : file, line: line, column: column))
        }
        XCTAssertEqual(answers.count, addresses.count)
        return answers
    }
}
