import Foundation
import TestSupport
import XCTest

// Helpers for the end-to-end tests: running the built `symbolicate`, asking llvm-symbolizer,
// and reading the fixtures (manifest, expect files, reports) independently of the tool.

// MARK: - Running programs

enum CLI {
    /// The path of the built tool (`SYMBOLICATE_TEST_BINARY` names another build, to see a
    /// test fail on the tool before a change); fails the test (rather than skipping) when it
    /// is missing.
    static func binary(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let path = ProcessInfo.processInfo.environment["SYMBOLICATE_TEST_BINARY"] ?? TestPaths.symbolicateBinary.path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            XCTFail("the symbolicate executable is not built at \(path): run `swift build` first", file: file, line: line)
            throw XCTSkip("symbolicate is not built")
        }
        return path
    }

    /// Runs `symbolicate ARGS`, which must succeed (exit status 0; a test failure otherwise).
    static func succeeding(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> ProcessResult {
        let result = try run(arguments, file: file, line: line)
        XCTAssertEqual(result.status, .success, result.summary(arguments), file: file, line: line)
        return result
    }

    /// Runs `symbolicate ARGS`, with `input` on stdin, in ``environment``.
    static func run(_ arguments: [String], input: Data? = nil,
                    file: StaticString = #filePath, line: UInt = #line) throws -> ProcessResult {
        try runProcess(binary(file: file, line: line), arguments, input: input, environment: environment)
    }

    /// The environment every run of the tool gets: this process's, without the variables that
    /// set the tool up (`SYMBOLICATE_PATH`, the developer's search path; `SYMBOLICATE_CACHE_DIR`
    /// and `SYMBOLICATE_SHARED_CACHE`, which would put the developer's caches in place of the
    /// test's; `DEBUGINFOD_URLS`, a distribution's default server, and libdebuginfod's other
    /// settings; `NO_COLOR`), and with `XDG_CACHE_HOME` set to ``cacheHome``, so that no run
    /// reads identities or indexes an earlier build of the tool stored, and the index builder
    /// is exercised end to end. What the tool does then depends on the test alone, not on who
    /// runs it. Tests of the cache itself set `XDG_CACHE_HOME` over it.
    static let environment: [String: String] = {
        var environment = ProcessInfo.processInfo.environment.filter { key, _ in
            !key.hasPrefix("SYMBOLICATE_") && !key.hasPrefix("DEBUGINFOD_") && key != "NO_COLOR"
        }
        environment["XDG_CACHE_HOME"] = cacheHome
        return environment
    }()

    /// The cache folder of this test process: made empty when first used (a folder left by an
    /// earlier process with the same id is emptied), shared by all its runs, removed when the
    /// process exits.
    static let cacheHome: String = {
        let path = cacheHome(ofProcess: getpid())
        try? FileManager.default.removeItem(atPath: path)
        // Were it not made, the tool would make it (or run without a cache): never an old one.
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: CLI.cacheHome(ofProcess: getpid())) }
        return path
    }()

    private static func cacheHome(ofProcess pid: pid_t) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("symbolicate-cli-cache-\(pid)").path
    }

    /// Runs `script` with bash, where `$SYMBOLICATE` is the tool, in ``environment``: for what
    /// a test cannot say with arguments alone (a standard output that is /dev/full or closed,
    /// file names that are not UTF-8, a pipe as a report). The script runs under `timeout`:
    /// a tool that blocks fails the test (status 124) instead of hanging it. The bound is only
    /// reached by a hang: 300 s, far above what a loaded machine adds to a passing run.
    static func shell(_ script: String, timeout seconds: Int = 300,
                      file: StaticString = #filePath, line: UInt = #line) throws -> ProcessResult {
        var environment = self.environment
        environment["SYMBOLICATE"] = try binary(file: file, line: line)
        return try runProcess("/usr/bin/timeout", ["-k", "5", String(seconds), "/bin/bash", "-c", script],
                              environment: environment)
    }

    /// "`symbolicate a b c`", for messages.
    static func describe(_ arguments: [String]) -> String {
        (["symbolicate"] + arguments).map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
    }
}

// MARK: - Exit statuses

