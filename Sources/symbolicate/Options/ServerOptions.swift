import ArgumentParser
import Platform
import Symbolication

/// Where debug files that nothing local matches are fetched from: symbol servers and
/// debuginfod servers. Nothing is fetched, and no socket opened, unless one is named here or
/// in `DEBUGINFOD_URLS`.
struct ServerOptions: ParsableArguments {
    @Option(name: .customLong("symbol-server"),
            help: ArgumentHelp("A symbol server to fetch debug files from by UUID or build-id: file://, http:// or https://, "
                               + "with #unified (the default), #lldb or #gdb for its layout (repeatable, asked in order).",
                               valueName: "url[#layout]"))
    var symbolServerArguments: [String] = []

    @Option(name: .customLong("debuginfod"),
            help: ArgumentHelp("A debuginfod server to fetch ELF debug files from by build-id (repeatable; replaces DEBUGINFOD_URLS).",
                               valueName: "url"))
    var debuginfodURLs: [String] = []

    @Option(help: ArgumentHelp("The largest file downloaded from a symbol server, and the most a compressed one may inflate to, "
                               + "in bytes or with K, M, G (default: 4G).",
                               valueName: "size"))
    var maxDownloadSize: ByteCount?

    @Option(help: ArgumentHelp("Seconds to connect to a symbol server, and to wait for its next byte (default: \(DebugFileServers.defaultTimeout)).",
                               valueName: "seconds"))
    var serverTimeout: Int = DebugFileServers.defaultTimeout

    func validate() throws {
        for argument in symbolServerArguments {
            do {
                _ = try SymbolServer(parsing: argument)
            } catch {
                throw ValidationError("--symbol-server \(error)")
            }
        }
        for url in debuginfodURLs where !(url.hasPrefix("http://") || url.hasPrefix("https://") || url.hasPrefix("file://")) {
            throw ValidationError("--debuginfod \(url): not an http://, https:// or file:// URL")
        }
        if serverTimeout < 1 || serverTimeout > 3600 {
            throw ValidationError("--server-timeout must be between 1 and 3600 seconds")
        }
    }

    /// The servers to ask, or nil when none is configured. `--debuginfod` URLs are put in
    /// `DEBUGINFOD_URLS` for libdebuginfod: this is to be called before any thread starts.
    func servers(environment: [String: String], diagnostics: Diagnostics) -> DebugFileServers? {
        if !debuginfodURLs.isEmpty { DebuginfodClient.use(urls: debuginfodURLs) }
        let debuginfod = !debuginfodURLs.isEmpty || !DebuginfodClient.urls(environment: environment).isEmpty
        let symbolServers = symbolServerArguments.compactMap { try? SymbolServer(parsing: $0) }
        let folder = System.cacheDirectory(environment: environment).map { Path.join($0, "downloads") }
        return DebugFileServers(options: .init(symbolServers: symbolServers, debuginfod: debuginfod, downloadFolder: folder,
                                               maxDownloadSize: maxDownloadSize?.bytes ?? DebugFileServers.defaultMaxDownloadSize,
                                               timeout: serverTimeout),
                                diagnostics: diagnostics)
    }
}
