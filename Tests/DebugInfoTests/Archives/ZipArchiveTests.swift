@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

/// The zip reader (``ZipDirectory``, ``ZipArchive``) on archives written here: every field it
/// reads made to lie in turn, every cut of the file, and the fixtures' Android libraries inside.
final class ZipArchiveTests: XCTestCase {
    private var scratch: [String] = []

    override func tearDown() {
        for path in scratch { unlink(path) }
    }

    private func file(_ bytes: [UInt8], _ name: String = "app.apk") throws -> String {
        let path = NSTemporaryDirectory() + "zip-\(getpid())-\(scratch.count)-\(name)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        scratch.append(path)
        return path
    }

    private func library(_ abi: String) throws -> [UInt8] {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        return Array(try Data(contentsOf: fixtures.appendingPathComponent("android/\(abi)/libcrashy.so")))
    }

    private func directory(_ bytes: [UInt8]) throws -> ZipDirectory {
        try bytes.withUnsafeBytes { try ZipDirectory($0) }
    }

    /// The reason a damaged archive is refused with.
    private func damage(_ bytes: [UInt8]) -> String? {
        do {
            _ = try directory(bytes)
            return nil
        } catch let damage as ZipDirectory.Damage {
            return damage.reason
        } catch {
            return "\(error)"
        }
    }

    func testEntriesAreReadWithTheirPlaces() throws {
        var writer = ZipWriter()
        writer.add("AndroidManifest.xml", Array("<manifest/>".utf8))
        writer.add("lib/arm64-v8a/libfoo.so", [UInt8](repeating: 7, count: 100), deflate: true)
        let written = writer.write()
        let entries = try directory(written.bytes).entries
        XCTAssertEqual(entries.map(\.name), ["AndroidManifest.xml", "lib/arm64-v8a/libfoo.so"])
        XCTAssertEqual(entries.map(\.method), [0, 8])
        XCTAssertEqual(entries.map(\.headerOffset), written.local)
        XCTAssertEqual(entries[0].dataOffset, written.local[0] + 30 + 19)
        XCTAssertEqual(entries[1].size, 100)
    }

    /// Each library of each ABI, stored and deflated, in an APK and an app bundle, is one debug
    /// file with the library's own identity, architecture (riscv64 among them) and DWARF.
    func testLibrariesInsideArchivesAreIdentifiedAsTheLibrariesThemselves() throws {
        for abi in ["arm64-v8a", "armeabi-v7a", "x86_64", "riscv64"] {
            let bytes = try library(abi)
            let alone = try DebugFile.identify(path: try file(bytes, "libcrashy.so"))
            XCTAssertEqual(alone.count, 1)
            let reference = try SymbolIndex.build(alone[0])
            for (prefix, deflate) in [("lib/", false), ("lib/", true), ("base/lib/", true)] {
                var writer = ZipWriter()
                writer.add("AndroidManifest.xml", Array("<manifest/>".utf8))
                writer.add("\(prefix)\(abi)/libcrashy.so", bytes, deflate: deflate)
                writer.add("res/raw/notes.so", Array("not an ELF file".utf8), deflate: deflate)
                let path = try file(writer.write().bytes)
                let found = try DebugFile.identify(path: path)
                XCTAssertEqual(found.count, 1, "\(abi) \(prefix) deflate \(deflate)")
                guard let member = found.first else { continue }
                XCTAssertEqual(member.identifier, alone[0].identifier)
                XCTAssertEqual(member.architecture, alone[0].architecture)
                XCTAssertEqual(member.hasDWARF, true)
                XCTAssertEqual(member.path, path)
                let opened = try MappedFile.opening(member)
                XCTAssertEqual(Array(opened.bytes), bytes, "\(abi): the member's bytes are the library's")
                XCTAssertEqual(opened.pagesComeBackFromTheFile, !deflate)
                // The index of the member answers as the library's own at every address.
                let index = try SymbolIndex.build(member)
                let addresses = stride(from: UInt64(0), to: UInt64(bytes.count), by: 2)
                XCTAssertTrue(addresses.allSatisfy { index.lookup($0) == reference.lookup($0) }, "\(abi) \(prefix) deflate \(deflate)")
                XCTAssertTrue(addresses.contains { !index.lookup($0).isEmpty })
            }
        }
    }