// The program's exit statuses are named as the program names them: `ExitStatus.swift` here is a
// link to `Sources/Symbolication/Batch/ExitStatus.swift`, compiled into the tests too (they run the
// program, they do not import it). A test says which status it expects; a failure still shows
// the numbers.

/// Asserts that the program (or a script whose status is the program's) exited with `expected`.
func XCTAssertEqual(_ status: @autoclosure () throws -> Int32, _ expected: ExitStatus,
                    _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(try status(), expected.rawValue, message(), file: file, line: line)
}

/// Asserts that the program exited with another status than `unexpected`.
func XCTAssertNotEqual(_ status: @autoclosure () throws -> Int32, _ unexpected: ExitStatus,
                       _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertNotEqual(try status(), unexpected.rawValue, message(), file: file, line: line)
}

extension ProcessResult {
    /// stderr split in lines, without empty ones.
    var stderrLines: [String] {
        stderrText.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// stderr lines other than the "no debug file for IMAGE" notes, which every run whose app
    /// images are not all matched prints (`ReportVariantTests` checks those), and the summary
    /// of runs over several reports (`BatchTests` checks it).
    var problemLines: [String] {
        stderrLines.filter { !$0.contains(": no debug file for ") && !Self.isSummaryLine($0) }
    }

    /// `symbolicate: 3 reports, 40 frames: ...`, and the list of images without debug files.
    static func isSummaryLine(_ line: String) -> Bool {
        line.range(of: #"^symbolicate: [0-9]+ reports?, [0-9]+ frames: "#, options: .regularExpression) != nil
            || line == "symbolicate: app images left without file and line (frames, why):"
            || line.hasPrefix("symbolicate:   ")
    }

    /// A short account of the run, for assertion messages.
    func summary(_ arguments: [String]) -> String {
        let out = stdoutText
        let shownOut = out.count > 1500 ? String(out.prefix(1500)) + "… (\(stdout.count) bytes)" : out
        return "\(CLI.describe(arguments)) exited \(status)\n--- stderr:\n\(stderrText)--- stdout:\n\(shownOut)"
    }
}

// MARK: - Fixtures

enum Fixtures {
    /// `Fixtures/build`, or a skip with the visible reason.
    static func root() throws -> URL {
        guard let root = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        return root
    }

    static func path(_ relative: String) throws -> String {
        try root().appendingPathComponent(relative).path
    }

    /// The fixture `.ips` report (`ips/App-arm64.ips`) with more threads, written to `path`
    /// once it takes `size` bytes: its first thread (the crashed one), then its thread
    /// `copied(k, count)` (of its `count`) as the `k`th more, each with an id of its own and
    /// none marked as the crashed one. Its threads are on one line, as Apple writes them.
    static func ipsReportOfManyThreads(size: Int, to path: String, copied: (Int, Int) -> Int) throws {
        let template = try String(contentsOfFile: try Fixtures.path("ips/App-arm64.ips"), encoding: .utf8)
        var lines = template.components(separatedBy: "\n")
        let body = lines.dropFirst().joined(separator: "\n")
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        let threads = try XCTUnwrap(document["threads"] as? [[String: Any]])
        let place = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("  \"threads\" : [") })
        var objects = [String(decoding: try JSONSerialization.data(withJSONObject: threads[0]), as: UTF8.self)]
        var written = template.utf8.count
        var k = 0
        while written < size {
            var thread = threads[copied(k, threads.count)]
            thread["id"] = 1000 + k
            thread.removeValue(forKey: "triggered")
            let object = String(decoding: try JSONSerialization.data(withJSONObject: thread), as: UTF8.self)
            objects.append(object)
            written += object.utf8.count + 1
            k += 1
        }
        lines[place] = "  \"threads\" : [" + objects.joined(separator: ",") + "],"
        try lines.joined(separator: "\n").write(toFile: path, atomically: false, encoding: .utf8)
    }

    /// `Fixtures/build/FOLDER`, a folder of twins of the fixture reports in another format
    /// (`ips`, `kscrash`, `metrickit`) holding `App-arm64.EXT`; an error (a failure, not a skip)
    /// when the fixtures are built but it is absent, since Fixtures/build.sh always makes it.
    static func twins(_ folder: String, what: String, ext: String = "json") throws -> URL {
        let url = try root().appendingPathComponent(folder)
        guard FileManager.default.fileExists(atPath: url.appendingPathComponent("App-arm64.\(ext)").path) else {
            throw FixtureError("\(url.path)/App-arm64.\(ext) is absent, though Fixtures/build.sh makes the \(what) "
                + "twins: run Fixtures/build.sh again")
        }
        return url
    }

