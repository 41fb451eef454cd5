import DebugInfo
import Foundation
import TestSupport
import XCTest

/// Layouts of debug files made in a scratch folder from the built fixtures: archives, UUID-named
/// bundles, build-id folders, clones of a dSYM with UUIDs of their own.
enum LocatorFixtures {
    static func root() throws -> URL {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        return fixtures
    }

    static func url(_ relative: String) throws -> URL {
        try root().appendingPathComponent(relative)
    }

    /// A fresh scratch folder, removed by the caller.
    static func scratch(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func copy(_ source: URL, to target: URL) throws {
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: source, to: target)
    }

    /// Copies the dSYM bundle `source` to `target` with `uuid` (32 hex digits) in place of the
    /// LC_UUID of its (thin) DWARF file.
    static func cloneBundle(_ source: URL, to target: URL, uuid: String) throws {
        let fm = FileManager.default
        let dwarf = source.appendingPathComponent("Contents/Resources/DWARF")
        let name = try XCTUnwrap(fm.contentsOfDirectory(atPath: dwarf.path).first)
        let original = try XCTUnwrap(DebugFile.identify(path: dwarf.appendingPathComponent(name).path).first?.identifier)
        var bytes = try [UInt8](Data(contentsOf: dwarf.appendingPathComponent(name)))
        let old = raw(hex: original), new = raw(hex: uuid)
        let at = try XCTUnwrap(firstIndex(of: old, in: bytes), "no LC_UUID bytes in \(name)")
        bytes.replaceSubrange(at..<(at + 16), with: new)
        let targetDWARF = target.appendingPathComponent("Contents/Resources/DWARF")
        try fm.createDirectory(at: targetDWARF, withIntermediateDirectories: true)
        try Data(bytes).write(to: targetDWARF.appendingPathComponent(name))
        let plist = source.appendingPathComponent("Contents/Info.plist")
        if fm.fileExists(atPath: plist.path) {
            try fm.copyItem(at: plist, to: target.appendingPathComponent("Contents/Info.plist"))
        }
    }

    /// Overwrites the LC_UUID of a thin Mach-O in place (same size).
    static func patchUUID(of file: URL, to uuid: String) throws {
        let original = try XCTUnwrap(DebugFile.identify(path: file.path).first?.identifier)
        var bytes = try [UInt8](Data(contentsOf: file))
        let at = try XCTUnwrap(firstIndex(of: raw(hex: original), in: bytes))
        bytes.replaceSubrange(at..<(at + 16), with: raw(hex: uuid))
        try Data(bytes).write(to: file)
    }

    /// A UUID made from a number: distinct for distinct numbers.
    static func uuid(_ n: Int) -> String {
        "5ab1" + String(format: "%028x", n)
    }

    static func raw(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// The build-id the fixtures' manifest gives for `relative`.
    static func identifier(of relative: String) throws -> String {
        let manifest = try String(contentsOf: url("manifest.txt"), encoding: .utf8)
        let line = try XCTUnwrap(manifest.split(separator: "\n").first { $0.hasPrefix(relative + "\t") }, relative)
        return line.split(separator: "\t")[1].replacingOccurrences(of: "-", with: "").lowercased()
    }
}
