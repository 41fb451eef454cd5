@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

/// Valid DWARF from every producer on this machine is read whole and answers as llvm-symbolizer
/// does: the programs `Fixtures/producers.sh` builds with gcc, clang 14, 19 and 21, swiftc,
/// rustc, dsymutil 14 and 19 and as dSYMs of a compiler's own DWARF (range lists of hundreds of
/// entries a unit, namespaces nested 240-320 deep, names and command lines of thousands of
/// bytes, inline strings, Arm and AArch64, DWARF 4 and 5, compressed sections), and the debug
/// files this machine was installed with (Debian's libc6-dbg, gcc's sanitizer runtimes, the
/// Swift toolchain's and Rust's libraries).
///
/// Fuzzing finds crashes; only valid input finds false rejections: a bound that a real
/// producer's output exceeds makes its units "damaged", and their frames lose file and line.
final class ProducerTests: XCTestCase {
    typealias Subject = SymbolizerOracle.Subject

    /// The programs Fixtures/producers.sh built.
    private func producerSubjects(sampleSize: Int) throws -> [Subject] {
        guard let fixtures = TestPaths.fixtures else {
            print("ProducerTests: \(TestPaths.fixturesAbsent)")
            return []
        }
        let producers = fixtures.appendingPathComponent("producers")
        guard FileManager.default.fileExists(atPath: producers.path) else {
            print("ProducerTests: Fixtures/build/producers is absent: Fixtures/producers.sh (make check runs it) builds it")
            return []
        }
        return try SymbolizerOracle.debugFiles(under: producers, sampleSize: sampleSize)
    }

    /// Debug files this machine's packages installed, each from a producer of its own.
    private func systemSubjects(sampleSize: Int) -> [Subject] {
        var paths = ["/usr/lib/x86_64-linux-gnu/libasan.so.8", "/usr/lib/x86_64-linux-gnu/libtsan.so.2",
                     "/usr/lib/x86_64-linux-gnu/liblsan.so.0", "/usr/lib/x86_64-linux-gnu/libubsan.so.1",
                     "/opt/swift/usr/lib/libSwiftSourceKitPlugin.so"]
        let rust = URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(
            ".rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/x86_64-unknown-linux-gnu/lib")
        paths += ((try? FileManager.default.contentsOfDirectory(atPath: rust.path)) ?? [])
            .filter { $0.hasPrefix("libstd-") && $0.hasSuffix(".so") }.map { rust.appendingPathComponent($0).path }
        var subjects: [Subject] = []
        for path in paths {
            guard let files = try? DebugFile.identify(path: path) else {
                print("ProducerTests: \(path) is not on this machine: passed over")
                continue
            }
            subjects += files.filter(\.hasDWARF).map { Subject(file: $0, label: path, sampleSize: sampleSize) }
        }
        return subjects
    }

    /// Every file of Debian's libc6-dbg (/usr/lib/debug/.build-id): gcc's DWARF 5 of a whole
    /// distribution's C library, its loader and its tools.
    private func libcDebugSubjects(sampleSize: Int) -> [Subject] {
        let root = URL(fileURLWithPath: "/usr/lib/debug/.build-id")
        guard FileManager.default.fileExists(atPath: root.path) else {
            print("ProducerTests: /usr/lib/debug/.build-id is absent (libc6-dbg is not installed): passed over")
            return []
        }
        return (try? SymbolizerOracle.debugFiles(under: root, sampleSize: sampleSize)) ?? []
    }

    /// No unit of any valid debug file is called damaged: every file reads whole.
    func testEveryProducersDebugFilesReadWithoutDamage() throws {
        let subjects = try producerSubjects(sampleSize: 0) + systemSubjects(sampleSize: 0) + libcDebugSubjects(sampleSize: 0)
        guard !subjects.isEmpty else { throw XCTSkip("no producer's debug files on this machine") }
        var damaged: [String] = []
        var functions = 0
        for subject in subjects {
            let raw = try readDWARF(subject.file)
            if let problem = raw.problem { damaged.append("\(subject.label): \(problem)") }
            functions += raw.functions.count
        }
        print("ProducerTests: \(subjects.count) debug files, \(functions) functions read")
        XCTAssertEqual(damaged, [], "valid DWARF called damaged")
        XCTAssertGreaterThan(subjects.count, 40, "too few producers' files")
    }