    /// The one report of `symbolicate --format json -d Fixtures/build/macho PATH`, a run that must succeed.
    static func jsonReport(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let arguments = ["--format", "json", "-d", try Fixtures.path("macho"), path]
        return try IPSTests.jsonReport(try CLI.succeeding(arguments, file: file, line: line), arguments)
    }

    /// The fixture reports, `reports/*.crash`, sorted.
    static func reports() throws -> [String] {
        let dir = try root().appendingPathComponent("reports")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        return names.filter { $0.hasSuffix(".crash") }.sorted().map { dir.appendingPathComponent($0).path }
    }

    /// `reports/X.expect.tsv` for `reports/X.crash`.
    static func expectFile(for report: String) -> String {
        String(report.dropLast(".crash".count)) + ".expect.tsv"
    }

    static func manifest() throws -> [ManifestEntry] {
        let text = try String(contentsOfFile: path("manifest.txt"), encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 4, let vmaddr = parseHex(fields[3]) else {
                throw FixtureError("manifest.txt: bad line: \(line)")
            }
            return ManifestEntry(path: fields[0], identifier: fields[1], arch: fields[2], textVMAddress: vmaddr)
        }
    }

    /// The UUID (or build-id) of the fixture debug file named `name` (its file name, such as
    /// `App-arm64` or `libGreeter.dylib`) for `arch`, as the fixture build made it. Mach-O
    /// UUIDs hash the linked output, whose debug map names the object files by absolute path:
    /// they differ from one checkout folder to another, so a report written into a test names
    /// its images through this, never by a UUID copied from one build.
    static func uuid(_ name: String, arch: String) throws -> String {
        guard let entry = try manifest().first(where: { ($0.path as NSString).lastPathComponent == name && $0.arch == arch }) else {
            throw FixtureError("manifest.txt: no \(name) for \(arch)")
        }
        return entry.identifier
    }

    /// `text` with every `UUID(name arch)` replaced by ``uuid(_:arch:)``: reports written in
    /// tests that point into the fixtures.
    static func fillingUUIDs(_ text: String) throws -> String {
        var result = text
        while let start = result.range(of: "UUID("), let end = result.range(of: ")", range: start.upperBound..<result.endIndex) {
            let fields = result[start.upperBound..<end.lowerBound].split(separator: " ").map(String.init)
            guard fields.count == 2 else { throw FixtureError("bad placeholder \(result[start.lowerBound..<end.upperBound])") }
            result.replaceSubrange(start.lowerBound..<end.upperBound, with: try uuid(fields[0], arch: fields[1]))
        }
        return result
    }