    /// Every field the reader relies on, made to lie: one reason each, never a crash.
    func testLyingFieldsAreRefusedWithAReason() throws {
        var writer = ZipWriter()
        writer.add("a.txt", Array("hello".utf8))
        writer.add("lib/x86_64/libfoo.so", [UInt8](repeating: 1, count: 300), deflate: true)
        let good = writer.write()
        func lie(_ change: (inout ZipWriter.Written) -> Void) -> String? {
            var copy = good
            change(&copy)
            return damage(copy.bytes)
        }
        let end = good.endRecord, so = good.central[1]
        XCTAssertEqual(lie { $0.put32(UInt32(end + 100), at: end + 16) }?.contains("does not lie before"), true)
        XCTAssertEqual(lie { $0.put32(0xffff_ffff, at: end + 16) }?.contains("ZIP64"), true)
        XCTAssertEqual(lie { $0.put16(0xffff, at: end + 10) }?.contains("ZIP64"), true)
        XCTAssertEqual(lie { $0.put16(3, at: end + 8); $0.put16(3, at: end + 10) }?.contains("cannot fit"), true)
        XCTAssertEqual(lie { $0.put32(0, at: so) }?.contains("entry 1 of the central directory is damaged"), true)
        XCTAssertEqual(lie { $0.put16(1000, at: end + 8); $0.put16(1000, at: end + 10) }?.contains("cannot fit"), true)
        XCTAssertEqual(lie { $0.put16(1, at: end + 4) }?.contains("disks"), true)
        XCTAssertEqual(lie { $0.put16(1, at: end + 20) }?.contains("no end of central directory"), true)
        XCTAssertEqual(lie { $0.put16(4000, at: so + 28) }?.contains("runs past its end"), true)
        XCTAssertEqual(lie { $0.put32(UInt32(good.central[0]), at: so + 42) }?.contains("no local header"), true)
        XCTAssertEqual(lie { $0.put32(0, at: so + 42) }?.contains("overlap"), true)
        XCTAssertEqual(lie { $0.put32(100_000, at: so + 20) }?.contains("run past the entries' end"), true)
        XCTAssertEqual(lie { $0.put32(0xffff_ffff, at: so + 24) }?.contains("ZIP64"), true)
        XCTAssertEqual(lie { $0.put32(4, at: good.central[0] + 24) }?.contains("stored, yet"), true)
        XCTAssertNil(damage(good.bytes))
    }

    /// What the directory says of a deflated member must be what its data makes.
    func testMembersWhoseDataBelieTheirEntriesAreRefused() throws {
        let elf = try library("x86_64")
        var writer = ZipWriter()
        writer.add("lib/x86_64/libcrashy.so", elf, deflate: true)
        let good = writer.write()
        func reason(_ change: (inout ZipWriter.Written) -> Void) throws -> String {
            var copy = good
            change(&copy)
            do {
                _ = try DebugFile.identify(path: try file(copy.bytes))
                return "read"
            } catch {
                return "\(error)"
            }
        }
        let so = good.central[0]
        XCTAssertTrue(try reason { $0.put32(4096, at: so + 24) }.contains("inflates past the 4096 bytes"))
        XCTAssertTrue(try reason { $0.put32(UInt32(elf.count + 10), at: so + 24) }.contains("inflates to \(elf.count) bytes"))
        XCTAssertTrue(try reason { $0.put32(0xfff0_0000, at: so + 24) }.contains("more than deflate makes"))
        XCTAssertTrue(try reason { $0.put32(0x1234_5678, at: so + 16) }.contains("CRC-32"))
        XCTAssertTrue(try reason { $0.bytes[good.local[0] + 30 + 23] = 0x06 }.contains("not a deflate stream"))
        XCTAssertTrue(try reason { $0.put16(1, at: so + 8) }.contains("no ELF library"), "encrypted entries are passed over")
        XCTAssertEqual(try reason { _ in }, "read")
    }

    /// Every cut of an archive is refused or read, never a crash, and what is read lies in it.
    func testEveryCutOfAnArchiveIsSafe() throws {
        var writer = ZipWriter()
        writer.add("a.txt", Array("hello".utf8))
        writer.add("lib/x86_64/libfoo.so", [UInt8](repeating: 1, count: 300), deflate: true)
        let bytes = writer.write().bytes
        var refused = 0
        for end in 0...bytes.count {
            let cut = Array(bytes[..<end])
            XCTAssertEqual(ArchiveFuzzChecks.zipArchive(cut), [], "cut at \(end)")
            if damage(cut) != nil { refused += 1 }
        }
        XCTAssertEqual(refused, bytes.count, "only the whole archive is read")
    }

    /// The "overlapping files" zip bomb: entries that all name one stream are refused before
    /// anything is inflated.
    func testOverlappingEntriesAreRefused() throws {
        var writer = ZipWriter()
        writer.add("lib/x86_64/liba.so", [UInt8](repeating: 0, count: 5000), deflate: true)
        writer.add("lib/x86_64/libb.so", [UInt8](repeating: 0, count: 5000), deflate: true)
        var written = writer.write()
        written.put32(UInt32(written.local[0]), at: written.central[1] + 42)
        XCTAssertEqual(damage(written.bytes)?.contains("overlap"), true)
    }
}

/// The inputs kept for the zip fuzz target (Tests/FuzzRegressions/zip_archive), replayed
/// through the checks the harness makes.
final class ZipArchiveFuzzRegressionTests: XCTestCase {
    func testZipArchiveRegressions() throws {
        let directory = TestPaths.packageRoot.appendingPathComponent("Tests/FuzzRegressions/zip_archive")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
        XCTAssertFalse(names.isEmpty, "no inputs in \(directory.path)")
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))
            XCTAssertEqual(ArchiveFuzzChecks.zipArchive(bytes), [], name)
        }
    }
}
