import DebugInfo
import Foundation
@testable import Symbolication
import TestSupport
import XCTest

/// `DebugFile.symbols(holding:)` gives every name the symbol table has for an address —
/// aliases, weak aliases, versioned names — which a log may use and the lookup index keeps only
/// one of. Checked against `readelf -sW` on a library built here with all three, and on this
/// machine's libc debug file (`raise`, `gsignal`, `__GI_raise`).
final class SymbolAliasesTests: XCTestCase {
    private static let library = """
        int impl(int x) { return x * 3 + 1; }
        int alias_one(int) __attribute__((alias("impl")));
        int alias_weak(int) __attribute__((weak, alias("impl")));
        int versioned_impl(int x) { return impl(x) - 2; }
        __asm__(".symver versioned_impl, versioned@@VERS_2");
        int other(int x) { return versioned_impl(x) * 5; }
        int table[64] = {1};
        """

    func testEverySymbolHoldingAnAddressIsGivenAliasesAndVersionsIncluded() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("symbol-aliases-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let library = try buildLibrary(in: scratch)
        try assertSymbolsAgreeWithReadelf(library, names: ["impl", "versioned_impl", "other", "table"])
        XCTAssertEqual(Set(try holders(library, at: try start(of: "impl", in: library))), ["impl", "alias_one", "alias_weak"])
        XCTAssertEqual(Set(try holders(library, at: try start(of: "versioned_impl", in: library))),
                       ["versioned_impl", "versioned"])

        let libc = "/lib/x86_64-linux-gnu/libc.so.6"
        let debug = "/usr/lib/debug/.build-id/"
        guard FileManager.default.fileExists(atPath: libc), FileManager.default.fileExists(atPath: debug) else { return }
        let id = try XCTUnwrap(try DebugFile.identify(path: libc).first?.identifier)
        let debugFile = debug + id.prefix(2) + "/" + id.dropFirst(2) + ".debug"
        guard FileManager.default.fileExists(atPath: debugFile) else { return }
        try assertSymbolsAgreeWithReadelf(debugFile, names: ["raise", "abort", "__libc_start_main_impl"])
        XCTAssertTrue(Set(try holders(debugFile, at: try start(of: "raise", in: debugFile)))
            .isSuperset(of: ["raise", "gsignal", "__GI_raise"]))
    }

    /// A run reads a file's symbols once, however many reports ask: the memo the checks of
    /// reports share gives the symbols read the first time, the file gone since.
    func testAFilesSymbolsAreReadOncePerRun() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("symbol-aliases-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let library = try buildLibrary(in: scratch)
        let file = try XCTUnwrap(try DebugFile.identify(path: library).first)
        let impl = try start(of: "impl", in: library)
        let expected = try file.symbols(holding: [impl])
        XCTAssertEqual(Set(expected[0].map(\.name)), ["impl", "alias_one", "alias_weak"])

        let memo = ReportEvidence.Memo()
        let first = try XCTUnwrap(memo.aliases(of: file))
        try FileManager.default.removeItem(atPath: library)
        let second = try XCTUnwrap(memo.aliases(of: file), "asked again, the file gone")
        XCTAssertTrue(first === second)
        XCTAssertEqual(second.symbols(holding: [impl])[0].map(\.name), expected[0].map(\.name))
        XCTAssertNil(ReportEvidence.Memo().aliases(of: file), "a run that had not read it reads it")
    }

    /// `library` built with gcc into `scratch` (made here) as `libaliases.so`, its versioned
    /// name given by a version script.
    private func buildLibrary(in scratch: URL) throws -> String {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let source = scratch.appendingPathComponent("lib.c")
        try Self.library.write(to: source, atomically: true, encoding: .utf8)
        let script = scratch.appendingPathComponent("lib.map")
        try "VERS_2 { global: *; };\n".write(to: script, atomically: true, encoding: .utf8)
        let library = scratch.appendingPathComponent("libaliases.so").path
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gcc") else { throw XCTSkip("gcc is not installed") }
        let build = try runProcess("/usr/bin/gcc", ["-O1", "-shared", "-fPIC", "-Wl,--version-script=\(script.path)",
                                                     "-o", library, source.path])
        XCTAssertEqual(build.status, 0, build.stderrText)
        return library
    }

    /// The symbols of `object`'s symbol table (`.symtab`, else `.dynsym`) as readelf lists them:
    /// functions, objects and untyped symbols defined in a section, versions dropped.
    private func readelfSymbols(_ object: String) throws -> [(name: String, start: UInt64, size: UInt64)] {
        let result = try runProcess("/usr/bin/readelf", ["-sW", object])
        XCTAssertEqual(result.status, 0, result.stderrText)
        var tables: [String: [(String, UInt64, UInt64)]] = [:]
        var table = ""
        for line in result.stdoutText.split(separator: "\n") {
            if line.hasPrefix("Symbol table '") {
                table = String(line.split(separator: "'")[1])
                continue
            }
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 8, fields[0].hasSuffix(":"), ["FUNC", "OBJECT", "NOTYPE", "IFUNC"].contains(fields[3]),
                  !["UND", "ABS", "COM"].contains(fields[6]), let value = UInt64(fields[1], radix: 16)
            else { continue }
            let size = fields[2].hasPrefix("0x") ? UInt64(fields[2].dropFirst(2), radix: 16) : UInt64(fields[2])
            let name = fields[7].split(separator: "@", maxSplits: 1).first.map(String.init) ?? ""
            tables[table, default: []].append((name, value, size ?? 0))
        }
        return tables[".symtab"] ?? tables[".dynsym"] ?? []
    }

    private func start(of name: String, in object: String) throws -> UInt64 {
        try XCTUnwrap(try readelfSymbols(object).first { $0.name == name }?.start, "\(name) in \(object)")
    }

    private func holders(_ object: String, at address: UInt64) throws -> [String] {
        let file = try XCTUnwrap(try DebugFile.identify(path: object).first)
        return try file.symbols(holding: [address]).first?.map(\.name) ?? []
    }

    /// At the start, the middle and the last byte of each of `names`, and just past it, the
    /// symbols given are those readelf's sizes say hold the address.
    private func assertSymbolsAgreeWithReadelf(_ object: String, names: [String]) throws {
        let symbols = try readelfSymbols(object)
        let file = try XCTUnwrap(try DebugFile.identify(path: object).first)
        var addresses: [UInt64] = []
        for name in names {
            let symbol = try XCTUnwrap(symbols.first { $0.name == name }, "\(name) in \(object)")
            addresses += [symbol.start, symbol.start + symbol.size / 2, symbol.start + max(symbol.size, 1) - 1,
                          symbol.start + max(symbol.size, 1)]
        }
        let given = try file.symbols(holding: addresses)
        XCTAssertEqual(given.count, addresses.count)
        for (address, found) in zip(addresses, given) {
            let expected = symbols.filter { $0.size == 0 ? address == $0.start : $0.start <= address && address < $0.start + $0.size }
            XCTAssertEqual(Set(found.map { "\($0.name)@\(hex($0.start))" }), Set(expected.map { "\($0.name)@\(hex($0.start))" }),
                           "\(object) at \(hex(address))")
        }
    }

    private func hex(_ value: UInt64) -> String { "0x" + String(value, radix: 16) }
}
