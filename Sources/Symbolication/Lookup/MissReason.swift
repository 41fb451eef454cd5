import CrashReport
import DebugInfo
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// Why an app image with frames in a report was left without file and line, in terms a user
/// can act on: computed once per image and run, said in one line on stderr, counted in the
/// summary and given in JSON output (``CrashReport/UnresolvedImage``).
///
///     no debug file for App (UUID 4C4C44C3-…, arm64): dSYMs/App.dSYM/Contents/Resources/DWARF/App
///         has UUID 4C4C44D9-… (arm64), not this one: built from another commit?
///
/// The locator knows what it met on the way — files named like the image with other UUIDs or
/// other architectures, files it could not identify — and the symbolicator what went wrong
/// with the file it matched (no DWARF, a damaged one).
public enum MissReason: Hashable, Sendable {
    /// No file found has the image's UUID or build-id, and none is named like the image;
    /// `searched` is false when no debug file or folder was given at all.
    case noFile(searched: Bool)
    /// The report gives no UUID or build-id for the image (the words say what it lacks).
    case noIdentifier(String)
    /// A file named like the image, of its architecture, has another UUID: another build.
    /// `others`: how many more files of that name there are, none with the image's UUID.
    case otherUUID(file: DebugFile, others: Int)
    /// Files named like the image hold slices of other architectures only.
    case otherArchitecture(path: String, architectures: [String])
    /// The file matched has a symbol table but no DWARF: names without file and line.
    case symbolTableOnly(file: DebugFile)
    /// The file matched has neither DWARF nor a symbol table (a stripped binary).
    case noDebugInfo(file: DebugFile)
    /// A file named like the image cannot be read (`matched` false), or the file matched
    /// cannot be used (`matched` true): why.
    case damaged(path: String, reason: String, matched: Bool)
    /// The file matched can be used in part: some of its compile units could not be read
    /// (`reason`, the first problem met), or none (`inPart` false) while its symbol table can be;
    /// the frames there have names from the symbol table, or none.
    case partlyRead(file: DebugFile, reason: String, inPart: Bool)
    /// The file found by the module's path or file name (nothing to check its identity by)
    /// names a frame otherwise than the report does (`frame`: its index and address, `logged`:
    /// the report's name, `found`: the file's): not the build that crashed.
    case contradicted(path: String, frame: String, logged: String, found: String)
    /// A symbol server had a file at the identifier's place that could not be used
    /// (`location`, its URL): zstd-compressed and damaged, cut short or too large inflated,
    /// or too large a download (`reason`).
    case unusableServerFile(location: String, reason: String)
    /// A system image, when dyld shared caches were given and none holds it: they are of
    /// another OS build (`words`: each cache's build, the report's, and the cache it needs).
    case otherOSBuild(String)

    /// ``otherOSBuild(_:)``'s word, which the batch summary passes over (said once per build).
    static let otherOSBuildCode = "other_os_build"

    /// The word for programs (JSON's `reason`).
    public var code: String {
        switch self {
        case .noFile: return "no_file"
        case .noIdentifier: return "no_identifier"
        case .otherUUID: return "other_uuid"
        case .otherArchitecture: return "other_arch"
        case .symbolTableOnly: return "symbol_table_only"
        case .noDebugInfo: return "no_debug_info"
        case .damaged: return "damaged"
        case .partlyRead: return "partly_damaged"
        case .contradicted: return "contradicted"
        case .unusableServerFile: return "unusable_server_file"
        case .otherOSBuild: return MissReason.otherOSBuildCode
        }
    }

    /// Whether the image's frames still get function names (from a symbol table).
    public var resolvesNames: Bool {
        switch self {
        case .symbolTableOnly: return true
        case .partlyRead(let file, _, _): return file.hasSymbolTable
        default: return false
        }
    }

    /// The reason in words, for an image whose identifier is called `idWord` ("UUID",
    /// "build-id") and whose architecture is `architecture`.
    public func message(idWord: String, architecture: Architecture?) -> String {
        switch self {
        case .noFile(let searched):
            return searched ? "no file searched has this \(idWord)"
                : "no debug file or folder was given (-d PATH, or SYMBOLICATE_PATH)"
        case .noIdentifier(let words):
            return words
        case .otherUUID(let file, let others):
            let more = others > 0
                ? " (and \(others) more file\(others == 1 ? "" : "s") named \(MissReason.stem(file.path)), none with this \(idWord))" : ""
            return "\(file.path) has \(idWord) \(MissReason.spelled(file)) (\(file.architecture?.name ?? "unknown arch")), "
                + "not this one (built from another commit?)" + more
        case .otherArchitecture(let path, let architectures):
            return "\(path) has no \(architecture?.name ?? "matching") slice, only \(architectures.joined(separator: ", ")) "
                + "(built for another architecture?)"
        case .symbolTableOnly(let file):
            return "only \(file.path), which has a symbol table but no DWARF: function names without file and line"
                + MissReason.debugLinkHint(file)
        case .noDebugInfo(let file):
            return "\(file.path) has this \(idWord) but neither DWARF nor a symbol table (stripped)"
                + MissReason.debugLinkHint(file)
        case .damaged(let path, let reason, let matched):
            return matched ? "\(path) has this \(idWord) but cannot be used: \(reason)"
                : "\(path), named like the image, cannot be used: \(reason)"
        case .partlyRead(let file, let reason, let inPart):
            return "\(file.path) has this \(idWord), but " + (inPart ? "part of its DWARF" : "its DWARF")
                + " cannot be read (\(reason)): its frames there "
                + (file.hasSymbolTable ? "are named from its symbol table, without file and line" : "are left as they are")
        case .contradicted(let path, let frame, let logged, let found):
            return "\(path), found by the module's path or name, has \(found) where the report names frame \(frame) "
                + "\(logged): not the build that crashed"
        case .unusableServerFile(let location, let reason):
            return "the symbol server's file \(location) cannot be used: \(reason)"
        case .otherOSBuild(let words):
            return words
        }
    }