    static func expectRows(for report: String) throws -> [ExpectRow] {
        let text = try String(contentsOfFile: expectFile(for: report), encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 5, let thread = Int(fields[0]), let frame = Int(fields[1]),
                  let address = parseHex(fields[2]), let lookup = parseHex(fields[4])
            else { throw FixtureError("\(expectFile(for: report)): bad line: \(line)") }
            return ExpectRow(thread: thread, frame: frame, address: address, debugFile: fields[3], lookup: lookup)
        }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

struct ManifestEntry {
    var path: String
    var identifier: String
    var arch: String
    var textVMAddress: UInt64

    /// The identifier as reports write it: lowercase hex, no dashes.
    var compactIdentifier: String { compactUUID(identifier) }
}

struct ExpectRow {
    var thread: Int
    var frame: Int
    var address: UInt64
    var debugFile: String
    var lookup: UInt64
}

struct FrameKey: Hashable, CustomStringConvertible {
    var thread: Int
    var frame: Int
    var description: String { "thread \(thread) frame \(frame)" }
}

func parseHex(_ text: String) -> UInt64? {
    var digits = Substring(text.trimmingCharacters(in: .whitespaces))
    if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
    return digits.isEmpty ? nil : UInt64(digits, radix: 16)
}

func hex(_ value: UInt64) -> String { "0x" + String(value, radix: 16) }

func compactUUID(_ text: String) -> String { text.replacingOccurrences(of: "-", with: "").lowercased() }

func basename(_ path: String) -> String {
    path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
}

// MARK: - The oracle

/// One frame as llvm-symbolizer reports it (innermost first in a list).
struct OracleFrame: CustomStringConvertible {
    var function: String
    var file: String
    var line: Int
    var column: Int
    var startAddress: UInt64?

    var description: String {
        "\(function) \(basename(file)):\(line)" + (startAddress.map { " start \(hex($0))" } ?? "")
    }
}

enum Oracle {
    static func symbolizer() throws -> String {
        guard let path = TestPaths.llvmSymbolizer else {
            throw XCTSkip("llvm-symbolizer is not installed (looked in /opt/swift/usr/bin and /usr/bin)")
        }
        return path
    }

    /// The frames llvm-symbolizer gives for each of `addresses` in `object` (one process, the
    /// addresses on stdin); an empty list where it knows nothing.
    static func symbolize(object: String, arch: String, addresses: [UInt64]) throws -> [UInt64: [OracleFrame]] {
        guard !addresses.isEmpty else { return [:] }
        let arguments = ["--obj=\(object)", "--default-arch=\(arch)", "--inlines", "--functions=linkage",
                         "--no-demangle", "--output-style=JSON"]
        let input = Data(addresses.map { hex($0) + "\n" }.joined().utf8)
        let result = try runProcess(symbolizer(), arguments, input: input)
        guard result.status == 0 else {
            throw FixtureError("llvm-symbolizer \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderrText)")
        }
        var answers: [UInt64: [OracleFrame]] = [:]
        let lines = result.stdoutText.split(separator: "\n")
        guard lines.count == addresses.count else {
            throw FixtureError("llvm-symbolizer gave \(lines.count) answers for \(addresses.count) addresses:\n\(result.stdoutText)")
        }
        for (address, line) in zip(addresses, lines) {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let symbols = object["Symbol"] as? [[String: Any]]
            else { throw FixtureError("llvm-symbolizer: unexpected answer: \(line)") }
            let frames = symbols.compactMap { symbol -> OracleFrame? in
                guard let function = symbol["FunctionName"] as? String, !function.isEmpty, function != "??" else { return nil }
                return OracleFrame(function: function,
                                   file: symbol["FileName"] as? String ?? "",
                                   line: symbol["Line"] as? Int ?? 0,
                                   column: symbol["Column"] as? Int ?? 0,
                                   startAddress: (symbol["StartAddress"] as? String).flatMap(parseHex))
            }
            answers[address] = frames
        }
        return answers
    }
}

// MARK: - Reading reports independently of the tool

/// A report split in lines that keep their terminators.
struct ReportText {
    var lines: [String]

    init(_ text: String) {
        var lines: [String] = []
        var current = ""
        for character in text.unicodeScalars {
            current.unicodeScalars.append(character)
            if character == "\n" {
                lines.append(current)
                current = ""
            }
        }
        if !current.isEmpty { lines.append(current) }
        self.lines = lines
    }

    var text: String { lines.joined() }

    /// The thread number of a backtrace header (`Thread 3:`, `Thread 0 Crashed:`,
    /// `Thread 0 Crashed:: Dispatch queue: …`, `Thread 1:: name`), and whether it says Crashed;
    /// nil for other lines (`Thread 0 name: …`, `Thread 0 crashed with …`).
    static func threadHeader(_ line: String) -> (number: Int, crashed: Bool, name: String?)? {
        guard line.hasPrefix("Thread ") else { return nil }
        var rest = line.dropFirst("Thread ".count)
        let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
        guard !digits.isEmpty, let number = Int(digits) else { return nil }
        rest = rest.dropFirst(digits.count)
        var crashed = false
        if rest.hasPrefix(" Crashed") {
            crashed = true
            rest = rest.dropFirst(" Crashed".count)
        }
        guard rest.hasPrefix(":") else { return nil }
        rest = rest.drop(while: { $0 == ":" })
        let name = rest.trimmingCharacters(in: .whitespacesAndNewlines)
        return (number, crashed, name.isEmpty ? nil : name)
    }

    /// `Thread N name:  X` → (N, X).
    static func threadNameLine(_ line: String) -> (number: Int, name: String)? {
        guard line.hasPrefix("Thread ") else { return nil }
        let rest = line.dropFirst("Thread ".count)
        let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
        guard let number = Int(digits), rest.dropFirst(digits.count).hasPrefix(" name:") else { return nil }
        let name = rest.dropFirst(digits.count + " name:".count).trimmingCharacters(in: .whitespacesAndNewlines)
        return (number, name)
    }

    /// A frame line of a thread section: its index, the image as printed, the address, the
    /// length of the bytes kept when it is resolved (up to the address and the blanks after
    /// it), and the text after them.
    struct FrameLine {
        var lineIndex: Int
        var frame: Int
        var image: String
        var address: UInt64
        var prefix: String
        var rest: String
    }

    static func parseFrameLine(_ line: String, lineIndex: Int) -> FrameLine? {
        let content = line.trimmingCharacters(in: .newlines)
        let scalars = Array(content.unicodeScalars)
        func isBlank(_ s: Unicode.Scalar) -> Bool { s == " " || s == "\t" }
        var i = 0
        while i < scalars.count, "0"..."9" ~= scalars[i] { i += 1 }
        guard i > 0, i < scalars.count, isBlank(scalars[i]), let frame = Int(String(String.UnicodeScalarView(scalars[0..<i])))
        else { return nil }
        // The address: the first blank-delimited token starting with 0x after the index.
        var tokenStart = i
        while tokenStart < scalars.count {
            while tokenStart < scalars.count, isBlank(scalars[tokenStart]) { tokenStart += 1 }
            var tokenEnd = tokenStart
            while tokenEnd < scalars.count, !isBlank(scalars[tokenEnd]) { tokenEnd += 1 }
            let token = String(String.UnicodeScalarView(scalars[tokenStart..<tokenEnd]))
            if token.hasPrefix("0x"), let address = parseHex(token) {
                var prefixEnd = tokenEnd
                while prefixEnd < scalars.count, isBlank(scalars[prefixEnd]) { prefixEnd += 1 }
                let image = String(String.UnicodeScalarView(scalars[i..<tokenStart])).trimmingCharacters(in: .whitespaces)
                return FrameLine(lineIndex: lineIndex, frame: frame, image: image, address: address,
                                 prefix: String(String.UnicodeScalarView(scalars[0..<prefixEnd])),
                                 rest: String(String.UnicodeScalarView(scalars[prefixEnd...])))
            }
            tokenStart = tokenEnd
        }
        return nil
    }

    struct ThreadSection {
        var number: Int
        var crashed: Bool
        var name: String?
        var frames: [FrameLine]
    }

    /// The numbered thread sections (not register blocks, not the image list).
    var threads: [ThreadSection] {
        var sections: [ThreadSection] = []
        var names: [Int: String] = [:]
        var inSection = false
        for (index, line) in lines.enumerated() {
            if let named = Self.threadNameLine(line) {
                names[named.number] = named.name
                inSection = false
            } else if let header = Self.threadHeader(line) {
                sections.append(ThreadSection(number: header.number, crashed: header.crashed,
                                              name: header.name ?? names[header.number], frames: []))
                inSection = true
            } else if line.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                inSection = false
            } else if inSection {
                if let frame = Self.parseFrameLine(line, lineIndex: index) {
                    sections[sections.count - 1].frames.append(frame)
                } else {
                    inSection = false
                }
            }
        }
        return sections
    }

    /// The frame lines by thread and frame number.
    var frameLines: [FrameKey: FrameLine] {
        var result: [FrameKey: FrameLine] = [:]
        for section in threads {
            for frame in section.frames { result[FrameKey(thread: section.number, frame: frame.frame)] = frame }
        }
        return result
    }

    struct ImageLine {
        var start: UInt64
        var end: UInt64
        var name: String
        var arch: String?
        var uuid: String
    }

    static let architectures: Set<String> = ["arm64", "arm64e", "arm64_32", "armv7", "armv7s", "armv7k", "armv6",
                                              "x86_64", "x86_64h", "i386"]

    /// The "Binary Images:" lines, of the `0xSTART - 0xEND NAME ARCH <uuid> PATH` form.
    var images: [ImageLine] {
        var result: [ImageLine] = []
        var inImages = false
        for line in lines {
            if line.hasPrefix("Binary Images:") {
                inImages = true
                continue
            }
            guard inImages else { continue }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
            guard words.count >= 5, words[1] == "-", let start = parseHex(words[0]), let end = parseHex(words[2]),
                  let uuidIndex = words.firstIndex(where: { $0.hasPrefix("<") && $0.hasSuffix(">") }), uuidIndex >= 4
            else { continue }
            // NAME [ARCH] [(VERSION) | (ARCH) | (*)] <UUID>
            var tokens = Array(words[3..<uuidIndex])
            var arch: String?
            if let last = tokens.last, last.hasSuffix(")"),
               let open = tokens.lastIndex(where: { $0.hasPrefix("(") }) {
                let group = tokens[open...].joined(separator: " ").dropFirst().dropLast()
                if Self.architectures.contains(String(group)) { arch = String(group) }
                tokens.removeSubrange(open...)
            }
            if arch == nil, let last = tokens.last, tokens.count > 1, Self.architectures.contains(last) {
                arch = last
                tokens.removeLast()
            }
            var name = tokens.joined(separator: " ")
            if name.hasPrefix("+") { name.removeFirst() }
            result.append(ImageLine(start: start, end: end, name: name, arch: arch,
                                    uuid: compactUUID(String(words[uuidIndex].dropFirst().dropLast()))))
        }
        return result
    }
}

// MARK: - Expectations for a fixture report

/// What the fixture says about one report: its frames with debug files, each with the answer
/// of llvm-symbolizer at the lookup address and the file address of the reported address.
struct FixtureReport {
    struct Resolution {
        var row: ExpectRow
        var frameLine: ReportText.FrameLine
        /// The reported address in the debug file (address − load + text vmaddr), unadjusted.
        var fileAddress: UInt64
        var oracle: [OracleFrame]

