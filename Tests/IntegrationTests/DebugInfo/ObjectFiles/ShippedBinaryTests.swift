import Foundation
import TestSupport
import XCTest

/// libdwarf is the tests' reference only: the shipped program neither links it nor holds any of
/// its code. The release program is built as the Makefile says: its relocations bound at start
/// (BIND_NOW), its relative ones packed (RELR), its symbols not exported.
final class ShippedBinaryTests: XCTestCase {
    /// The release build when there is one (what ships), else the debug build.
    private var binary: URL {
        let release = TestPaths.packageRoot.appendingPathComponent(".build/release/symbolicate")
        return FileManager.default.isExecutableFile(atPath: release.path) ? release : TestPaths.symbolicateBinary
    }

    private func tool(_ name: String) throws -> String {
        guard let path = ["/usr/bin/\(name)", "/opt/swift/usr/bin/llvm-\(name)"].first(where: FileManager.default.isExecutableFile)
        else { throw XCTSkip("no \(name) to inspect the binary") }
        return path
    }

    func testSymbolicateDoesNotLinkLibdwarf() throws {
        guard FileManager.default.isExecutableFile(atPath: binary.path) else { throw XCTSkip("\(binary.path) is not built") }
        let dynamic = try runProcess(try tool("readelf"), ["-d", binary.path])
        XCTAssertEqual(dynamic.status, 0, dynamic.stderrText)
        XCTAssertTrue(dynamic.stdoutText.contains("libelf"), "readelf -d lists the libraries: \(dynamic.stdoutText.prefix(300))")
        XCTAssertFalse(dynamic.stdoutText.contains("libdwarf"), "\(binary.path) links libdwarf")
        let symbols = try runProcess(try tool("nm"), [binary.path])
        XCTAssertEqual(symbols.status, 0, symbols.stderrText)
        let libdwarf = symbols.stdoutText.split(separator: "\n").filter { line in
            guard let name = line.split(separator: " ").last else { return false }
            return name.hasPrefix("dwarf_") || name.hasPrefix("_dwarf_")
        }
        XCTAssertTrue(libdwarf.isEmpty, "libdwarf symbols in \(binary.path): \(libdwarf.prefix(5))")
        XCTAssertTrue(symbols.stdoutText.contains("cdw_read_start"), "nm lists the shim's symbols")
    }

    /// Tens of thousands of relative relocations (Swift metadata's pointers) are a bitmap of a
    /// few KB, not 24 bytes each that every run reads at start; its own symbols are not
    /// exported (the dynamic loader would search them for every symbol it binds); a
    /// position-independent program still, its symbols bound at start.
    func testTheReleaseProgramStartsLight() throws {
        let release = TestPaths.packageRoot.appendingPathComponent(".build/release/symbolicate")
        guard FileManager.default.isExecutableFile(atPath: release.path) else {
            throw XCTSkip("no release build (make build) to inspect")
        }
        let sections = try runProcess(try tool("readelf"), ["-S", "-W", release.path])
        XCTAssertEqual(sections.status, 0, sections.stderrText)
        func size(_ name: String) -> Int? {
            for line in sections.stdoutText.split(separator: "\n") where line.contains(" \(name) ") {
                let fields = line.split(separator: "]", maxSplits: 1).last?.split(separator: " ") ?? []
                if fields.count > 4, let size = Int(fields[4], radix: 16) { return size }
            }
            return nil
        }
        XCTAssertNotNil(size(".relr.dyn"), "no packed relative relocations in \(release.path)")
        XCTAssertLessThan(size(".rela.dyn") ?? 0, 64 << 10, "the relocations of \(release.path) are not packed")
        XCTAssertLessThan(size(".dynsym") ?? 0, 64 << 10, "\(release.path) exports its symbols")
        let header = try runProcess(try tool("readelf"), ["-h", "-d", release.path])
        XCTAssertTrue(header.stdoutText.contains("DYN (Position-Independent Executable"), "not a PIE: \(release.path)")
        XCTAssertTrue(header.stdoutText.contains("BIND_NOW"), "not bound at start: \(release.path)")
    }

    /// The release program's code is laid out in the order of packaging/symbol-order.txt (the
    /// functions a run executes, first): its first function is the first one listed that it
    /// defines. And the list is not out of date: nine in ten of its names are still functions
    /// of the program (make symbol-order writes it anew).
    func testTheReleaseProgramsCodeIsInTheOrderOfItsSymbolOrderFile() throws {
        let release = TestPaths.packageRoot.appendingPathComponent(".build/release/symbolicate")
        guard FileManager.default.isExecutableFile(atPath: release.path) else {
            throw XCTSkip("no release build (make build) to inspect")
        }
        let orderFile = TestPaths.packageRoot.appendingPathComponent("packaging/symbol-order.txt")
        let listed = try String(contentsOf: orderFile, encoding: .utf8).split(separator: "\n")
            .map(String.init).filter { !$0.isEmpty && !$0.hasPrefix("#") }
        XCTAssertGreaterThan(listed.count, 1000, "\(orderFile.path) lists few functions")
        let symbols = try runProcess(try tool("nm"), ["--defined-only", release.path])
        XCTAssertEqual(symbols.status, 0, symbols.stderrText)
        var functions: [String: UInt64] = [:]
        for line in symbols.stdoutText.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 2)
            guard fields.count == 3, "tTwW".contains(fields[1]), let address = UInt64(fields[0], radix: 16) else { continue }
            functions[String(fields[2])] = functions[String(fields[2])].map { min($0, address) } ?? address
        }
        let defined = listed.filter { functions[$0] != nil }
        XCTAssertGreaterThanOrEqual(defined.count * 10, listed.count * 9,
                                    "\(listed.count - defined.count) of the \(listed.count) functions of " +
                                    "\(orderFile.path) are no longer in the program: make symbol-order")
        let sections = try runProcess(try tool("readelf"), ["-S", "-W", release.path])
        let text = sections.stdoutText.split(separator: "\n").first { $0.contains(" .text ") }
        let fields = text?.split(separator: "]", maxSplits: 1).last?.split(separator: " ") ?? []
        guard fields.count > 2, let textStart = UInt64(fields[2], radix: 16), let first = defined.first else {
            return XCTFail("no .text section in \(release.path), or no function of \(orderFile.path) in it")
        }
        XCTAssertEqual(functions[first], textStart,
                       "\(release.path) does not begin its code with \(first): not linked in the order of \(orderFile.path)")
    }
}