    /// What the renderers print: the reason with its word, message and the file it is about.
    public func unresolvedImage(idWord: String, architecture: Architecture?) -> UnresolvedImage {
        var result = UnresolvedImage(reason: code, message: message(idWord: idWord, architecture: architecture))
        switch self {
        case .noFile, .noIdentifier, .otherOSBuild:
            break
        case .otherUUID(let file, _):
            result.file = file.path
            result.fileIdentifier = file.identifier
            result.fileArchitectures = file.architecture.map { [$0.name] } ?? []
        case .otherArchitecture(let path, let architectures):
            result.file = path
            result.fileArchitectures = architectures
        case .symbolTableOnly(let file), .noDebugInfo(let file), .partlyRead(let file, _, _):
            result.file = file.path
        case .damaged(let path, _, _), .contradicted(let path, _, _, _):
            result.file = path
        case .unusableServerFile(let location, _):
            result.file = location
        }
        return result
    }

    /// A binary whose `.gnu_debuglink` names a debug file that was not found says so.
    private static func debugLinkHint(_ file: DebugFile) -> String {
        guard let link = file.debugLink else { return "" }
        return "; its .gnu_debuglink names \(link.name), not found beside it, in .debug/ or under /usr/lib/debug"
    }

    /// A file's identifier as reports and searches spell it: a Mach-O UUID dashed, upper case.
    static func spelled(_ file: DebugFile) -> String {
        file.identity?.spelled ?? "none"
    }

    /// The name a debug file gives its image: its file name, without `.debug`.
    static func stem(_ path: String) -> String {
        let name = Path.lastComponent(path)
        return name.hasSuffix(".debug") && name.count > 6 ? String(name.dropLast(6)) : name
    }

    /// Whether two architectures name the same slice kind for matching purposes (`arm64e`
    /// code runs where a report says `arm64`, and so on).
    static func sameKind(_ a: Architecture?, _ b: Architecture?) -> Bool {
        guard let a, let b else { return true }
        func base(_ name: String) -> String {
            switch name {
            case "arm64e": return "arm64"
            case "x86_64h": return "x86_64"
            default: return name
            }
        }
        return base(a.name) == base(b.name)
    }
}

extension DebugFileLocator {
    /// Why no file was found for an image named `imageNames` (its name and path) with
    /// `identifier` and `architecture`, from what the searches met: a file named like the
    /// image that cannot be read (it may be the one), else files named like it with other
    /// UUIDs of its architecture (the most recently modified is named), else files named like
    /// it of other architectures only, else nothing. Before them all, a file a symbol server
    /// had for the identifier that could not be used: the one the user means to be used.
    public func missReason(imageNames: [String], identifier: String?, architecture: Architecture?) -> MissReason {
        if let identifier, let file = servers?.unusableFile(for: identifier) {
            return .unusableServerFile(location: file.location, reason: file.reason)
        }
        let names = Set(imageNames.map(Path.lastComponent).filter { !$0.isEmpty })
        lock.lock()
        let searched = !roots.isEmpty || !byIdentifier.isEmpty || !unidentified.isEmpty || !unusableNamedPaths.isEmpty
        var named: [DebugFile] = []
        var seen: Set<String> = []
        for files in byIdentifier.values {
            for file in files where !file.isRelocatable && names.contains(MissReason.stem(file.path))
                && file.identifier != identifier?.lowercased() {
                if seen.insert("\(file.path)\u{0}\(file.sliceOffset)").inserted { named.append(file) }
            }
        }
        let unreadable = names.flatMap { (unidentified[$0] ?? []) + (unidentified[$0 + ".debug"] ?? []) }
        lock.unlock()

        for path in Set(unreadable).sorted() {
            if let reason = DebugFileLocator.damage(of: path) { return .damaged(path: path, reason: reason, matched: false) }
        }
        let sameArchitecture = named.filter { MissReason.sameKind($0.architecture, architecture) }
        if !sameArchitecture.isEmpty {
            let newest = sameArchitecture.map { ($0, DebugFileLocator.modified($0.path)) }
                .max { ($0.1, $1.0.path) < ($1.1, $0.0.path) }!.0
            let paths = Set(sameArchitecture.map(\.path))
            return .otherUUID(file: newest, others: paths.count - 1)
        }
        if let first = named.min(by: { ($0.path, $0.sliceOffset) < ($1.path, $1.sliceOffset) }) {
            let architectures = named.filter { $0.path == first.path }.map { $0.architecture?.name ?? "unknown" }
            return .otherArchitecture(path: first.path, architectures: Array(Set(architectures)).sorted())
        }
        return .noFile(searched: searched)
    }

    /// Why a file that a search passed over as "not an object file" cannot be used, when it
    /// is an object file's remains: empty, or starting like one but failing to be read. Nil
    /// for a file of another kind (a text file that happens to have the image's name), and
    /// for one that reads well now.
    static func damage(of path: String) -> String? {
        guard let info = System.status(path), System.isRegular(info) else { return nil }
        if info.st_size == 0 { return "an empty file" }
        guard DebugFile.looksLikeObjectFile(path: path) else { return nil }
        do {
            _ = try DebugFile.identify(path: path)
            return nil
        } catch let error as DebugInfoError {
            return error.reason
        } catch {
            return "\(error)"
        }
    }

    /// A file's modification time in nanoseconds; 0 when it cannot be had.
    private static func modified(_ path: String) -> Int64 {
        System.status(path).map { System.times(of: $0).modified } ?? 0
    }
}
