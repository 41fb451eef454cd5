import ArgumentParser
import CrashReport
import DebugInfo
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform
import Symbolication

/// `symbolicate cache list|prune`: what the cache holds, and removing what is not needed.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "List or prune the cache of debug-file identities and indexes.",
        subcommands: [CacheList.self, CachePrune.self]
    )

    /// The cache folder the options name, or an exit with a message when there is none.
    static func root(_ options: CacheOptions, diagnostics: Diagnostics) throws -> String {
        guard let root = System.cacheDirectory(environment: options.environment()) else {
            diagnostics.warn("no cache folder: give --cache-dir DIR (or set SYMBOLICATE_CACHE_DIR, XDG_CACHE_HOME or HOME)")
            throw ExitCode(.usage)
        }
        return root
    }

    /// `2026-11-26` for a time in seconds since 1970 (UTC).
    static func date(_ seconds: Int64) -> String {
        var time = time_t(seconds), parts = tm()
        gmtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        strftime(&buffer, buffer.count, "%Y-%m-%d", &parts)
        return String(cString: buffer)
    }
}

/// `symbolicate cache list`: one line per index file, then the identities and the totals.
struct CacheList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the index files of the cache (and of the shared caches named).",
        discussion: """
        One line per index file, tab-separated: the file, size (bytes), used (the day it was \
        last used), id, arch, key ('local': this machine's debug file by its place; \
        'content': any machine's copy of it), the debug file indexed (its path on the \
        machine that indexed it), and 'ok', 'stale: …' (the debug file is gone or changed) \
        or 'unusable: …'. Then a line for each identity file and a total.
        """
    )

    @OptionGroup var cache: CacheOptions

    func run() throws {
        let diagnostics = Diagnostics()
        let root = try CacheCommand.root(cache, diagnostics: diagnostics)
        let output = OutputWriter()
        var files = 0, bytes = 0
        for folder in [root] + System.sharedCacheDirectories(environment: cache.environment()) {
            let store = IndexCache(directory: Path.join(folder, "indexes"))
            for entry in store.list() {
                files += 1
                bytes += entry.size
                let state: String
                if let problem = entry.problem {
                    state = "unusable: \(problem)"
                } else if entry.debugFileIntact == false {
                    state = "stale: the debug file is gone or changed"
                } else {
                    state = "ok"
                }
                let fields = [entry.path, "size=\(entry.size)", "used=\(CacheCommand.date(entry.lastUsed))",
                              "id=\(entry.identifier ?? "?")", "arch=\(entry.architecture ?? "?")",
                              "key=\(entry.problem != nil ? "?" : entry.contentKeyed ? "content" : "local")",
                              "debug-file=\(entry.debugFile ?? "?")", state]
                output.write(FileName.bytes(fields.map { OutputEscaping.escaped($0) }.joined(separator: "\t") + "\n"))
            }
            let identities = Path.join(folder, "identities")
            if let info = System.status(identities) {
                let known = IdentityCache(path: identities, sharedPaths: []).count
                bytes += Int(info.st_size)
                output.write(FileName.bytes("\(OutputEscaping.escaped(identities))\tsize=\(info.st_size)\t"
                                            + "used=\(CacheCommand.date(System.times(of: info).modified / 1_000_000_000))\t"
                                            + "identities of \(known) files\n"))
            }
        }
        output.write("total\t\(files) index files\t\(bytes) bytes\n")
        if !output.finish(diagnostics: diagnostics) { throw ExitCode(.outputFailed) }
    }
}

/// `symbolicate cache prune`: removes what can no longer be used, and more if asked.
struct CachePrune: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Remove index files that can no longer be used, and more if asked.",
        discussion: """
        Removes index files of another format version or damaged, and those of a debug file \
        of this machine that is gone or changed since; with --older-than, those not used for \
        that many days; with --max-size, then the least recently used until the rest fit. \
        Identities of files that are gone or changed are forgotten. Prints one line per file \
        removed (tab-separated: 'removed', the file, its size, why), then the totals. Only \
        the own cache is pruned: shared caches are never written.
        """
    )

    @Option(help: ArgumentHelp("Keep at most this many bytes of index files (K, M, G).", valueName: "size"))
    var maxSize: ByteCount?

    @Option(help: ArgumentHelp("Remove index files not used for this many days.", valueName: "days"))
    var olderThan: Int?

    @OptionGroup var cache: CacheOptions

    func validate() throws {
        if let olderThan, olderThan < 0 { throw ValidationError("--older-than must be a number of days, 0 or more") }
        if !cache.sharedCaches.isEmpty { throw ValidationError("shared caches are never written: prune them where they are made") }
    }

    func run() throws {
        let diagnostics = Diagnostics()
        let root = try CacheCommand.root(cache, diagnostics: diagnostics)
        let store = IndexCache(directory: Path.join(root, "indexes"))
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let removed = store.prune(maxSize: maxSize?.bytes, olderThan: olderThan.map { Int64($0) * 86400 }, now: Int64(now.tv_sec))
        let output = OutputWriter()
        var freed = 0, failed = false
        for (entry, why) in removed {
            if why.contains("cannot be removed") { failed = true } else { freed += entry.size }
            output.write(FileName.bytes(["removed", OutputEscaping.escaped(entry.path), "size=\(entry.size)", why]
                .joined(separator: "\t") + "\n"))
        }
        var forgotten = 0
        let identitiesPath = Path.join(root, "identities")
        if System.status(identitiesPath) != nil {
            let identities = IdentityCache(path: identitiesPath, sharedPaths: []) { diagnostics.warn($0) }
            forgotten = identities.forgetMissingFiles()
            do {
                try identities.save()
            } catch {
                diagnostics.warn("cannot write the identity cache: \(error)")
                failed = true
            }
        }
        let kept = store.list()
        output.write("total\t\(removed.count) index files removed, \(freed) bytes freed\t\(kept.count) kept, "
                     + "\(kept.reduce(0) { $0 + $1.size }) bytes\tidentities of \(forgotten) files forgotten\n")
        if !output.finish(diagnostics: diagnostics) { throw ExitCode(.outputFailed) }
        if failed { throw ExitCode(.reportFailed) }
    }
}
