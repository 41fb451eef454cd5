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
}