    /// Each producer's programs answer as llvm-symbolizer does at sampled addresses.
    func testEveryProducersProgramsAgreeWithLLVMSymbolizer() throws {
        guard let symbolizer = TestPaths.llvmSymbolizer else { throw XCTSkip("llvm-symbolizer is not installed") }
        let subjects = try producerSubjects(sampleSize: 300) + systemSubjects(sampleSize: 300)
        guard !subjects.isEmpty else { throw XCTSkip("no producer's debug files on this machine") }
        let comparison = try SymbolizerOracle(symbolizer: symbolizer).compare(subjects, label: "producers")
        XCTAssertEqual(comparison.partlyRead, [], "valid DWARF read in part")
        XCTAssertGreaterThanOrEqual(comparison.total, 5000, "too few addresses sampled")
        XCTAssertEqual(comparison.agreed, comparison.total,
                       "disagreements with llvm-symbolizer:\n" + comparison.mismatches.joined(separator: "\n"))
    }

    /// The rows and function entries the reader leaves out (lines.c, prune.c) change no index:
    /// for every producer's files, the tables made of a reading that drops them and of one that
    /// keeps them all are the same, byte for byte. And some files are read with function
    /// entries dropped (gcc's and clang's C++), some with none (dsymutil's, which name entries
    /// of other units); gcc's with rows dropped.
    func testDroppingUnusedRowsAndFunctionEntriesChangesNoIndex() throws {
        let subjects = try producerSubjects(sampleSize: 0) + systemSubjects(sampleSize: 0)
            + libcDebugSubjects(sampleSize: 0).prefix(40)
        guard !subjects.isEmpty else { throw XCTSkip("no producer's debug files on this machine") }
        var dropped = 0, kept = 0, filesWithDrops = 0, rowsDropped = 0
        for subject in subjects {
            let all = try readDWARF(subject.file, keepUnused: true)
            let used = try readDWARF(subject.file)
            XCTAssertLessThanOrEqual(used.functions.count, all.functions.count, subject.label)
            if used.functions.count < all.functions.count { filesWithDrops += 1 }
            dropped += all.functions.count - used.functions.count
            XCTAssertLessThanOrEqual(used.rows.count, all.rows.count, subject.label)
            rowsDropped += all.rows.count - used.rows.count
            kept += used.functions.count
            var fromAll = SectionBytes(), fromUsed = SectionBytes()
            var allTables = SymbolIndex.Tables(all), usedTables = SymbolIndex.Tables(used)
            allTables.visit(&fromAll)
            usedTables.visit(&fromUsed)
            XCTAssertEqual(fromUsed.sections.count, fromAll.sections.count, subject.label)
            for (a, b) in zip(fromAll.sections, fromUsed.sections) where a != b {
                XCTFail("\(subject.label): index section \(a.kind) differs when unused entries are dropped "
                        + "(\(a.bytes.count) against \(b.bytes.count) bytes)")
            }
        }
        print("ProducerTests: \(subjects.count) debug files, \(dropped) unused function entries dropped, \(kept) kept, "
              + "\(rowsDropped) rows dropped")
        XCTAssertGreaterThan(rowsDropped, 0, "no row dropped")
        XCTAssertGreaterThan(filesWithDrops, 5, "too few files with entries dropped")
        XCTAssertLessThan(filesWithDrops, subjects.count, "entries dropped from every file: dsymutil's name other units'")
    }

    private func readDWARF(_ file: DebugFile, keepUnused: Bool = false) throws -> RawDWARF {
        let mapped = try MappedFile(path: file.path)
        return try mapped.reading {
            try DWARFReader.read(file, layout: try ObjectLayout(file, in: mapped), in: mapped,
                                 options: .init(threads: 2, keepUnused: keepUnused))
        }
    }
}

/// The bytes of every section of an index's tables, in order.
struct SectionBytes: IndexSectionVisitor {
    struct Section: Equatable {
        var kind: UInt32
        var bytes: [UInt8]
    }
    var sections: [Section] = []

    mutating func visit<Element: BitwiseCopyable>(_ kind: UInt32, _ array: inout FlatArray<Element>) {
        sections.append(Section(kind: kind, bytes: Array(array.bytes)))
    }
}
