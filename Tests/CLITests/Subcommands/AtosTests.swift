import Foundation
import TestSupport
import XCTest

/// `symbolicate atos` against llvm-symbolizer.
///
/// atos's forms: `func (in Image) (File.c:42)` with line information, `func (in Image) + 12`
/// without, the address itself when nothing is known. With `-i`, one line per frame, innermost
/// first; without, one line: the outermost (concrete) function with the innermost file and line.
final class AtosTests: XCTestCase {
    /// A debug file and the image it describes in a fixture report.
    struct Subject {
        var object: String          // what is passed to -o
        var debugFile: String       // the DWARF file, for llvm-symbolizer
        var arch: String
        var textVMAddress: UInt64
        var loadAddress: UInt64
        var imageSize: UInt64
        var expectRows: [ExpectRow]

        var imageName: String { basename(debugFile) }

        func runtime(_ fileAddress: UInt64) -> UInt64 { fileAddress - textVMAddress + loadAddress }
        func file(_ runtimeAddress: UInt64) -> UInt64 { runtimeAddress - loadAddress + textVMAddress }
    }

    /// App-arm64.dSYM with the load address of App in App-arm64.crash.
    private func appArm64() throws -> Subject {
        try subject(report: "reports/App-arm64.crash", bundle: "macho/App-arm64.dSYM",
                    debugFile: "macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64", arch: "arm64")
    }

    private func subject(report: String, bundle: String, debugFile: String, arch: String) throws -> Subject {
        let root = try Fixtures.root()
        let reportPath = try Fixtures.path(report)
        guard let entry = try Fixtures.manifest().first(where: { $0.path == debugFile && $0.arch == arch }) else {
            throw FixtureError("manifest.txt has no \(arch) entry for \(debugFile)")
        }
        let text = ReportText(try String(contentsOfFile: reportPath, encoding: .utf8))
        guard let image = text.images.first(where: { $0.uuid == entry.compactIdentifier }) else {
            throw FixtureError("\(report): no image with UUID \(entry.identifier)")
        }
        let rows = try Fixtures.expectRows(for: reportPath).filter { $0.debugFile == debugFile }
        return Subject(object: root.appendingPathComponent(bundle).path,
                       debugFile: root.appendingPathComponent(debugFile).path, arch: arch,
                       textVMAddress: entry.textVMAddress, loadAddress: image.start,
                       imageSize: image.end - image.start + 1, expectRows: rows)
    }

    /// The lines atos should print for `fileAddress` (printed as `shown` when unknown).
    static func expectedLines(_ frames: [OracleFrame], fileAddress: UInt64, shown: UInt64, image: String,
                              inlines: Bool, fullPath: Bool = false) -> [ExpectedLine] {
        guard let outermost = frames.last, let innermost = frames.first else {
            return [ExpectedLine(head: hex(shown), offset: .exact(nil), tail: "")]
        }
        func line(_ function: String, start: UInt64?, file: String, line: Int) -> ExpectedLine {
            let head = "\(function) (in \(image))"
            if line > 0, !file.isEmpty {
                return ExpectedLine(head: head, offset: .exact(nil), tail: " (\(fullPath ? file : basename(file)):\(line))")
            }
            // No start from llvm-symbolizer (an inlined function in several ranges): any offset.
            guard let start else { return ExpectedLine(head: head, offset: .unknown, tail: "") }
            return ExpectedLine(head: head, offset: .exact(fileAddress >= start ? fileAddress - start : nil), tail: "")
        }
        if inlines {
            return frames.map { line($0.function, start: $0.startAddress, file: $0.file, line: $0.line) }
        }
        return [line(outermost.function, start: outermost.startAddress, file: innermost.file, line: innermost.line)]
    }

