import Foundation
import TestSupport
import XCTest

/// Replays the inputs the object-file and demangler fuzz targets found (Tests/FuzzRegressions/<target>/)
/// through the checks the fuzz harnesses run, so that a fixed crash or broken promise stays
/// fixed without a sanitizer build.
final class ObjectIdentityFuzzRegressionTests: XCTestCase {
    func testObjectIdentityRegressions() throws {
        try replay("object_identity", ObjectFuzzChecks.objectIdentity)
    }

    func testDemangleRegressions() throws {
        try replay("demangle", DemanglerFuzzChecks.demangle)
    }

    private func replay(_ target: String, _ check: ([UInt8]) -> [String]) throws {
        let directory = TestPaths.packageRoot.appendingPathComponent("Tests/FuzzRegressions/\(target)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
        XCTAssertFalse(names.isEmpty, "no inputs in \(directory.path)")
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))
            XCTAssertEqual(check(bytes), [], "\(target)/\(name)")
        }
    }
}
