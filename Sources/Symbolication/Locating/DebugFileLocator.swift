import DebugInfo
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// Finds the debug file of a binary image by its identity.
///
/// Each `-d` path is a debug file (Mach-O, thin or universal, or ELF), a `.dSYM` bundle (the
/// files under `Contents/Resources/DWARF/`), or a directory searched recursively: a folder
/// of dSYM bundles named by UUID as App Store Connect downloads them, an `.xcarchive` (its
/// `dSYMs/*.dSYM`, and the binaries under `Products/` as symbol-table fallbacks), a build
/// folder. The search path (``searchPaths(environment:)``) adds places searched after them.
/// Every object file found is identified once by reading its headers — UUID or build-id per
/// architecture slice — and is opened for DWARF only when a report needs it; with an
/// ``IdentityCache``, a file identified on an earlier run is not read again. Relocatable
/// objects (`.o`) are passed over: they are not the debug file of any image.
///
/// ELF debug files that no walk meets are looked for when an image asks for them: by build-id
/// at `<root>/.build-id/ab/cdef….debug` and `<root>/usr/lib/debug/.build-id/ab/cdef….debug`
/// for each directory searched and `/usr/lib/debug`, and through a binary's `.gnu_debuglink`
/// (beside it, in `.debug/` beside it, under `/usr/lib/debug`). Hidden folders such as
/// `.build-id` are not walked: those lookups reach them without reading thousands of files.
///
/// Matching is by UUID / build-id, never by name: a file named like the image but with
/// another UUID was built from other sources and would give wrong answers.
public final class DebugFileLocator: @unchecked Sendable {
    let lock = Lock()
    var byIdentifier: [String: [DebugFile]] = [:]
    private var namedFiles: [DebugFile] = []
    /// Directories searched, in order: where debug files are looked for by build-id.
    var roots: [String] = []
    /// The files met that are not object files or could not be identified, by file name:
    /// where a damaged debug file named like an image is looked for (``missReason``).
    var unidentified: [String: [String]] = [:]
    private let systemDebugDirectory: String
    private let cache: IdentityCache?
    private let diagnostics: Diagnostics
    private let workingDirectory: String
    /// Identifiers whose build-id and debuglink places were looked at, and what the module
    /// paths of logs without build-ids led to: kept so that a batch looks once, but only up to
    /// ``lookupsKept`` of each (a batch of reports strangers made can name a new identifier
    /// or path in every line; looking again costs a few `stat` calls).
    private var lookedFor: Set<String> = []
    private var modules: [String: DebugFile?] = [:]
    static let lookupsKept = 1 << 16
    /// Where debug files that nothing local matches are fetched from (none by default).
    /// Set before the first lookup.
    public var servers: DebugFileServers?
    /// Identifiers whose server answers were registered.
    private var fetched: Set<String> = []
    /// How many files were opened to identify them: what the cache spares.
    private(set) var filesRead = 0
    /// The paths named with `-d` that gave nothing to use: missing, a symbolic link loop, a
    /// FIFO or device, a file of /proc, not an object file, an empty bundle (each said once).
    public private(set) var unusableNamedPaths: [String] = []

    /// Paths the user named one by one (a file or a bundle), for "matched no image" warnings.
    public var explicitFiles: [DebugFile] {
        lock.lock()
        defer { lock.unlock() }
        return namedFiles
    }

    /// The dyld shared caches found so far, by path: asked for every report whose system
    /// images have no debug file, so kept as they are found, not picked out of every file.
    public var dyldCachePaths: Set<String> {
        lock.lock()
        defer { lock.unlock() }
        return dyldCaches
    }
    private var dyldCaches: Set<String> = []

    /// Every debug file found so far.
    public var debugFiles: [DebugFile] {
        lock.lock()
        defer { lock.unlock() }
        return byIdentifier.values.flatMap { $0 }
    }