    /// Runs atos with `arguments` and compares its lines with `expected` (one list per address).
    private func check(_ arguments: [String], input: Data? = nil, expected: [(label: String, lines: [ExpectedLine])],
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try CLI.run(arguments, input: input)
        XCTAssertEqual(result.status, .success, result.summary(arguments), file: file, line: line)
        XCTAssertEqual(result.stderrText, "", "no warnings expected: \(CLI.describe(arguments))", file: file, line: line)
        let got = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let wantAll = expected.flatMap(\.lines)
        if got.last == "" {
            // A final newline.
        } else {
            XCTFail("the output should end with a newline: \(result.summary(arguments))", file: file, line: line)
        }
        let lines = got.last == "" ? Array(got.dropLast()) : got
        var cursor = 0
        var failures: [String] = []
        for item in expected {
            let chunk = Array(lines[min(cursor, lines.count)..<min(cursor + item.lines.count, lines.count)])
            if chunk.count != item.lines.count || !zip(item.lines, chunk).allSatisfy({ $0.matches($1) }) {
                failures.append("\(item.label):\n  expected: \(item.lines)\n  output:   \(chunk)")
            }
            cursor += item.lines.count
            if failures.count >= 20 { break }
        }
        if lines.count != wantAll.count {
            failures.append("\(lines.count) output lines for \(wantAll.count) expected")
        }
        XCTAssert(failures.isEmpty, "\(CLI.describe(Array(arguments.prefix(9)))) …:\n" + failures.joined(separator: "\n"),
                  file: file, line: line)
    }

    /// About fifty file addresses in App: each lookup address of the expect file and its
    /// neighbours, and random addresses in the image.
    private func sampleAddresses(_ subject: Subject) -> [UInt64] {
        var addresses: [UInt64] = []
        for lookup in Set(subject.expectRows.map(\.lookup)).sorted() {
            for delta: Int64 in [-8, -4, 0, 4, 8] { addresses.append(UInt64(Int64(lookup) + delta)) }
        }
        var random = SplitMix64(seed: 0x5EED_A705)
        for _ in 0..<12 {
            addresses.append(subject.textVMAddress + (random.next() % subject.imageSize))
        }
        return addresses
    }

    func testAtosWithInlinesMatchesLLVMSymbolizer() throws {
        let subject = try appArm64()
        XCTAssertFalse(subject.expectRows.isEmpty, "App-arm64.expect.tsv has no App rows")
        let addresses = sampleAddresses(subject)
        let oracle = try Oracle.symbolize(object: subject.debugFile, arch: subject.arch, addresses: addresses)
        XCTAssertGreaterThanOrEqual(oracle.values.filter { $0.count > 1 }.count, 3,
                                    "fixture problem: expected some addresses in inlined code")
        let expected = addresses.map { address in
            (label: "\(hex(subject.runtime(address))) (file address \(hex(address)); llvm-symbolizer: \(oracle[address] ?? []))",
             lines: Self.expectedLines(oracle[address] ?? [], fileAddress: address, shown: subject.runtime(address),
                                       image: subject.imageName, inlines: true))
        }
        let arguments = ["atos", "-o", subject.object, "-l", hex(subject.loadAddress), "-i", "--no-demangle"]
            + addresses.map { hex(subject.runtime($0)) }
        try check(arguments, expected: expected)
    }

    func testAtosWithoutInlinesPrintsOneLinePerAddress() throws {
        let subject = try appArm64()
        let addresses = sampleAddresses(subject)
        let oracle = try Oracle.symbolize(object: subject.debugFile, arch: subject.arch, addresses: addresses)
        let expected = addresses.map { address in
            (label: "\(hex(subject.runtime(address))) (file address \(hex(address)); llvm-symbolizer: \(oracle[address] ?? []))",
             lines: Self.expectedLines(oracle[address] ?? [], fileAddress: address, shown: subject.runtime(address),
                                       image: subject.imageName, inlines: false))
        }
        let arguments = ["atos", "-o", subject.object, "-l", hex(subject.loadAddress), "--no-demangle"]
            + addresses.map { hex(subject.runtime($0)) }
        try check(arguments, expected: expected)
    }

