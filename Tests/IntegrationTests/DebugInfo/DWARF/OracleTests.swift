@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

/// Compares ``SymbolIndex/lookup(_:demangle:)`` with llvm-symbolizer (``SymbolizerOracle``) over
/// thousands of addresses in every fixture and every debug file of the shared corpus.
///
/// Besides the fixtures and the corpus, the system's glibc debug file (Debian's libc6-dbg,
/// found by libc.so.6's build-id under /usr/lib/debug) is compared: real gcc DWARF 5 built with
/// a relative DW_AT_comp_dir, thousands of units, MD5-less file tables whose file 0 and file 1
/// differ.
final class OracleTests: XCTestCase {
    typealias Subject = SymbolizerOracle.Subject

    func testAgreesWithLLVMSymbolizer() throws {
        guard let symbolizer = TestPaths.llvmSymbolizer else { throw XCTSkip("llvm-symbolizer is not installed") }
        var subjects: [Subject] = []
        if let corpus = TestPaths.corpus {
            subjects += try SymbolizerOracle.debugFiles(under: corpus.appendingPathComponent("debug"))
        } else {
            print("OracleTests: \(TestPaths.corpusAbsent)")
        }
        if let fixtures = TestPaths.fixtures {
            // The producers' programs have a test of their own (ProducerTests).
            subjects += try SymbolizerOracle.debugFiles(under: fixtures).filter { !$0.label.hasPrefix("build/producers/") }
        } else {
            print("OracleTests: \(TestPaths.fixturesAbsent)")
        }
        switch SymbolizerOracle.systemLibcDebugFile() {
        case .success(let file):
            subjects.append(Subject(file: file, label: "glibc \(file.path)", sampleSize: 2000))
        case .failure(let why):
            print("oracle: glibc's debug file is not compared: \(why.message)")
        }
        guard !subjects.isEmpty else { throw XCTSkip("no debug files to compare: \(TestPaths.corpusAbsent); \(TestPaths.fixturesAbsent)") }
        let comparison = try SymbolizerOracle(symbolizer: symbolizer).compare(subjects, label: "oracle")
        XCTAssertGreaterThanOrEqual(comparison.total, 5000, "too few addresses sampled")
        XCTAssertEqual(comparison.agreed, comparison.total,
                       "disagreements with llvm-symbolizer:\n" + comparison.mismatches.joined(separator: "\n"))
    }
}
