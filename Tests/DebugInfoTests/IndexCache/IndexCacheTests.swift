@testable import DebugInfo
import Foundation
import DebugInfoTestSupport
import TestSupport
import XCTest

/// The index cache over real debug files: a stored index answers as the one built from the
/// DWARF, a changed debug file or a damaged cache file is never used, concurrent writers
/// leave whole files, and the folder stays under its bound.
final class IndexCacheTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("index-store-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    private func makeStore(_ name: String = "indexes", sizeLimit: Int = IndexCache.defaultSizeLimit) -> IndexCache {
        IndexCache(directory: scratch.appendingPathComponent(name).path, sizeLimit: sizeLimit)
    }

    /// One fixture with DWARF, inlined code and a symbol table.
    private func fixture(_ relative: String = "elf/app-gcc-dwarf4") throws -> URL {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        return fixtures.appendingPathComponent(relative)
    }

    /// A copy of a fixture in the scratch folder, to change at will.
    private func copy(_ relative: String = "elf/app-gcc-dwarf4", as name: String = "app") throws -> DebugFile {
        let url = scratch.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.copyItem(at: try fixture(relative), to: url)
        return try XCTUnwrap(DebugFile.identify(path: url.path).first)
    }

    /// The symbol table of a file without DWARF (a stripped binary) is stored too.
    func testASymbolTableWithoutDWARFIsStored() throws {
        let file = try XCTUnwrap(DebugFile.identify(path: try fixture("debuglink/app").path).first)
        XCTAssertFalse(file.hasDWARF)
        let store = makeStore()
        let built = try store.index(for: file)
        let stored = try XCTUnwrap(store.cachedIndex(for: file))
        let addresses = try IndexSamples.sample(file, count: 500)
        _ = assertSameAnswers(stored, built, addresses, "stripped app")
        XCTAssertTrue(addresses.contains { !stored.lookup($0).isEmpty })
    }

    /// An index of DWARF read only in part keeps its problem when stored, so the warning about
    /// it is given on every run, not only the first.
    func testAPartlyReadIndexKeepsItsProblem() throws {
        let original = try [UInt8](Data(contentsOf: try fixture()))
        let info = try original.withUnsafeBytes { raw in
            try XCTUnwrap(ELF.parse(raw, path: "app").sections.first { $0.name == ".debug_info" })
        }
        var generator = SplitMix64(seed: 11)
        let store = makeStore()
        for round in 0..<200 {
            var damaged = original
            let start = Int(info.offset) + Int(generator.next() % (info.size - 32))
            for i in start..<(start + 32) { damaged[i] = UInt8(truncatingIfNeeded: generator.next()) }
            let url = scratch.appendingPathComponent("partial-\(round)")
            try Data(damaged).write(to: url)
            guard let file = try DebugFile.identify(path: url.path).first,
                  let built = try? store.index(for: file), let problem = built.problem else { continue }
            let stored = try XCTUnwrap(store.cachedIndex(for: file))
            XCTAssertEqual(stored.problem, problem)
            _ = assertSameAnswers(stored, built, try IndexSamples.sample(file, count: 500), "partly read")
            return
        }
        XCTFail("no damage made the DWARF partly readable")
    }

    // MARK: - Validity

    func testAChangedDebugFileIsIndexedAgain() throws {
        let file = try copy()
        let store = makeStore()
        XCTAssertNil(store.cachedIndex(for: file))
        _ = try store.index(for: file)
        XCTAssertNotNil(store.cachedIndex(for: file))

        // Another mtime, same bytes.
        var times = [timespec(tv_sec: 1_600_000_000, tv_nsec: 0), timespec(tv_sec: 1_600_000_000, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, file.path, &times, 0), 0)
        XCTAssertNil(store.cachedIndex(for: file), "mtime changed")
        _ = try store.index(for: file)
        XCTAssertNotNil(store.cachedIndex(for: file))

        // Another size, same mtime.
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: file.path))
        handle.seekToEndOfFile()
        handle.write(Data([0]))
        handle.closeFile()
        XCTAssertEqual(utimensat(AT_FDCWD, file.path, &times, 0), 0)
        XCTAssertNil(store.cachedIndex(for: file), "size changed")
        _ = try store.index(for: file)
        XCTAssertNotNil(store.cachedIndex(for: file))

        // Another file put in its place (another inode), same size and mtime.
        let replacement = scratch.appendingPathComponent("replacement")
        try FileManager.default.copyItem(atPath: file.path, toPath: replacement.path)
        XCTAssertEqual(utimensat(AT_FDCWD, replacement.path, &times, 0), 0)
        XCTAssertEqual(rename(replacement.path, file.path), 0)
        XCTAssertNil(store.cachedIndex(for: file), "inode changed")

        // An index file under the right name but of another debug file.
        let other = try copy("elf/app-clang-dwarf5", as: "other")
        _ = try store.index(for: other)
        let stamp = try XCTUnwrap(DebugFileStamp(path: file.path))
        try FileManager.default.copyItem(atPath: store.path(for: other, stamp: XCTUnwrap(DebugFileStamp(path: other.path))),
                                         toPath: store.path(for: file, stamp: stamp))
        XCTAssertThrowsError(try store.load(file, stamp: stamp)) { XCTAssertEqual($0 as? IndexCacheFormat.Rejection, .stale) }
        let rebuilt = try store.index(for: file)
        XCTAssertEqual(rebuilt.debugFile, file)
        XCTAssertNoThrow(try store.load(file, stamp: stamp))
    }

    /// A fixture copy indexed into a new store: the file, the store, the built index, the
    /// file's stamp, and the stored index file's path and bytes.
    private func storedFixture() throws
        -> (DebugFile, IndexCache, SymbolIndex, DebugFileStamp, String, [UInt8]) {
        let file = try copy()
        let store = makeStore()
        let built = try store.index(for: file)
        let stamp = try XCTUnwrap(DebugFileStamp(path: file.path))
        let path = store.path(for: file, stamp: stamp)
        return (file, store, built, stamp, path, try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// Cut short, bits flipped in the header, another version, another byte order, sections
    /// out of bounds, tables of different lengths: each is refused when the file is opened,
    /// the index is built again, answers as it should, and replaces the file.
    func testDamagedIndexFilesAreRefusedAndReplaced() throws {
        let (file, store, built, stamp, path, original) = try storedFixture()
        let addresses = try IndexSamples.sample(file, count: 300)
        let headerSize = Int(original.withUnsafeBytes { $0.load(fromByteOffset: 24, as: UInt64.self) })
        let sections = IndexSamples.sections(of: original)
        XCTAssertEqual(sections.count, 13)
        let entry = IndexCacheFormat.fixedHeaderSize, entrySize = IndexCacheFormat.sectionEntrySize

        var generator = SplitMix64(seed: 7)
        var variants: [(String, [UInt8])] = []
        for length in [0, 1, 8, 103, 104, headerSize - 1, headerSize, original.count / 2, original.count - 1] {
            variants.append(("cut to \(length)", Array(original.prefix(length))))
        }
        variants.append(("one byte more", original + [0]))
        for offset in 0..<headerSize where offset % 5 == 0 || offset < 104 {
            var damaged = original
            damaged[offset] ^= UInt8(1) << (generator.next() % 8)
            variants.append(("header byte \(offset) flipped", damaged))
        }
        variants.append(("version 5", IndexCacheTests.resealed(original) { $0.store(UInt32(5), at: 8) }))
        variants.append(("version 0", IndexCacheTests.resealed(original) { $0.store(UInt32(0), at: 8) }))
        variants.append(("big-endian", IndexCacheTests.resealed(original) { $0.store(UInt32(0x0403_0201), at: 12) }))
        variants.append(("section past the end", IndexCacheTests.resealed(original) {
            $0.store(UInt64(original.count - 8), at: entry + 8)
        }))
        variants.append(("section count too large", IndexCacheTests.resealed(original) {
            $0.store(UInt64(1) << 40, at: entry + 16)
        }))
        variants.append(("misaligned section", IndexCacheTests.resealed(original) {
            $0.store(UInt64(sections[1].offset + 4), at: entry + entrySize + 8)
        }))
        // Fences that do not fit their tables, strings cut before their final NUL, symbols'
        // records and files of different lengths.
        let shaped: [UInt32] = [1, 5, 7, 33, 34, 35] + (sections.contains { $0.kind == 35 && $0.length > 0 } ? [32] : [])
        for (s, section) in sections.enumerated() where shaped.contains(section.kind) && section.length > 0 {
            variants.append(("section \(section.kind) one element shorter", IndexCacheTests.shortened(original, section: s)))
        }
        var unterminated = original
        unterminated[sections.first { $0.kind == 1 }.map { $0.offset + $0.length - 1 } ?? 0] = 0x41
        variants.append(("strings without a final NUL", unterminated))
        variants.append(("random bytes", (0..<original.count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }))
        var garbage = original
        garbage.replaceSubrange(0..<8, with: Array("SYMIDX\0\r".utf8))
        variants.append(("another magic", garbage))

        for (label, bytes) in variants {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            XCTAssertThrowsError(try store.load(file, stamp: stamp), label) { error in
                guard case .damaged = error as? IndexCacheFormat.Rejection else { return XCTFail("\(label): \(error)") }
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let warnings = Warnings()
            let rebuilt = try store.index(for: file, warning: { warnings.add($0) })
            XCTAssertEqual(warnings.lines.count, 1, "\(label): \(warnings.lines)")
            XCTAssertTrue(warnings.lines.allSatisfy { $0.hasPrefix(path + ": damaged index cache file (") }, "\(warnings.lines)")
            _ = assertSameAnswers(rebuilt, built, addresses, label)
            let reloaded = try store.load(file, stamp: stamp)
            _ = assertSameAnswers(reloaded, built, addresses.prefix(40).map { $0 }, label + ", rebuilt")
            XCTAssertEqual(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))), original, label)
        }
        print("index cache: \(variants.count) damaged index files refused and replaced")
    }

    /// Damage inside the tables is not looked for when a file is opened (that would read the
    /// whole file): each block is checked against its checksum the first time a lookup reads
    /// in it. Bits flipped anywhere in the sections, whole sections of random bytes, every
    /// element one extreme value, the file cut short while it is mapped: every variant
    /// answers every question exactly as the undamaged index does, having been built again
    /// from the debug file with one line saying so, or having never read the damage.
    func testDamagedTablesNeverChangeAnAnswer() throws {
        let (file, store, built, _, path, original) = try storedFixture()
        let sections = IndexSamples.sections(of: original).filter { $0.length > 0 }
        var addresses = try IndexSamples.sample(file, count: 200)
        addresses += [0, 1, UInt64.max, UInt64.max - 1] + (addresses.map { $0 &+ 0x10_000 })
        let wanted = addresses.map { built.lookup($0) }, wantedNames = addresses.map { built.symbolName(startingAt: $0) }

        var generator = SplitMix64(seed: 13)
        var variants: [(String, [UInt8])] = []
        for section in sections {
            for _ in 0..<3 {
                var damaged = original
                damaged[section.offset + Int(generator.next() % UInt64(section.length))] ^= UInt8(1) << (generator.next() % 8)
                variants.append(("section \(section.kind) bit flipped", damaged))
            }
            var random = original
            for i in section.offset..<(section.offset + section.length) {
                random[i] = UInt8(truncatingIfNeeded: generator.next())
            }
            if section.kind == 1 || section.kind == 34 { random[section.offset + section.length - 1] = 0 }  // strings: NUL-ended
            variants.append(("section \(section.kind) random", random))
            // Every element the same extreme value: past the end, negative, zero, itself.
            for value: UInt64 in [0, 1, UInt64.max, UInt64(Int32.max)] {
                var extreme = original
                let size = IndexCacheTests.elementSize(of: section.kind, in: original)
                // The value in every field: 8-byte fields where the record is made of them, else 4 or 1.
                let width = size % 8 == 0 ? 8 : size % 4 == 0 ? 4 : 1
                let pattern = withUnsafeBytes(of: value) { Array($0.prefix(width)) }
                for at in stride(from: section.offset, to: section.offset + section.length, by: size) {
                    for b in 0..<size { extreme[at + b] = pattern[b % width] }
                }
                if section.kind == 1 || section.kind == 34 { extreme[section.offset + section.length - 1] = 0 }
                variants.append(("section \(section.kind) all \(value)", extreme))
            }
        }
        var rebuilt = 0, untouched = 0
        for (label, bytes) in variants where bytes != original {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let warnings = Warnings()
            let loaded = try store.index(for: file, warning: { warnings.add($0) })
            for (n, address) in addresses.enumerated() {
                XCTAssertEqual(loaded.lookup(address), wanted[n], "\(label) 0x\(String(address, radix: 16))")
                XCTAssertEqual(loaded.symbolName(startingAt: address), wantedNames[n], label)
            }
            XCTAssertEqual(loaded.address(ofSymbol: "main"), built.address(ofSymbol: "main"), label)
            XCTAssertLessThanOrEqual(warnings.lines.count, 1, "\(label): \(warnings.lines)")
            if let line = warnings.lines.first {
                XCTAssertTrue(line.hasPrefix(path + ": damaged index cache file ("), line)
                XCTAssertEqual(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))), original, "\(label): replaced")
                rebuilt += 1
            } else {
                untouched += 1
            }
        }
        print("index cache: \(variants.count) damaged tables, \(variants.count * addresses.count) lookups answered as "
              + "undamaged: \(rebuilt) rebuilt with one line, \(untouched) never read the damage")
        XCTAssertGreaterThan(rebuilt, variants.count / 2)
    }

    /// Tables one element shorter than the indexes pointing into them, with a header made to
    /// agree (a forgery, not damage: no checksum tells it from a file written so): every
    /// lookup returns, none faults or hangs. (Those whose length the shape checks are refused
    /// instead: the strings, the fences, and the symbols' records and their files, which must
    /// be as many.)
    func testForgedTableLengthsNeverFaultOrHang() throws {
        let (file, store, _, stamp, path, original) = try storedFixture()
        var addresses = try IndexSamples.sample(file, count: 200)
        addresses += [0, 1, UInt64.max, UInt64.max - 1] + (addresses.map { $0 &+ 0x10_000 })
        var variants = 0
        for (s, section) in IndexSamples.sections(of: original).enumerated()
        where section.length > 0 && ![1, 5, 7, 32, 33, 34, 35].contains(section.kind) {
            try Data(IndexCacheTests.shortened(original, section: s)).write(to: URL(fileURLWithPath: path))
            guard let loaded = try? store.load(file, stamp: stamp) else {
                XCTFail("section \(section.kind) one element shorter: refused, though its shape is whole")
                continue
            }
            for address in addresses {
                _ = loaded.lookup(address)
                _ = loaded.symbolName(startingAt: address)
            }
            _ = loaded.address(ofSymbol: "main")
            variants += 1
        }
        XCTAssertGreaterThan(variants, 3)
    }

    /// An index file cut short by someone else while a run has it mapped: the pages gone read
    /// as zeros, and the index answers from the debug file, saying so once. A small one was
    /// read into memory when it was opened, and answers from there, unharmed.
    func testAnIndexCutShortWhileMappedAnswersAsBuilt() throws {
        let file = try copy("elf/rust-v0", as: "large")
        let store = makeStore()
        let built = try store.index(for: file)
        let path = store.path(for: file, stamp: try XCTUnwrap(DebugFileStamp(path: file.path)))
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertGreaterThan(original.count, 3 * IndexMapping.copiedSize)
        let addresses = try IndexSamples.sample(file, count: 300)
        let warnings = Warnings()
        let loaded = try store.index(for: file, warning: { warnings.add($0) })
        XCTAssertEqual(warnings.lines, [])
        let page = Int(getpagesize())
        XCTAssertEqual(truncate(path, off_t(original.count / 3 / page * page)), 0)
        _ = assertSameAnswers(loaded, built, addresses, "cut while mapped")
        XCTAssertEqual(warnings.lines.count, 1, "\(warnings.lines)")
        XCTAssertTrue(loaded.isDamaged)

        let (smallFile, smallStore, smallBuilt, _, smallPath, small) = try storedFixture()
        XCTAssertLessThanOrEqual(small.count, IndexMapping.copiedSize)
        let smallLoaded = try smallStore.index(for: smallFile, warning: { warnings.add($0) })
        XCTAssertEqual(truncate(smallPath, off_t(small.count / 3)), 0)
        _ = assertSameAnswers(smallLoaded, smallBuilt, try IndexSamples.sample(smallFile, count: 300), "small, cut")
        XCTAssertEqual(warnings.lines.count, 1, "\(warnings.lines)")
        XCTAssertFalse(smallLoaded.isDamaged)
    }

    /// A FIFO, a device or a link put in the folder in place of an index file: opened without
    /// waiting or not at all, said in one line, and replaced by the index built again; a file
    /// elsewhere that a link points to is left alone.
    func testWhatIsNotARegularFileInPlaceOfAnIndexIsReplaced() throws {
        let (file, store, built, _, path, original) = try storedFixture()
        let addresses = try IndexSamples.sample(file, count: 100)
        let elsewhere = scratch.appendingPathComponent("elsewhere").path, fifo = scratch.appendingPathComponent("fifo").path
        try Data(original).write(to: URL(fileURLWithPath: elsewhere))
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let places: [(String, () -> Int32)] = [
            ("a FIFO", { mkfifo(path, 0o600) }),
            ("a link to /dev/zero", { symlink("/dev/zero", path) }),
            ("a link to a FIFO", { symlink(fifo, path) }),
            ("a link to an index elsewhere", { symlink(elsewhere, path) }),
        ]
        for (what, make) in places {
            XCTAssertEqual(unlink(path), 0, what)
            XCTAssertEqual(make(), 0, what)
            let warnings = Warnings()
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var loaded: SymbolIndex?
            Thread {
                loaded = try? store.index(for: file, warning: { warnings.add($0) })
                done.signal()
            }.start()
            // A hang detector only (a FIFO opened for reading blocks): the wait ends when the index comes.
            guard done.wait(timeout: .now() + 120) == .success, let loaded else {
                XCTFail("\(what): the index did not come")
                continue
            }
            _ = assertSameAnswers(loaded, built, addresses, what)
            XCTAssertEqual(warnings.lines.count, 1, "\(what): \(warnings.lines)")
            XCTAssertTrue(warnings.lines.first?.hasPrefix(path + ": damaged index cache file (") ?? false, "\(warnings.lines)")
            var info = stat()
            XCTAssertEqual(lstat(path, &info), 0)
            XCTAssertEqual(info.st_mode & S_IFMT, S_IFREG, "\(what): replaced")
            XCTAssertEqual(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))), original, what)
        }
        XCTAssertEqual(try [UInt8](Data(contentsOf: URL(fileURLWithPath: elsewhere))), original, "left alone")
    }

    /// `bytes` changed by `change`, with the header checksum made to agree again.
    static func resealed(_ bytes: [UInt8], _ change: (inout [UInt8]) -> Void) -> [UInt8] {
        var changed = bytes
        change(&changed)
        let headerSize = Int(bytes.withUnsafeBytes { $0.load(fromByteOffset: 24, as: UInt64.self) })
        var header = Array(changed.prefix(headerSize))
        for i in 96..<104 { header[i] = 0 }
        changed.store(header.withUnsafeBytes { IndexChecksum.hash($0) }, at: 96)
        return changed
    }

    /// `bytes` with the element count of the `s`th section one less, the header resealed.
    static func shortened(_ bytes: [UInt8], section s: Int) -> [UInt8] {
        let at = IndexCacheFormat.fixedHeaderSize + s * IndexCacheFormat.sectionEntrySize + 16
        return resealed(bytes) { changed in
            let count = changed.withUnsafeBytes { $0.load(fromByteOffset: at, as: UInt64.self) }
            changed.store(count - 1, at: at)
        }
    }

    /// The size of one element of section `kind`.
    static func elementSize(of kind: UInt32, in bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { raw in
            let count = Int(raw.load(fromByteOffset: 32, as: UInt32.self))
            for s in 0..<count {
                let at = IndexCacheFormat.fixedHeaderSize + s * IndexCacheFormat.sectionEntrySize
                if raw.load(fromByteOffset: at, as: UInt32.self) == kind {
                    return Int(raw.load(fromByteOffset: at + 4, as: UInt32.self))
                }
            }
            return 1
        }
    }

    /// A mapped index stays valid when its file is replaced or removed by another run.
    func testAMappedIndexOutlivesItsFile() throws {
        let file = try copy()
        let store = makeStore()
        let built = try store.index(for: file)
        let stored = try XCTUnwrap(store.cachedIndex(for: file))
        let stamp = try XCTUnwrap(DebugFileStamp(path: file.path))
        XCTAssertEqual(unlink(store.path(for: file, stamp: stamp)), 0)
        _ = assertSameAnswers(stored, built, try IndexSamples.sample(file, count: 500), "unlinked")
    }

    // MARK: - Sharing

    /// Threads storing the same index at once, while others load it: every load finds a whole
    /// file or none, and one whole file is left, with no temporary files.
    func testConcurrentStoresLeaveAWholeFile() throws {
        let file = try copy()
        let store = makeStore()
        let built = try SymbolIndex.build(file)
        let stamp = try XCTUnwrap(DebugFileStamp(path: file.path))
        final class Counts: @unchecked Sendable {
            let lock = NSLock()
            var loaded = 0, absent = 0, failures: [String] = []
        }
        let counts = Counts()
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            for _ in 0..<10 {
                if i % 2 == 0 {
                    do { try store.store(built, stamp: stamp) } catch {
                        counts.lock.lock(); counts.failures.append("\(error)"); counts.lock.unlock()
                    }
                } else {
                    do {
                        let index = try store.load(file, stamp: stamp)
                        _ = index.lookup(file.textVMAddress + 0x1000)
                        counts.lock.lock(); counts.loaded += 1; counts.lock.unlock()
                    } catch IndexCacheFormat.Rejection.absent {
                        counts.lock.lock(); counts.absent += 1; counts.lock.unlock()
                    } catch {
                        counts.lock.lock(); counts.failures.append("\(error)"); counts.lock.unlock()
                    }
                }
            }
        }
        XCTAssertEqual(counts.failures, [])
        XCTAssertEqual(counts.loaded + counts.absent, 80)
        XCTAssertNotNil(store.cachedIndex(for: file))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: store.directory).count, 1)
    }

    /// Processes (this test binary, started again) storing the same index at once.
    func testConcurrentProcessesLeaveAWholeFile() throws {
        let file = try copy()
        let store = makeStore()
        let executable = CommandLine.arguments[0]
        guard executable.hasSuffix(".xctest"), FileManager.default.isExecutableFile(atPath: executable) else {
            throw XCTSkip("the test binary cannot be started again from \(executable)")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["INDEX_STORE_HELPER_FILE"] = file.path
        environment["INDEX_STORE_HELPER_DIRECTORY"] = store.directory
        let processes = (0..<4).map { _ -> Process in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["DebugInfoTests.IndexCacheTests/testHelperStoresAnIndexRepeatedly"]
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            return process
        }
        for process in processes { try process.run() }
        for process in processes {
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
        }
        let built = try SymbolIndex.build(file)
        let stored = try XCTUnwrap(store.cachedIndex(for: file))
        _ = assertSameAnswers(stored, built, try IndexSamples.sample(file, count: 300), "after concurrent processes")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: store.directory).count, 1)
    }

    /// Run by ``testConcurrentProcessesLeaveAWholeFile()`` in processes of its own.
    func testHelperStoresAnIndexRepeatedly() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment["INDEX_STORE_HELPER_FILE"], let directory = environment["INDEX_STORE_HELPER_DIRECTORY"]
        else {
            throw XCTSkip("a helper of testConcurrentProcessesLeaveAWholeFile, run by it in processes of its own "
                + "(INDEX_STORE_HELPER_FILE and INDEX_STORE_HELPER_DIRECTORY are not set)")
        }
        let file = try XCTUnwrap(DebugFile.identify(path: path).first)
        let store = IndexCache(directory: directory)
        let built = try SymbolIndex.build(file)
        let stamp = try XCTUnwrap(DebugFileStamp(path: path))
        for _ in 0..<20 {
            try store.store(built, stamp: stamp)
            do {
                _ = try store.load(file, stamp: stamp)
            } catch IndexCacheFormat.Rejection.absent {
            }
        }
    }

    // MARK: - Bound

    /// The folder stays under its bound; the files used least recently go first, and using a
    /// file makes it recent.
    func testEvictionKeepsTheBoundAndRemovesTheLeastRecentlyUsed() throws {
        // Copies of one file: indexes of one size, each under a name of its own (another inode).
        let files = try (0..<6).map { try copy(as: "copy\($0)") }
        let probe = makeStore("probe")
        _ = try probe.index(for: files[0])
        let size = try XCTUnwrap(probe.entries().first?.size)
        let bound = size * 9 / 2  // room for four, not five
        let store = makeStore(sizeLimit: bound)
        func name(_ i: Int) throws -> String {
            (store.path(for: files[i], stamp: try XCTUnwrap(DebugFileStamp(path: files[i].path))) as NSString).lastPathComponent
        }
        func setUsed(_ i: Int, _ seconds: Int) throws {
            var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
            let path = (store.directory as NSString).appendingPathComponent(try name(i))
            XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
        }
        func left() throws -> [Int] {
            let names = Set(store.entries().map(\.name))
            return try (0..<6).filter { names.contains(try name($0)) }
        }
        for i in 0..<4 {
            _ = try store.index(for: files[i])
            try setUsed(i, 1_700_000_000 + i * 100)  // 0 the oldest, 3 the newest
        }
        XCTAssertEqual(try left(), [0, 1, 2, 3])
        XCTAssertNotNil(store.cachedIndex(for: files[0]))  // now the most recent
        _ = try store.index(for: files[4])
        XCTAssertEqual(try left(), [0, 2, 3, 4], "the least recently used goes first")
        XCTAssertLessThanOrEqual(store.entries().reduce(0) { $0 + $1.size }, bound)

        try setUsed(3, 1_600_000_000)
        _ = try store.index(for: files[5])
        XCTAssertEqual(try left(), [0, 2, 4, 5])

        // A smaller bound: as many of the oldest go as need to.
        let smaller = IndexCache(directory: store.directory, sizeLimit: size * 2)
        try setUsed(0, 1_600_000_000)
        try setUsed(2, 1_600_000_100)
        smaller.evict()
        XCTAssertEqual(try left(), [4, 5])
        print("index cache: index files of \(size) bytes, bound \(bound) then \(size * 2): evicted oldest first")

        // An index larger than the bound is built but not stored.
        let tiny = makeStore("tiny", sizeLimit: 1000)
        XCTAssertGreaterThan(try tiny.index(for: files[0]).tables.functionBytes.count, 0)
        XCTAssertEqual(tiny.entries().count, 0)
    }

    /// Temporary files left by runs that died while writing are removed after an hour; those
    /// of running writers are not.
    func testAbandonedTemporaryFilesAreRemoved() throws {
        let file = try copy()
        let store = makeStore()
        try FileManager.default.createDirectory(atPath: store.directory, withIntermediateDirectories: true)
        let old = (store.directory as NSString).appendingPathComponent("x-v1.index.123.1.tmp")
        let fresh = (store.directory as NSString).appendingPathComponent("y-v1.index.124.1.tmp")
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: old))
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: fresh))
        var times = [timespec(tv_sec: 1_600_000_000, tv_nsec: 0), timespec(tv_sec: 1_600_000_000, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, old, &times, 0), 0)
        _ = store.entries()
        _ = try store.index(for: file)
        XCTAssertFalse(FileManager.default.fileExists(atPath: old))
        XCTAssertTrue(FileManager.default.fileExists(atPath: fresh))
    }

    // MARK: - Place and failures

    func testStandardDirectory() {
        XCTAssertEqual(IndexCache.standardDirectory(environment: ["XDG_CACHE_HOME": "/x/cache", "HOME": "/home/me"]),
                       "/x/cache/symbolicate/indexes")
        XCTAssertEqual(IndexCache.standardDirectory(environment: ["XDG_CACHE_HOME": "relative", "HOME": "/home/me"]),
                       "/home/me/.cache/symbolicate/indexes")
        XCTAssertNil(IndexCache.standardDirectory(environment: [:]))
        XCTAssertEqual(IndexCache.standard(environment: ["HOME": "/h"], sizeLimit: 5)?.sizeLimit, 5)
        XCTAssertEqual(IndexCache.standard(environment: ["HOME": "/h"])?.sizeLimit, 2 << 30)
    }

    /// A store that cannot be written says so through the warning and still gives the index.
    func testAStoreThatCannotBeWrittenWarnsAndStillGivesTheIndex() throws {
        let file = try copy()
        let blocker = scratch.appendingPathComponent("blocker")
        try Data("not a folder".utf8).write(to: blocker)
        let store = IndexCache(directory: blocker.appendingPathComponent("indexes").path)
        let warnings = Warnings()
        let index = try store.index(for: file, warning: { warnings.add($0) })
        XCTAssertGreaterThan(index.tables.functionBytes.count, 0)
        XCTAssertEqual(warnings.lines.count, 1)
        XCTAssertTrue(warnings.lines.first?.contains(blocker.path) ?? false, "\(warnings.lines)")
        XCTAssertNil(store.cachedIndex(for: file))
    }

    /// Files that are not debug files give the build's error, and nothing is stored.
    func testBuildErrorsAreThrown() throws {
        let url = scratch.appendingPathComponent("empty.debug")
        let file = DebugFile(path: url.path, format: .elf, architecture: .x86_64, identifier: "00ff", textVMAddress: 0,
                             sliceOffset: 0, sliceSize: 0, hasDWARF: true)
        let store = makeStore()
        XCTAssertThrowsError(try store.index(for: file))  // absent
        try Data("ELF?".utf8).write(to: url)
        XCTAssertThrowsError(try store.index(for: file))  // not an object file
        XCTAssertEqual(store.entries().count, 0)
    }
}

private extension Array where Element == UInt8 {
    mutating func store<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        Swift.withUnsafeBytes(of: value) { replaceSubrange(offset..<(offset + $0.count), with: $0) }
    }
}
