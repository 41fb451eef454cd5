import CrashReport
import Platform

/// The debug files a run lacked: one entry per image identity with frames left without file and
/// line and no usable debug file, what `--missing FILE` writes as CSV for a crash server's list
/// of symbols to fetch (the columns of Mozilla Tecken's `missingsymbols.csv` first):
///
///     debug_file,debug_id,code_file,code_id,arch,frames,reports,reason
///     App,4C4C44C3-5555-3144-A19B-AF60D4F21F14,/private/var/containers/.../App.app/App,,arm64,12,3,no_file
///     libfoo.so,0a1b2c...,/data/app/.../base.apk!libfoo.so,0a1b2c...,arm64,4,1,other_uuid
///
/// - `debug_file`: the image's name; `debug_id`: its UUID (as Apple spells it) or GNU build-id;
///   `code_file`: its path in the first report that needs it; `code_id`: the build-id of an ELF
///   image (Mach-O has none besides its UUID); `arch`: its architecture.
/// - `frames`: its frames without file and line that the report does not already name (a
///   frame the reporter symbolicated needs no debug file); `reports`: how many reports have such
///   frames; `reason`: why no debug file served (``UnresolvedImage/reason``: `no_file`,
///   `other_uuid`, `symbol_table_only`, ...).
///
/// Images the lookup expects no debug file for (system images, unless dyld shared caches were
/// given) are not listed, as in the run's summary. Rows are ordered by frames, then reports,
/// most first. Memory grows with the number of distinct images, not of reports.
public struct MissingDebugFiles: Sendable {
    /// An image identity and architecture; for an image without one, its name.
    struct Key: Hashable, Sendable {
        var debugID: String
        var arch: String
        /// Empty when `debugID` is not: the name may change between reports (a bundle id in
        /// older macOS reports), the identity does not.
        var name: String
    }

    struct Entry: Sendable {
        var debugFile: String
        var codeFile: String
        var codeID: String
        var reason: String
        var frames = 0
        var reports = 0
    }

    private(set) var entries: [Key: Entry] = [:]

    /// None yet.
    public init() {}

    /// The images `symbolicated` lacked debug files for, with its frames counted.
    init(_ symbolicated: SymbolicatedReport) {
        let report = symbolicated.report
        guard !symbolicated.unresolvedImages.isEmpty else { return }
        var frames = [Int](repeating: 0, count: report.images.count)
        for (t, thread) in report.threads.enumerated() {
            for (f, frame) in thread.frames.enumerated() where !frame.inlined && !Self.isNamedByReport(frame) {
                guard let i = frame.image, frames.indices.contains(i), symbolicated.unresolvedImages[i] != nil,
                      (symbolicated.frames[FrameKey(thread: t, frame: f)] ?? []).allSatisfy({ ($0.line ?? 0) == 0 })
                else { continue }
                frames[i] += 1
            }
        }
        for (i, count) in frames.enumerated() where count > 0 {
            guard let why = symbolicated.unresolvedImages[i] else { continue }
            let image = report.images[i]
            let identity = image.identity
            let key = Key(debugID: identity?.spelled ?? "",
                          arch: Symbolicator.architecture(of: image, in: report, debugFile: nil)?.name ?? "",
                          name: identity == nil ? image.name : "")
            var entry = entries[key] ?? Entry(debugFile: image.name, codeFile: image.path ?? "",
                                             codeID: identity?.kind == .buildID ? identity!.hex : "", reason: why.reason)
            entry.frames += count
            entry.reports = 1
            entries[key] = entry
        }
    }

    /// Whether the report names the frame already (its reporter symbolicated it): a name in
    /// its form, or one its line logs.
    static func isNamedByReport(_ frame: Frame) -> Bool {
        switch frame.form {
        case .symbol(let name, _), .symbolicated(let name, _, _, _):
            return !name.isEmpty && name != "<redacted>" && name != "???"
        default:
            return frame.loggedName.map { !$0.isEmpty && $0 != "??" } ?? false
        }
    }

    /// Adds the entries of another report (or run): frames and reports add up; the first
    /// report's name, path, code id and reason stay.
    mutating func add(_ other: MissingDebugFiles) {
        for (key, entry) in other.entries {
            if var mine = entries[key] {
                mine.frames += entry.frames
                mine.reports += entry.reports
                entries[key] = mine
            } else {
                entries[key] = entry
            }
        }
    }

    /// Adds the entries of another piece of the same report (``IPSPieces``): frames add up,
    /// the report is counted once.
    mutating func add(pieceOfTheSameReport other: MissingDebugFiles) {
        for (key, entry) in other.entries {
            if var mine = entries[key] {
                mine.frames += entry.frames
                entries[key] = mine
            } else {
                entries[key] = entry
            }
        }
    }

    /// The CSV text: a header line, then one line per image, most frames first.
    public func csv() -> [UInt8] {
        var out = Array("debug_file,debug_id,code_file,code_id,arch,frames,reports,reason\n".utf8)
        let rows = entries.sorted { a, b in
            (a.value.frames, a.value.reports) != (b.value.frames, b.value.reports)
                ? (a.value.frames, a.value.reports) > (b.value.frames, b.value.reports)
                : (a.value.debugFile, a.key.debugID, a.key.arch) < (b.value.debugFile, b.key.debugID, b.key.arch)
        }
        for (key, entry) in rows {
            let fields = [entry.debugFile, key.debugID, entry.codeFile, entry.codeID, key.arch,
                          String(entry.frames), String(entry.reports), entry.reason]
            out += Array(fields.map(Self.field).joined(separator: ",").utf8)
            out.append(0x0A)
        }
        return out
    }

    /// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, its
    /// quotes doubled; control characters written visibly (``OutputEscaping``), so that each
    /// row stays one line.
    static func field(_ value: String) -> String {
        let visible = OutputEscaping.escaped(value)
        guard visible.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return visible }
        var quoted = "\""
        for character in visible {
            quoted.append(character)
            if character == "\"" { quoted.append("\"") }
        }
        return quoted + "\""
    }
}
