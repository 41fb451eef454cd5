import Foundation
import TestSupport
import XCTest

/// The inputs kept for the fuzz targets dwarf_sections and dwarf_tables (Tests/FuzzRegressions),
/// through the checks the dwarf_tables harness makes (``TablesFuzzChecks``): DWARF that once
/// crashed the shim, or that makes tables not well formed, or other tables on threads.
final class TablesFuzzRegressionTests: XCTestCase {
    func testKeptInputsMakeTheSameWellFormedTablesOnThreadsAndInOne() throws {
        var inputs: [URL] = []
        for target in ["dwarf_sections", "dwarf_tables"] {
            let folder = TestPaths.packageRoot.appendingPathComponent("Tests/FuzzRegressions/\(target)")
            let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
            inputs += files.filter { !$0.lastPathComponent.hasPrefix(".") }
        }
        XCTAssertFalse(inputs.isEmpty)
        for url in inputs.sorted(by: { $0.path < $1.path }) {
            let broken = TablesFuzzChecks.tables(try [UInt8](Data(contentsOf: url)))
            XCTAssertTrue(broken.isEmpty, "\(url.lastPathComponent): \(broken.joined(separator: "; "))")
        }
    }
}
