@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

/// Compares ``SymbolIndex/lookup(_:demangle:)`` with llvm-symbolizer over thousands of
/// addresses in every fixture and every debug file of the shared corpus.
///
/// Addresses are drawn as return addresses would be (uniformly over each `__text` / `.text`
/// section, plus every symbol's start and a few bytes past it) and turned into call-site
/// addresses as the symbolicator does for callers; both tools are then asked about the same
/// address. Function, file, line and the whole inline chain must agree.
final class OracleTests: XCTestCase {
    struct Subject {
        var file: DebugFile
        var label: String
    }

    struct Frame: Equatable, CustomStringConvertible {
        var function: String
        var file: String
        var line: Int
        var description: String { "\(function) \(file):\(line)" }
    }

    func testAgreesWithLLVMSymbolizer() throws {
        guard let symbolizer = TestPaths.llvmSymbolizer else { throw XCTSkip("llvm-symbolizer is not installed") }
        var subjects: [Subject] = []
        if let corpus = TestPaths.corpus {
            subjects += try debugFiles(under: corpus.appendingPathComponent("debug"))
        } else {
            print("OracleTests: \(TestPaths.corpusAbsent)")
        }
        if let fixtures = TestPaths.fixtures {
            subjects += try debugFiles(under: fixtures)
        } else {
            print("OracleTests: \(TestPaths.fixturesAbsent)")
        }
        guard !subjects.isEmpty else { throw XCTSkip("no debug files to compare: \(TestPaths.corpusAbsent); \(TestPaths.fixturesAbsent)") }

        var total = 0, agreed = 0, columnsAgreed = 0, withInlines = 0
        var mismatches: [String] = []
        for subject in subjects {
            let addresses = try sample(subject.file, count: 700)
            guard !addresses.isEmpty else {
                print("oracle: \(subject.label): no code to sample")
                continue
            }
            var oracleTool = symbolizer
            if try usesZstd(subject.file) {
                // LLVM 21 of the Swift toolchain is built without zstd; Debian's LLVM 19 has it.
                guard let zstdSymbolizer = OracleTests.zstdSymbolizer else {
                    print("oracle: \(subject.label): skipped: zstd-compressed, and no llvm-symbolizer-19 to read it")
                    continue
                }
                oracleTool = zstdSymbolizer
            }
            let expected = try oracle(oracleTool, subject.file, addresses)
            let index = try SymbolIndex.build(subject.file)
            var fileAgreed = 0
            for (address, want) in zip(addresses, expected) {
                let got = index.lookup(address, demangle: false)
                let gotFrames = got.map { Frame(function: canonical($0.function), file: $0.file ?? "", line: $0.line) }
                total += 1
                if got.count > 1 { withInlines += 1 }
                if gotFrames == want.map(\.frame) || (gotFrames.isEmpty && want.allSatisfy(\.frame.isUnknown)) {
                    agreed += 1
                    fileAgreed += 1
                    if zip(got, want).allSatisfy({ $0.column == $1.column }) { columnsAgreed += 1 }
                } else if mismatches.count < 25 {
                    mismatches.append("\(subject.label) 0x\(String(address, radix: 16)):\n    ours:   \(gotFrames)\n    oracle: \(want.map(\.frame))")
                }
            }
            print("oracle: \(subject.label): \(fileAgreed)/\(addresses.count) addresses agree"
                  + (oracleTool == symbolizer ? "" : " (oracle: \(oracleTool))"))
        }
        let percent = String(format: "%.2f", 100 * Double(agreed) / Double(max(total, 1)))
        print("oracle: \(agreed)/\(total) addresses agree with \(symbolizer) (\(percent)%) over \(subjects.count) debug files; "
              + "\(withInlines) of them in inlined code; columns agree for \(columnsAgreed)")
        XCTAssertGreaterThanOrEqual(total, 5000, "too few addresses sampled")
        XCTAssertEqual(agreed, total, "disagreements with llvm-symbolizer:\n" + mismatches.joined(separator: "\n"))
    }

    // MARK: - Subjects

