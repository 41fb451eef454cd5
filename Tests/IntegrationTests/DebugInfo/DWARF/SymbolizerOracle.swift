@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

/// llvm-symbolizer as the oracle of ``SymbolIndex/lookup(_:demangle:)``: addresses are drawn as
/// return addresses would be (uniformly over each `__text` / `.text` section, plus every
/// symbol's start and a few bytes past it) and turned into call-site addresses as the
/// symbolicator does for callers; both tools are then asked about the same address. Function,
/// file, line, column and the whole inline chain must agree.
struct SymbolizerOracle {
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
        var isUnknown: Bool { function.isEmpty && file.isEmpty && line == 0 && column == 0 }
    }

    /// What a comparison found over its subjects.
    struct Comparison {
        var total = 0, agreed = 0, withInlines = 0
        /// The first disagreements, described.
        var mismatches: [String] = []
        /// Subjects whose DWARF was read only in part, with the reader's problem.
        var partlyRead: [String] = []
    }

    /// The llvm-symbolizer asked (LLVM 21's from the Swift toolchain when present).
    let symbolizer: String

    /// Compares every subject's answers with the oracle's, printing one line per subject
    /// prefixed `label`.
    func compare(_ subjects: [Subject], label: String) throws -> Comparison {
        var result = Comparison()
        for subject in subjects {
            let addresses = try SymbolizerOracle.sample(subject.file, count: subject.sampleSize)
            let index = try SymbolIndex.build(subject.file)
            if let problem = index.problem { result.partlyRead.append("\(subject.label): \(problem)") }
            guard !addresses.isEmpty else {
                print("\(label): \(subject.label): no code to sample")
                continue
            }
            var oracleTool = symbolizer
            if try SymbolizerOracle.usesZstd(subject.file) {
                // LLVM 21 of the Swift toolchain is built without zstd; Debian's LLVM 19 has it.
                guard let zstdSymbolizer = SymbolizerOracle.zstdSymbolizer else {
                    print("\(label): \(subject.label): skipped: zstd-compressed, and no llvm-symbolizer-19 to read it")
                    continue
                }
                oracleTool = zstdSymbolizer
            }
            var versionedNames = 0
            let expected = try SymbolizerOracle.oracle(oracleTool, subject.file, addresses, versionedNames: &versionedNames)
            var fileAgreed = 0
            for (address, want) in zip(addresses, expected) {
                let got = index.lookup(address, demangle: false)
                let gotFrames = got.map {
                    Frame(function: SymbolizerOracle.canonical($0.function), file: $0.file ?? "", line: $0.line, column: $0.column)
                }
                result.total += 1
                if got.count > 1 { result.withInlines += 1 }
                if gotFrames == want || (gotFrames.isEmpty && want.allSatisfy(\.isUnknown)) {
                    result.agreed += 1
                    fileAgreed += 1
                } else if result.mismatches.count < 25 {
                    result.mismatches.append("\(subject.label) 0x\(String(address, radix: 16)):\n    ours:   \(gotFrames)\n    oracle: \(want)")
                }
            }
            print("\(label): \(subject.label): \(fileAgreed)/\(addresses.count) addresses agree"
                  + (oracleTool == symbolizer ? "" : " (oracle: \(oracleTool))")
                  + (versionedNames == 0 ? "" : "; \(versionedNames) of llvm-symbolizer's names compared without their ELF symbol version"))
        }
        let percent = String(format: "%.2f", 100 * Double(result.agreed) / Double(max(result.total, 1)))
        print("\(label): \(result.agreed)/\(result.total) addresses agree with \(symbolizer) (\(percent)%) over "
              + "\(subjects.count) debug files; \(result.withInlines) of them in inlined code")
        return result
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
            return .failure(Unavailable(message: "libc6-dbg is not installed (no \(path) for \(libc)); `make setup-test` installs it"))
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
    static func usesZstd(_ file: DebugFile) throws -> Bool {
        guard file.format == .elf else { return false }
        let mapped = try MappedFile(path: file.path)
        let image = try ELF.parse(mapped.bytes, path: file.path)
        let reader = ByteReader(mapped.bytes, bigEndian: image.bigEndian)
        return image.sections.contains { $0.flags & 0x800 != 0 && reader.u32(Int($0.offset)) == 2 }
    }

    /// Every Mach-O slice and ELF file with DWARF under `root`, labelled by their path below
    /// `root`'s parent.
    static func debugFiles(under root: URL, sampleSize: Int = 700) throws -> [Subject] {
        var result: [Subject] = []
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                  let files = try? DebugFile.identify(path: url.path) else { continue }
            for file in files where file.hasDWARF && !file.isRelocatable {
                let relative = url.path.replacingOccurrences(of: root.deletingLastPathComponent().path + "/", with: "")
                result.append(Subject(file: file, label: "\(relative) [\(file.architecture?.name ?? "?")]", sampleSize: sampleSize))
            }
        }
        return result.sorted { $0.label < $1.label }
    }

    /// Call-site addresses: random return addresses in the code, and symbol starts.
    static func sample(_ file: DebugFile, count: Int) throws -> [UInt64] {
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

    static func oracle(_ symbolizer: String, _ file: DebugFile, _ addresses: [UInt64], versionedNames: inout Int) throws -> [[Frame]] {
        var arguments = ["--obj=\(file.path)", "--inlines", "--functions=linkage", "--no-demangle", "--output-style=JSON"]
        if let arch = file.architecture, file.format == .machO { arguments.append("--default-arch=\(arch.name)") }
        let input = addresses.map { "0x" + String($0, radix: 16) }.joined(separator: "\n") + "\n"
        let result = try runProcess(symbolizer, arguments, input: Data(input.utf8))
        XCTAssertEqual(result.status, 0, result.stderrText)
        let lines = result.stdoutText.split(separator: "\n")
        XCTAssertEqual(lines.count, addresses.count, "llvm-symbolizer answered \(lines.count) of \(addresses.count) addresses")
        var versioned = 0
        let frames: [[Frame]] = try lines.map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            let symbols = object?["Symbol"] as? [[String: Any]] ?? []
            return symbols.map { s in
                Frame(function: canonical(withoutSymbolVersion(s["FunctionName"] as? String ?? "", counted: &versioned)),
                      file: s["FileName"] as? String ?? "", line: s["Line"] as? Int ?? 0, column: s["Column"] as? Int ?? 0)
            }
        }
        versionedNames += versioned
        return frames
    }

    /// `pthread_kill@@GLIBC_2.34` → `pthread_kill`. A debug file's `.symtab` spells versioned
    /// symbols so (glibc's does), and llvm-symbolizer asked about the debug file itself prints
    /// that name; symbolicate drops the version, as llvm-symbolizer does for a binary whose
    /// `.dynsym` keeps versions apart (libc.so.6 with its debug file found by build-id) and as
    /// glibc's `backtrace_symbols` does. DWARF names never hold an `@`.
    private static func withoutSymbolVersion(_ name: String, counted: inout Int) -> String {
        guard let at = name.firstIndex(of: "@"), at != name.startIndex else { return name }
        counted += 1
        return String(name[..<at])
    }

    /// Names are compared as the binary has them (no demangling on either side: the two
    /// demanglers spell names differently; DemanglerTests and RustNameTests check ours against
    /// llvm-cxxfilt-19 and llvm-symbolizer-19).
    /// An unknown name is "??" for us and "" for llvm-symbolizer's JSON.
    static func canonical(_ name: String) -> String {
        name == "??" ? "" : name
    }
}
