import CrashReport
import DebugInfo
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// `symbolicate check PATH...`: every object file found under the paths, as `-d` finds them
/// (files, `.dSYM` bundles, folders searched recursively), described slice by slice — format,
/// kind, architecture, UUID or build-id, DWARF versions, line tables, symbol table, compressed
/// sections, size — with whether the tool can use it, and if not why (``Verdict``).
///
/// One line per object or slice, tab-separated, the path first and the verdict last:
///
///     dSYMs/App.dSYM/Contents/Resources/DWARF/App	format=Mach-O	type=dSYM	arch=arm64	id=4C4C44C3-…
///         dwarf=4	units=3	lines=3	symbols=45	compressed=none	size=34567	usable
///
/// or one JSON document (``renderJSON(_:into:)``).
public enum DebugFileCheck {
    /// Whether the tool can symbolicate with an object.
    public enum Verdict: Sendable, Equatable {
        /// DWARF with line tables, and a UUID or build-id to match it by.
        case usable
        /// Usable in part: function names without lines, some units unreadable, no build-id.
        case partial(String)
        /// Of no use, and why.
        case unusable(String)

        /// `usable`, `partly usable: WHY`, `not usable: WHY`.
        public var text: String {
            switch self {
            case .usable: return "usable"
            case .partial(let why): return "partly usable: \(why)"
            case .unusable(let why): return "not usable: \(why)"
            }
        }

        /// The word for programs: `usable`, `partial`, `unusable`.
        public var word: String {
            switch self {
            case .usable: return "usable"
            case .partial: return "partial"
            case .unusable: return "unusable"
            }
        }

        var reason: String? {
            switch self {
            case .usable: return nil
            case .partial(let why), .unusable(let why): return why
            }
        }
    }

    /// One object file, or one slice of a universal file.
    public struct Entry: Sendable {
        /// The file.
        public var path: String
        /// Its identity; nil when it could not be read as an object file.
        public var file: DebugFile?
        /// The file's size in bytes.
        public var fileSize: Int
        /// What its headers say; nil when it could not be read.
        public var survey: ObjectSurvey?
        /// Whether it can be used, and why not.
        public var verdict: Verdict
        /// Whether the file holds several slices.
        public var universal = false
        /// Fields said in place of an object file's (a dyld shared cache: ``DyldCacheCheck``).
        public var fields: [(String, String)]?
    }

    /// The entries for `paths`, in the order of the paths (a folder's files in path order),
    /// surveyed on `jobs` threads; `unusablePaths` are those named that gave nothing to check
    /// (missing, a FIFO, a folder without object files), each said through `diagnostics`.
    public static func check(paths: [String], jobs: Int = 0, diagnostics: Diagnostics)
        -> (entries: [Entry], unusablePaths: [String]) {
        var files: [(path: String, named: Bool)] = []
        var unusable: [String] = []
        for path in paths {
            guard let info = System.status(path) else {
                diagnostics.warn("\(path): \(SystemError.reason(errno))")
                unusable.append(path)
                continue
            }
            let absolute = path.hasPrefix("/") ? path : Path.join(System.currentDirectory, path)
            if System.isSystemPseudoFile(absolute, info) {
                diagnostics.warn("\(path): a file of the kernel's /proc, /sys or /dev, not a debug file: passed over")
                unusable.append(path)
            } else if info.st_mode & S_IFMT == S_IFDIR {
                let folder = DebugFileLocator.isBundle(path) ? DebugFileLocator.bundleDWARFFolder(path) : path
                let found = DebugFileLocator.walk(folder).map(\.path).filter(DebugFile.looksLikeObjectFile)
                if found.isEmpty {
                    diagnostics.warn("\(path): no Mach-O or ELF file in this folder")
                    unusable.append(path)
                }
                files += found.map { ($0, false) }
            } else if System.isRegular(info) {
                files.append((path, true))
            } else {
                diagnostics.warn("\(path): \(System.kind(of: info)), not a debug file: passed over")
                unusable.append(path)
            }
        }
        var found: [Entry] = []
        let work = OrderedWork(count: files.count, workers: jobs > 0 ? jobs : System.processorCount) { i in
            entries(of: files[i].path)
        }
        work.forEachInOrder { _, entries in
            found += entries
            return true
        }
        return (found, unusable)
    }

