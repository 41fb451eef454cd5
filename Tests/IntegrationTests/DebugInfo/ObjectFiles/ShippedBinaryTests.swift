import Foundation
import TestSupport
import XCTest

/// libdwarf is the tests' reference only: the shipped program neither links it nor holds any of
/// its code.
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
}
