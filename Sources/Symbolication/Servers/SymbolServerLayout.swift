/// Where a symbol server keeps the debug file of an identifier (a Mach-O UUID or an ELF
/// build-id, as lowercase hexadecimal without dashes), in the layouts teams already use.
///
/// - `unified`, Sentry symbolicator's "Unified Symbol Server Layout" (what its `symsorter`
///   writes): `ab/cdef…/debuginfo`, lowercase, for Mach-O and ELF alike. The default.
/// - `lldb`, LLDB's "File Mapped UUID Directories": the uppercase UUID split 4/4/4/4/4/12,
///   `6B0A/6A3F/1BDE/3C4A/9E2D/5F0A1B2C3D4E`. The entry is the dSYM's DWARF file, or (as
///   LLDB reads it) a symbolic link to the `.dSYM` bundle, or a property list whose
///   `DBGDSYMPath` names the bundle on this machine. Only 32-digit identifiers (UUIDs).
/// - `gdb`, GDB's build-id directories: `.build-id/ab/cdef….debug` below the URL, which names
///   the debug-file directory (`/usr/lib/debug`); a URL that ends in `.build-id` names that
///   folder itself (as symbolicator's `native` layout does): `ab/cdef….debug` below it.
public enum SymbolServerLayout: String, CaseIterable, Sendable {
    case unified
    case lldb
    case gdb

    /// The paths, relative to the server's URL, where the debug file of `identifier` may be;
    /// empty when the layout has no place for it. `url` is the server's URL (for `gdb`).
    public func relativePaths(of identifier: String, url: String) -> [String] {
        let hex = identifier.lowercased()
        guard hex.count > 2, hex.utf8.allSatisfy(Self.isHexDigit) else { return [] }
        switch self {
        case .unified:
            return [String(hex.prefix(2) + "/" + hex.dropFirst(2) + "/debuginfo")]
        case .gdb:
            let name = String(hex.prefix(2) + "/" + hex.dropFirst(2) + ".debug")
            var base = Substring(url)
            while base.hasSuffix("/") { base = base.dropLast() }
            return [base.hasSuffix("/.build-id") ? name : ".build-id/" + name]
        case .lldb:
            guard hex.count == 32 else { return [] }
            let upper = Array(hex.uppercased())
            return [[0..<4, 4..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(upper[$0]) }.joined(separator: "/")]
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)
    }
}

/// The property lists of LLDB's File Mapped UUID Directories: an XML plist whose
/// `DBGDSYMPath` key names the `.dSYM` bundle (or its DWARF file) on this machine.
enum DSYMPropertyList {
    /// Whether `head`, a file's first bytes, starts like a property list (XML or binary).
    static func isPropertyList(_ head: [UInt8]) -> Bool {
        var bytes = head[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        while let first = bytes.first, first == 0x20 || first == 0x0A || first == 0x0D || first == 0x09 {
            bytes = bytes.dropFirst()
        }
        return bytes.starts(with: Array("<?xml".utf8)) || bytes.starts(with: Array("<plist".utf8))
            || bytes.starts(with: Array("<!DOCTYPE plist".utf8)) || bytes.starts(with: Array("bplist".utf8))
    }

    /// The `DBGDSYMPath` of an XML property list, entities decoded; nil when there is none
    /// (or the list is binary).
    static func dsymPath(_ bytes: [UInt8]) -> String? {
        guard let key = find(Array("<key>DBGDSYMPath</key>".utf8), in: bytes, from: 0) else { return nil }
        var start = key + 22
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        let open = Array("<string>".utf8)
        guard bytes[start...].starts(with: open), let end = find(Array("</string>".utf8), in: bytes, from: start + open.count)
        else { return nil }
        let decoded = String(decoding: bytes[(start + open.count)..<end], as: UTF8.self)[...].replacingEntities()
        return decoded.isEmpty ? nil : decoded
    }

    /// Where `needle` first starts in `bytes` at or after `from`.
    private static func find(_ needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count, from <= bytes.count - needle.count else { return nil }
        for i in from...(bytes.count - needle.count) where bytes[i] == needle[0] {
            if bytes[i..<(i + needle.count)].elementsEqual(needle) { return i }
        }
        return nil
    }
}

private extension Substring {
    /// XML's five predefined entities and numeric character references decoded.
    func replacingEntities() -> String {
        var result = ""
        var rest = self
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            rest = rest[amp...]
            guard let semicolon = rest.prefix(12).firstIndex(of: ";") else {
                result += "&"
                rest = rest.dropFirst()
                continue
            }
            let name = rest[rest.index(after: rest.startIndex)..<semicolon]
            let named: [Substring: String] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]
            if let text = named[name] {
                result += text
            } else if name.hasPrefix("#x"), let code = UInt32(name.dropFirst(2), radix: 16), let scalar = Unicode.Scalar(code) {
                result.unicodeScalars.append(scalar)
            } else if name.hasPrefix("#"), let code = UInt32(name.dropFirst()), let scalar = Unicode.Scalar(code) {
                result.unicodeScalars.append(scalar)
            } else {
                result += rest[...semicolon]
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }
}