    /// The entries of the file at `path`: one per slice, or one saying why it cannot be read.
    public static func entries(of path: String) -> [Entry] {
        let size = System.status(path).map { Int($0.st_size) } ?? 0
        if let cache = DyldCacheCheck.entry(path: path, size: size) { return [cache] }
        let slices: [DebugFile]
        do {
            slices = try DebugFile.identify(path: path)
        } catch {
            let reason = (error as? DebugInfoError)?.reason ?? "\(error)"
            return [Entry(path: path, file: nil, fileSize: size, survey: nil, verdict: .unusable(reason))]
        }
        return slices.map { file in
            do {
                let survey = try ObjectSurvey.survey(file)
                return Entry(path: path, file: file, fileSize: size, survey: survey, verdict: verdict(file, survey),
                             universal: slices.count > 1)
            } catch {
                let reason = (error as? DebugInfoError)?.reason ?? "\(error)"
                return Entry(path: path, file: file, fileSize: size, survey: nil, verdict: .unusable(reason),
                             universal: slices.count > 1)
            }
        }
    }

    /// Whether the tool can use `file`, as `survey` describes it.
    public static func verdict(_ file: DebugFile, _ survey: ObjectSurvey) -> Verdict {
        if file.isRelocatable { return .unusable("a relocatable object (.o), not the debug file of any image") }
        if let unknown = survey.compression.first(where: { $0.hasPrefix("unknown") }) {
            return .unusable("debug sections compressed with an \(unknown) method")
        }
        let noIdentifier = file.format == .machO ? "no LC_UUID: no report can name it"
            : "no build-id: found only through a log's module path or a .gnu_debuglink CRC-32"
        if file.hasDWARF {
            if survey.dwarfUnreadable { return .unusable("its DWARF cannot be read: \(survey.problems.first ?? "no unit found")") }
            if file.identifier == nil {
                return file.format == .machO ? .unusable(noIdentifier) : .partial(noIdentifier)
            }
            if let problem = survey.problems.first { return .partial("part of the DWARF cannot be read: \(problem)") }
            if let version = survey.dwarfVersions.first(where: { !(2...5).contains($0) }) {
                return .partial("its DWARF \(version) units are not read")
            }
            if survey.lineTables == 0 { return .partial("no line tables: function names without file and line") }
            return .usable
        }
        if let problem = survey.problems.first { return .unusable("damaged: \(problem)") }
        if file.format == .machO && file.identifier == nil { return .unusable(noIdentifier) }
        let elsewhere = file.debugLink.map { "; its .gnu_debuglink names \($0.name)" }
            ?? (file.format == .machO ? "; its DWARF is in a dSYM of the same UUID" : "")
        if survey.functionSymbols > 0 {
            return .partial("a symbol table without DWARF: function names without file and line" + elsewhere)
        }
        return .unusable("neither DWARF nor a symbol table (stripped)" + elsewhere)
    }

    // MARK: - Text

    /// The line of one entry, without its newline.
    public static func text(_ entry: Entry) -> String {
        var fields = [OutputEscaping.escaped(entry.path)]
        if let described = entry.fields {
            fields += described.map { "\($0)=\($1)" }
        } else if let file = entry.file {
            fields.append("format=\(file.format.rawValue)")
            fields.append("type=\((entry.survey?.kind ?? "?").replacingSpaces())")
            fields.append("arch=\(file.architecture?.name ?? "unknown")")
            fields.append("id=\(file.identity?.spelled ?? "none")")
            if entry.universal { fields.append("slice=0x\(String(file.sliceOffset, radix: 16))") }
            if let survey = entry.survey {
                fields.append("dwarf=\(survey.dwarfVersions.isEmpty ? "none" : survey.dwarfVersions.map(String.init).joined(separator: ","))")
                fields.append("units=\(survey.units)")
                fields.append("lines=\(survey.lineTables)")
                fields.append("symbols=\(survey.symbols)")
                fields.append("compressed=\(survey.compression.isEmpty ? "none" : survey.compression.joined(separator: ",").replacingSpaces())")
            }
            fields.append("size=\(file.sliceSize)")
        } else {
            fields.append("size=\(entry.fileSize)")
        }
        fields.append(entry.verdict.text)
        return fields.joined(separator: "\t")
    }

