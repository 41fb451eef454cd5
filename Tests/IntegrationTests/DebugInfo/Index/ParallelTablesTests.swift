@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

/// The parts of a large debug file's tables made in two parts, one on a thread of its own, and
/// put together: the inline segments and the function blocks are the same, in the same places,
/// as made in one part, for the debug files of every producer on this machine.
final class ParallelTablesTests: XCTestCase {
    /// The DWARF pass's reading of `file` (on one thread, the same strings every time).
    private func raw(_ file: DebugFile) throws -> RawDWARF {
        let mapped = try MappedFile(path: file.path)
        return try mapped.reading {
            try DWARFReader.read(file, layout: try ObjectLayout(file, in: mapped), in: mapped, options: .init(threads: 1))
        }
    }

    /// The records and ranges of `raw`'s functions, as the index makes them.
    private func functionTables(_ raw: RawDWARF) -> (FlatArrayWriter<FunctionRecord>, FlatArray<AddressRange>) {
        let (records, ranges, _) = functionRecords(raw)
        return (records, ranges)
    }

    /// The records and ranges of `raw`'s functions and the sorted ranges of the out-of-line ones.
    private func functionRecords(_ raw: RawDWARF) -> (FlatArrayWriter<FunctionRecord>, FlatArray<AddressRange>, [SortedRange]) {
        let (records, concrete) = raw.functions.withUnsafeBufferPointer { functions in
            raw.files.withUnsafeBufferPointer { files in SymbolIndex.Tables.functionRecords(functions, raw.ranges.buffer, files) }
        }
        // A copy of the ranges: they are read again.
        return (records, SymbolIndex.Tables.addressRanges(FlatArray(Array(raw.ranges))), concrete)
    }

    /// The debug files of the fixtures and the producers, and two large C++ libraries when
    /// this machine has them.
    private func debugFiles() -> [(DebugFile, String)] {
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
            print("ParallelTablesTests: \(TestPaths.fixturesAbsent)")
        }
        paths += ["/usr/lib/x86_64-linux-gnu/libasan.so.8", "/usr/lib/x86_64-linux-gnu/libtsan.so.2"]
            .filter { FileManager.default.fileExists(atPath: $0) }
        var files: [(DebugFile, String)] = []
        for path in paths.sorted() {
            guard let identified = try? DebugFile.identify(path: path) else { continue }
            for file in identified where file.hasDWARF && !file.isRelocatable {
                files.append((file, "\(path) [\(file.architecture?.name ?? "?")]"))
            }
        }
        return files
    }

    func testSegmentsSweptInTwoPartsAreTheSegmentsOfOneSweep() throws {
        var files = 0, cut = 0, segments = 0
        for (file, label) in debugFiles() {
            let raw = try raw(file)
            // The sweeps only read the records.
            let (records, ranges) = functionTables(raw)
            let one = SymbolIndex.Tables.inlineSegments(records, ranges, splittingFrom: .max)
            let two = SymbolIndex.Tables.inlineSegments(records, ranges, splittingFrom: 1)
            XCTAssertEqual(two.segments.count, one.segments.count, "\(label): the number of segments")
            let segmentsDiffering = zip(one.segments, two.segments).filter { $0 != $1 }.count
            XCTAssertEqual(segmentsDiffering, 0, "\(label): segments that differ")
            XCTAssertEqual(two.places.count, records.count, label)
            let placesDiffering = zip(one.places, two.places).filter { $0 != $1 }.count
            XCTAssertEqual(placesDiffering, 0, "\(label): records whose segments' places differ")
            let (bound, at) = SymbolIndex.Tables.segmentBound(records)
            files += 1
            if at.bound > 0 && at.bound < bound { cut += 1 }
            segments += one.segments.count
        }
        print("ParallelTablesTests: \(files) debug files, \(cut) of them cut in two, \(segments) segments")
        guard files > 0 else { throw XCTSkip("no debug files with DWARF on this machine") }
        XCTAssertGreaterThan(cut, files / 4, "too few files swept in two parts to test it")
    }

    func testBlocksWrittenInTwoPartsAreTheBlocksOfOneWriter() throws {
        var files = 0, split = 0
        for (file, label) in debugFiles() {
            let raw = try raw(file)
            var made: [(bytes: [UInt8], concrete: [SortedRange], strings: [UInt8], files: [UInt32])] = []
            var functions = 0
            for minimum in [Int.max, 1] {
                let (records, ranges, concrete) = functionRecords(raw)
                let segments = SymbolIndex.Tables.inlineSegments(records, ranges)
                var kept = StringsKept(raw.strings.last == 0 ? raw.strings : raw.strings + [0])
                let order = SymbolIndex.Tables.blockOrder(concrete, functionCount: records.count)
                let names = SymbolIndex.Tables.keepNames(of: order, records, &kept)
                let (bytes, pointing) = SymbolIndex.Tables.functionBlocks(records, ranges, segments, concrete, order: order,
                                                                           names: names, splittingFrom: minimum)
                made.append((Array(bytes), Array(pointing), kept.strings, kept.files))
                functions = Set(concrete.map(\.first)).count
            }
            XCTAssertEqual(made[1].bytes.count, made[0].bytes.count, "\(label): the blocks' size")
            XCTAssertTrue(made[1].bytes == made[0].bytes, "\(label): the blocks")
            XCTAssertEqual(made[1].concrete.count, made[0].concrete.count, "\(label): the ranges")
            XCTAssertEqual(zip(made[0].concrete, made[1].concrete).filter { $0 != $1 }.count, 0,
                           "\(label): ranges whose blocks differ")
            XCTAssertTrue(made[1].strings == made[0].strings, "\(label): the strings kept")
            XCTAssertEqual(made[1].files, made[0].files, "\(label): the files kept")
            files += 1
            if functions >= 2 { split += 1 }
        }
        print("ParallelTablesTests: \(files) debug files, \(split) of them with blocks written in two parts")
        guard files > 0 else { throw XCTSkip("no debug files with DWARF on this machine") }
        XCTAssertGreaterThan(split, files / 2, "too few files written in two parts to test it")
    }

    /// The whole tables, made with their parts on threads of their own (the records beside
    /// the line rows, the segments beside the names kept, the blocks in two parts) and all
    /// in one thread: the same bytes, section by section.
    func testTablesMadeOnThreadsAreTheTablesMadeInOne() throws {
        var files = 0, large = 0
        for (file, label) in debugFiles() {
            var made: [[SectionBytes.Section]] = []
            var functions = 0
            for parallel in [false, true] {
                let raw = try raw(file)
                functions = raw.functions.count
                var tables = SymbolIndex.Tables(raw, parallel: parallel)
                XCTAssertTrue(tables.isWellFormed, label)
                var sections = SectionBytes()
                tables.visit(&sections)
                made.append(sections.sections)
            }
            XCTAssertEqual(made[1].map(\.kind), made[0].map(\.kind), label)
            for (one, two) in zip(made[0], made[1]) where one != two {
                XCTFail("\(label): section \(one.kind) differs made on threads (\(two.bytes.count) against \(one.bytes.count) bytes)")
            }
            files += 1
            if functions >= 4096 { large += 1 }
        }
        print("ParallelTablesTests: \(files) debug files' tables made on threads and in one, \(large) of them large")
        guard files > 0 else { throw XCTSkip("no debug files with DWARF on this machine") }
    }
}
