@testable import DebugInfo
@testable import DebugInfoTestSupport
import Foundation
import TestSupport
import XCTest

/// The shim's own DWARF reader, on one thread and on several, against libdwarf (the test-only
/// CDwarfReference) reading every unit: the same functions, ranges, rows and paths, in the same order, for every fixture and
/// corpus debug file, glibc's debug file, and objects built here in the encodings the
/// fixtures lack (DWARF 64, type units, DWARF 2, split DWARF, big-endian, -O0 siblings).
final class DWARFReaderTests: XCTestCase {
    typealias Canonical = CanonicalDWARF

    private func read(_ file: DebugFile, _ options: DWARFReader.Options) throws -> RawDWARF {
        let mapped = try MappedFile(path: file.path)
        let layout = try ObjectLayout(file, in: mapped)
        return try DWARFReader.read(file, layout: layout, in: mapped, options: options)
    }

    /// Reads `file` with libdwarf and with the shim's reader on 1, 2 and 3 threads; all must
    /// agree (but for the rows and function entries no lookup can use, which the shim's reader
    /// leaves out, and which are left out of both readings compared), and the shim's
    /// reader must read every unit. Returns the libdwarf reading.
    @discardableResult
    private func checkReadersAgree(_ file: DebugFile, label: String, file line: UInt = #line) throws -> Canonical {
        let reference = Canonical(try LibdwarfReference.read(file), droppingUnused: true)
        for threads: UInt32 in [1, 2, 3] {
            let fast = Canonical(try read(file, .init(threads: threads)), droppingUnused: true)
            XCTAssertNil(fast.problem, "\(label): a unit the reader skips", line: line)
            if let difference = fast.difference(from: reference) {
                XCTFail("\(label): the fast reader on \(threads) thread(s) differs from libdwarf: \(difference)", line: line)
            }
        }
        return reference
    }

