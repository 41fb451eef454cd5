import ArgumentParser
import Platform

/// The flags both lookup commands take: how names and paths are printed, and which caches
/// are used.
struct LookupOptions: ParsableArguments {
    @Flag(help: "Print full source paths instead of file names.")
    var fullPath = false

    @Flag(help: "Print mangled names as they are.")
    var noDemangle = false

    @Flag(help: "Do not read or write the caches in ~/.cache/symbolicate (debug-file identities, indexes).")
    var noCache = false

    @OptionGroup var cache: CacheOptions

    func validate() throws {
        if noCache && (cache.cacheDirectory != nil || !cache.sharedCaches.isEmpty) {
            throw ValidationError("--no-cache uses no cache: it cannot be given with --cache-dir or --shared-cache")
        }
    }
}

/// Where the caches are: the own one (`--cache-dir`, `SYMBOLICATE_CACHE_DIR`) and shared ones
/// only read (`--shared-cache`, `SYMBOLICATE_SHARED_CACHE`).
struct CacheOptions: ParsableArguments {
    @Option(name: .customLong("cache-dir"),
            help: ArgumentHelp("The cache folder (default: $SYMBOLICATE_CACHE_DIR, else $XDG_CACHE_HOME/symbolicate, else ~/.cache/symbolicate).",
                               valueName: "dir"),
            completion: .directory)
    var cacheDirectory: String?

    @Option(name: .customLong("shared-cache"),
            help: ArgumentHelp("A cache folder shared with other machines, read first and never written (repeatable; also $SYMBOLICATE_SHARED_CACHE, colon-separated).",
                               valueName: "dir"),
            completion: .directory)
    var sharedCaches: [String] = []

    /// The process's environment with these options in it, for ``System/cacheDirectory(environment:)``
    /// and ``System/sharedCacheDirectories(environment:)``.
    func environment(_ base: [String: String] = System.environment) -> [String: String] {
        var environment = base
        if let cacheDirectory { environment["SYMBOLICATE_CACHE_DIR"] = System.absolutePath(cacheDirectory) }
        if !sharedCaches.isEmpty {
            let named = sharedCaches.map(System.absolutePath).joined(separator: ":")
            environment["SYMBOLICATE_SHARED_CACHE"] = [named, base["SYMBOLICATE_SHARED_CACHE"] ?? ""]
                .filter { !$0.isEmpty }.joined(separator: ":")
        }
        return environment
    }
}
