@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

/// Object identity (UUID / build-id, architecture, link-time base) read by our parsers,
/// compared with what llvm-dwarfdump, llvm-objdump and readelf say of the same files.
final class DebugFileTests: XCTestCase {
    private func objectFiles() throws -> [URL] {
        var roots: [URL] = []
        if let corpus = TestPaths.corpus { roots.append(corpus.appendingPathComponent("debug")) }
        if let fixtures = TestPaths.fixtures { roots += ["macho", "elf"].map { fixtures.appendingPathComponent($0) } }
        guard !roots.isEmpty else { throw XCTSkip("\(TestPaths.corpusAbsent); \(TestPaths.fixturesAbsent)") }
        var files: [URL] = []
        for root in roots {
            let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
            while let url = enumerator?.nextObject() as? URL {
                if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                   url.pathExtension != "plist" { files.append(url) }
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    func testMachOUUIDsAndArchitecturesMatchLLVMDwarfdump() throws {
        var checked = 0
        for url in try objectFiles() {
            guard let slices = try? DebugFile.identify(path: url.path), slices.first?.format == .machO else { continue }
            let out = try runProcess("/usr/bin/llvm-dwarfdump", ["--uuid", url.path]).stdoutText
            // "UUID: 67E9247C-814E-392B-A027-DBDE6748FCBF (x86_64) path"
            let expected = Set(out.split(separator: "\n").compactMap { line -> String? in
                let words = line.split(separator: " ")
                guard words.count >= 3, words[0] == "UUID:" else { return nil }
                return words[1].replacingOccurrences(of: "-", with: "").lowercased() + " " + words[2].trimmingCharacters(in: CharacterSet(charactersIn: "()"))
            })
            let ours = Set(slices.map { "\($0.identifier ?? "-") \($0.architecture?.name ?? "-")" })
            XCTAssertEqual(ours, expected, url.path)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 3)
    }

    func testMachOTextVMAddressMatchesLLVMObjdump() throws {
        var checked = 0
        for url in try objectFiles() {
            guard let slices = try? DebugFile.identify(path: url.path), slices.first?.format == .machO else { continue }
            for slice in slices {
                let arch = slice.architecture!.name
                let out = try runProcess("/usr/bin/llvm-objdump", ["--macho", "--private-headers", "--arch=\(arch)", url.path]).stdoutText
                // The vmaddr line follows "segname __TEXT".
                let lines = out.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                guard let at = lines.firstIndex(of: "segname __TEXT"),
                      let vmaddr = lines[at...].first(where: { $0.hasPrefix("vmaddr") })?.split(separator: " ").last
                else { XCTFail("no __TEXT in \(url.path)"); continue }
                XCTAssertEqual(slice.textVMAddress, UInt64(vmaddr.dropFirst(2), radix: 16), "\(url.path) \(arch)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 3)
    }

    func testELFBuildIDAndBaseMatchReadelf() throws {
        var checked = 0
        for url in try objectFiles() {
            guard let slices = try? DebugFile.identify(path: url.path), let file = slices.first, file.format == .elf else { continue }
            let notes = try runProcess("/usr/bin/readelf", ["-n", url.path]).stdoutText
            let buildID = notes.split(separator: "\n").first { $0.contains("Build ID:") }?.split(separator: " ").last.map(String.init)
            XCTAssertEqual(file.identifier, buildID, url.path)
            let headers = try runProcess("/usr/bin/readelf", ["-lW", url.path]).stdoutText
            let firstLoad = headers.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("LOAD") }
            let vaddr = firstLoad.map { $0.split(separator: " ")[2] }.flatMap { UInt64($0.dropFirst(2), radix: 16) } ?? 0
            XCTAssertEqual(file.textVMAddress, vaddr, url.path)
            let header = try runProcess("/usr/bin/readelf", ["-h", url.path]).stdoutText
            let machine = header.split(separator: "\n").first { $0.contains("Machine:") }?
                .split(separator: ":").last?.trimmingCharacters(in: .whitespaces)
            let expected = ["Advanced Micro Devices X86-64": "x86_64", "ARM": "armv7", "AArch64": "arm64"][machine ?? ""]
            XCTAssertEqual(file.architecture?.name, expected, "\(url.path): \(machine ?? "no machine")")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 3)
    }

    func testUnusableFilesGiveErrorsThatNameThem() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("debugfile-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = directory.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: text)
        XCTAssertThrowsError(try DebugFile.identify(path: text.path)) { error in
            XCTAssertEqual(error as? DebugInfoError, .unknownFormat(path: text.path))
        }
        let missing = directory.appendingPathComponent("missing").path
        XCTAssertThrowsError(try DebugFile.identify(path: missing)) { error in
            XCTAssertTrue("\(error)".hasPrefix(missing + ": cannot read"), "\(error)")
        }
        XCTAssertThrowsError(try DebugFile.identify(path: directory.path))
        // Truncated Mach-O header and a universal header pointing past the end.
        let truncated = directory.appendingPathComponent("truncated")
        try Data([0xcf, 0xfa, 0xed, 0xfe, 0x0c, 0x00]).write(to: truncated)
        XCTAssertThrowsError(try DebugFile.identify(path: truncated.path)) { error in
            XCTAssertTrue("\(error)".contains(truncated.path), "\(error)")
        }
        let fat = directory.appendingPathComponent("fat")
        try Data([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 1, 1, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0x10, 0, 0, 0, 0, 14]).write(to: fat)
        XCTAssertThrowsError(try DebugFile.identify(path: fat.path)) { error in
            XCTAssertEqual("\(error)", "\(fat.path): malformed object file: universal slice 0 lies outside the file")
        }
        let emptyELF = directory.appendingPathComponent("empty.elf")
        try Data([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0] + [UInt8](repeating: 0, count: 8)).write(to: emptyELF)
        XCTAssertThrowsError(try DebugFile.identify(path: emptyELF.path))
    }

    /// Random damage to real debug files: every outcome is an answer or an error naming the
    /// file — never a crash or a hang.
    func testDamagedDebugFilesNeverCrash() throws {
        guard let corpus = TestPaths.corpus else { throw XCTSkip(TestPaths.corpusAbsent) }
        let originals = ["debug/linux/crash.debug", "debug/macos/crash.dSYM/Contents/Resources/DWARF/crash"]
            .map { corpus.appendingPathComponent($0) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("damaged-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var generator = SplitMix64(seed: 42)
        var errors = 0, answers = 0, partial = 0
        for original in originals {
            let bytes = try [UInt8](Data(contentsOf: original))
            let sections = try dwarfSections(original)
            XCTAssertFalse(sections.isEmpty)
            for round in 0..<24 {
                var damaged = bytes
                // Overwrite a run of bytes inside a DWARF section, or cut the file short.
                if round % 6 == 5 {
                    damaged = Array(damaged.prefix(Int(generator.next() % UInt64(damaged.count))))
                } else {
                    let section = sections[Int(generator.next() % UInt64(sections.count))]
                    let length = min(32, section.size)
                    let start = section.offset + Int(generator.next() % UInt64(max(1, section.size - length)))
                    for i in start..<(start + length) { damaged[i] = UInt8(truncatingIfNeeded: generator.next()) }
                }
                let url = directory.appendingPathComponent("\(original.lastPathComponent)-\(round)")
                try Data(damaged).write(to: url)
                do {
                    for file in try DebugFile.identify(path: url.path) where file.hasDWARF {
                        let index = try SymbolIndex.build(file)
                        if index.problem != nil { partial += 1 }
                        for address in stride(from: file.textVMAddress, to: file.textVMAddress + 0x20000, by: 61) {
                            _ = index.lookup(address)
                        }
                        answers += 1
                    }
                } catch {
                    XCTAssertTrue("\(error)".hasPrefix(url.path), "\(error)")
                    errors += 1
                }
            }
        }
        print("damaged debug files: \(answers) indexed (\(partial) of them partly), \(errors) refused with an error")
        XCTAssertGreaterThan(answers + errors, 40)
    }

    /// Counts read from headers are checked against the bytes they would take before they
    /// are used: an extended ELF section count (in section 0) of 2⁶⁴-1, and a Mach-O segment
    /// claiming more sections than its command holds.
    func testHeaderCountsAreCheckedAgainstTheBytesLeft() throws {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("counts-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("variant")

        var elf = try [UInt8](Data(contentsOf: fixtures.appendingPathComponent("elf/app-gcc-dwarf4")))
        let shoff = elf.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: 40, as: UInt64.self)) }
        elf[60] = 0
        elf[61] = 0  // e_shnum 0: the count is section 0's sh_size
        for count: UInt64 in [.max, 1 << 40, 1 << 20] {
            withUnsafeBytes(of: count) { for b in 0..<8 { elf[shoff + 32 + b] = $0[b] } }
            try Data(elf).write(to: url)
            XCTAssertThrowsError(try DebugFile.identify(path: url.path), "section count \(count)") { error in
                XCTAssertTrue("\(error)".hasPrefix(url.path + ": malformed object file: "), "\(error)")
            }
        }

        let machOPath = "macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64"
        let machO = try [UInt8](Data(contentsOf: fixtures.appendingPathComponent(machOPath)))
        let original = try machO.withUnsafeBytes { try MachO.slices(of: $0, path: "original") }
        // Every LC_SEGMENT_64 claims 5 more sections than it holds.
        var more = machO
        var cursor = 32
        for _ in 0..<machO.withUnsafeBytes({ $0.loadUnaligned(fromByteOffset: 16, as: UInt32.self) }) {
            let (command, size) = more.withUnsafeBytes {
                ($0.loadUnaligned(fromByteOffset: cursor, as: UInt32.self), Int($0.loadUnaligned(fromByteOffset: cursor + 4, as: UInt32.self)))
            }
            if command == 0x19 {
                let count = more.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: cursor + 64, as: UInt32.self) } + 5
                withUnsafeBytes(of: count) { for b in 0..<4 { more[cursor + 64 + b] = $0[b] } }
            }
            cursor += size
        }
        let damaged = try more.withUnsafeBytes { try MachO.slices(of: $0, path: "damaged") }
        XCTAssertEqual(damaged.map { $0.sections.map(\.name) }, original.map { $0.sections.map(\.name) })
    }

    /// zstd-compressed sections (inflated by the shim, not libelf) answer as their
    /// uncompressed twin does, address for address.
    func testZstdCompressedSectionsReadLikeTheirUncompressedTwin() throws {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        let zstd = try XCTUnwrap(DebugFile.identify(path: fixtures.appendingPathComponent("elf/app-zstd.debug").path).first)
        let plain = try XCTUnwrap(DebugFile.identify(path: fixtures.appendingPathComponent("elf/app-gcc-dwarf4.debug").path).first)
        XCTAssertEqual(zstd.identifier, plain.identifier)
        XCTAssertTrue(zstd.hasDWARF)
        let mapped = try MappedFile(path: zstd.path)
        let image = try ELF.parse(mapped.bytes, path: zstd.path)
        let compressed = image.sections.filter { $0.flags & 0x800 != 0 && ByteReader(mapped.bytes).u32(Int($0.offset)) == 2 }
        XCTAssertTrue(compressed.contains { $0.name == ".debug_info" }, "the fixture's .debug_info is zstd-compressed")

        let zstdIndex = try SymbolIndex.build(zstd), plainIndex = try SymbolIndex.build(plain)
        XCTAssertNil(zstdIndex.problem)
        let text = try XCTUnwrap(ObjectLayout(plain, in: MappedFile(path: plain.path)).codeSection)
        var resolved = 0
        for address in text.address..<(text.address + text.size) {
            let got = zstdIndex.lookup(address), want = plainIndex.lookup(address)
            XCTAssertEqual(got, want, "0x\(String(address, radix: 16))")
            if !got.isEmpty { resolved += 1 }
        }
        XCTAssertGreaterThan(resolved, Int(text.size) / 2)
    }

    /// Damaged zstd data or a compression header that lies: an error naming the file and the
    /// section, never a crash.
    func testDamagedZstdSectionsGiveErrorsThatNameThem() throws {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        let original = fixtures.appendingPathComponent("elf/app-zstd.debug")
        let bytes = try [UInt8](Data(contentsOf: original))
        let info = try bytes.withUnsafeBytes { raw in
            try XCTUnwrap(ELF.parse(raw, path: original.path).sections.first { $0.name == ".debug_info" })
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zstd-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let header = Int(info.offset)  // Elf64_Chdr: ch_type, ch_reserved, ch_size, ch_addralign
        func damaged(_ name: String, _ change: (inout [UInt8]) -> Void) throws -> String {
            var copy = bytes
            change(&copy)
            let url = directory.appendingPathComponent(name)
            try Data(copy).write(to: url)
            let file = try XCTUnwrap(DebugFile.identify(path: url.path).first)
            do {
                _ = try SymbolIndex.build(file)
                XCTFail("\(name): damage not noticed")
                return ""
            } catch {
                XCTAssertTrue("\(error)".hasPrefix(url.path + ": corrupt DWARF: "), "\(error)")
                return "\(error)"
            }
        }
        let frame = try damaged("frame") { copy in
            for i in (header + 24)..<(header + 24 + 8) { copy[i] ^= 0xa5 }  // the zstd frame header
        }
        XCTAssertTrue(frame.contains("cannot inflate zstd section .debug_info"), frame)
        let larger = try damaged("larger") { copy in copy[header + 8] &+= 1 }  // ch_size one more than the data
        XCTAssertTrue(larger.contains(".debug_info"), larger)
        let smaller = try damaged("smaller") { copy in copy[header + 8] &-= 1 }
        XCTAssertTrue(smaller.contains(".debug_info"), smaller)
        let empty = try damaged("empty") { copy in for i in (header + 8)..<(header + 16) { copy[i] = 0 } }
        XCTAssertTrue(empty.contains(".debug_info"), empty)
        let huge = try damaged("huge") { copy in copy[header + 15] = 0x7f }  // 2^62 bytes: not allocated
        XCTAssertTrue(huge.contains("zstd section .debug_info: implausible size"), huge)
    }

    /// File offsets and sizes of the DWARF sections of a thin Mach-O or an ELF file.
    private func dwarfSections(_ url: URL) throws -> [(offset: Int, size: Int)] {
        let mapped = try MappedFile(path: url.path)
        if MachO.isMachO(mapped.bytes) {
            return try MachO.slices(of: mapped.bytes, path: url.path)[0].sections
                .filter { $0.segment == "__DWARF" && $0.size > 0 }.map { (Int($0.offset), Int($0.size)) }
        }
        return try ELF.parse(mapped.bytes, path: url.path).sections
            .filter { $0.name.hasPrefix(".debug_") && $0.size > 0 }.map { (Int($0.offset), Int($0.size)) }
    }
}