    /// An llvm-symbolizer built with zstd (Debian's LLVM 19), for zstd-compressed sections.
    static var zstdSymbolizer: String? {
        ["/usr/bin/llvm-symbolizer-19", "/usr/lib/llvm-19/bin/llvm-symbolizer"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Whether an ELF file has a SHF_COMPRESSED section whose header names zstd.
    private func usesZstd(_ file: DebugFile) throws -> Bool {
        guard file.format == .elf else { return false }
        let mapped = try MappedFile(path: file.path)
        let image = try ELF.parse(mapped.bytes, path: file.path)
        let reader = ByteReader(mapped.bytes, bigEndian: image.bigEndian)
        return image.sections.contains { $0.flags & 0x800 != 0 && reader.u32(Int($0.offset)) == 2 }
    }

    /// Every Mach-O slice and ELF file with DWARF under `root`.
    private func debugFiles(under root: URL) throws -> [Subject] {
        var result: [Subject] = []
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                  let files = try? DebugFile.identify(path: url.path) else { continue }
            for file in files where file.hasDWARF && !file.isRelocatable {
                let relative = url.path.replacingOccurrences(of: root.deletingLastPathComponent().path + "/", with: "")
                result.append(Subject(file: file, label: "\(relative) [\(file.architecture?.name ?? "?")]"))
            }
        }
        return result.sorted { $0.label < $1.label }
    }

    /// Call-site addresses: random return addresses in the code, and symbol starts.
    private func sample(_ file: DebugFile, count: Int) throws -> [UInt64] {
        let mapped = try MappedFile(path: file.path)
        let layout = try ObjectLayout(file, in: mapped)
        guard let architecture = file.architecture, let (start, size) = layout.codeSection, size > 8 else { return [] }
        // Seeded by the file's identity, so every clone samples the same addresses.
        let seed = (file.identifier ?? file.path).utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        var generator = SplitMix64(seed: seed ^ start)
        var addresses: [UInt64] = []
        let symbols = SymbolTable(layout, of: file, in: mapped).symbols.filter { $0.address >= start && $0.address < start + size }
        for symbol in symbols.prefix(count / 2) {
            addresses.append(symbol.address)
            addresses.append(architecture.callSite(ofReturnAddress: symbol.address + 8))
        }
        while addresses.count < count {
            let returnAddress = start + 4 + generator.next() % (size - 4)
            addresses.append(architecture.callSite(ofReturnAddress: returnAddress))
        }
        return addresses
    }

    // MARK: - Oracle

    struct OracleFrame {
        var frame: Frame
        var column: Int
    }

    private func oracle(_ symbolizer: String, _ file: DebugFile, _ addresses: [UInt64]) throws -> [[OracleFrame]] {
        var arguments = ["--obj=\(file.path)", "--inlines", "--functions=linkage", "--no-demangle", "--output-style=JSON"]
        if let arch = file.architecture, file.format == .machO { arguments.append("--default-arch=\(arch.name)") }
        let input = addresses.map { "0x" + String($0, radix: 16) }.joined(separator: "\n") + "\n"
        let result = try runProcess(symbolizer, arguments, input: Data(input.utf8))
        XCTAssertEqual(result.status, 0, result.stderrText)
        let lines = result.stdoutText.split(separator: "\n")
        XCTAssertEqual(lines.count, addresses.count, "llvm-symbolizer answered \(lines.count) of \(addresses.count) addresses")
        return try lines.map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            let symbols = object?["Symbol"] as? [[String: Any]] ?? []
            return symbols.map { s in
                OracleFrame(frame: Frame(function: canonical(s["FunctionName"] as? String ?? ""),
                                         file: s["FileName"] as? String ?? "",
                                         line: s["Line"] as? Int ?? 0),
                            column: s["Column"] as? Int ?? 0)
            }
        }
    }

    /// Names are compared as the binary has them (no demangling on either side: the two
    /// demanglers spell names differently; DemanglerTests checks ours against c++filt).
    /// An unknown name is "??" for us and "" for llvm-symbolizer's JSON.
    private func canonical(_ name: String) -> String {
        name == "??" ? "" : name
    }
}

private extension OracleTests.Frame {
    var isUnknown: Bool { function.isEmpty && file.isEmpty && line == 0 }
}