        var label: String {
            "thread \(row.thread) frame \(row.frame) (reported \(hex(row.address)), lookup \(hex(row.lookup)) in \(basename(row.debugFile)))"
        }

        /// The offset printed after the function: the reported address's distance from the
        /// function's start (as llvm-symbolizer gives it).
        func offset(of frame: OracleFrame) -> UInt64? {
            frame.startAddress.flatMap { fileAddress >= $0 ? fileAddress - $0 : nil }
        }
    }

    var path: String
    var text: ReportText
    var rows: [ExpectRow]
    var resolutions: [FrameKey: Resolution]
    /// The manifest entry chosen for each debug file path used by the report.
    var debugFiles: [String: ManifestEntry]

    static func load(_ path: String) throws -> FixtureReport {
        let root = try Fixtures.root()
        let text = ReportText(try String(contentsOfFile: path, encoding: .utf8))
        let rows = try Fixtures.expectRows(for: path)
        let manifest = try Fixtures.manifest()
        let images = text.images
        let frameLines = text.frameLines
        var debugFiles: [String: ManifestEntry] = [:]
        var resolutions: [FrameKey: Resolution] = [:]
        var pending: [String: [(ExpectRow, ReportText.FrameLine, UInt64)]] = [:]
        for row in rows {
            // The slice: the manifest entry for this path whose identifier is one of the report's images.
            let candidates = manifest.filter { $0.path == row.debugFile }
            guard let entry = candidates.first(where: { c in images.contains { $0.uuid == c.compactIdentifier } }) else {
                throw FixtureError("\(path): no manifest entry for \(row.debugFile) matches an image of the report")
            }
            guard let image = images.first(where: { $0.uuid == entry.compactIdentifier }) else {
                throw FixtureError("\(path): no image with UUID \(entry.identifier)")
            }
            let key = FrameKey(thread: row.thread, frame: row.frame)
            guard let frameLine = frameLines[key] else { throw FixtureError("\(path): no line for \(key)") }
            guard frameLine.address == row.address else {
                throw FixtureError("\(path): \(key) is at \(hex(frameLine.address)) in the report, \(hex(row.address)) in the expect file")
            }
            debugFiles[row.debugFile] = entry
            let fileAddress = row.address - image.start + entry.textVMAddress
            pending[row.debugFile, default: []].append((row, frameLine, fileAddress))
        }
        for (debugFile, items) in pending {
            let entry = debugFiles[debugFile]!
            let answers = try Oracle.symbolize(object: root.appendingPathComponent(debugFile).path, arch: entry.arch,
                                               addresses: Array(Set(items.map { $0.0.lookup })).sorted())
            for (row, frameLine, fileAddress) in items {
                resolutions[FrameKey(thread: row.thread, frame: row.frame)] =
                    Resolution(row: row, frameLine: frameLine, fileAddress: fileAddress, oracle: answers[row.lookup] ?? [])
            }
        }
        return FixtureReport(path: path, text: text, rows: rows, resolutions: resolutions, debugFiles: debugFiles)
    }