    /// Identifies the object files under `paths`, then under `searchPaths`.
    ///
    /// Unreadable or unknown files in `paths` are reported through `diagnostics`; search-path
    /// entries that do not exist, and files there that cannot be used, are passed over
    /// quietly, and their files never count as ``explicitFiles``. With a `cache`, files whose
    /// identity it holds are not read, and the cache is written back (``saveCache()``) before
    /// `init` returns.
    public convenience init(paths: [String], searchPaths: [String] = [], cache: IdentityCache? = nil,
                            diagnostics: Diagnostics) {
        self.init(paths: paths, searchPaths: searchPaths, cache: cache, systemDebugDirectory: "/usr/lib/debug",
                  diagnostics: diagnostics)
    }

    /// `systemDebugDirectory` stands for `/usr/lib/debug` (tests point it elsewhere).
    init(paths: [String], searchPaths: [String], cache: IdentityCache?, systemDebugDirectory: String,
         diagnostics: Diagnostics) {
        self.cache = cache
        self.diagnostics = diagnostics
        self.systemDebugDirectory = systemDebugDirectory
        self.workingDirectory = System.currentDirectory
        var added: Set<String> = []
        for (path, named) in paths.map({ ($0, true) }) + searchPaths.map({ ($0, false) }) {
            // A folder both named and on the search path is walked once.
            var key = absolute(path)
            while key.count > 1, key.hasSuffix("/") { key.removeLast() }
            guard added.insert(key).inserted else { continue }
            if add(path, named: named) { roots.append(path) }
        }
        saveCache()
    }

    /// Writes the identity cache back when something changed: at the end of `init`, and again
    /// after a run, for the files found on demand since (build-id paths, debuglink targets,
    /// module paths). A cache that cannot be written is a warning.
    public func saveCache() {
        guard let cache, cache.hasChanges else { return }
        do {
            try cache.save()
        } catch {
            diagnostics.warn("cannot write the identity cache: \(error)")
        }
    }

    /// The search path from `SYMBOLICATE_PATH`: colon-separated places searched after the
    /// `-d` ones; empty entries are ignored.
    public static func searchPaths(environment: [String: String]) -> [String] {
        (environment["SYMBOLICATE_PATH"] ?? "").split(separator: ":").map(String.init)
    }

    /// Adds what `path` holds; true when it is a directory that was searched.
    ///
    /// A path that is missing, a symbolic link loop, a FIFO, a device or a file of the
    /// kernel's pseudo file systems is passed over with a warning when named (never opened:
    /// a FIFO would block the run).
    private func add(_ path: String, named: Bool) -> Bool {
        guard let info = System.status(path) else {
            if named { unusable(path, SystemError.reason(errno)) }
            return false
        }
        if System.isSystemPseudoFile(absolute(path), info) {
            if named { unusable(path, "a file of the kernel's /proc, /sys or /dev, not a debug file: passed over") }
            return false
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            guard System.isRegular(info) else {
                if named { unusable(path, "\(System.kind(of: info)), not a debug file: passed over") }
                return false
            }
            if !identify(FileEntry(path: path, info: info), explicit: named, quiet: !named), named {
                unusableNamedPaths.append(path)
            }
            return false
        }
        if DebugFileLocator.isBundle(path) {
            let found = DebugFileLocator.walk(DebugFileLocator.bundleDWARFFolder(path))
            if found.isEmpty {
                if named { unusable(path, "a .dSYM bundle with no files under Contents/Resources/DWARF") }
            }
            for file in found { identify(file, explicit: named, quiet: !named) }
            return false
        }
        for file in DebugFileLocator.walk(path) { identify(file, explicit: false, quiet: true) }
        cache?.forgetUnseen(under: absolute(path))
        return true
    }

    /// Says why a named path gives nothing to use, and remembers it for the exit status.
    private func unusable(_ path: String, _ reason: String) {
        unusableNamedPaths.append(path)
        diagnostics.warn("\(path): \(reason)")
    }

