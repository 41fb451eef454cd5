import CDwarf
@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

/// Every input the fuzz targets dwarf_elf and dwarf_sections once crashed, hung or exhausted
/// memory with (Tests/FuzzRegressions/dwarf_*), through the entry points the harnesses use
/// (Fuzz/dwarf_elf.c, Fuzz/dwarf_sections.c): each must be read or refused with an error.
final class DWARFFuzzRegressionTests: XCTestCase {
    private static let names = [".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_line_str",
                                ".debug_ranges", ".debug_rnglists", ".debug_addr", ".debug_str_offsets",
                                ".debug_loclists", ".debug_loc", ".debug_types", ".debug_aranges"]

    private func inputs(_ target: String) throws -> [URL] {
        let folder = TestPaths.packageRoot.appendingPathComponent("Tests/FuzzRegressions/\(target)")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        return files.filter { !$0.lastPathComponent.hasPrefix(".") }.sorted { $0.path < $1.path }
    }

    /// Reads `object` in full on `threads` threads as the harness does: an answer or an error.
    private func readAll(_ object: OpaquePointer, threads: UInt32, _ name: String) {
        let (outcome, seconds) = CPUTime.ofProcess {
            Result { try DWARFReader.collect(object, path: name, releasing: nil, options: .init(threads: threads)) }
        }
        if case .failure(let error) = outcome { XCTAssertTrue("\(error)".hasPrefix(name), "\(error)") }
        XCTAssertLessThan(seconds, 10 * Double(threads), "\(name) on \(threads) thread(s), seconds of CPU")
    }

    func testDwarfElfInputs() throws {
        let files = try inputs("dwarf_elf")
        XCTAssertFalse(files.isEmpty)
        for url in files {
            var bytes = try [UInt8](Data(contentsOf: url))
            bytes.withUnsafeMutableBytes { image in
                for threads: UInt32 in [1, 2] {
                    var object: OpaquePointer?
                    var message = [CChar](repeating: 0, count: 512)
                    guard cdw_open_elf(image.baseAddress, image.count, &object, &message, message.count) == CDW_OK,
                          let object else { continue }
                    defer { cdw_close(object) }
                    readAll(object, threads: threads, url.lastPathComponent)
                }
            }
        }
    }

    func testDwarfSectionsInputs() throws {
        let files = try inputs("dwarf_sections")
        XCTAssertFalse(files.isEmpty)
        for url in files {
            let data = try [UInt8](Data(contentsOf: url))
            guard let flags = data.first else { continue }
            // Records: section number, 4-byte little-endian length (cut to what is left), bytes.
            var sections: [(name: String, bytes: [UInt8])] = []
            var at = 1
            while at + 5 <= data.count && sections.count < 32 {
                let length = min(data[(at + 1)..<(at + 5)].reversed().reduce(0) { $0 << 8 | Int($1) }, data.count - at - 5)
                sections.append((Self.names[Int(data[at]) % Self.names.count], Array(data[(at + 5)..<(at + 5 + length)])))
                at += 5 + length
            }
            for threads: UInt32 in [1, 2] {
                // An input the shim refuses to open is answered by an error: nothing to read.
                _ = try? DWARFAssembler.withObject(sections, pointerSize: flags & 2 != 0 ? 4 : 8, bigEndian: flags & 1 != 0) { object in
                    readAll(object, threads: threads, url.lastPathComponent)
                }
            }
        }
    }
}