    func testAtosWithoutLoadAddressTakesFileAddresses() throws {
        let subject = try appArm64()
        let addresses = Array(Set(subject.expectRows.map(\.lookup))).sorted()
        let oracle = try Oracle.symbolize(object: subject.debugFile, arch: subject.arch, addresses: addresses)
        let expected = addresses.map { address in
            (label: "\(hex(address)) (llvm-symbolizer: \(oracle[address] ?? []))",
             lines: Self.expectedLines(oracle[address] ?? [], fileAddress: address, shown: address,
                                       image: subject.imageName, inlines: true, fullPath: true))
        }
        // The DWARF file itself rather than the bundle, and --full-path.
        let arguments = ["atos", "-o", subject.debugFile, "-i", "--full-path", "--no-demangle"] + addresses.map(hex)
        try check(arguments, expected: expected)
    }

    func testAtosReadsAddressesFromStandardInput() throws {
        let subject = try appArm64()
        let addresses = sampleAddresses(subject).map { hex(subject.runtime($0)) }
        let base = ["atos", "-o", subject.object, "-l", hex(subject.loadAddress), "-i", "--no-demangle"]
        let byArguments = try CLI.run(base + addresses)
        XCTAssertEqual(byArguments.status, .success, byArguments.summary(base + addresses))
        // Several per line, separated by spaces and tabs, and one per line; with and without 0x.
        var input = ""
        for (k, address) in addresses.enumerated() {
            let shown = k % 7 == 3 ? String(address.dropFirst(2)) : address
            input += shown + (k % 3 == 0 ? "\n" : k % 3 == 1 ? " " : "\t")
        }
        input += "\n"
        let piped = try CLI.run(base, input: Data(input.utf8))
        XCTAssertEqual(piped.status, .success, piped.summary(base + ["<", "(addresses)"]))
        XCTAssertEqual(piped.stderrText, "")
        XCTAssertFalse(piped.stdoutText.isEmpty, "atos printed nothing for addresses on stdin")
        XCTAssertEqual(piped.stdoutText, byArguments.stdoutText, "addresses from stdin should give what arguments give")
    }

    /// Addresses read from a pipe are words whatever their place: across the reader's 64 KiB
    /// chunks, before "\r\n", after runs of blanks, the last without a line end. A word too
    /// long to be an address is named by its first 64 bytes, and the others are answered.
    func testAddressesAreWordsWhereverTheyFall() throws {
        let subject = try appArm64()
        let addresses = sampleAddresses(subject).map { hex(subject.runtime($0)) }
        let base = ["atos", "-o", subject.object, "-l", hex(subject.loadAddress), "--no-demangle"]
        var expected: [String] = []
        var input = ""
        var k = 0
        while input.utf8.count < 3 << 16 {
            let address = addresses[k % addresses.count]
            expected.append(address)
            input += address + ["\n", " ", "\t\t", "\r\n", "   \n"][k % 5]
            k += 1
        }
        let long = String(repeating: "7", count: 200)
        input += long + "\n" + addresses[0]
        expected.append(addresses[0])
        let byArguments = try CLI.run(base + expected)
        XCTAssertEqual(byArguments.status, .success, byArguments.summary(base))
        let piped = try CLI.run(base, input: Data(input.utf8))
        XCTAssertEqual(piped.status, .reportFailed, piped.summary(base + ["<", "(addresses)"]))
        XCTAssertEqual(piped.stderrLines, ["symbolicate: atos: not an address: " + long.prefix(64) + "..."], piped.summary(base))
        XCTAssertEqual(piped.stdoutText, byArguments.stdoutText, "\(expected.count) addresses from a pipe")
    }