    /// Identifies one file (through the cache when there is one) and records its slices.
    /// A `quiet` file that is not an object file is passed over without a word.
    /// True when it is an object file with a slice that is not relocatable (one without a
    /// UUID or build-id is still found through a Linux log's module path).
    @discardableResult
    private func identify(_ entry: FileEntry, explicit: Bool, quiet: Bool) -> Bool {
        guard let files = slices(of: entry, quiet: quiet) else { return false }
        var usable = false
        for file in files where !file.isRelocatable {
            usable = true
            guard let identifier = file.identifier else {
                if explicit { diagnostics.warn("\(entry.path): has no UUID or build-id: it cannot be matched to an image") }
                continue
            }
            register(file, identifier: identifier)
            if explicit, !namedFiles.contains(file) { namedFiles.append(file) }
        }
        return usable
    }

    /// The slices of a file, from the cache or from its headers; nil when it is not an
    /// object file (said unless `quiet`).
    private func slices(of entry: FileEntry, quiet: Bool) -> [DebugFile]? {
        guard let files = identifiedSlices(of: entry, quiet: quiet) else {
            unidentified[Path.lastComponent(entry.path), default: []].append(entry.path)
            return nil
        }
        return files
    }

    private func identifiedSlices(of entry: FileEntry, quiet: Bool) -> [DebugFile]? {
        let key = cache == nil ? "" : absolute(entry.path)
        let stamp = IdentityCache.Stamp(entry.info)
        switch cache?.identity(of: key, stamp: stamp) {
        case .objects(let files)?:
            return files.map { var file = $0; file.path = entry.path; return file }
        case .notAnObject? where quiet:
            return nil
        default:
            break
        }
        filesRead += 1
        if quiet, !DebugFile.looksLikeObjectFile(path: entry.path) {
            cache?.record(.notAnObject, of: key, stamp: stamp)
            return nil
        }
        do {
            let files = try DebugFile.identify(path: entry.path)
            cache?.record(.objects(files), of: key, stamp: stamp)
            return files
        } catch {
            switch error as? DebugInfoError {
            case .unreadable?, .changedWhileRead?, .damagedArchive?:
                break  // unreadable now, changing, or damaged (said each run) is not "not an object file" for good
            default:
                cache?.record(.notAnObject, of: key, stamp: stamp)
            }
            // A damaged APK met in a folder is said too: it was named like one (``ZipArchive``).
            if !quiet || { if case .damagedArchive? = error as? DebugInfoError { return true }; return false }() {
                diagnostics.warn("\(error)")
            }
            return nil
        }
    }

    private func register(_ file: DebugFile, identifier: String) {
        if byIdentifier[identifier]?.contains(where: { $0.path == file.path && $0.sliceOffset == file.sliceOffset }) == true {
            return
        }
        byIdentifier[identifier, default: []].append(file)
        if file.format == .dyldCache { dyldCaches.insert(file.path) }
    }