    /// The line of output expected for `frame` after `prefix` (and before the terminator).
    static func renderedFrame(_ frame: OracleFrame, offset: UInt64?, inlined: Bool, fullPath: Bool,
                              prefix: String = "", terminator: String = "") -> ExpectedLine {
        var tail = ""
        if frame.line > 0, !frame.file.isEmpty {
            tail += " (\(fullPath ? frame.file : basename(frame.file)):\(frame.line))"
        }
        if inlined { tail += " [inlined]" }
        return ExpectedLine(head: prefix + frame.function,
                            offset: frame.startAddress == nil ? .unknown : .exact(offset),
                            tail: tail + terminator)
    }
}

/// A line expected in the output: `head`, then ` + OFFSET` (or not), then `tail`.
///
/// llvm-symbolizer gives no start address for an inlined function whose code is in several
/// ranges, and then the offset the tool prints cannot be checked: any ` + N` (or none) is taken.
struct ExpectedLine: CustomStringConvertible {
    enum Offset {
        case exact(UInt64?)
        case unknown
    }

    var head: String
    var offset: Offset
    var tail: String

    func matches(_ line: String) -> Bool {
        guard line.hasPrefix(head), line.hasSuffix(tail), line.count >= head.count + tail.count else { return false }
        let middle = line.dropFirst(head.count).dropLast(tail.count)
        switch offset {
        case .exact(let value):
            return middle == (value.map { " + \($0)" } ?? "")
        case .unknown:
            guard !middle.isEmpty else { return true }
            guard middle.hasPrefix(" + ") else { return false }
            let digits = middle.dropFirst(3)
            return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
        }
    }