    // MARK: - JSON

    /// One JSON document: `{"objects":[{…}, …]}`, each object with `path`, `format`, `type`,
    /// `arch`, `id`, `slice_offset`, `size`, `file_size`, `dwarf_versions`, `units`,
    /// `line_tables`, `line_table_versions`, `symbols`, `function_symbols`, `compressed`,
    /// `debug_link`, `problems`, `usable` (`usable`, `partial`, `unusable`) and `reason`;
    /// null (or empty) where unknown.
    public static func renderJSON(_ entries: [Entry], into out: inout [UInt8]) {
        out += Array("{\"objects\":[".utf8)
        for (n, entry) in entries.enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            let file = entry.file, survey = entry.survey
            var members: [(String, JSONValue)] = [("path", .string(FileName.replacingRawBytes(entry.path)))]
            members.append(("format", .string(file?.format.rawValue)))
            members.append(("type", .string(survey?.kind)))
            members.append(("arch", .string(file?.architecture?.name)))
            members.append(("id", .string(file?.identifier)))
            members.append(("slice_offset", .number(file?.sliceOffset)))
            members.append(("size", .number(file?.sliceSize ?? entry.fileSize)))
            members.append(("file_size", .number(entry.fileSize)))
            members.append(("dwarf_versions", .numbers(survey?.dwarfVersions ?? [])))
            members.append(("units", .number(survey?.units)))
            members.append(("line_tables", .number(survey?.lineTables)))
            members.append(("line_table_versions", .numbers(survey?.lineTableVersions ?? [])))
            members.append(("symbols", .number(survey?.symbols)))
            members.append(("function_symbols", .number(survey?.functionSymbols)))
            members.append(("compressed", .strings(survey?.compression ?? [])))
            members.append(("debug_link", .string(file?.debugLink?.name)))
            members.append(("problems", .strings(survey?.problems ?? [])))
            members.append(("usable", .string(entry.verdict.word)))
            members.append(("reason", .string(entry.verdict.reason.map(FileName.replacingRawBytes))))
            for (key, value) in entry.fields ?? [] where key != "size" {
                if let i = members.firstIndex(where: { $0.0 == key }) { members[i].1 = .string(value) } else { members.append((key, .string(value))) }
            }
            out.append(UInt8(ascii: "{"))
            for (m, (key, value)) in members.enumerated() {
                if m > 0 { out.append(UInt8(ascii: ",")) }
                JSONRenderer.appendString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.append(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out += Array("]}\n".utf8)
    }

    private enum JSONValue {
        case string(String?)
        case number(Int?)
        case numbers([Int])
        case strings([String])

        func append(to out: inout [UInt8]) {
            switch self {
            case .string(let text):
                JSONRenderer.appendString(text, to: &out)
            case .number(let value):
                out += Array((value.map(String.init) ?? "null").utf8)
            case .numbers(let values):
                out += Array(("[" + values.map(String.init).joined(separator: ",") + "]").utf8)
            case .strings(let texts):
                out.append(UInt8(ascii: "["))
                for (i, text) in texts.enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    JSONRenderer.appendString(text, to: &out)
                }
                out.append(UInt8(ascii: "]"))
            }
        }
    }
}

private extension String {
    /// Spaces made `_`, so that a field of a text line stays one word (`shared_object`).
    func replacingSpaces() -> String { String(map { $0 == " " ? "_" : $0 }) }
}
