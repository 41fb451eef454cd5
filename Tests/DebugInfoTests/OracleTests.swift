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
/// address. Function, file, line, column and the whole inline chain must agree.
///
/// Besides the fixtures and the corpus, the system's glibc debug file (Debian's libc6-dbg,
/// found by libc.so.6's build-id under /usr/lib/debug) is compared: real gcc DWARF 5 built with
/// a relative DW_AT_comp_dir, thousands of units, MD5-less file tables whose file 0 and file 1
/// differ.
final class OracleTests: XCTestCase {
    struct Subject {
        var file: DebugFile
        var label: String
        /// Addresses sampled: symbol starts (and just past them), the rest random.
        var sampleSize = 700
    }

    struct Frame: Equatable, CustomStringConvertible {
        var function: String
        var file: String
        var line: Int
        var column: Int
        var description: String { "\(function) \(file):\(line):\(column)" }
    }

    /// How many of the oracle's names for the current subject had an ELF symbol version.
    private var versionedNames = 0

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
        switch OracleTests.systemLibcDebugFile() {
        case .success(let file):
            subjects.append(Subject(file: file, label: "glibc \(file.path)", sampleSize: 2000))
        case .failure(let why):
            print("oracle: glibc's debug file is not compared: \(why.message)")
        }
        guard !subjects.isEmpty else { throw XCTSkip("no debug files to compare: \(TestPaths.corpusAbsent); \(TestPaths.fixturesAbsent)") }

        var total = 0, agreed = 0, withInlines = 0
        var mismatches: [String] = []
        for subject in subjects {
            let addresses = try sample(subject.file, count: subject.sampleSize)
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
            versionedNames = 0
            let expected = try oracle(oracleTool, subject.file, addresses)
            let index = try SymbolIndex.build(subject.file)
            var fileAgreed = 0
            for (address, want) in zip(addresses, expected) {
                let got = index.lookup(address, demangle: false)
                let gotFrames = got.map { Frame(function: canonical($0.function), file: $0.file ?? "", line: $0.line, column: $0.column) }
                total += 1
                if got.count > 1 { withInlines += 1 }
                if gotFrames == want || (gotFrames.isEmpty && want.allSatisfy(\.isUnknown)) {
                    agreed += 1
                    fileAgreed += 1
                } else if mismatches.count < 25 {
                    mismatches.append("\(subject.label) 0x\(String(address, radix: 16)):\n    ours:   \(gotFrames)\n    oracle: \(want)")
                }
            }
            print("oracle: \(subject.label): \(fileAgreed)/\(addresses.count) addresses agree"
                  + (oracleTool == symbolizer ? "" : " (oracle: \(oracleTool))")
                  + (versionedNames == 0 ? "" : "; \(versionedNames) of llvm-symbolizer's names compared without their ELF symbol version"))
        }
        let percent = String(format: "%.2f", 100 * Double(agreed) / Double(max(total, 1)))
        print("oracle: \(agreed)/\(total) addresses agree with \(symbolizer) (\(percent)%) over \(subjects.count) debug files; "
              + "\(withInlines) of them in inlined code")
        XCTAssertGreaterThanOrEqual(total, 5000, "too few addresses sampled")
        XCTAssertEqual(agreed, total, "disagreements with llvm-symbolizer:\n" + mismatches.joined(separator: "\n"))
    }

    // MARK: - Subjects

    struct Unavailable: Error {
        var message: String
    }

    /// The separate debug file of the system's libc (Debian's libc6-dbg installs it as
    /// `/usr/lib/debug/.build-id/xx/yyyy.debug`, named by libc.so.6's GNU build-id).
    static func systemLibcDebugFile() -> Result<DebugFile, Unavailable> {
        let candidates = ["/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6",
                          "/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/aarch64-linux-gnu/libc.so.6",
                          "/lib64/libc.so.6", "/usr/lib64/libc.so.6"]
        guard let libc = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            return .failure(Unavailable(message: "no libc.so.6 in \(candidates)"))
        }
        guard let buildID = (try? DebugFile.identify(path: libc))?.first?.identifier, buildID.count > 2 else {
            return .failure(Unavailable(message: "\(libc) has no GNU build-id"))
        }
        let path = "/usr/lib/debug/.build-id/\(buildID.prefix(2))/\(buildID.dropFirst(2)).debug"
        guard FileManager.default.fileExists(atPath: path) else {
            return .failure(Unavailable(message: "libc6-dbg is not installed (no \(path) for \(libc)); `make setup` installs it"))
        }
        guard let file = (try? DebugFile.identify(path: path))?.first, file.hasDWARF else {
            return .failure(Unavailable(message: "\(path) has no DWARF"))
        }
        return .success(file)
    }

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
        var symbols = SymbolTable(layout, of: file, in: mapped).symbols.filter { $0.address >= start && $0.address < start + size }
        if symbols.count > count / 2 {
            // More functions than the sample holds (glibc): a quarter of the sample's worth,
            // spread evenly over the section, and random addresses for the other half.
            let stride = Double(symbols.count) / Double(count / 4)
            symbols = (0..<(count / 4)).map { symbols[Int(Double($0) * stride)] }
        }
        for symbol in symbols {
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

    private func oracle(_ symbolizer: String, _ file: DebugFile, _ addresses: [UInt64]) throws -> [[Frame]] {
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
                Frame(function: canonical(withoutSymbolVersion(s["FunctionName"] as? String ?? "")),
                      file: s["FileName"] as? String ?? "", line: s["Line"] as? Int ?? 0, column: s["Column"] as? Int ?? 0)
            }
        }
    }

    /// `pthread_kill@@GLIBC_2.34` → `pthread_kill`. A debug file's `.symtab` spells versioned
    /// symbols so (glibc's does), and llvm-symbolizer asked about the debug file itself prints
    /// that name; symbolicate drops the version, as llvm-symbolizer does for a binary whose
    /// `.dynsym` keeps versions apart (libc.so.6 with its debug file found by build-id) and as
    /// glibc's `backtrace_symbols` does. DWARF names never hold an `@`.
    private func withoutSymbolVersion(_ name: String) -> String {
        guard let at = name.firstIndex(of: "@"), at != name.startIndex else { return name }
        versionedNames += 1
        return String(name[..<at])
    }

    /// Names are compared as the binary has them (no demangling on either side: the two
    /// demanglers spell names differently; DemanglerTests and RustNameTests check ours against
    /// llvm-cxxfilt-19 and llvm-symbolizer-19).
    /// An unknown name is "??" for us and "" for llvm-symbolizer's JSON.
    private func canonical(_ name: String) -> String {
        name == "??" ? "" : name
    }
}

private extension OracleTests.Frame {
    var isUnknown: Bool { function.isEmpty && file.isEmpty && line == 0 && column == 0 }
}