    var description: String {
        let shownTail = tail.trimmingCharacters(in: .newlines)
        switch offset {
        case .exact(let value): return head + (value.map { " + \($0)" } ?? "") + shownTail
        case .unknown: return head + "[ + any offset]" + shownTail
        }
    }
}

// MARK: - Mach-O sections (for corrupting a dSYM)

enum MachOSections {
    /// The file offset and size of section `name` of the first 64-bit little-endian Mach-O
    /// header in `bytes` (thin files only).
    static func find(_ name: String, in bytes: [UInt8]) -> (offset: Int, size: Int)? {
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        func u64(_ at: Int) -> UInt64 { UInt64(u32(at)) | UInt64(u32(at + 4)) << 32 }
        func string(_ at: Int, _ length: Int) -> String {
            String(decoding: bytes[at..<(at + length)].prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        guard bytes.count > 32, u32(0) == 0xfeed_facf else { return nil }
        let commands = Int(u32(16))
        var offset = 32
        for _ in 0..<commands {
            guard offset + 8 <= bytes.count else { return nil }
            let command = u32(offset), size = Int(u32(offset + 4))
            if command == 0x19 /* LC_SEGMENT_64 */ {
                let sections = Int(u32(offset + 64))
                for s in 0..<sections {
                    let header = offset + 72 + 80 * s
                    if string(header, 16) == name {
                        return (Int(u32(header + 48)), Int(u64(header + 40)))
                    }
                }
            }
            offset += size
        }
        return nil
    }
}

// MARK: - Temporary folders

extension XCTestCase {
    /// A new, empty folder of the system's temporary folder, named after `label`, removed with
    /// what it holds when the test ends (passed or failed): a test leaves nothing behind that
    /// another could see.
    func makeTemporaryDirectory(_ label: String) throws -> URL {
        let url = try makeUnownedTemporaryDirectory(label)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }
}

/// A new, empty folder of the system's temporary folder, named after `label`, which the caller
/// removes: for code that runs outside a test (a probe made once for a test class).
func makeUnownedTemporaryDirectory(_ label: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("symbolicate-cli-\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
