import Foundation
import TestSupport
import XCTest

/// Why an app image is left without file and line: each reason made for real (a dSYM of
/// another build, of another architecture, a binary with only a symbol table, a stripped one,
/// damaged files) and read back from the three places that give it — the stderr line, the
/// summary and the JSON `unresolved` member — which must agree.
final class MissReasonTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeTemporaryDirectory("miss-reasons")
    }

    override func tearDownWithError() throws {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    /// One image's reason as each output gives it.
    struct Reason {
        var line: String
        /// The words after the image's identity on the stderr line.
        var message: String
        var summary: String?
        var json: [String: Any]
        var stdout: String
    }

    /// `relative` (a fixture) copied to `name` under a new folder `folder` of the scratch
    /// folder, cut to `length` bytes if given; the folder.
    private func place(_ relative: String, as name: String, in folder: String, length: Int? = nil) throws -> String {
        let target = scratch.appendingPathComponent(folder).appendingPathComponent(name)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(relative)))
        if let length { bytes = bytes.prefix(length) }
        try bytes.write(to: target)
        return scratch.appendingPathComponent(folder).path
    }

    /// The reason given for `image` when `report` is symbolicated with `debug`: the report is
    /// run twice over (two copies, so that the summary is printed) as text, once as JSON.
    private func reason(for image: String, report: String = "reports/App-arm64.crash", debug: [String],
                        file: StaticString = #filePath, line: UInt = #line) throws -> Reason {
        let original = report.hasPrefix("/") ? report : try Fixtures.path(report)
        let copy = scratch.appendingPathComponent("copy-" + basename(original)).path
        if !FileManager.default.fileExists(atPath: copy) { try FileManager.default.copyItem(atPath: original, toPath: copy) }
        let arguments = debug.flatMap { ["-d", $0] } + [original, copy]
        let text = try CLI.run(arguments)
        XCTAssertEqual(text.status, .success, text.summary(arguments), file: file, line: line)
        let lines = text.stderrLines.filter { $0.contains(": no debug file for \(image) (") }
        XCTAssertEqual(lines.count, 1, "one line per image, however many reports: " + text.summary(arguments), file: file, line: line)
        let said = try XCTUnwrap(lines.first, text.summary(arguments), file: file, line: line)
        // "…: no debug file for NAME (IDENTITY): MESSAGE; its frames are left as they are", or
        // "…: no debug file for NAME (IDENTITY) but MESSAGE" where names are still given.
        let afterName = said.components(separatedBy: ": no debug file for \(image) (")[1]
        let close = try XCTUnwrap(afterName.firstIndex(of: ")"), said)
        var message = String(afterName[afterName.index(after: close)...])
        for separator in [": ", " but "] where message.hasPrefix(separator) { message.removeFirst(separator.count) }
        let tail = "; its frames are left as they are"
        if message.hasSuffix(tail) { message.removeLast(tail.count) }
        let summaries = text.stderrLines.filter { $0.hasPrefix("symbolicate:   ") && $0.contains(" \(image): ") }
        let summary = summaries.first.map { line -> String in
            let fields = line.components(separatedBy: ": ")
            return fields.dropFirst(3).joined(separator: ": ")
        }
        let jsonArguments = ["--format", "json", "-q"] + debug.flatMap { ["-d", $0] } + [original]
        let json = try CLI.run(jsonArguments)
        let object = try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any]
        let images = ((object?["reports"] as? [[String: Any]])?.first?["images"] as? [[String: Any]]) ?? []
        let entry = try XCTUnwrap(images.first { $0["name"] as? String == image }, json.summary(jsonArguments), file: file, line: line)
        let unresolved = try XCTUnwrap(entry["unresolved"] as? [String: Any], "\(entry)", file: file, line: line)
        XCTAssertEqual(unresolved["message"] as? String, message, "JSON and stderr give the same reason", file: file, line: line)
        XCTAssertEqual(summary, message, "the summary and stderr give the same reason: \(summaries)", file: file, line: line)
        XCTAssertTrue(JSONOutputTests.schemaProblems(json.stdout).isEmpty, "\(JSONOutputTests.schemaProblems(json.stdout))",
                      file: file, line: line)
        return Reason(line: said, message: message, summary: summary, json: unresolved, stdout: text.stdoutText)
    }

    private func manifestEntry(_ path: String, arch: String? = nil) throws -> ManifestEntry {
        try XCTUnwrap(Fixtures.manifest().first { $0.path == path && (arch == nil || $0.arch == arch) }, path)
    }

    // MARK: - No file

    func testNoFileWithTheUUID() throws {
        let elf = try Fixtures.path("elf")
        let reason = try reason(for: "App", debug: [elf])
        XCTAssertEqual(reason.json["reason"] as? String, "no_file")
        XCTAssertEqual(reason.message, "no file searched has this UUID")
        XCTAssertTrue(reason.line.contains("(UUID \(try Fixtures.uuid("App-arm64", arch: "arm64")), arm64)"), reason.line)
        XCTAssertTrue(reason.json["file"] is NSNull)
    }

    func testNoDebugFileGivenAtAll() throws {
        let reason = try reason(for: "App", debug: [])
        XCTAssertEqual(reason.json["reason"] as? String, "no_file")
        XCTAssertEqual(reason.message, "no debug file or folder was given (-d PATH, or SYMBOLICATE_PATH)")
    }

    /// A Linux log that names a module by its path only, with module paths turned off: the
    /// image has nothing to be matched by.
    func testNoIdentifierInTheReport() throws {
        let log = scratch.appendingPathComponent("asan.log").path
        try ("==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000\n"
             + "    #0 0x555555555139  (/srv/app+0x1139)\n").write(toFile: log, atomically: true, encoding: .utf8)
        let arguments = ["--no-module-paths", "--format", "json", log]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        XCTAssertEqual(result.stderrLines, ["symbolicate: \(log): no debug file for app (no build-id in the log; "
                                            + "--no-module-paths); its frames are left as they are"])
        let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let image = ((object?["reports"] as? [[String: Any]])?.first?["images"] as? [[String: Any]])?.first
        let unresolved = try XCTUnwrap(image?["unresolved"] as? [String: Any], "\(image ?? [:])")
        XCTAssertEqual(unresolved["reason"] as? String, "no_identifier")
        XCTAssertEqual(unresolved["message"] as? String, "no build-id in the log; --no-module-paths")
    }

    // MARK: - Files named like the image

    /// The DWARF 5 build of the app (another UUID, same architecture) named as the app's dSYM.
    func testAnotherUUIDIsNamedWithItsUUID() throws {
        let folder = try place("macho/App-arm64-dwarf5.dSYM/Contents/Resources/DWARF/App-arm64-dwarf5",
                               as: "App.dSYM/Contents/Resources/DWARF/App", in: "other-uuid")
        let other = try manifestEntry("macho/App-arm64-dwarf5.dSYM/Contents/Resources/DWARF/App-arm64-dwarf5")
        let reason = try reason(for: "App", debug: [folder])
        XCTAssertEqual(reason.json["reason"] as? String, "other_uuid")
        let path = folder + "/App.dSYM/Contents/Resources/DWARF/App"
        XCTAssertEqual(reason.message, "\(path) has UUID \(other.identifier) (arm64), not this one (built from another commit?)")
        XCTAssertEqual(reason.json["file"] as? String, path)
        XCTAssertEqual(reason.json["file_id"] as? String, other.compactIdentifier)
        XCTAssertEqual(reason.json["file_archs"] as? [String], ["arm64"])
    }

    /// Several builds named like the image: the newest is named, the others counted.
    func testTheNewestOfSeveralOtherBuildsIsNamed() throws {
        let folder = try place("macho/App-arm64-dwarf5.dSYM/Contents/Resources/DWARF/App-arm64-dwarf5",
                               as: "new/App.dSYM/Contents/Resources/DWARF/App", in: "builds")
        _ = try place("macho/App-arm64-dwarf5.dSYM/Contents/Resources/DWARF/App-arm64-dwarf5",
                      as: "old/App.dSYM/Contents/Resources/DWARF/App", in: "builds")
        var old = [timespec(tv_sec: 1_500_000_000, tv_nsec: 0), timespec(tv_sec: 1_500_000_000, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, folder + "/old/App.dSYM/Contents/Resources/DWARF/App", &old, 0), 0)
        let reason = try reason(for: "App", debug: [folder])
        XCTAssertTrue(reason.message.hasPrefix(folder + "/new/App.dSYM/Contents/Resources/DWARF/App has UUID "), reason.message)
        XCTAssertTrue(reason.message.hasSuffix("(and 1 more file named App, none with this UUID)"), reason.message)
    }

    /// The x86_64 build named as the app's dSYM, for an arm64 report.
    func testAnotherArchitecture() throws {
        let folder = try place("macho/App-x86_64.dSYM/Contents/Resources/DWARF/App-x86_64",
                               as: "App.dSYM/Contents/Resources/DWARF/App", in: "other-arch")
        let reason = try reason(for: "App", debug: [folder])
        XCTAssertEqual(reason.json["reason"] as? String, "other_arch")
        XCTAssertEqual(reason.message, "\(folder)/App.dSYM/Contents/Resources/DWARF/App has no arm64 slice, only x86_64 "
                       + "(built for another architecture?)")
        XCTAssertEqual(reason.json["file_archs"] as? [String], ["x86_64"])
    }

    /// A universal dSYM neither of whose slices is the report's: the slice of the report's
    /// architecture is named with its UUID.
    func testAUniversalFileWithoutTheUUIDNamesTheSliceOfTheArchitecture() throws {
        let folder = try place("macho/App-universal.dSYM/Contents/Resources/DWARF/App-universal",
                               as: "App.dSYM/Contents/Resources/DWARF/App", in: "universal")
        let arm64 = try manifestEntry("macho/App-universal.dSYM/Contents/Resources/DWARF/App-universal", arch: "arm64")
        let reason = try reason(for: "App", debug: [folder])
        XCTAssertEqual(reason.json["reason"] as? String, "other_uuid")
        XCTAssertTrue(reason.message.contains(" has UUID \(arm64.identifier) (arm64), not this one"), reason.message)
    }

    // MARK: - A matching file without what is needed

    /// The app binary itself: same UUID, a symbol table, no DWARF. Frames get names, not lines.
    func testASymbolTableWithoutDWARF() throws {
        let binary = try Fixtures.path("macho/App-arm64")
        let reason = try reason(for: "App", debug: [binary])
        XCTAssertEqual(reason.json["reason"] as? String, "symbol_table_only")
        XCTAssertEqual(reason.message, "only \(binary), which has a symbol table but no DWARF: function names without file and line")
        XCTAssertTrue(reason.line.contains(" but only \(binary), "), reason.line)
        XCTAssertTrue(reason.stdout.contains("parse_record + "), "names are still given")
        XCTAssertFalse(reason.stdout.contains("parser.c:"), "but no lines")
    }

    /// A Linux log with a build-id, and a stripped program of that build-id: nothing to
    /// resolve with. The same program stripped of its DWARF only (keeping .symtab and a
    /// .gnu_debuglink) says where its debug file was looked for.
    func testAStrippedBinaryAndADebugLinkNotFound() throws {
        let program = scratch.appendingPathComponent("stripped/app").path
        try FileManager.default.createDirectory(atPath: scratch.appendingPathComponent("stripped").path,
                                                withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try Fixtures.path("elf/app-gcc-dwarf4"), toPath: program)
        let strip = try runProcess("/usr/bin/strip", ["-s", program])
        XCTAssertEqual(strip.status, 0, strip.stderrText)
        let buildID = try manifestEntry("elf/app-gcc-dwarf4").identifier
        let log = scratch.appendingPathComponent("asan.log").path
        try ("==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000\n"
             + "    #0 0x555555555139  (/srv/app+0x1139) (BuildId: \(buildID))\n"
             + "    #1 0x555555555239  (/srv/app+0x1239) (BuildId: \(buildID))\n").write(toFile: log, atomically: true, encoding: .utf8)
        let stripped = try reason(for: "app", report: log, debug: [program])
        XCTAssertEqual(stripped.json["reason"] as? String, "no_debug_info")
        XCTAssertEqual(stripped.message, "\(program) has this build-id but neither DWARF nor a symbol table (stripped)")

        // The binary of debuglink/ without its app.debug beside it.
        let linked = try place("debuglink/app", as: "app", in: "linked") + "/app"
        let symbols = try reason(for: "app", report: log, debug: [linked])
        XCTAssertEqual(symbols.json["reason"] as? String, "symbol_table_only")
        XCTAssertEqual(symbols.message, "only \(linked), which has a symbol table but no DWARF: function names without file and line"
                       + "; its .gnu_debuglink names app.debug, not found beside it, in .debug/ or under /usr/lib/debug")
    }

    // MARK: - Damaged files

    /// A dSYM named like the image but cut inside its load commands: its UUID cannot be read,
    /// and it is named with why.
    func testADamagedFileNamedLikeTheImage() throws {
        let folder = try place("macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64",
                               as: "App.dSYM/Contents/Resources/DWARF/App", in: "cut-header", length: 300)
        let reason = try reason(for: "App", debug: [folder])
        XCTAssertEqual(reason.json["reason"] as? String, "damaged")
        XCTAssertEqual(reason.message, "\(folder)/App.dSYM/Contents/Resources/DWARF/App, named like the image, cannot be used: "
                       + "malformed object file: truncated load commands")
    }

    /// An empty file named like the image.
    func testAnEmptyFileNamedLikeTheImage() throws {
        let folder = try place("macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64",
                               as: "App.dSYM/Contents/Resources/DWARF/App", in: "empty", length: 0)
        let reason = try reason(for: "App", debug: [folder])
        XCTAssertEqual(reason.json["reason"] as? String, "damaged")
        XCTAssertTrue(reason.message.hasSuffix(", named like the image, cannot be used: an empty file"), reason.message)
    }

    /// The right dSYM cut in half: its headers give the UUID, its DWARF is gone.
    func testTheMatchingFileCutShort() throws {
        let relative = "macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64"
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: Fixtures.path(relative))[.size] as? Int)
        let folder = try place(relative, as: "App.dSYM/Contents/Resources/DWARF/App", in: "cut-dwarf", length: size / 2)
        let reason = try reason(for: "App", debug: [folder])
        XCTAssertEqual(reason.json["reason"] as? String, "damaged")
        XCTAssertEqual(reason.message, "\(folder)/App.dSYM/Contents/Resources/DWARF/App has this UUID but cannot be used: "
                       + "the DWARF sections its headers list are not in the file (cut short?)")
    }

    /// The right dSYM with its .debug_abbrev and the start of its .debug_info overwritten: its
    /// symbol table still names the frames, so the file is used in part, and the reader's own
    /// words say why its DWARF is not.
    func testTheMatchingFileWithCorruptDWARF() throws {
        let relative = "macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(relative))))
        let info = try XCTUnwrap(MachOSections.find("__debug_info", in: bytes))
        let abbrev = try XCTUnwrap(MachOSections.find("__debug_abbrev", in: bytes))
        for i in abbrev.offset..<(abbrev.offset + abbrev.size) { bytes[i] = 0xff }
        for i in info.offset..<min(info.offset + 12, info.offset + info.size) { bytes[i] = 0xff }
        let target = scratch.appendingPathComponent("corrupt/App.dSYM/Contents/Resources/DWARF/App")
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: target)
        let arguments = ["--format", "json", "-d", scratch.appendingPathComponent("corrupt").path, try Fixtures.path("reports/App-arm64.crash")]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let images = ((object?["reports"] as? [[String: Any]])?.first?["images"] as? [[String: Any]]) ?? []
        let unresolved = try XCTUnwrap(images.first { $0["name"] as? String == "App" }?["unresolved"] as? [String: Any],
                                       result.summary(arguments))
        XCTAssertEqual(unresolved["reason"] as? String, "partly_damaged")
        XCTAssertEqual(unresolved["message"] as? String, "\(target.path) has this UUID, but its DWARF cannot be read "
                       + "(compile unit header at 0x0: unit length runs past .debug_info): its frames there are named from "
                       + "its symbol table, without file and line")
        XCTAssertFalse(result.stderrText.contains("cannot be used"), result.summary(arguments))
    }

    // MARK: - Read in part

    /// The right dSYM with one compile unit's DIEs damaged: the other units answer with file
    /// and line, the frames of the skipped unit are named from the symbol table, the run says
    /// once which unit was skipped, and never that the file "cannot be used". A report whose
    /// frames all lie in the skipped unit gets the reason `partly_damaged`, saying so.
    func testAFileReadInPartAnswersFromEveryUnitThatReads() throws {
        let relative = "macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(relative))))
        let info = try XCTUnwrap(MachOSections.find("__debug_info", in: bytes))
        // The second unit (parser.c): its DIEs from the middle on made unreadable.
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        let second = info.offset + 4 + u32(info.offset)
        let middle = second + 11 + u32(second) / 2
        for i in middle..<(middle + 8) { bytes[i] = 0xff }
        let dsym = scratch.appendingPathComponent("part/App.dSYM/Contents/Resources/DWARF/App")
        try FileManager.default.createDirectory(at: dsym.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: dsym)
        let folder = scratch.appendingPathComponent("part").path
        let report = try Fixtures.path("reports/App-arm64.crash")

        let arguments = ["--format", "json", "-d", folder, report]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .success, result.summary(arguments))
        let skipped = result.stderrLines.filter { $0.contains("part of the DWARF could not be read") }
        XCTAssertEqual(skipped, ["symbolicate: \(dsym.path): part of the DWARF could not be read: compile unit at "
                                 + "0x\(String(second - info.offset, radix: 16)): damaged DIEs, skipped"], result.summary(arguments))
        XCTAssertFalse(result.stderrText.contains("cannot be used"), result.summary(arguments))
        let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let reportObject = try XCTUnwrap((object?["reports"] as? [[String: Any]])?.first)
        let frames = (reportObject["threads"] as? [[String: Any]] ?? []).flatMap { $0["frames"] as? [[String: Any]] ?? [] }
        let app = frames.filter { ($0["image"] as? String) == "App" }
        let named = app.filter { ($0["symbol"] as? String).map { !$0.isEmpty } ?? false }
        XCTAssertEqual(named.count, app.count, "every frame of the app is named: \(app)")
        let parser = app.filter { ["parse_record", "process_records"].contains($0["symbol"] as? String ?? "") }
        XCTAssertFalse(parser.isEmpty, "frames in the skipped unit: \(app)")
        XCTAssertTrue(parser.allSatisfy { $0["line"] == nil || $0["line"] is NSNull }, "\(parser)")
        XCTAssertTrue(app.contains { ($0["line"] as? Int ?? 0) > 0 }, "the other units give lines: \(app)")

        // Only the frames of the skipped unit: the image's reason says what happened.
        let addresses = Set(parser.compactMap { $0["address"] as? String })
        let lines = try String(contentsOfFile: report, encoding: .utf8).components(separatedBy: "\n")
        let kept = lines.filter { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 3, Int(fields[0]) != nil, fields[2].hasPrefix("0x") else { return true }
            return addresses.contains { UInt64($0.dropFirst(2), radix: 16) == UInt64(fields[2].dropFirst(2), radix: 16) }
        }
        let only = scratch.appendingPathComponent("only-parser.crash")
        try kept.joined(separator: "\n").write(to: only, atomically: true, encoding: .utf8)
        let onlyArguments = ["--format", "json", "-d", folder, only.path]
        let partial = try CLI.run(onlyArguments)
        XCTAssertEqual(partial.status, .success, partial.summary(onlyArguments))
        XCTAssertFalse(partial.stderrText.contains("cannot be used"), partial.summary(onlyArguments))
        let partialObject = try JSONSerialization.jsonObject(with: partial.stdout) as? [String: Any]
        let images = ((partialObject?["reports"] as? [[String: Any]])?.first?["images"] as? [[String: Any]]) ?? []
        let unresolved = try XCTUnwrap(images.first { $0["name"] as? String == "App" }?["unresolved"] as? [String: Any],
                                       partial.summary(onlyArguments))
        XCTAssertEqual(unresolved["reason"] as? String, "partly_damaged")
        XCTAssertEqual(unresolved["message"] as? String, "\(dsym.path) has this UUID, but part of its DWARF cannot be read "
                       + "(compile unit at 0x\(String(second - info.offset, radix: 16)): damaged DIEs, skipped): its frames there "
                       + "are named from its symbol table, without file and line")
        XCTAssertTrue(JSONOutputTests.schemaProblems(partial.stdout).isEmpty, "\(JSONOutputTests.schemaProblems(partial.stdout))")
    }
}
