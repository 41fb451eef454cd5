import Platform

/// What `--update` keeps next to the outputs of `-o DIR`, in `DIR/.symbolicate-update`: for
/// each output file, its size and modification time when it was written, and the report's
/// images that were left without a debug file (or with one that gave no lines) — enough to
/// tell, in a later run, which outputs a full run would write otherwise.
///
///     symbolicate-update 1
///     signature	0.1.0 (commit 8002197abc12) text
///     output	crashes/a.crash	18211	1732700000123456789
///     image	4c4c44c355553144a19baf60d4f21f14	arm64	m	/private/var/.../App	App
///     image	0a1b2c...	x86_64	e	/srv/bin/server	server	/srv/debug/server.debug
///
/// An `image` line belongs to the `output` line above it: identifier, architecture, object
/// format (`m` Mach-O, `e` ELF), path, name, and the debug file used (none: empty). Fields are
/// separated by tabs; a tab, line break or backslash in a field is written `\t`, `\n`, `\r`,
/// `\\`. The record is written whole, atomically, at the end of a run: a run killed midway
/// leaves the previous record, whose entries then no longer match the outputs it rewrote
/// (their size or time), so those are done again, never trusted. A record that cannot be read,
/// or one written for other options (``signature``), is as none: every output is done again.
struct UpdateRecord {
    static let fileName = ".symbolicate-update"
    static let firstLine = "symbolicate-update 1"

    /// An image a report had frames in that no debug file resolved with lines.
    struct PendingImage: Hashable, Sendable {
        var identifier: String
        var arch: String
        var isELF: Bool
        var path: String
        var name: String
        /// The debug file the run used for it, which gave no lines; empty for none.
        var usedFile: String
    }

    /// One output file as it was written.
    struct Entry: Sendable {
        var size: Int64
        var modified: Int64
        var pending: [PendingImage]
    }

    /// What the outputs were written with: the program's version and the options that change
    /// what is written.
    var signature: String
    /// By output path relative to the folder.
    var entries: [String: Entry] = [:]

    /// The record in `folder`, or an empty one with the reason it is (nil: there was none).
    static func load(folder: String, signature: String) -> (UpdateRecord, problem: String?) {
        let empty = UpdateRecord(signature: signature)
        let path = Path.join(folder, fileName)
        guard System.status(path) != nil else { return (empty, nil) }
        guard let bytes = try? System.readFile(path, limit: 1 << 30) else {
            return (empty, "\(path): cannot be read: every report is done again")
        }
        guard let record = parse(bytes, signature: signature) else {
            return (empty, "\(path): not a record this run can use (other options or a damaged file): every report is done again")
        }
        return (record, nil)
    }

    /// The record of `bytes`; nil when it is damaged or of another signature.
    static func parse(_ bytes: [UInt8], signature: String) -> UpdateRecord? {
        // Split on the byte: no field holds a raw line break, and "\r\n" is no one character here.
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { Substring(decoding: $0, as: UTF8.self) }
        guard lines.first == Substring(firstLine), lines.last == "" else { return nil }
        lines.removeLast()
        var record = UpdateRecord(signature: signature)
        var current: String?
        for line in lines.dropFirst() {
            let fields = line.unicodeScalars.split(separator: "\t", omittingEmptySubsequences: false)
                .map { unescaped(Substring(String(String.UnicodeScalarView($0)))) }
            switch (fields.first, fields.count) {
            case ("signature", 2):
                guard fields[1] == signature else { return nil }
            case ("output", 4):
                guard let size = Int64(fields[2]), let modified = Int64(fields[3]) else { return nil }
                record.entries[fields[1]] = Entry(size: size, modified: modified, pending: [])
                current = fields[1]
            case ("image", 7):
                guard let current, fields[3] == "m" || fields[3] == "e" else { return nil }
                record.entries[current]!.pending.append(PendingImage(identifier: fields[1], arch: fields[2], isELF: fields[3] == "e",
                                                                     path: fields[4], name: fields[5], usedFile: fields[6]))
            default:
                return nil
            }
        }
        return record
    }

    /// The record as its file holds it.
    func serialized() -> [UInt8] {
        var text = Self.firstLine + "\n" + "signature\t" + Self.escaped(signature) + "\n"
        for (path, entry) in entries.sorted(by: { $0.key < $1.key }) {
            text += "output\t\(Self.escaped(path))\t\(entry.size)\t\(entry.modified)\n"
            for image in entry.pending {
                text += ["image", image.identifier, image.arch, image.isELF ? "e" : "m", image.path, image.name, image.usedFile]
                    .map(Self.escaped).joined(separator: "\t") + "\n"
            }
        }
        return Array(text.utf8)
    }

    static func escaped(_ field: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in field.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\".unicodeScalars
            case "\t": out += "\\t".unicodeScalars
            case "\n": out += "\\n".unicodeScalars
            case "\r": out += "\\r".unicodeScalars
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    static func unescaped(_ field: Substring) -> String {
        var out = String.UnicodeScalarView()
        var escape = false
        for scalar in field.unicodeScalars {
            if escape {
                switch scalar {
                case "t": out.append("\t")
                case "n": out.append("\n")
                case "r": out.append("\r")
                default: out.append(scalar)
                }
                escape = false
            } else if scalar == "\\" {
                escape = true
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}
