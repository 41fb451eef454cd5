import ArgumentParser
import DebugInfo
import Platform
import Symbolication

/// Where debug files come from and how frames are resolved: the options of every command that
/// symbolicates reports (`reports`, `group`), and the locator and symbolicator they make.
struct DebugFileOptions: ParsableArguments {
    @Option(name: [.customShort("d", allowingJoined: true), .customLong("debug-files")],
            help: ArgumentHelp("A debug file, a .dSYM or .xcarchive bundle, or a directory searched recursively (repeatable).",
                               valueName: "path"),
            completion: .file())
    var debugPaths: [String] = []

    @Flag(help: "Resolve again frames that already name a source file and line ('foo + 12 (File.m:42)').")
    var force = false

    @Flag(help: ArgumentHelp("Do not resolve Linux modules a log names without a build-id through the file at their path or a -d file of their name.",
                             discussion: "Without a build-id nothing shows that the file now at the path is the one that crashed; "
                                 + "by default it is used, with one line per module saying so, unless a name the log gives "
                                 + "one of the module's frames is not what the file has there: then the module is left as "
                                 + "the log has it."))
    var noModulePaths = false

    @OptionGroup(title: "Symbols from servers") var servers: ServerOptions

    /// The locator of the run's debug files (the -d paths, SYMBOLICATE_PATH, servers) and the
    /// symbolicator over it, with the caches `common` names.
    func symbolicator(common: LookupOptions, environment: [String: String],
                      diagnostics: Diagnostics) -> (locator: DebugFileLocator, symbolicator: Symbolicator) {
        let locator = DebugFileLocator(paths: debugPaths,
                                       searchPaths: DebugFileLocator.searchPaths(environment: environment),
                                       cache: common.noCache ? nil : IdentityCache.standard(environment: environment) { diagnostics.warn($0) },
                                       diagnostics: diagnostics)
        locator.servers = servers.servers(environment: environment, diagnostics: diagnostics)
        let symbolicator = Symbolicator(locator: locator, options: .init(demangle: !common.noDemangle, force: force, modulePaths: !noModulePaths),
                                        diagnostics: diagnostics,
                                        indexSource: Self.indexSource(cache: !common.noCache, environment: environment,
                                                                      diagnostics: diagnostics))
        return (locator, symbolicator)
    }

    /// Where indexes come from: the persistent index cache (built and stored on a miss), or
    /// with `--no-cache` straight from the debug file.
    static func indexSource(cache: Bool, environment: [String: String], diagnostics: Diagnostics) -> (DebugFile) throws -> SymbolIndex {
        guard cache, let store = IndexCache.standard(environment: environment) else { return SymbolIndex.build }
        return { file in try store.index(for: file) { diagnostics.warn($0) } }
    }
}
