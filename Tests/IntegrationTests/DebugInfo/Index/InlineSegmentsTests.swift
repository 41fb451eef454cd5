@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

/// The inline segments of a large debug file are swept in two parts, one on a thread of its
/// own, and put together: the same segments, in the same places, as one sweep gives, for the
/// debug files of every producer on this machine.
final class InlineSegmentsTests: XCTestCase {
    /// The DWARF pass's reading of `file`.
    private func raw(_ file: DebugFile) throws -> RawDWARF {
        let mapped = try MappedFile(path: file.path)
        return try mapped.reading {
            try DWARFReader.read(file, layout: try ObjectLayout(file, in: mapped), in: mapped, options: .init(threads: 2))
        }
    }

    /// The records and ranges of `raw`'s functions, as the index makes them.
    private func functionTables(_ raw: RawDWARF) -> (FlatArrayWriter<FunctionRecord>, FlatArray<AddressRange>) {
        let (records, ranges, _) = raw.functions.withUnsafeBufferPointer { functions in
            raw.ranges.withUnsafeBufferPointer { ranges in
                raw.files.withUnsafeBufferPointer { files in SymbolIndex.Tables.functionRecords(functions, ranges, files) }
            }
        }
        return (records, ranges)
    }

    func testSegmentsSweptInTwoPartsAreTheSegmentsOfOneSweep() throws {
        var paths: [String] = []
        if let fixtures = TestPaths.fixtures {
            for folder in ["producers", "elf", "macho"] {
                let root = fixtures.appendingPathComponent(folder)
                let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
                while let url = enumerator?.nextObject() as? URL {
                    if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { paths.append(url.path) }
                }
            }
        } else {
            print("InlineSegmentsTests: \(TestPaths.fixturesAbsent)")
        }
        // Large C++ with much inlined code, when this machine has it.
        paths += ["/usr/lib/x86_64-linux-gnu/libasan.so.8", "/usr/lib/x86_64-linux-gnu/libtsan.so.2"]
            .filter { FileManager.default.fileExists(atPath: $0) }
        var files = 0, cut = 0, segments = 0
        for path in paths.sorted() {
            guard let identified = try? DebugFile.identify(path: path) else { continue }
            for file in identified where file.hasDWARF && !file.isRelocatable {
                let raw = try raw(file)
                let (records, ranges) = functionTables(raw)
                let (twoRecords, twoRanges) = functionTables(raw)
                let one = SymbolIndex.Tables.inlineSegments(records, ranges, splittingFrom: .max)
                let two = SymbolIndex.Tables.inlineSegments(twoRecords, twoRanges, splittingFrom: 1)
                let label = "\(path) [\(file.architecture?.name ?? "?")]"
                XCTAssertEqual(two.count, one.count, "\(label): the number of segments")
                let segmentsDiffering = zip(one, two).filter { $0 != $1 }.count
                XCTAssertEqual(segmentsDiffering, 0, "\(label): segments that differ")
                let recordsDiffering = (0..<records.count).filter { twoRecords[$0] != records[$0] }.count
                XCTAssertEqual(twoRecords.count, records.count, label)
                XCTAssertEqual(recordsDiffering, 0, "\(label): records whose segments' places differ")
                let (bound, at) = SymbolIndex.Tables.segmentBound(records)
                files += 1
                if at.bound > 0 && at.bound < bound { cut += 1 }
                segments += one.count
            }
        }
        print("InlineSegmentsTests: \(files) debug files, \(cut) of them cut in two, \(segments) segments")
        guard files > 0 else { throw XCTSkip("no debug files with DWARF on this machine") }
        XCTAssertGreaterThan(cut, files / 4, "too few files swept in two parts to test it")
    }
}
