import Foundation
import TestSupport
import XCTest

/// `symbolicate check`: every fixture kind — Mach-O dSYMs and binaries, thin, universal and
/// 32-bit, DWARF 2 to 5, ELF programs and separate debug files, zlib, zstd and legacy .zdebug
/// sections, stripped and relocatable files, files cut short — described field by field as
/// llvm-dwarfdump, llvm-objdump and readelf describe them.
final class CheckTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeTemporaryDirectory("check")
    }

    override func tearDownWithError() throws {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    // MARK: - Oracles

    private static func tool(_ name: String) throws -> String {
        for directory in ["/usr/bin", "/opt/swift/usr/bin"] where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
            return "\(directory)/\(name)"
        }
        throw XCTSkip("\(name) is not installed (Debian's llvm-19 and binutils): the oracle of check")
    }

    private static func output(_ name: String, _ arguments: [String]) throws -> String {
        let result = try runProcess(try tool(name), arguments)
        guard result.status == 0 else { throw FixtureError("\(name) \(arguments.joined(separator: " ")): \(result.stderrText)") }
        return result.stdoutText
    }

    /// What the oracles say of one object or slice.
    struct Described: Equatable, CustomStringConvertible {
        var type: String
        var identifier: String?
        var dwarfVersions: [Int]
        var units: Int
        var lineTableVersions: [Int]
        var lineTables: Int
        var symbols: Int
        var compressed: [String]
        var size: Int

        var description: String {
            "type \(type), id \(identifier ?? "none"), DWARF \(dwarfVersions) in \(units) units, line tables \(lineTableVersions) ×\(lineTables), "
                + "\(symbols) symbols, compressed \(compressed), \(size) bytes"
        }
    }

    /// The unit versions of `--debug-info` or `--debug-line` as llvm-dwarfdump prints them
    /// (version 14 for legacy .zdebug sections, which LLVM 16 stopped reading).
    private static func dwarfdumpVersions(_ path: String, arch: String?, lines: Bool,
                                          legacy: Bool = false) throws -> (versions: [Int], count: Int) {
        let arguments = [lines ? "--debug-line" : "--debug-info"] + (arch.map { ["--arch=\($0)"] } ?? []) + [path]
        let text = try output(legacy ? "llvm-dwarfdump-14" : "llvm-dwarfdump-19", arguments)
        var versions: [Int] = []
        for line in text.split(separator: "\n") {
            if lines {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("version: "), let version = Int(trimmed.dropFirst("version: ".count)) { versions.append(version) }
            } else if line.contains(" Unit: length = "), let range = line.range(of: "version = 0x") {
                versions.append(Int(line[range.upperBound...].prefix(4), radix: 16) ?? -1)
            }
        }
        return (Array(Set(versions)).sorted(), versions.count)
    }

    private static func describeMachO(_ path: String, arch: String, universal: Bool) throws -> Described {
        let archArguments = universal ? ["--arch=\(arch)"] : []
        let headers = try output("llvm-objdump-19", ["--macho", "--private-headers"] + archArguments + [path])
        let lines = headers.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let headerRow = lines.first { $0.hasPrefix("MH_MAGIC") }?.split(separator: " ").map(String.init) ?? []
        let types = ["EXECUTE": "executable", "DYLIB": "dylib", "DSYM": "dSYM", "OBJECT": "object", "BUNDLE": "bundle"]
        let type = headerRow.count > 4 ? types[headerRow[4]] ?? headerRow[4] : "?"
        var symbols = 0
        if let symtab = lines.firstIndex(of: "cmd LC_SYMTAB"),
           let nsyms = lines[symtab...].first(where: { $0.hasPrefix("nsyms ") }) {
            symbols = Int(nsyms.dropFirst("nsyms ".count)) ?? -1
        }
        let uuids = try output("llvm-dwarfdump-19", ["--uuid"] + archArguments + [path])
        let identifier = uuids.split(separator: "\n").first { $0.contains("(\(arch))") }?.split(separator: " ")[1]
        var size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
        if universal {
            let fat = try output("llvm-objdump-19", ["--macho", "--universal-headers", path]).split(separator: "\n")
                .map { $0.trimmingCharacters(in: .whitespaces) }
            let cpu = ["x86_64": "CPU_TYPE_X86_64", "arm64": "CPU_TYPE_ARM64"][arch] ?? arch
            if let at = fat.firstIndex(of: "cputype \(cpu)"), let line = fat[at...].first(where: { $0.hasPrefix("size ") }) {
                size = Int(line.dropFirst("size ".count)) ?? -1
            }
        }
        let info = try dwarfdumpVersions(path, arch: universal ? arch : nil, lines: false)
        let line = try dwarfdumpVersions(path, arch: universal ? arch : nil, lines: true)
        return Described(type: type, identifier: identifier.map(String.init), dwarfVersions: info.versions, units: info.count,
                         lineTableVersions: line.versions, lineTables: line.count, symbols: symbols, compressed: [], size: size)
    }

    private static func describeELF(_ path: String) throws -> Described {
        let header = try output("readelf", ["-h", "-W", path])
        let typeLine = header.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("Type:") } ?? ""
        let type = typeLine.contains("EXEC") ? "executable" : typeLine.contains("DYN") ? "shared object"
            : typeLine.contains("REL") ? "object" : "?"
        let notes = try output("readelf", ["-n", "-W", path])
        let identifier = notes.split(separator: "\n").first { $0.contains("Build ID: ") }
            .map { String($0.split(separator: " ").last!) }
        // Section lines: "[Nr] Name Type Address Off Size ES Flg ...", each followed (-t) by
        // its flags and, for a compressed one, the compression.
        let sections = try output("readelf", ["-S", "-W", "-t", path]).split(separator: "\n").map(String.init)
        var symtab: Int?, dynsym: Int?
        var compressed: Set<String> = []
        for (i, line) in sections.enumerated() {
            let fields = line.split(separator: " ").map(String.init)
            guard let name = fields.first(where: { $0.hasPrefix(".") }), line.contains("]") else { continue }
            if name.hasPrefix(".zdebug_") { compressed.insert("zlib (.zdebug)") }
            if name.hasPrefix(".debug_"), i + 2 < sections.count, sections[i + 2].contains("COMPRESSED") {
                let kind = sections[i + 3].trimmingCharacters(in: .whitespaces)
                compressed.insert(kind.hasPrefix("ZLIB") ? "zlib" : kind.hasPrefix("ZSTD") ? "zstd" : kind)
            }
            if name == ".symtab" || name == ".dynsym", i + 1 < sections.count {
                // -t puts type, address, offset, size, entry size on the next line.
                let values = sections[i + 1].split(separator: " ").map(String.init)
                guard values.count >= 5, let size = Int(values[3], radix: 16), let entry = Int(values[4], radix: 16), entry > 0
                else { continue }
                if name == ".symtab" { symtab = size / entry } else { dynsym = size / entry }
            }
        }
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
        let legacy = compressed.contains("zlib (.zdebug)")
        let info = try dwarfdumpVersions(path, arch: nil, lines: false, legacy: legacy)
        let line = try dwarfdumpVersions(path, arch: nil, lines: true, legacy: legacy)
        return Described(type: type, identifier: identifier, dwarfVersions: info.versions, units: info.count,
                         lineTableVersions: line.versions, lineTables: line.count, symbols: symtab ?? dynsym ?? 0,
                         compressed: compressed.sorted(), size: size)
    }

    // MARK: - Running check

    private func check(_ paths: [String], file: StaticString = #filePath, line: UInt = #line) throws
        -> (objects: [[String: Any]], text: [String], result: ProcessResult) {
        let arguments = ["check", "--format", "json"] + paths
        let json = try CLI.run(arguments)
        let object = try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any]
        let objects = try XCTUnwrap(object?["objects"] as? [[String: Any]], json.summary(arguments), file: file, line: line)
        let text = try CLI.run(["check"] + paths)
        XCTAssertEqual(text.status, json.status, "text and JSON runs end alike", file: file, line: line)
        let lines = text.stdoutText.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, objects.count, "one text line per object: \(text.stdoutText)", file: file, line: line)
        return (objects, lines, json)
    }

    /// What check says of one object, in the oracles' terms.
    private func described(_ object: [String: Any]) -> Described {
        let format = object["format"] as? String
        var identifier = object["id"] as? String
        if format == "Mach-O", let id = identifier {
            let hex = Array(id.uppercased())
            identifier = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }.joined(separator: "-")
        }
        return Described(type: object["type"] as? String ?? "?", identifier: identifier,
                         dwarfVersions: object["dwarf_versions"] as? [Int] ?? [], units: object["units"] as? Int ?? -1,
                         lineTableVersions: object["line_table_versions"] as? [Int] ?? [],
                         lineTables: object["line_tables"] as? Int ?? -1, symbols: object["symbols"] as? Int ?? -1,
                         compressed: object["compressed"] as? [String] ?? [], size: object["size"] as? Int ?? -1)
    }

    // MARK: - Every fixture

    /// Every object under the fixtures' macho/, elf/ and debuglink/ folders and a relocatable
    /// object named alone: each field as the oracles give it, every manifest entry found with
    /// its UUID or build-id and architecture, and the verdicts.
    func testEveryFixtureAgreesWithTheOracles() throws {
        let root = try Fixtures.root().path
        let relocatable = root + "/obj/app-arm64/main.o"
        let (objects, text, result) = try check([root + "/macho", root + "/elf", root + "/debuglink", relocatable])
        XCTAssertEqual(result.status, .reportFailed, "the .o is not usable: " + result.stderrText)
        XCTAssertGreaterThanOrEqual(objects.count, 30)
        var kinds: Set<String> = []
        for (object, line) in zip(objects, text) {
            let path = try XCTUnwrap(object["path"] as? String)
            let arch = try XCTUnwrap(object["arch"] as? String)
            let universal = line.contains("\tslice=0x")
            let oracle = object["format"] as? String == "Mach-O"
                ? try Self.describeMachO(path, arch: arch, universal: universal) : try Self.describeELF(path)
            XCTAssertEqual(described(object), oracle, path + " " + arch)
            XCTAssertTrue(line.hasPrefix(path + "\t"), line)
            XCTAssertTrue(line.contains("\tarch=\(arch)\t"), line)
            kinds.insert("\(object["format"] ?? "") \(object["type"] ?? "") \(oracle.dwarfVersions) \(oracle.compressed)")
        }
        print("check: \(objects.count) objects agree with llvm-dwarfdump, llvm-objdump and readelf; kinds: "
              + kinds.sorted().joined(separator: "; "))
        for entry in try Fixtures.manifest() {
            // The manifest names a 32-bit ARM ELF file's architecture as readelf does: ARM.
            let arch = entry.arch == "arm" ? "armv7" : entry.arch
            let found = objects.filter { ($0["path"] as? String) == root + "/" + entry.path && $0["arch"] as? String == arch }
            XCTAssertEqual(found.count, 1, entry.path)
            XCTAssertEqual(found.first?["id"] as? String, entry.compactIdentifier, entry.path)
            XCTAssertEqual(found.first?["usable"] as? String, entry.path.hasPrefix("elf/") || entry.path.contains(".dSYM/")
                           ? "usable" : "partial", entry.path)
        }
        func verdict(_ relative: String) -> String? {
            objects.first { $0["path"] as? String == root + "/" + relative }?["usable"] as? String
        }
        XCTAssertEqual(verdict("obj/app-arm64/main.o"), "unusable")
        XCTAssertEqual(verdict("macho/App-arm64"), "partial", "a binary: names without lines")
        XCTAssertEqual(verdict("debuglink/app"), "partial")
        XCTAssertEqual(verdict("debuglink/app-nobuildid.debug"), "partial", "no build-id")
        XCTAssertEqual(verdict("elf/app-zstd.debug"), "usable")
        let universal = objects.filter { ($0["path"] as? String)?.hasSuffix("DWARF/App-universal") == true }
        XCTAssertEqual(universal.compactMap { $0["arch"] as? String }.sorted(), ["arm64", "x86_64"])
    }

    // MARK: - Made for the test

    /// Legacy `.zdebug` sections (objcopy --compress-debug-sections=zlib-gnu) and a stripped
    /// program (strip -s), against the oracles too.
    func testLegacyCompressionAndAStrippedProgram() throws {
        let source = try Fixtures.path("elf/app-gcc-dwarf4")
        let zdebug = scratch.appendingPathComponent("app-zdebug").path
        let stripped = scratch.appendingPathComponent("app-stripped").path
        let objcopy = try runProcess(try Self.tool("objcopy"), ["--compress-debug-sections=zlib-gnu", source, zdebug])
        XCTAssertEqual(objcopy.status, 0, objcopy.stderrText)
        let strip = try runProcess(try Self.tool("strip"), ["-s", "-o", stripped, source])
        XCTAssertEqual(strip.status, 0, strip.stderrText)
        let (objects, text, result) = try check([zdebug, stripped])
        XCTAssertEqual(result.status, .reportFailed, "the stripped program is not usable")
        XCTAssertEqual(objects.count, 2)
        for object in objects {
            let path = try XCTUnwrap(object["path"] as? String)
            XCTAssertEqual(described(object), try Self.describeELF(path), path)
        }
        XCTAssertEqual(objects[0]["compressed"] as? [String], ["zlib (.zdebug)"])
        XCTAssertEqual(objects[0]["usable"] as? String, "usable")
        XCTAssertEqual(objects[0]["dwarf_versions"] as? [Int], [4])
        XCTAssertEqual(objects[1]["usable"] as? String, "unusable")
        XCTAssertTrue(text[1].hasSuffix("\tnot usable: neither DWARF nor a symbol table (stripped)"), text[1])
    }

    /// Files cut short at several places, an empty file and a text file: each is named with
    /// why it cannot be used, and the run goes on to the others.
    func testDamagedFilesSayWhy() throws {
        let dsym = try Fixtures.path("macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64")
        let elf = try Fixtures.path("elf/app-gcc-dwarf4")
        let dsymBytes = try Data(contentsOf: URL(fileURLWithPath: dsym))
        let elfBytes = try Data(contentsOf: URL(fileURLWithPath: elf))
        var expected: [(String, String)] = []
        func make(_ name: String, _ bytes: Data, _ verdict: String) throws {
            let path = scratch.appendingPathComponent(name).path
            try bytes.write(to: URL(fileURLWithPath: path))
            expected.append((path, verdict))
        }
        try make("dsym-header", dsymBytes.prefix(300), "not usable: malformed object file: truncated load commands")
        try make("dsym-half", dsymBytes.prefix(dsymBytes.count / 2), "not usable: its DWARF cannot be read: ")
        try make("elf-half", elfBytes.prefix(elfBytes.count / 2),
                 "not usable: damaged: the section headers lie past the end of the file (cut short?)")
        try make("empty", Data(), "not usable: not a Mach-O or ELF file")
        try make("notes.txt", Data("not an object\n".utf8), "not usable: not a Mach-O or ELF file")
        let (objects, text, result) = try check(expected.map(\.0) + ["/nonexistent/App.dSYM"])
        XCTAssertEqual(result.status, .unusableDebugPath, "a missing path: " + result.summary([]))
        XCTAssertTrue(result.stderrText.contains("/nonexistent/App.dSYM: no such file or directory"), result.stderrText)
        XCTAssertEqual(objects.count, expected.count)
        for ((path, verdict), line) in zip(expected, text) {
            XCTAssertTrue(line.hasPrefix(path + "\t"), line)
            XCTAssertTrue(line.components(separatedBy: "\t").last?.hasPrefix(verdict) ?? false, "\(line) should say \(verdict)")
        }
        XCTAssertTrue(objects.allSatisfy { $0["usable"] as? String == "unusable" })
        XCTAssertTrue(text[1].contains("lies past the end of the file (cut short?)"), text[1])
        XCTAssertTrue((objects[1]["problems"] as? [String] ?? []).contains("__debug_info lies past the end of the file (cut short?)"),
                      "\(objects[1])")
    }

    /// A folder is searched as -d searches one (bundles, nested folders), files that are not
    /// objects passed over; a folder with none is said to have none.
    func testFoldersAreSearchedAndTheExitStatusSaysWhatWasFound() throws {
        let folder = scratch.appendingPathComponent("dSYMs/nested/App.dSYM/Contents/Resources/DWARF")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try Fixtures.path("macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64"),
                                         toPath: folder.appendingPathComponent("App").path)
        try Data("<plist/>".utf8).write(to: scratch.appendingPathComponent("dSYMs/nested/App.dSYM/Contents/Info.plist"))
        let (objects, _, result) = try check([scratch.appendingPathComponent("dSYMs").path])
        XCTAssertEqual(result.status, .success, result.summary([]))
        XCTAssertEqual(objects.map { $0["usable"] as? String }, ["usable"])
        let none = scratch.appendingPathComponent("none")
        try FileManager.default.createDirectory(at: none, withIntermediateDirectories: true)
        let empty = try CLI.run(["check", none.path])
        XCTAssertEqual(empty.status, .unusableDebugPath)
        XCTAssertEqual(empty.stderrLines, ["symbolicate: \(none.path): no Mach-O or ELF file in this folder"])
        let nothing = try CLI.run(["check"])
        XCTAssertEqual(nothing.status, .usage, nothing.stderrText)
    }
}