    private func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : Path.join(workingDirectory, path)
    }

    // MARK: - Lookups

    /// The debug file for an image: same identifier, preferably the same architecture, and a
    /// file with DWARF over one with only a symbol table.
    ///
    /// When the files found hold no DWARF for `identifier`, ELF debug files are looked for
    /// by build-id under each directory searched and `/usr/lib/debug`, and through the
    /// `.gnu_debuglink` of the binaries found; once per identifier.
    ///
    /// With `fetching` (the image's format) and ``servers``, an identifier that no local file
    /// holds with DWARF is asked of the servers (once per run), and what they give is used as
    /// a local file would be.
    public func debugFile(identifier: String, architecture: Architecture?,
                          fetching format: DebugFile.Format? = nil) -> DebugFile? {
        if let format, let servers { fetch(identifier.lowercased(), format: format, from: servers) }
        lock.lock()
        defer { lock.unlock() }
        return lockedDebugFile(identifier: identifier.lowercased(), architecture: architecture)
    }

    /// The debug file of `identifier` among the files already known (named, found in the
    /// directories searched, or met before), without looking anywhere else: for an image no
    /// frame points into, whose identifier costs nothing to keep or look for.
    public func knownDebugFile(identifier: String, architecture: Architecture?) -> DebugFile? {
        lock.lock()
        defer { lock.unlock() }
        return lockedKnownDebugFile(identifier: identifier.lowercased(), architecture: architecture)
    }

    private func lockedDebugFile(identifier: String, architecture: Architecture?) -> DebugFile? {
        if lookedFor.count >= Self.lookupsKept { lookedFor.removeAll() }
        if byIdentifier[identifier]?.contains(where: \.hasDWARF) != true, lookedFor.insert(identifier).inserted {
            lookForELFDebugFile(identifier)
        }
        return lockedKnownDebugFile(identifier: identifier, architecture: architecture)
    }

    /// The best of the files known to have `identifier` (lowercased) for `architecture`.
    private func lockedKnownDebugFile(identifier: String, architecture: Architecture?) -> DebugFile? {
        byIdentifier[identifier]?.max { rank($0, architecture) < rank($1, architecture) }
    }

    private func rank(_ file: DebugFile, _ architecture: Architecture?) -> Int {
        (file.hasDWARF ? 2 : 0) + (architecture == nil || file.architecture == architecture ? 1 : 0)
    }

    /// The debug file of the module at `path` on this machine, for logs that name a module's
    /// path but not its build-id (Linux backtraces).
    ///
    /// The file at `path` is identified: with a build-id, its debug file is looked up by it as
    /// ``debugFile(identifier:architecture:)`` does, the file itself being one candidate; with
    /// none, its `.gnu_debuglink` file (checked by CRC-32) is used, else the file itself if it
    /// has DWARF or a symbol table. nil when there is no such file, it is not an object file,
    /// or it is of another architecture. A relative path is taken from the current directory.
    /// Without a build-id in the log, nothing proves that the file is the build that ran: that
    /// rests on the path alone.
    public func debugFile(forModulePath path: String, architecture: Architecture?) -> DebugFile? {
        lock.lock()
        defer { lock.unlock() }
        let key = "\(path)\u{0}\(architecture?.name ?? "")"
        if let known = modules[key] { return known }
        let found = lockedDebugFile(forModulePath: path, architecture: architecture)
        if modules.count >= Self.lookupsKept { modules.removeAll() }
        modules[key] = .some(found)
        return found
    }

    private func lockedDebugFile(forModulePath path: String, architecture: Architecture?) -> DebugFile? {
        // The log names the path, and the log is untrusted: only a regular file of a real
        // file system is read (not /proc/self/mem, a FIFO, a device).
        guard let info = System.status(path), System.isRegular(info), !System.isSystemPseudoFile(absolute(path), info),
              let files = slices(of: FileEntry(path: path, info: info), quiet: true)?.filter({ !$0.isRelocatable })
        else { return nil }
        let module: DebugFile
        if let architecture {
            guard let match = files.first(where: { $0.architecture == architecture }) else { return nil }
            module = match
        } else {
            guard files.count == 1 else { return nil }  // a universal file: which slice ran is unknown
            module = files[0]
        }
        if let identifier = module.identifier {
            register(module, identifier: identifier)
            return lockedDebugFile(identifier: identifier, architecture: architecture ?? module.architecture)
        }
        if !module.hasDWARF, let linked = debugLinkTarget(of: module) { return linked }
        return module.hasDWARF || module.hasSymbolTable ? module : nil
    }

    /// Looks for the debug file of `identifier` in build-id folders and through the
    /// debuglinks of the binaries found; registers what it finds.
    private func lookForELFDebugFile(_ identifier: String) {
        for binary in byIdentifier[identifier] ?? [] where binary.format == .elf && !binary.hasDWARF {
            if let linked = debugLinkTarget(of: binary) {
                register(linked, identifier: identifier)
                return
            }
        }
        guard identifier.count > 2 else { return }
        let name = identifier.prefix(2) + "/" + identifier.dropFirst(2) + ".debug"
        let places = roots.flatMap { root in
            [".build-id/", "usr/lib/debug/.build-id/"].map { Path.join(root, $0 + name) }
        } + [Path.join(systemDebugDirectory, ".build-id/" + name)]
        for place in places {
            guard let info = System.status(place), System.isRegular(info), !System.isSystemPseudoFile(absolute(place), info),
                  let files = slices(of: FileEntry(path: place, info: info), quiet: true) else { continue }
            let matching = files.filter { $0.identifier == identifier && !$0.isRelocatable }
            if matching.isEmpty {
                diagnostics.warn("\(place): its build-id is not the \(identifier) its name says: passed over")
            }
            for file in matching { register(file, identifier: identifier) }
            if matching.contains(where: \.hasDWARF) { return }
        }
    }

    /// The separate debug file a binary's `.gnu_debuglink` names: the file of that name
    /// beside the binary, in `.debug/` beside it, or under the system debug directory
    /// followed by the binary's directory. It must have DWARF and be the binary's: the same
    /// build-id when both have one, else the CRC-32 the link records.
    private func debugLinkTarget(of binary: DebugFile) -> DebugFile? {
        guard let link = binary.debugLink else { return nil }
        let directory = Path.deletingLastComponent(binary.path)
        let absoluteDirectory = Path.deletingLastComponent(absolute(binary.path))
        let places = [
            Path.join(directory, link.name),
            Path.join(directory, ".debug/" + link.name),
            Path.join(systemDebugDirectory, 
                String(absoluteDirectory.drop { $0 == "/" }) + "/" + link.name),
        ]
        for place in places {
            guard let info = System.status(place), System.isRegular(info), !System.isSystemPseudoFile(absolute(place), info),
                  absolute(place) != absolute(binary.path),
                  let files = slices(of: FileEntry(path: place, info: info), quiet: true),
                  files.count == 1, var file = files.first, file.format == .elf, file.hasDWARF
            else { continue }
            if let identifier = binary.identifier, let other = file.identifier {
                guard identifier == other else {
                    diagnostics.warn("\(place): build-id \(other), not the \(identifier) of \(binary.path): passed over")
                    continue
                }
            } else {
                filesRead += 1
                guard (try? DebugFile.DebugLink.checksum(ofFileAt: place)) == link.crc else {
                    diagnostics.warn("\(place): its CRC-32 is not the one the .gnu_debuglink of \(binary.path) records: passed over")
                    continue
                }
                file.identifier = binary.identifier
            }
            return file
        }
        return nil
    }

    // MARK: - Servers

    /// Asks `servers` for `identifier` unless a local file holds it with DWARF, and registers
    /// the files they give (identified through the identity cache, as local files are). The
    /// lock is not held while the servers are asked: other images go on meanwhile.
    private func fetch(_ identifier: String, format: DebugFile.Format, from servers: DebugFileServers) {
        let needed = lock.withLock {
            !fetched.contains(identifier) && lockedDebugFile(identifier: identifier, architecture: nil)?.hasDWARF != true
        }
        guard needed else { return }
        let paths = servers.files(for: identifier, format: format)
        lock.withLock {
            guard fetched.insert(identifier).inserted else { return }
            for path in paths {
                guard let info = System.status(path), System.isRegular(info),
                      let files = slices(of: FileEntry(path: path, info: info), quiet: true) else { continue }
                for file in files where !file.isRelocatable {
                    if let found = file.identifier { register(file, identifier: found) }
                }
            }
        }
    }

    /// Whether `path` names a `.dSYM` bundle.
    public static func isBundle(_ path: String) -> Bool {
        path.hasSuffix(".dSYM") || path.hasSuffix(".dSYM/")
    }

    /// The debug files of a `.dSYM` bundle: the files under `Contents/Resources/DWARF`.
    public static func bundleFiles(_ bundle: String) -> [String] {
        regularFiles(under: bundleDWARFFolder(bundle))
    }

    static func bundleDWARFFolder(_ bundle: String) -> String {
        Path.join(bundle, "Contents/Resources/DWARF")
    }
}