    private func debugFiles(under root: URL) -> [(DebugFile, String)] {
        var result: [(DebugFile, String)] = []
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                  let files = try? DebugFile.identify(path: url.path) else { continue }
            for file in files where file.hasDWARF && !file.isRelocatable {
                result.append((file, "\(url.path) [\(file.architecture?.name ?? "?")]"))
            }
        }
        return result.sorted { $0.1 < $1.1 }
    }

    func testFastReaderAgreesWithLibdwarfOnFixturesCorpusAndGlibc() throws {
        var subjects: [(DebugFile, String)] = []
        if let fixtures = TestPaths.fixtures { subjects += debugFiles(under: fixtures) }
        if let corpus = TestPaths.corpus { subjects += debugFiles(under: corpus.appendingPathComponent("debug")) }
        if case .success(let libc) = SymbolizerOracle.systemLibcDebugFile() { subjects.append((libc, "glibc \(libc.path)")) }
        guard !subjects.isEmpty else { throw XCTSkip("\(TestPaths.fixturesAbsent); \(TestPaths.corpusAbsent)") }
        var functions = 0, rows = 0
        for (file, label) in subjects {
            let reference = try checkReadersAgree(file, label: label)
            functions += reference.functions.count
            rows += reference.rows.count
        }
        print("DWARFReaderTests: \(subjects.count) debug files, \(functions) functions, \(rows) rows read alike by both readers")
        XCTAssertGreaterThan(functions, 1000)
    }

    /// Pages released as soon as they are read, a page at a time (the mapped file's behind the
    /// reading threads, the shim's arrays behind the copy into ours): the same reading as with
    /// nothing released.
    func testReleasingPagesChangesNothing() throws {
        var subjects: [(DebugFile, String)] = []
        if let fixtures = TestPaths.fixtures { subjects += debugFiles(under: fixtures) }
        if let corpus = TestPaths.corpus { subjects += debugFiles(under: corpus.appendingPathComponent("debug")) }
        guard !subjects.isEmpty else { throw XCTSkip("\(TestPaths.fixturesAbsent); \(TestPaths.corpusAbsent)") }
        for (file, label) in subjects {
            let kept = Canonical(try read(file, .init(threads: 1, releasePages: false)))
            var readings: [(String, RawDWARF)] = []
            for threads: UInt32 in [1, 2, 3] {
                readings.append(("\(threads) thread(s)", try read(file, .init(threads: threads, releaseStep: 4096))))
            }
            for (reader, raw) in readings {
                if let difference = Canonical(raw).difference(from: kept) {
                    XCTFail("\(label): \(reader), releasing pages, differs from a reading that keeps them: \(difference)")
                }
            }
        }
    }

    // MARK: - Encodings the fixtures lack

    private static let cxxSource = """
        #include <vector>
        #include <string>
        #include <map>
        namespace shapes {
        struct Base { virtual ~Base() {} virtual int area() const = 0; };
        template <typename T> struct Box : Base {
            T w, h;
            Box(T a, T b) : w(a), h(b) {}
            int area() const override { return int(w * h); }
        };
        static inline int twice(int x) { return x * 2; }
        static inline int clamp(int x) { return x < 0 ? 0 : twice(x) > 100 ? 100 : twice(x); }
        class Registry {
        public:
            std::map<std::string, int> names;
            std::vector<int> values;
            void add(const std::string &name, int value) { names[name] = clamp(value); values.push_back(value); }
            int total() const { int t = 0; for (int v : values) t += clamp(v); return t; }
        };
        }
        __attribute__((noinline)) int work(int n) {
            shapes::Registry r;
            for (int i = 0; i < n; i++) r.add(std::to_string(i), i * 3);
            shapes::Box<double> b(n, 2.5);
            return r.total() + b.area();
        }
        int main(int argc, char **) { return work(argc) & 0xff; }
        """

    private static let cSource = """
        struct point { int x, y; };
        static inline int square(int v) { return v * v; }
        static inline int norm(struct point p) { return square(p.x) + square(p.y); }
        __attribute__((noinline)) int far(struct point *p, int n) {
            int best = 0;
            for (int i = 0; i < n; i++) { int d = norm(p[i]); if (d > best) best = d; }
            return best;
        }
        int main(void) { struct point p[3] = {{1, 2}, {3, 4}, {5, 6}}; return far(p, 3); }
        """

    private struct Build {
        var name: String
        var compile: [String]
        var link: [String]?  // nil: the compiler links
        var source: String
        /// Split DWARF: the functions are in the .dwo files, the executable has their line tables.
        var split = false
    }

    private func which(_ candidates: [String]) -> String? {
        candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    func testFastReaderAgreesWithLibdwarfOnOtherEncodings() throws {
        let gxx = which(["/usr/bin/g++"]), clang = which(["/opt/swift/usr/bin/clang", "/usr/bin/clang"])
        let clangxx = which(["/opt/swift/usr/bin/clang++", "/usr/bin/clang++"])
        let lld = which(["/opt/swift/usr/bin/ld.lld", "/usr/bin/ld.lld"])
        var builds: [Build] = []
        if let gxx {
            builds += [
                Build(name: "gcc-dwarf4", compile: [gxx, "-g", "-O2", "-gdwarf-4"], source: Self.cxxSource),
                Build(name: "gcc-dwarf5-64", compile: [gxx, "-g", "-O2", "-gdwarf-5", "-gdwarf64"], source: Self.cxxSource),
                Build(name: "gcc-dwarf4-64", compile: [gxx, "-g", "-O2", "-gdwarf-4", "-gdwarf64"], source: Self.cxxSource),
                Build(name: "gcc-dwarf4-types", compile: [gxx, "-g", "-O2", "-gdwarf-4", "-fdebug-types-section"], source: Self.cxxSource),
                Build(name: "gcc-dwarf5-types", compile: [gxx, "-g", "-O2", "-gdwarf-5", "-fdebug-types-section"], source: Self.cxxSource),
                Build(name: "gcc-dwarf2-strict", compile: [gxx, "-g", "-O2", "-gdwarf-2", "-gstrict-dwarf"], source: Self.cxxSource),
                Build(name: "gcc-O0", compile: [gxx, "-g", "-O0"], source: Self.cxxSource),
                // The skeleton units of GNU split DWARF 4 (DW_AT_GNU_addr_base, DW_FORM_GNU_addr_index).
                Build(name: "gcc-split-dwarf4", compile: [gxx, "-g", "-O2", "-gdwarf-4", "-gsplit-dwarf"], source: Self.cxxSource,
                      split: true),
                Build(name: "gcc-split-dwarf5", compile: [gxx, "-g", "-O2", "-gdwarf-5", "-gsplit-dwarf"], source: Self.cxxSource,
                      split: true),
            ]
        }
        if let clangxx, lld != nil {
            builds += [
                Build(name: "clang-dwarf5", compile: [clangxx, "-g", "-O2", "-gdwarf-5", "-fuse-ld=lld"], source: Self.cxxSource),
                Build(name: "clang-dwarf4", compile: [clangxx, "-g", "-O2", "-gdwarf-4", "-fuse-ld=lld"], source: Self.cxxSource),
                Build(name: "clang-dwarf5-64", compile: [clangxx, "-g", "-O2", "-gdwarf-5", "-gdwarf64", "-fuse-ld=lld"], source: Self.cxxSource),
            ]
        }
        if let clang, let lld {
            for (target, version) in [("powerpc64-linux-gnu", "-gdwarf-5"), ("powerpc64-linux-gnu", "-gdwarf-4"), ("powerpc-linux-gnu", "-gdwarf-4")] {
                builds.append(Build(name: "\(target)\(version)", compile: [clang, "--target=\(target)", "-g", "-O2", version, "-c"],
                                    link: [lld, "-e", "main", "--unresolved-symbols=ignore-all"], source: Self.cSource))
            }
        }
        guard !builds.isEmpty else { throw XCTSkip("no g++, and no clang with ld.lld, to build test objects") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dwarf-reader-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var checked = 0
        for build in builds {
            let isC = build.link != nil
            let source = directory.appendingPathComponent("\(build.name).\(isC ? "c" : "cc")")
            try build.source.write(to: source, atomically: true, encoding: .utf8)
            let output = directory.appendingPathComponent(build.name)
            let object = directory.appendingPathComponent("\(build.name).o")
            var result = try runProcess(build.compile[0], Array(build.compile.dropFirst()) + [source.path, "-o", (isC ? object : output).path])
            if result.status == 0, let link = build.link {
                result = try runProcess(link[0], Array(link.dropFirst()) + [object.path, "-o", output.path])
            }
            guard result.status == 0 else {
                print("DWARFReaderTests: \(build.name) not built: \(result.stderrText.prefix(300))")
                continue
            }
            let files = try DebugFile.identify(path: output.path).filter(\.hasDWARF)
            XCTAssertFalse(files.isEmpty, "\(build.name): no DWARF")
            for file in files {
                let reference = try checkReadersAgree(file, label: build.name)
                XCTAssertEqual(reference.functions.isEmpty, build.split, build.name)
                XCTAssertFalse(reference.rows.isEmpty, build.name)
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 0)
    }

    // MARK: - Damage

    /// Damaged DWARF read on several threads: an index or an error naming the file, never a
    /// crash, and the same whether one thread reads it or three.
    func testDamagedDWARFOnSeveralThreads() throws {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        let originals = ["elf/app-gcc-dwarf4", "elf/app-clang-dwarf5", "elf/app-gcc-dwarf2", "elf/swift-shapes"]
            .map { fixtures.appendingPathComponent($0) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dwarf-damage-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var generator = SplitMix64(seed: 7)
        var read = 0, partial = 0
        for original in originals {
            let bytes = try [UInt8](Data(contentsOf: original))
            let sections = try bytes.withUnsafeBytes { raw in
                try ELF.parse(raw, path: original.path).sections.filter { $0.name.hasPrefix(".debug_") && $0.size > 0 }
            }
            for round in 0..<30 {
                var damaged = bytes
                let section = sections[Int(generator.next() % UInt64(sections.count))]
                for _ in 0..<(1 + Int(generator.next() % 4)) {
                    let length = Int(min(UInt64(1) << (generator.next() % 6), section.size))
                    let start = Int(section.offset) + Int(generator.next() % max(1, section.size - UInt64(length)))
                    for i in start..<(start + length) { damaged[i] = UInt8(truncatingIfNeeded: generator.next()) }
                }
                let url = directory.appendingPathComponent("\(original.lastPathComponent)-\(round)")
                try Data(damaged).write(to: url)
                guard let file = try? DebugFile.identify(path: url.path).first(where: \.hasDWARF) else { continue }
                // One result per thread count: both must fail alike or both read alike.
                let results = [UInt32(1), 3].map { threads in
                    Result { Canonical(try self.read(file, .init(threads: threads))) }
                }
                switch (results[0], results[1]) {
                case let (.success(one), .success(three)):
                    read += 1
                    if one.problem != nil { partial += 1 }
                    if let difference = one.difference(from: three) {
                        XCTFail("\(url.lastPathComponent): 1 and 3 threads differ: \(difference)")
                    }
                case let (.failure(one), .failure(three)):
                    XCTAssertTrue("\(one)".hasPrefix(url.path), "\(one)")
                    XCTAssertEqual("\(one)", "\(three)", "\(url.lastPathComponent): 1 and 3 threads fail differently")
                case let (.success, .failure(error)), let (.failure(error), .success):
                    XCTFail("\(url.lastPathComponent): read on one of 1 and 3 threads only; the other failed: \(error)")
                }
            }
        }
        print("DWARFReaderTests: \(read) damaged files read (\(partial) of them partly)")
        XCTAssertGreaterThan(read, 20)
    }
}
