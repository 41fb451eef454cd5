import Foundation
import TestSupport
import XCTest

/// The fixture dSYMs as the symbol-server tests lay them out (`SymbolServerTests`,
/// `CompressedSymbolServerTests`).
enum SymbolServerFixtures {
    /// The fixture dSYMs: UUID (lowercase, no dashes), DWARF file, bundle.
    static func dSYMs() throws -> [(uuid: String, dwarf: String, bundle: String)] {
        let manifest = try String(contentsOfFile: try Fixtures.path("manifest.txt"), encoding: .utf8)
        return try manifest.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count >= 2, fields[0].hasPrefix("macho/"), let range = fields[0].range(of: ".dSYM/") else { return nil }
            let uuid = fields[1].replacingOccurrences(of: "-", with: "").lowercased()
            return (uuid, try Fixtures.path(fields[0]), try Fixtures.path(String(fields[0][..<range.lowerBound]) + ".dSYM"))
        }
    }

    /// Whether a fixture report names the UUID.
    static func reportsName(_ uuid: String) -> Bool {
        ((try? Fixtures.reports()) ?? []).contains { path in
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").lowercased()
                .replacingOccurrences(of: "-", with: "").contains(uuid)
        }
    }

    /// The unified layout's place of `uuid` below a server's folder.
    static func unifiedPath(_ uuid: String) -> String {
        "\(uuid.prefix(2))/\(uuid.dropFirst(2))/debuginfo"
    }

    /// The regular files under `folder` (hidden ones too), relative to it, sorted; [] when it
    /// does not exist.
    static func filesUnder(_ folder: String) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        var files: [String] = []
        while let relative = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + relative, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(relative)
            }
        }
        return files.sorted()
    }
}
