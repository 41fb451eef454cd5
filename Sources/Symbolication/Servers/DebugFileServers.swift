import DebugInfo
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// Where debug files that nothing on local disk matches are fetched from: symbol servers
/// (`--symbol-server`, tried in order), then debuginfod servers (`DEBUGINFOD_URLS` or
/// `--debuginfod`, for ELF build-ids).
///
/// Each identifier is asked at most once per run, whichever thread asks and however many
/// reports name it: the answer, found or not, is remembered; a second thread asking for an
/// identifier being fetched waits for that fetch. A file a web server gives is kept in the
/// download folder, `<cache>/downloads/ab/cdef…/debuginfo` (by identifier, whichever server
/// gave it), so that later runs find it there without asking; a `file://` server's files are
/// read where they are. Every file is identified before it is used: one that is not the
/// debug file of the identifier asked for (another UUID or build-id, not an object file) is
/// passed over with one line naming its URL. A server that does not answer (connection
/// refused or dropped, a stall, a TLS failure) is said once and not asked again in the run;
/// other HTTP errors are said once per server and status. With no server configured this
/// class is not made: no socket is opened, no library loaded.
///
/// A zstd-compressed file (`symsorter -z`) is inflated, by any server and layout: a web
/// server's as it is downloaded, a `file://` server's into the download folder (where later
/// runs find it). Neither the bytes received nor those inflated may exceed
/// ``Options/maxDownloadSize``. A file that cannot be used (compressed and damaged, cut short
/// or over the limit; a download over the limit) is said in one line naming its URL and what
/// is wrong, and is why the image is left unresolved (``unusableFile(for:)``).
public final class DebugFileServers: @unchecked Sendable {
    /// What to ask and how.
    public struct Options: Sendable {
        /// Symbol servers, in the order they are asked.
        public var symbolServers: [SymbolServer]
        /// Whether debuginfod servers are asked (their URLs are in `DEBUGINFOD_URLS`).
        public var debuginfod: Bool
        /// Where web servers' files are kept (`<cache>/downloads`); nil when there is no
        /// cache folder, and web servers cannot be used.
        public var downloadFolder: String?
        /// The largest file downloaded, in bytes, and the most a zstd-compressed file may
        /// inflate to (from a web server or a `file://` one).
        public var maxDownloadSize: Int
        /// Seconds to connect to a web server, and without a byte before giving up on it.
        public var timeout: Int

        public init(symbolServers: [SymbolServer], debuginfod: Bool, downloadFolder: String?,
                    maxDownloadSize: Int = DebugFileServers.defaultMaxDownloadSize,
                    timeout: Int = DebugFileServers.defaultTimeout) {
            self.symbolServers = symbolServers
            self.debuginfod = debuginfod
            self.downloadFolder = downloadFolder
            self.maxDownloadSize = maxDownloadSize
            self.timeout = timeout
        }
    }

    /// 4 GiB: more than any dSYM or debug file seen, less than a full disk.
    ///
    /// It bounds what a compressed file inflates to as well: what is stored is the debug
    /// file, whether it came compressed or not, so one limit says how large a debug file may
    /// be. Debug files are mostly tens to hundreds of MiB, far below it (a larger one needs
    /// `--max-download-size` raised either way); a zstd bomb, ~128 KiB of frames that say
    /// 4 GiB of zeros, stops there rather than fill the cache's disk.
    public static let defaultMaxDownloadSize = 4 << 30
    public static let defaultTimeout = 30

    private let options: Options
    private let diagnostics: Diagnostics
    private let lock = Lock()
    private var slots: [String: Slot] = [:]
    /// Servers not asked again in this run (by URL; "debuginfod" for the debuginfod client).
    private var down: Set<String> = []
    /// Files a server had for an identifier that could not be used: where, and why.
    private var unusable: [String: (location: String, reason: String)] = [:]

    /// One identifier's answer, fetched by the first thread that asks.
    private final class Slot: @unchecked Sendable {
        let lock = Lock()
        var done = false
        var paths: [String] = []
    }

    /// Servers that `options` configures; nil when it configures none.
    public init?(options: Options, diagnostics: Diagnostics) {
        guard !options.symbolServers.isEmpty || options.debuginfod else { return nil }
        self.options = options
        self.diagnostics = diagnostics
    }

    /// The debug files of `identifier`: paths on this machine, each checked to hold a slice
    /// of that identifier; empty when no server has one. `format` is the image's: debuginfod
    /// is asked for ELF images only, LLDB's layout has places for UUIDs only.
    public func files(for identifier: String, format: DebugFile.Format) -> [String] {
        let identifier = identifier.lowercased()
        let slot = lock.withLock {
            if let slot = slots[identifier] { return slot }
            let slot = Slot()
            slots[identifier] = slot
            return slot
        }
        slot.lock.lock()
        defer { slot.lock.unlock() }
        if !slot.done {
            slot.paths = fetch(identifier, format: format)
            slot.done = true
            if !slot.paths.isEmpty { lock.withLock { unusable[identifier] = nil } }
        }
        return slot.paths
    }