    /// A program that writes one address and waits for its answer before the next (as a
    /// sanitizer or a debugger drives a symbolizer) gets each answer at once: output goes out
    /// whenever the input read so far is answered, not only at the end.
    func testAtosAnswersEachLineBeforeItReadsTheNext() throws {
        let subject = try appArm64()
        let addresses = sampleAddresses(subject).prefix(5).map { hex(subject.runtime($0)) }
        let base = ["atos", "-o", subject.object, "-l", hex(subject.loadAddress), "--no-demangle"]
        let expected = try CLI.run(base + addresses).stdoutText.split(separator: "\n").map(String.init)
        XCTAssertEqual(expected.count, addresses.count)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: try CLI.binary())
        process.arguments = base
        process.environment = CLI.environment  // not the user's cache folder nor search path
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
        }
        let reader = output.fileHandleForReading.fileDescriptor
        for (address, wanted) in zip(addresses, expected) {
            input.fileHandleForWriting.write(Data((address + "\n").utf8))
            // One line back while standard input stays open (within 120 s: a tool that waits for
            // the end of its input would never answer; a loaded machine may be slow to).
            var line: [UInt8] = []
            let deadline = Date().addingTimeInterval(120)
            while line.last != 0x0a, Date() < deadline {
                var ready = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 100) > 0 else { continue }
                var byte: UInt8 = 0
                guard read(reader, &byte, 1) == 1 else { break }
                line.append(byte)
            }
            XCTAssertEqual(String(decoding: line, as: UTF8.self), wanted + "\n", "answer to \(address) while the input stays open")
        }
        input.fileHandleForWriting.closeFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, .success)
    }

    func testAddressesOutsideAnyFunctionArePrintedBack() throws {
        let subject = try appArm64()
        // Past the last function (__unwind_info: no symbol, no DWARF), and below the load address.
        let outside = subject.textVMAddress + 0x4900
        let oracle = try Oracle.symbolize(object: subject.debugFile, arch: subject.arch, addresses: [outside])
        XCTAssertEqual(oracle[outside]?.count, 0, "fixture problem: llvm-symbolizer knows something at \(hex(outside))")
        let below = subject.loadAddress - 0x1000
        let arguments = ["atos", "-o", subject.object, "-l", hex(subject.loadAddress),
                         hex(subject.runtime(outside)), hex(below)]
        try check(arguments, expected: [
            (label: "after the code, at \(hex(subject.runtime(outside)))",
             lines: [ExpectedLine(head: hex(subject.runtime(outside)), offset: .exact(nil), tail: "")]),
            (label: "below the load address, \(hex(below))", lines: [ExpectedLine(head: hex(below), offset: .exact(nil), tail: "")]),
        ])
    }

    func testUniversalFileNeedsAnArchitecture() throws {
        let object = try Fixtures.path("macho/App-universal.dSYM")
        let arguments = ["atos", "-o", object, "0x100000908"]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .reportFailed, result.summary(arguments))
        XCTAssertEqual(result.stdoutText, "", "nothing on stdout when no slice is chosen")
        XCTAssertEqual(result.stderrLines.count, 1, "one line on stderr: \(result.summary(arguments))")
        let message = result.stderrText
        XCTAssert(message.contains("x86_64") && message.contains("arm64"),
                  "the message should name the architectures: \(message)")
        XCTAssert(message.contains("App-universal"), "the message should name the file: \(message)")
    }

    func testUniversalFileArm64SliceWithLoadAddress() throws {
        let subject = try subject(report: "reports/App-universal-arm64.crash", bundle: "macho/App-universal.dSYM",
                                  debugFile: "macho/App-universal.dSYM/Contents/Resources/DWARF/App-universal", arch: "arm64")
        XCTAssertFalse(subject.expectRows.isEmpty)
        let addresses = sampleAddresses(subject)
        let oracle = try Oracle.symbolize(object: subject.debugFile, arch: "arm64", addresses: addresses)
        let expected = addresses.map { address in
            (label: "\(hex(subject.runtime(address))) (llvm-symbolizer arm64: \(oracle[address] ?? []))",
             lines: Self.expectedLines(oracle[address] ?? [], fileAddress: address, shown: subject.runtime(address),
                                       image: subject.imageName, inlines: true))
        }
        let arguments = ["atos", "-o", subject.object, "--arch", "arm64", "-l", hex(subject.loadAddress), "-i", "--no-demangle"]
            + addresses.map { hex(subject.runtime($0)) }
        try check(arguments, expected: expected)
    }

    func testUniversalFileX86_64Slice() throws {
        let object = try Fixtures.path("macho/App-universal.dSYM")
        let debugFile = try Fixtures.path("macho/App-universal.dSYM/Contents/Resources/DWARF/App-universal")
        guard let entry = try Fixtures.manifest().first(where: {
            $0.path == "macho/App-universal.dSYM/Contents/Resources/DWARF/App-universal" && $0.arch == "x86_64"
        }) else { throw FixtureError("manifest.txt: no x86_64 slice of App-universal") }
        // File addresses every 0x1d bytes over the first pages: code, header, and whatever else is there.
        let addresses = stride(from: entry.textVMAddress, to: entry.textVMAddress + 0x1400, by: 0x1d).map { $0 }
        let oracle = try Oracle.symbolize(object: debugFile, arch: "x86_64", addresses: addresses)
        XCTAssertGreaterThan(oracle.values.filter { !$0.isEmpty }.count, 10, "fixture problem: too few addresses in code")
        let expected = addresses.map { address in
            (label: "\(hex(address)) (llvm-symbolizer x86_64: \(oracle[address] ?? []))",
             lines: Self.expectedLines(oracle[address] ?? [], fileAddress: address, shown: address,
                                       image: "App-universal", inlines: true))
        }
        let arguments = ["atos", "-o", object, "--arch", "x86_64", "-i", "--no-demangle"] + addresses.map(hex)
        try check(arguments, expected: expected)
    }

    func testUniversalFileWithAMissingSlice() throws {
        let object = try Fixtures.path("macho/App-universal.dSYM")
        let arguments = ["atos", "-o", object, "--arch", "armv7", "0x100000908"]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .reportFailed, result.summary(arguments))
        XCTAssertEqual(result.stderrLines.count, 1, "one line on stderr: \(result.summary(arguments))")
        XCTAssert(result.stderrText.contains("armv7"), "the message should name the missing slice: \(result.stderrText)")
    }

    func testUnusableObjectAndBadAddresses() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID().uuidString).dSYM").path
        var arguments = ["atos", "-o", missing, "0x1000"]
        var result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .reportFailed, result.summary(arguments))
        XCTAssertEqual(result.stderrLines.count, 1, "one line on stderr: \(result.summary(arguments))")
        XCTAssert(result.stderrText.contains(missing), "the message should name the object: \(result.stderrText)")

        let notObject = try Fixtures.path("manifest.txt")
        arguments = ["atos", "-o", notObject, "0x1000"]
        result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .reportFailed, result.summary(arguments))
        XCTAssert(result.stderrText.contains("manifest.txt"), "the message should name the object: \(result.stderrText)")

        let object = try Fixtures.path("macho/App-arm64.dSYM")
        arguments = ["atos", "-o", object, "0x100004204", "zzz", "0x100004340"]
        result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .reportFailed, "a bad address: \(result.summary(arguments))")
        XCTAssert(result.stderrText.contains("zzz"), "the message should name the bad address: \(result.stderrText)")
        XCTAssertEqual(result.stdoutText.split(separator: "\n").count, 2, "the good addresses are still answered: \(result.summary(arguments))")

        arguments = ["atos", "-o", object, "-l", "nothex", "0x100004204"]
        result = try CLI.run(arguments)
        XCTAssertEqual(result.status, .usage, "a bad -l is a usage error: \(result.summary(arguments))")
    }

    func testAtosHelpDescribesAtos() throws {
        for arguments in [["atos", "--help"], ["atos", "-h"]] {
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, .success, result.summary(arguments))
            XCTAssert(result.stdoutText.contains("-o") && result.stdoutText.contains("-l") && result.stdoutText.contains("--arch"),
                      "\(CLI.describe(arguments)) should describe atos's options: \(result.summary(arguments))")
        }
    }

    /// Many addresses as arguments: set aside before the argument parser, which takes time
    /// quadratic in positional arguments (20,000 took 22 s, over 2 minutes in a debug build).
    func testTwentyThousandAddressesAreAnsweredQuickly() throws {
        let dsym = try Fixtures.path("macho/App-arm64.dSYM")
        let addresses = (1...20_000).map { "0x" + String(0x1_0000_0000 + $0 * 4, radix: 16) }
        let arguments = ["atos", "-o", dsym] + addresses
        let (result, seconds) = try CPUTime.ofChildren { try CLI.run(arguments) }
        XCTAssertEqual(result.status, .success, result.stderrText)
        XCTAssertEqual(result.stdoutText.split(separator: "\n").count, 20_000)
        XCTAssertLessThan(seconds, 15, "20,000 addresses took \(seconds) s of CPU")
    }
}
