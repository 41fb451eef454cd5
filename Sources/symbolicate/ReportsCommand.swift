import ArgumentParser
import DebugInfo
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform
import Symbolication

extension OutputFormat: ExpressibleByArgument {}

/// `symbolicate [reports] [options] REPORT...`: the main job, and the default subcommand.
struct ReportsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reports",
        abstract: "Symbolicate crash reports (the default: 'symbolicate REPORT...' is 'symbolicate reports REPORT...').",
        discussion: Symbolicate.overview + """


        Reports are read from the files named, from every *.crash and *.ips file of a \
        directory, from the paths listed in --reports-from, or from standard input when none \
        is named (or with -). A report whose file is named like a subcommand (atos) is named \
        after 'reports', or as ./atos.


        """ + Symbolicate.exitStatus
    )

    @Option(name: [.customShort("d"), .customLong("debug-files")],
            help: ArgumentHelp("A debug file, a .dSYM or .xcarchive bundle, or a directory searched recursively (repeatable).",
                               valueName: "path"),
            completion: .file())
    var debugPaths: [String] = []

    @Option(help: """
        Output format: text (the report, resolved in place), json, ips (.ips reports written \
        back as .ips with symbols), metrickit (MetricKit payloads written back as JSON with \
        symbols), or frames (one tab-separated line per frame: report, thread, frame, image, \
        address, function, file:line, [inlined]).
        """)
    var format: OutputFormat = .text

    @Option(name: [.customShort("o"), .customLong("output")],
            help: ArgumentHelp("Write one symbolicated file per report into this folder, mirroring the input tree.",
                               valueName: "dir"),
            completion: .directory)
    var outputDirectory: String?

    @Flag(help: "Replace each report by its symbolicated self (atomically: a temporary file renamed over it).")
    var inPlace = false

    @Option(name: [.customShort("j"), .customLong("jobs")],
            help: ArgumentHelp("Reports symbolicated at once, 1 to \(ReportsCommand.maximumJobs) (default: one per core).",
                               valueName: "n"))
    var jobs: Int = 0

    @Option(help: ArgumentHelp("The largest report read, in bytes or with K, M, G (default: 1G).", valueName: "size"))
    var maxReportSize: ByteCount?

    /// More would only multiply threads and buffers: reports are not that parallel.
    static let maximumJobs = 256

    @Flag(name: [.customShort("q"), .customLong("quiet")],
          help: "No progress line and no summary on stderr (warnings are still printed).")
    var quiet = false

    @OptionGroup var common: LookupOptions

    @Flag(help: "Resolve again frames that already name a source file and line ('foo + 12 (File.m:42)').")
    var force = false

    @Flag(help: ArgumentHelp("Do not resolve Linux modules a log names without a build-id through the file at their path or a -d file of their name.",
                             discussion: "Without a build-id nothing shows that the file now at the path is the one that crashed; "
                                 + "by default it is used, with one line per module saying so."))
    var noModulePaths = false

    @Option(help: ArgumentHelp("Also symbolicate the report paths listed in this file, one per line (or NUL-separated, as find -print0 writes them); - for standard input.",
                               valueName: "file"),
            completion: .file())
    var reportsFrom: String?

    @Argument(help: ArgumentHelp("Crash reports, or directories of them. Standard input when none.", valueName: "report"),
              completion: .file())
    var reports: [String] = []

    /// Where indexes come from: the persistent index cache (built and stored on a miss), or
    /// with `--no-cache` straight from the debug file.
    static func indexSource(cache: Bool, environment: [String: String], diagnostics: Diagnostics) -> (DebugFile) throws -> SymbolIndex {
        guard cache, let store = IndexStore.standard(environment: environment) else { return SymbolIndex.build }
        return { file in try store.index(for: file) { diagnostics.warn($0) } }
    }

    func validate() throws {
        if inPlace && outputDirectory != nil { throw ValidationError("--in-place and --output cannot be used together") }
        if inPlace && (format == .json || format == .frames) {
            throw ValidationError("--in-place writes reports, not \(format.rawValue): use --output DIR or standard output")
        }
        if jobs < 0 || jobs > Self.maximumJobs {
            throw ValidationError("--jobs must be between 1 and \(Self.maximumJobs), or 0 for one per core")
        }
        if reportsFrom == "-" && reports.contains("-") {
            throw ValidationError("--reports-from - reads the list from standard input: a report cannot come from it too")
        }
        if (inPlace || outputDirectory != nil) && ((reports.isEmpty && reportsFrom == nil) || reports.contains("-")) {
            throw ValidationError("--in-place and --output need report files, not standard input")
        }
        if let outputDirectory, let problem = OutputFolder.problem(outputDirectory, inputs: reports) {
            throw ValidationError(problem)
        }
    }

    /// The reports named on the command line, then those `--reports-from` lists (each a
    /// path: a listed `-` is the file of that name); standard input when there are none.
    /// `nil`, said on stderr, when the list cannot be read or does not fit the output options.
    func inputs(diagnostics: Diagnostics) -> [String]? {
        guard let reportsFrom else { return reports.isEmpty ? ["-"] : reports }
        let listed: [String]
        do {
            listed = try ReportList.read(reportsFrom).map { $0 == "-" ? "./-" : $0 }
        } catch {
            diagnostics.warn("\(error)")
            return nil
        }
        if let outputDirectory, let problem = OutputFolder.problem(outputDirectory, inputs: listed) {
            diagnostics.warn(problem)
            return nil
        }
        return reports + listed
    }

    func run() throws {
        let diagnostics = Diagnostics()
        guard let inputs = inputs(diagnostics: diagnostics) else { throw ExitCode(1) }
        let environment = common.cache.environment()
        let locator = DebugFileLocator(paths: debugPaths,
                                       searchPaths: DebugFileLocator.searchPaths(environment: environment),
                                       cache: common.noCache ? nil : IdentityCache.standard(environment: environment) { diagnostics.warn($0) },
                                       diagnostics: diagnostics)
        let symbolicator = Symbolicator(locator: locator, options: .init(demangle: !common.noDemangle, force: force, modulePaths: !noModulePaths),
                                        diagnostics: diagnostics,
                                        indexSource: Self.indexSource(cache: !common.noCache, environment: environment,
                                                                      diagnostics: diagnostics))
        let runner = ReportRunner(symbolicator: symbolicator,
                                  options: .init(format: format, fullPath: common.fullPath,
                                                 destination: inPlace ? .inPlace : outputDirectory.map { .directory($0) } ?? .stream,
                                                 jobs: jobs,
                                                 progress: !quiet && System.isTerminal(STDERR_FILENO),
                                                 summary: !quiet && (System.isTerminal(STDERR_FILENO) || inputs.count > 1
                                                                     || inputs.contains(where: System.isDirectory)),
                                                 maxReportSize: maxReportSize?.bytes ?? System.defaultReadLimit),
                                  diagnostics: diagnostics)
        let output = OutputWriter()
        let status = runner.run(inputs: inputs, output: output)
        locator.saveCache()  // with the files found during the run
        for file in symbolicator.unusedExplicitFiles where !output.closed {
            diagnostics.warn("\(file.path): UUID \(file.identifier ?? "?") (\(file.architecture?.name ?? "?")) matches no image in the reports")
        }
        // A named debug path that gave nothing is a failure of its own, after the reports.
        let code = locator.unusableNamedPaths.isEmpty ? status.rawValue : max(status.rawValue, Self.unusableDebugPath)
        if code != 0 { throw ExitCode(code) }
    }

    /// The exit status when a `-d` path gave nothing to use but the reports were written.
    static let unusableDebugPath: Int32 = 2
}

extension ReportsCommand: ManyPositionalArguments {
    static let valueOptions: Set<String> = Set(["--debug-files", "--format", "--output", "--jobs", "--max-report-size",
                                                "--reports-from"]).union(CacheOptions.valueOptions)
    static let valueShortOptions: Set<Character> = ["d", "o", "j"]

    var positionalArguments: [String] {
        get { reports }
        set { reports = newValue }
    }
}