    /// The file a server had for `identifier` that could not be used (compressed and
    /// damaged, cut short or too large when inflated; too large a download): its URL and
    /// what is wrong with it. Nil when there was none, and once a server gave a usable file.
    public func unusableFile(for identifier: String) -> (location: String, reason: String)? {
        lock.withLock { unusable[identifier.lowercased()] }
    }

    // MARK: - Fetching

    private func fetch(_ identifier: String, format: DebugFile.Format) -> [String] {
        // A report's identifier is untrusted: only hexadecimal digits make paths and URLs.
        guard identifier.utf8.count >= 4, identifier.utf8.count % 2 == 0,
              identifier.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
        else { return [] }
        let downloaded = downloadPath(of: identifier)
        if let downloaded, System.status(downloaded) != nil {
            if check([downloaded], identifier, from: nil) { return [downloaded] }
            unlink(downloaded)  // not what it should be: fetched again
        }
        for server in options.symbolServers where !isDown(server.url) {
            for relative in server.layout.relativePaths(of: identifier, url: server.url) {
                let found = server.directory == nil
                    ? fromWebServer(server, relative, identifier, into: downloaded)
                    : fromFolder(server, relative, identifier)
                if !found.isEmpty { return found }
                if isDown(server.url) { break }
            }
        }
        if options.debuginfod, format == .elf, !isDown("debuginfod") {
            return fromDebuginfod(identifier)
        }
        return []
    }

    /// The file of `relative` in a `file://` server's folder: the file itself, the DWARF
    /// files of a `.dSYM` bundle it is (or links to), or what an LLDB property list names.
    private func fromFolder(_ server: SymbolServer, _ relative: String, _ identifier: String) -> [String] {
        let path = Path.join(server.directory ?? "/", relative)
        guard let info = System.status(path) else { return [] }
        let location = server.location(of: relative)
        if info.st_mode & S_IFMT == S_IFDIR {
            let files = DebugFileLocator.bundleFiles(path)
            return check(files, identifier, from: location) ? files : []
        }
        guard System.isRegular(info) else { return [] }
        if server.layout == .lldb, let named = propertyListTarget(path, location) {
            return resolve(named, identifier, from: location)
        }
        if ZstdInflater.isCompressed(Self.head(of: path)) {
            return inflated(path, identifier, from: location)
        }
        return check([path], identifier, from: location) ? [path] : []
    }

    /// A `file://` server's zstd-compressed file inflated into the download folder.
    private func inflated(_ path: String, _ identifier: String, from location: String) -> [String] {
        guard let target = downloadPath(of: identifier) else {
            diagnostics.warn("\(location): zstd-compressed, and there is no cache folder to inflate it into "
                             + "(set HOME or XDG_CACHE_HOME): passed over", once: "no folder to inflate into")
            return []
        }
        switch ServerFileWriter.inflate(path, to: target, limit: options.maxDownloadSize) {
        case nil:
            if check([target], identifier, from: location) { return [target] }
            unlink(target)
        case .notInflated(let problem)?:
            passOver(location, identifier, problem: problem)
        case .io(let reason)?:
            diagnostics.warn("\(location): cannot inflate it: \(reason)")
        }
        return []
    }

    /// Downloads `relative` from a web server into `target`.
    private func fromWebServer(_ server: SymbolServer, _ relative: String, _ identifier: String,
                               into target: String?) -> [String] {
        guard let target else {
            diagnostics.warn("\(server.url): no cache folder to download into (set HOME or XDG_CACHE_HOME); "
                             + "web symbol servers are not used", once: "no download folder")
            markDown(server.url)
            return []
        }
        let url = server.location(of: relative)
        switch Download.fetch(url, to: target, limits: .init(maxBytes: options.maxDownloadSize, timeout: options.timeout)) {
        case .stored:
            if server.layout == .lldb, let named = propertyListTarget(target, url) {
                unlink(target)
                return resolve(named, identifier, from: url)
            }
            if check([target], identifier, from: url) { return [target] }
            unlink(target)
            return []
        case .notFound:
            return []
        case .httpError(let status):
            diagnostics.warn("\(url): HTTP \(status)\(Self.statusName(status)) (further \(status) answers of \(server.url) not shown)",
                             once: "status \(status) \(server.url)")
            return []
        case .tooLarge:
            let reason = "larger than the download limit of \(Self.bytes(options.maxDownloadSize)) (--max-download-size)"
            diagnostics.warn("\(url): \(reason): passed over")
            lock.withLock { unusable[identifier] = (url, reason) }
            return []
        case .notInflated(let problem):
            passOver(url, identifier, problem: problem)
            return []
        case .transport(let reason):
            diagnostics.warn("\(url): \(reason); \(server.url) is not asked again in this run")
            markDown(server.url)
            return []
        case .noLibrary(let reason):
            diagnostics.warn("\(reason): web symbol servers are not used", once: "no libcurl")
            for other in options.symbolServers where other.directory == nil { markDown(other.url) }
            return []
        case .notStored(let reason):
            diagnostics.warn("cannot store a download: \(reason)", once: "not stored \(reason)")
            return []
        }
    }

