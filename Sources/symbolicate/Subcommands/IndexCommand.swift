import ArgumentParser
import DebugInfo
import Platform
import Symbolication

/// `symbolicate index [-d PATH]...`: the index of every debug file found, built in parallel
/// into the cache, keyed so that other machines can use it.
struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Index every debug file found into the cache, for this machine and others.",
        discussion: """
        Every debug file found in the -d paths (and SYMBOLICATE_PATH) that a report could use \
        is indexed into the cache folder (--cache-dir), several at once, and one line is \
        printed per file, tab-separated: the path, id, arch, index (bytes), time, and \
        'built', 'already indexed', 'in the shared cache' or 'failed: WHY'.

        The indexes are keyed by the debug file's contents (UUID or build-id, architecture, \
        size and a hash of sampled bytes), not by where it is: a folder built this way can be \
        copied or mounted on other machines and read there with --shared-cache \
        (SYMBOLICATE_SHARED_CACHE), read-only if need be. This command removes nothing from \
        the folder: 'symbolicate cache prune' does.


        """ + Symbolicate.exitStatusSection([
            .success: "every debug file found is indexed",
            .reportFailed: "some debug file could not be indexed",
            .unusableDebugPath: "a path named with -d gave nothing to use",
            .usage: "the command line was wrong, or there is no cache folder",
        ])
    )

    @Option(name: [.customShort("d", allowingJoined: true), .customLong("debug-files")],
            help: ArgumentHelp("A debug file, a .dSYM or .xcarchive bundle, or a directory searched recursively (repeatable).",
                               valueName: "path"),
            completion: .file())
    var debugPaths: [String] = []

    @Option(name: [.customShort("j", allowingJoined: true), .customLong("jobs")],
            help: ArgumentHelp("Debug files indexed at once (default: one per core).", valueName: "n"))
    var jobs: Int = 0

    @OptionGroup var cache: CacheOptions

    func validate() throws {
        if jobs < 0 || jobs > BatchOptions.maximumJobs {
            throw ValidationError("--jobs must be between 1 and \(BatchOptions.maximumJobs), or 0 for one per core")
        }
    }

    func run() throws {
        let diagnostics = Diagnostics()
        let environment = cache.environment()
        guard let root = System.cacheDirectory(environment: environment) else {
            diagnostics.warn("no cache folder: give --cache-dir DIR (or set SYMBOLICATE_CACHE_DIR, XDG_CACHE_HOME or HOME)")
            throw ExitCode(.usage)
        }
        let locator = DebugFileLocator(paths: debugPaths,
                                       searchPaths: DebugFileLocator.searchPaths(environment: environment),
                                       cache: IdentityCache.standard(environment: environment) { diagnostics.warn($0) },
                                       diagnostics: diagnostics)
        let files = CacheBuilder.debugFiles(of: locator)
        let store = IndexCache(directory: Path.join(root, "indexes"),
                               sharedDirectories: System.sharedCacheDirectories(environment: environment).map { Path.join($0, "indexes") },
                               sizeLimit: Int.max)
        let output = OutputWriter()
        var built = 0, present = 0, failed = 0, bytes = 0
        CacheBuilder.build(files, into: store, jobs: jobs) { result in
            switch result.outcome {
            case .built(let index):
                built += 1
                bytes += index.size
            case .present(let index):
                present += 1
                bytes += index.size
            case .failed:
                failed += 1
            }
            output.write(FileName.bytes(CacheBuilder.line(result) + "\n"))
            return !output.closed
        }
        locator.saveCache()
        let finished = output.finish(diagnostics: diagnostics)
        diagnostics.say(["\(files.count) debug file\(files.count == 1 ? "" : "s"): \(built) built, \(present) already indexed, "
                         + "\(failed) failed; \(bytes) bytes of indexes in \(store.directory)"])
        var status: ExitStatus = failed > 0 ? .reportFailed : .success
        if !locator.unusableNamedPaths.isEmpty { status = status.worse(.unusableDebugPath) }
        if !finished { status = status.worse(.outputFailed) }
        if status != .success { throw ExitCode(status) }
    }
}
