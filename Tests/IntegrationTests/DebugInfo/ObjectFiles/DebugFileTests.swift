@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

/// Extreme values in every word of the headers of three fixtures, each variant identified and
/// indexed (the rest of the object files' tests are in DebugInfoTests).
final class DebugFileTests: XCTestCase {
    /// Offsets and sizes in object headers are read from the file: extreme values in any
    /// 8-byte word of the headers (ELF header, program and section headers; Mach-O load
    /// commands, the universal header) give an answer or an error naming the file, never a
    /// crash on an integer that does not fit.
    func testExtremeHeaderValuesNeverCrash() throws {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("extreme-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var variants = 0, errors = 0
        for relative in ["elf/app-gcc-dwarf4", "macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64",
                         "macho/App-universal.dSYM/Contents/Resources/DWARF/App-universal"] {
            let original = try [UInt8](Data(contentsOf: fixtures.appendingPathComponent(relative)))
            // The words the headers are made of: the first 4 KiB, and for ELF the section headers.
            var positions = Array(stride(from: 0, to: min(4096, original.count) - 8, by: 8))
            if original.starts(with: [0x7f, 0x45, 0x4c, 0x46]) {
                let shoff = original.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: 40, as: UInt64.self)) }
                positions += Array(stride(from: shoff, to: original.count - 8, by: 8))
            }
            for position in positions {
                for value: UInt64 in [.max, 1 << 63 | 0x10] {
                    var damaged = original
                    withUnsafeBytes(of: value) { for b in 0..<8 { damaged[position + b] = $0[b] } }
                    let url = directory.appendingPathComponent("variant")
                    try Data(damaged).write(to: url)
                    variants += 1
                    do {
                        for file in try DebugFile.identify(path: url.path) where file.hasDWARF || file.hasSymbolTable {
                            let index = try SymbolIndex.build(file)
                            _ = index.lookup(file.textVMAddress &+ 0x40)
                        }
                    } catch {
                        XCTAssertTrue("\(error)".hasPrefix(url.path), "\(error)")
                        errors += 1
                    }
                }
            }
        }
        print("extreme header values: \(variants) variants, \(errors) refused with an error, none crashed")
        XCTAssertGreaterThan(variants, 1000)
    }
}
