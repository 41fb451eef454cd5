import Foundation
import TestSupport
import XCTest

/// Variants of the fixture reports that real reporters write: the Last Exception Backtrace as
/// a parenthesized address list, arm64e addresses with pointer-authentication bits left in,
/// frames the device already named (`<redacted> + 12`, `foo + 12 (File.m:42)`), and reports
/// whose app has no debug file.
///
/// The oracle of each variant is the plain fixture report, whose symbolication
/// `TextOutputTests` checks against llvm-symbolizer: the same address in the same role must
/// come out the same.
final class ReportVariantTests: XCTestCase {
    /// A frame line of the output: its number, image, address and the text after the address.
    struct OutputFrame: Equatable {
        var number: Int
        var image: String
        var address: UInt64
        var rest: String
    }

    /// Frame lines of `text` between the line starting with `header` and the next blank line.
    static func frames(in text: String, after header: String) -> [OutputFrame] {
        var result: [OutputFrame] = []
        var inside = false
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            if line.hasPrefix(header) {
                inside = true
                continue
            }
            guard inside else { continue }
            if line.trimmingCharacters(in: .whitespaces).isEmpty { break }
            if let frame = parseFrame(line) { result.append(frame) }
        }
        return result
    }

    /// `N   IMAGE   0xADDRESS REST`, image names without spaces (as in the fixtures).
    static func parseFrame(_ line: String) -> OutputFrame? {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard fields.count >= 4, let number = Int(fields[0]), fields[2].hasPrefix("0x"),
              let address = parseHex(fields[2]),
              let range = line.range(of: fields[2], range: line.range(of: fields[1])!.upperBound..<line.endIndex)
        else { return nil }
        let rest = line[range.upperBound...].trimmingCharacters(in: .whitespaces)
        return OutputFrame(number: number, image: fields[1], address: address, rest: rest)
    }

    /// The fixture report of the iOS arm64 app, its text, and the text it symbolicates to.
    func plainReport() throws -> (path: String, text: String, output: String, debug: String) {
        let debug = try Fixtures.path("macho")
        let path = try Fixtures.path("reports/App-arm64.crash")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let result = try CLI.run(["-d", debug, path])
        XCTAssertEqual(result.status, .success, result.summary(["-d", debug, path]))
        return (path, text, result.stdoutText, debug)
    }

    func write(_ text: String, named name: String) throws -> String {
        let dir = try makeTemporaryDirectory("variants")
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A parenthesized list of the crashed thread's return addresses (frames 1...) becomes
    /// numbered frames, each resolved as the same address is in the thread; an address outside
    /// every image stays `???`, a system one `0xLOAD + OFFSET`.
    func testParenthesizedExceptionBacktraceBecomesNumberedFrames() throws {
        let plain = try plainReport()
        let thread = Self.frames(in: plain.output, after: "Thread 0 Crashed:")
        // One entry per frame number: the concrete (last) line of each.
        var concrete: [Int: OutputFrame] = [:]
        var inlined: [Int: [OutputFrame]] = [:]
        for frame in thread {
            if frame.rest.hasSuffix("[inlined]") { inlined[frame.number, default: []].append(frame) } else { concrete[frame.number] = frame }
        }
        let returnFrames = concrete.keys.sorted().filter { $0 > 0 }.map { concrete[$0]! }
        XCTAssertGreaterThan(returnFrames.filter { $0.image == "App" }.count, 2, "the fixture should have App return addresses")
        let list = returnFrames.map { "0x" + String($0.address, radix: 16) } + ["0x1234"]
        let variant = plain.text.replacingOccurrences(
            of: "Thread 0 name:",
            with: "Last Exception Backtrace:\n(" + list.joined(separator: " ") + ")\n\nThread 0 name:")
        let path = try write(variant, named: "leb.crash")
        let result = try CLI.run(["-d", plain.debug, path])
        XCTAssertEqual(result.status, .success, result.summary([path]))
        let numbered = Self.frames(in: result.stdoutText, after: "Last Exception Backtrace:")
        var expected: [OutputFrame] = []
        for (k, frame) in returnFrames.enumerated() {
            for line in inlined[frame.number] ?? [] {
                expected.append(OutputFrame(number: k, image: line.image, address: line.address, rest: line.rest))
            }
            expected.append(OutputFrame(number: k, image: frame.image, address: frame.address, rest: frame.rest))
        }
        expected.append(OutputFrame(number: returnFrames.count, image: "???", address: 0x1234, rest: "???"))
        // System frames the device named keep the device's name in the thread; in the list
        // they have only an address, so they are printed as `0xLOAD + OFFSET`.
        for (i, frame) in expected.enumerated() where frame.image != "App" && frame.image != "???" {
            XCTAssertTrue(numbered.indices.contains(i) && numbered[i].rest.range(of: #"^0x[0-9a-f]+ \+ [0-9]+$"#,
                                                                                options: .regularExpression) != nil,
                          "list frame \(frame.number) (\(frame.image)): \(numbered.indices.contains(i) ? numbered[i].rest : "missing")")
        }
        let appExpected = expected.filter { $0.image == "App" }
        let appNumbered = numbered.filter { $0.image == "App" }
        XCTAssertEqual(appNumbered, appExpected, "the list's App frames resolve as the thread's frames at the same addresses")
        XCTAssertEqual(numbered.last, expected.last)
        XCTAssertFalse(result.stdoutText.contains("(0x"), "the address list is replaced")
    }

    /// A list no debug file resolves is kept as it came in.
    func testUnresolvedAddressListIsKeptVerbatim() throws {
        let plain = try plainReport()
        let variant = plain.text.replacingOccurrences(
            of: "Thread 0 name:", with: "Last Exception Backtrace:\n(0x1a7080254 0x1234)\n\nThread 0 name:")
        let path = try write(variant, named: "leb.crash")
        let result = try CLI.run([path])
        XCTAssertEqual(result.stdoutText, variant)
    }

    /// Bits 40...46 of an address: above iOS's 36-bit address width, inside macOS's 47 bits.
    static let bitsBetweenTheWidths: UInt64 = 0x0000_7f00_0000_0000

    /// `text` with `bits` set in the address of every App frame but the first of each thread,
    /// written as `format` writes it; the lines changed, in order, and the addresses before.
    static func signing(_ text: String, with bits: UInt64,
                        format: String) -> (text: String, lines: [String], originals: [UInt64]) {
        var lines = text.components(separatedBy: "\n")
        var changed: [String] = [], originals: [UInt64] = []
        for (i, line) in lines.enumerated() {
            guard let frame = parseFrame(line), frame.image == "App", frame.number > 0,
                  let range = line.range(of: String(format: format, frame.address)) else { continue }
            lines[i] = line.replacingCharacters(in: range, with: String(format: format, frame.address | bits))
            changed.append(lines[i])
            originals.append(frame.address)
        }
        return (lines.joined(separator: "\n"), changed, originals)
    }

    /// arm64e return addresses of an iOS report with pointer-authentication bits above its
    /// 36-bit address width — bits 40...46, which macOS's 47-bit width would keep — resolve as
    /// the plain addresses do; the line keeps the address as printed.
    func testPointerAuthenticationBitsAreStripped() throws {
        let plain = try plainReport()
        let bits = Self.bitsBetweenTheWidths
        let signed = Self.signing(plain.text, with: bits, format: "0x%016llx")
        XCTAssertGreaterThan(signed.lines.count, 3)
        XCTAssert(signed.originals.allSatisfy { $0 >> 36 == 0 }, "the fixture's App addresses fit in 36 bits")
        let path = try write(signed.text, named: "pac.crash")
        let result = try CLI.run(["-d", plain.debug, path])
        XCTAssertEqual(result.status, .success, result.summary([path]))
        // Undo the signing in the output: it must then equal the plain report's output.
        var output = result.stdoutText
        for address in Set(signed.originals) {
            output = output.replacingOccurrences(of: String(format: "0x%016llx", address | bits),
                                                 with: String(format: "0x%016llx", address))
        }
        XCTAssertEqual(output, plain.output)
    }

    /// On macOS the address width is 47 bits: bits above it are stripped (the frames resolve as
    /// the plain ones), bits below kept — with bits 40...46 set, which iOS's 36-bit width would
    /// strip, no image holds the address and the line comes back as it was.
    func testMacOSKeepsFortySevenBits() throws {
        let debug = try Fixtures.path("macho")
        // The fixture's macOS 12 report of an arm64 process (Fixtures/make_reports.py makes it so).
        let path = try Fixtures.path("reports/App-universal-arm64.crash")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard text.range(of: #"(?m)^OS Version: +macOS "#, options: .regularExpression) != nil else {
            return XCTFail("\(path) should be a macOS report (OS Version: macOS …)")
        }
        let plain = try CLI.run(["-d", debug, path])
        XCTAssertEqual(plain.status, .success, plain.summary(["-d", debug, path]))

        // Above bit 47: stripped.
        let high = Self.signing(text, with: 0x7f80_0000_0000_0000, format: "0x%llx")
        XCTAssertGreaterThan(high.lines.count, 0)
        let highPath = try write(high.text, named: "pac-macos.crash")
        let highResult = try CLI.run(["-d", debug, highPath])
        XCTAssertEqual(highResult.status, .success, highResult.summary(["-d", debug, highPath]))
        let resolvedPlain = Self.frames(in: plain.stdoutText, after: "Thread 0 Crashed:").map(\.rest)
        let resolvedSigned = Self.frames(in: highResult.stdoutText, after: "Thread 0 Crashed:").map(\.rest)
        XCTAssertEqual(resolvedSigned, resolvedPlain)

        // Between bits 36 and 47: kept, so the frames stay unresolved.
        let middle = Self.signing(text, with: Self.bitsBetweenTheWidths, format: "0x%llx")
        XCTAssertGreaterThan(middle.lines.count, 0)
        let middlePath = try write(middle.text, named: "pac-macos-kept.crash")
        let middleResult = try CLI.run(["-d", debug, middlePath])
        XCTAssertEqual(middleResult.status, .success, middleResult.summary(["-d", debug, middlePath]))
        let signedAddresses = Set(middle.originals.map { $0 | Self.bitsBetweenTheWidths })
        let outputLines = middleResult.stdoutText.components(separatedBy: "\n").filter { line in
            Self.parseFrame(line).map { signedAddresses.contains($0.address) } ?? false
        }
        XCTAssertEqual(outputLines, middle.lines, "addresses with bits 40...46 set are not stripped on macOS")
    }

    /// Frames the device named (`<redacted> + N`, `symbol + N`) are resolved again; frames with
    /// a source location only with `--force`.
    func testDeviceSymbolsAreReplacedAndSourceLocationsNeedForce() throws {
        let plain = try plainReport()
        var lines = plain.text.components(separatedBy: "\n")
        var redacted = 0, located = 0
        for (i, line) in lines.enumerated() {
            guard let frame = Self.parseFrame(line), frame.image == "App",
                  let range = line.range(of: frame.rest, options: .backwards) else { continue }
            if (redacted + located) % 2 == 0 {
                lines[i] = line.replacingCharacters(in: range, with: "<redacted> + 12")
                redacted += 1
            } else {
                lines[i] = line.replacingCharacters(in: range, with: "stale_name + 12 (Stale.m:7)")
                located += 1
            }
        }
        XCTAssertGreaterThan(redacted, 2)
        XCTAssertGreaterThan(located, 2)
        let path = try write(lines.joined(separator: "\n"), named: "partial.crash")

        let plainFrames = Self.frames(in: plain.output, after: "Thread 0 Crashed:")
        let kept = try CLI.run(["-d", plain.debug, path]).stdoutText
        let keptFrames = Self.frames(in: kept, after: "Thread 0 Crashed:")
        XCTAssertFalse(keptFrames.contains { $0.rest.contains("<redacted>") }, "redacted frames are resolved")
        XCTAssertEqual(keptFrames.filter { $0.rest.contains("Stale.m") }.count,
                       lines.prefix { !$0.hasPrefix("Thread 1") }.filter { $0.contains("Stale.m") }.count,
                       "frames with a source location are kept without --force")

        let forced = try CLI.run(["-d", plain.debug, "--force", path]).stdoutText
        XCTAssertEqual(Self.frames(in: forced, after: "Thread 0 Crashed:"), plainFrames,
                       "with --force every App frame resolves as in the plain report")
        XCTAssertFalse(forced.contains("Stale.m"))
    }

    /// Without a debug file, each app image with frames is named once on stderr with the UUID
    /// (dashed, upper case: how dSYMs are searched for) and the architecture; system images
    /// are not.
    func testMissingDebugFileIsSaidOncePerImage() throws {
        let path = try Fixtures.path("reports/App-arm64.crash")
        let copy = try write(try String(contentsOfFile: path, encoding: .utf8), named: "again.crash")
        let result = try CLI.run([path, copy])
        XCTAssertEqual(result.status, .success)
        let report = try String(contentsOfFile: path, encoding: .utf8)
        guard let imageLine = report.components(separatedBy: "\n").first(where: { $0.contains(" App arm64") || $0.contains("+App arm64") }),
              let uuidRange = imageLine.range(of: #"<[0-9a-fA-F-]{32,36}>"#, options: .regularExpression)
        else { return XCTFail("no App image line in \(path)") }
        let hex = compactUUID(String(imageLine[uuidRange].dropFirst().dropLast())).uppercased()
        let dashed = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { r in
            String(hex[hex.index(hex.startIndex, offsetBy: r.lowerBound)..<hex.index(hex.startIndex, offsetBy: r.upperBound)])
        }.joined(separator: "-")
        let warnings = result.stderrLines.filter { $0.contains("no debug file for App ") }
        XCTAssertEqual(warnings.count, 1, result.stderrText)
        XCTAssertTrue(warnings.first?.contains("UUID \(dashed), arm64") ?? false, result.stderrText)
        XCTAssertFalse(result.stderrText.contains("UIKitCore"), "system images are not reported")
    }

    /// A report symbolicated before (inlined frames as ` [inlined]` lines) comes back the
    /// same when symbolicated again, with or without `--force`, in text and in JSON: old
    /// inlined lines are neither looked up nor doubled.
    func testSymbolicatingTwiceChangesNothing() throws {
        let plain = try plainReport()
        XCTAssertTrue(plain.output.contains(" [inlined]"))
        let once = try write(plain.output, named: "once.crash")
        for extra in [[], ["--force"]] {
            let again = try CLI.run(["-d", plain.debug] + extra + [once])
            XCTAssertEqual(again.stdoutText, plain.output, "text \(extra)")
        }
        func frames(_ arguments: [String]) throws -> [[String]] {
            let result = try CLI.run(arguments)
            let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
            let report = (json?["reports"] as? [[String: Any]])?.first
            return (report?["threads"] as? [[String: Any]] ?? []).map { thread in
                (thread["frames"] as? [[String: Any]] ?? []).map { frame in
                    ["symbol", "line", "inlined"].map { "\(frame[$0] ?? "nil")" }.joined(separator: " ")
                        + " " + ((frame["file"] as? String).map(basename) ?? "nil")
                }
            }
        }
        let fresh = try frames(["-d", plain.debug, "--format", "json", plain.path])
        XCTAssertEqual(try frames(["-d", plain.debug, "--format", "json", once]), fresh)
        XCTAssertEqual(try frames(["-d", plain.debug, "--format", "json", "--force", once]), fresh)
    }

    /// After `_sigtramp` the next frame is the interrupted instruction, not a return address:
    /// it is looked up as is (llvm-symbolizer at the frame's own address), while the same
    /// address elsewhere in the thread is looked up at its call site.
    func testTheFrameAfterSigtrampIsTheInterruptedPC() throws {
        let plain = try plainReport()
        let path = try Fixtures.path("macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64")
        var lines = plain.text.components(separatedBy: "\n")
        // A return address in App whose own line differs from its call site's.
        let candidates = lines.enumerated().compactMap { k, line -> (Int, OutputFrame)? in
            guard let frame = Self.parseFrame(line), frame.image == "App", frame.number > 0,
                  frame.rest.hasPrefix("0x") else { return nil }
            return (k, frame)
        }
        let lookups = candidates.map { $0.1.address - 0x104a30000 + 0x1_0000_0000 }
        let oracle = try Oracle.symbolize(object: path, arch: "arm64", addresses: lookups + lookups.map { $0 - 4 })
        func place(_ frames: [OracleFrame]?) -> [String] { (frames ?? []).map { "\(basename($0.file)):\($0.line)" } }
        guard let pick = zip(candidates, lookups).first(where: { place(oracle[$0.1]) != place(oracle[$0.1 - 4]) }) else {
            return XCTFail("no App return address whose line differs from its call site's")
        }
        let ((k, frame), lookup) = pick
        lines.insert("\(frame.number)   libsystem_platform.dylib           0x00000001a6d9e9c8 _sigtramp + 56", at: k)
        let variant = try write(lines.joined(separator: "\n"), named: "sigtramp.crash")
        let output = try CLI.run(["-d", plain.debug, "--no-demangle", variant]).stdoutText
        let resolved = output.components(separatedBy: "\n").compactMap(Self.parseFrame).filter { $0.address == frame.address }
        XCTAssertEqual(resolved.map { line in
                           line.rest.range(of: #"\(([^)]*)\)"#, options: .regularExpression).map {
                               String(line.rest[$0].dropFirst().dropLast())
                           } ?? ""
                       },
                       place(oracle[lookup]), "looked up at \(hex(lookup)), not at its call site")
    }
}