    private func fromDebuginfod(_ identifier: String) -> [String] {
        if let problem = lock.withLock({ openDebuginfod() }) {
            diagnostics.warn("debuginfod: \(problem); DEBUGINFOD_URLS is not used", once: "debuginfod library")
            markDown("debuginfod")
            return []
        }
        // One request at a time (libdebuginfod's client is not to be shared), and none after
        // a failure: threads queued behind a request that timed out do not each wait again.
        debuginfodRequests.lock()
        defer { debuginfodRequests.unlock() }
        guard !isDown("debuginfod") else { return [] }
        switch DebuginfodClient.find(buildID: identifier) {
        case .found(let path):
            return check([path], identifier, from: "debuginfod") ? [path] : []
        case .missing:
            return []
        case .failed(let reason, let url):
            let servers = DebuginfodClient.urls(environment: System.environment).joined(separator: " ")
            diagnostics.warn("debuginfod: \(url ?? servers): \(reason); debuginfod is not asked again in this run")
            markDown("debuginfod")
            return []
        }
    }

    private let debuginfodRequests = Lock()
    private var debuginfodOpened = false
    private var debuginfodProblem: String?

    /// Loads libdebuginfod once; the reason when it cannot be. Called with `lock` held.
    private func openDebuginfod() -> String? {
        if !debuginfodOpened {
            debuginfodOpened = true
            debuginfodProblem = DebuginfodClient.open()
        }
        return debuginfodProblem
    }

    // MARK: - Checking what came

    /// Says in one line that the compressed file at `location` cannot be inflated, and
    /// remembers it as the reason `identifier` has no file.
    private func passOver(_ location: String, _ identifier: String, problem: ZstdInflater.Problem) {
        let reason = "\(problem)" + (problem.isLimit ? " (--max-download-size)" : "")
        diagnostics.warn("\(location): \(reason): passed over")
        lock.withLock { unusable[identifier] = (location, reason) }
    }

    /// Whether one of `paths` holds a slice of `identifier`; says why not for files from
    /// `location` (nil: the download folder, which is quietly fetched again).
    private func check(_ paths: [String], _ identifier: String, from location: String?) -> Bool {
        var found = false
        for path in paths {
            do {
                let slices = try DebugFile.identify(path: path)
                if slices.contains(where: { $0.identifier?.lowercased() == identifier && !$0.isRelocatable }) {
                    found = true
                } else if let location {
                    let ids = slices.compactMap(\.identifier).joined(separator: ", ")
                    diagnostics.warn("\(location): not the debug file of \(identifier) (it is \(ids.isEmpty ? "an object file without one" : ids)): passed over")
                }
            } catch {
                if let location { diagnostics.warn("\(location): not a debug file (\(error)): passed over") }
            }
        }
        return found
    }

    /// The file an LLDB property list at `path` names (`DBGDSYMPath`), when it is one.
    private func propertyListTarget(_ path: String, _ location: String) -> String?? {
        guard DSYMPropertyList.isPropertyList(Self.head(of: path)) else { return nil }
        guard let list = try? System.readFile(path, limit: 1 << 20), let named = DSYMPropertyList.dsymPath(list) else {
            diagnostics.warn("\(location): a property list without a DBGDSYMPath (binary lists are not read): passed over")
            return .some(nil)
        }
        return .some(named)
    }

    /// The first bytes of a file.
    private static func head(of path: String) -> [UInt8] {
        let fd = FileName.withCString(path) { open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(fd, &bytes, bytes.count)
        return count > 0 ? Array(bytes.prefix(count)) : []
    }

    /// The DWARF files of what a property list named: a `.dSYM` bundle or a file.
    private func resolve(_ named: String?, _ identifier: String, from location: String) -> [String] {
        guard let named else { return [] }
        guard let info = System.status(named) else {
            diagnostics.warn("\(location): its DBGDSYMPath \(named): \(SystemError.reason(errno))")
            return []
        }
        let files = info.st_mode & S_IFMT == S_IFDIR ? DebugFileLocator.bundleFiles(named) : [named]
        let matching = files.filter { check([$0], identifier, from: "\(location) (DBGDSYMPath \(named))") }
        return matching
    }

    // MARK: - Bookkeeping

    private func downloadPath(of identifier: String) -> String? {
        guard let folder = options.downloadFolder, identifier.count > 2 else { return nil }
        return Path.join(folder, identifier.prefix(2) + "/" + identifier.dropFirst(2) + "/debuginfo")
    }

    private func isDown(_ server: String) -> Bool { lock.withLock { down.contains(server) } }

    private func markDown(_ server: String) { _ = lock.withLock { down.insert(server) } }

    private static func statusName(_ status: Int) -> String {
        let names = [400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 408: "Request Timeout",
                     429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway",
                     503: "Service Unavailable", 504: "Gateway Timeout"]
        return names[status].map { " " + $0 } ?? ""
    }

    static func bytes(_ count: Int) -> String {
        for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] where count >= 1 << shift && count % (1 << shift) == 0 {
            return "\(count >> shift) \(unit)"
        }
        return "\(count) bytes"
    }
}
