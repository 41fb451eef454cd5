import CDwarf
@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

/// A mapped debug file cut short under its read, on a dSYM of the producers' programs
/// (Fixtures/producers.sh) and a universal fixture dSYM (the rest of the mapped files' tests
/// are in DebugInfoTests).
final class MappedFileTests: XCTestCase {
    private func temporaryCopy(of bytes: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "mapped-\(getpid())-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        addTeardownBlock { unlink(path) }
        return path
    }

    private func fixture(_ relative: String) throws -> [UInt8] {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        return try [UInt8](Data(contentsOf: fixtures.appendingPathComponent(relative)))
    }

    /// A debug file cut short between the search that identified it and the read of its DWARF
    /// (`cp` truncates, then writes): the sections handed to the DWARF reader lie in the bytes
    /// mapped at the read, not in the size the search saw, so the reader never reads past the
    /// mapping; the index is built from what is there, or refused. Every slice of thin and
    /// universal dSYMs, cut just past the start of its .debug_info.
    func testADebugFileCutShortAfterItWasIdentifiedIsReadWithinItsMapping() throws {
        for relative in ["producers/dsymutil-arm64-dwarf4/Work.dSYM/Contents/Resources/DWARF/Work",
                         "macho/App-universal.dSYM/Contents/Resources/DWARF/App-universal"] {
            let bytes = try fixture(relative)
            let path = try temporaryCopy(of: bytes)
            for file in try DebugFile.identify(path: path) where file.hasDWARF {
                let label = "\(relative) [\(file.architecture?.name ?? "?")]"
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                let whole = try MappedFile(path: path)
                guard case .machO(let slice) = try ObjectLayout(file, in: whole),
                      let info = slice.sections.first(where: { $0.name == "__debug_info" }) else {
                    XCTFail("\(label): no __debug_info")
                    continue
                }
                XCTAssertEqual(truncate(path, off_t(slice.offset) + off_t(info.offset) + 64), 0)
                let mapped = try MappedFile(path: path)
                let end = mapped.bytes.baseAddress! + mapped.bytes.count
                if let layout = try? ObjectLayout(file, in: mapped) {
                    _ = try? DWARFReader.withObject(file, layout: layout, in: mapped) { object in
                        for name in [".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_ranges"] {
                            guard let section = cdw_section_named(object, name), let data = section.pointee.data else { continue }
                            XCTAssertLessThanOrEqual(UnsafeRawPointer(data) + Int(section.pointee.size), end,
                                                     "\(label): \(name) runs past the mapping")
                        }
                    }
                }
                do {
                    let index = try SymbolIndex.build(file)
                    XCTAssertNotNil(index.problem, "\(label): cut short, read whole")
                } catch {
                    print("MappedFileTests: \(label) cut short: \(error)")
                }
            }
        }
    }
}
