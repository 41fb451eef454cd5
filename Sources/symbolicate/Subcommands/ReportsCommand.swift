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


        Reports are read from the files named, from every *.crash, *.ips and tombstone_NN file of a \
        directory, from the paths listed in --reports-from, or from standard input when none \
        is named (or with -). A report whose file is named like a subcommand (atos) is named \
        after 'reports', or as ./atos.


        """ + Symbolicate.exitStatus
    )

    @Option(help: """
        Output format: text (the report, resolved in place), json, ips (.ips reports written \
        back as .ips with symbols), metrickit (MetricKit payloads written back as JSON with \
        symbols), kscrash (KSCrash reports written back as JSON with symbols), or frames (one \
        tab-separated line per frame: report, thread, frame, image, address, function, \
        file:line, [inlined]).
        """)
    var format: OutputFormat = .text

    @Option(name: [.customShort("o", allowingJoined: true), .customLong("output")],
            help: ArgumentHelp("Write one symbolicated file per report into this folder, mirroring the input tree.",
                               valueName: "dir"),
            completion: .directory)
    var outputDirectory: String?

    @Flag(help: "Replace each report by its symbolicated self (atomically: a temporary file renamed over it).")
    var inPlace = false

    @Flag(help: """
        With --output: symbolicate only the reports whose output is missing or older than the report, \
        or that had images without a debug file which the debug files given now cover; every other \
        output is left as it is. What this needs is kept in DIR/.symbolicate-update.
        """)
    var update = false

    @OptionGroup var batch: BatchOptions

    @Option(help: ArgumentHelp("""
        Mark the lines of frames resolved in the app's images in bold, and the summary's problems \
        in red; auto: when the output is a terminal and NO_COLOR is not set. Files written with \
        -o or --in-place are never marked.
        """, valueName: "when"))
    var color: ColorChoice = .auto

    @OptionGroup var common: LookupOptions

    @OptionGroup var debugFiles: DebugFileOptions

    func validate() throws {
        try batch.validate()  // again when the reports set aside are back (Symbolicate.parseAndRun)
        if inPlace && outputDirectory != nil { throw ValidationError("--in-place and --output cannot be used together") }
        if inPlace && (format == .json || format == .frames) {
            throw ValidationError("--in-place writes reports, not \(format.rawValue): use --output DIR or standard output")
        }
        if (inPlace || outputDirectory != nil) && ((batch.reports.isEmpty && batch.reportsFrom == nil) || batch.reports.contains("-")) {
            throw ValidationError("--in-place and --output need report files, not standard input")
        }
        if update && outputDirectory == nil { throw ValidationError("--update needs --output DIR, the folder of the outputs to bring up to date") }
        if batch.missing == "-" && !inPlace && outputDirectory == nil {
            throw ValidationError("--missing - writes to standard output, where the reports go: write them with --output DIR or --in-place, or give --missing a file")
        }
        if let outputDirectory, let problem = OutputFolder.problem(outputDirectory, inputs: batch.reports) {
            throw ValidationError(problem)
        }
    }

    /// The reports named on the command line, then those `--reports-from` lists; nil, said on
    /// stderr, when the list cannot be read or names a report under the output folder.
    func inputs(diagnostics: Diagnostics) -> [String]? {
        guard let inputs = batch.inputs(diagnostics: diagnostics) else { return nil }
        if batch.reportsFrom != nil, let outputDirectory, let problem = OutputFolder.problem(outputDirectory, inputs: inputs) {
            diagnostics.warn(problem)
            return nil
        }
        return inputs
    }

    func run() throws {
        let diagnostics = Diagnostics()
        guard let inputs = inputs(diagnostics: diagnostics) else { throw ExitCode(.reportFailed) }
        let environment = common.cache.environment()
        let (locator, symbolicator) = debugFiles.symbolicator(common: common, environment: environment, diagnostics: diagnostics)
        let runner = ReportRunner(symbolicator: symbolicator,
                                  options: .init(format: format, fullPath: common.fullPath,
                                                 destination: inPlace ? .inPlace : outputDirectory.map { .directory($0) } ?? .stream,
                                                 jobs: batch.jobs,
                                                 progress: !batch.quiet && System.isTerminal(STDERR_FILENO),
                                                 summary: !batch.quiet && (System.isTerminal(STDERR_FILENO) || inputs.count > 1
                                                                     || inputs.contains(where: System.isDirectory)),
                                                 maxReportSize: batch.maxReportSize?.bytes ?? System.defaultReadLimit,
                                                 markFrames: format == .text && color.marks(STDOUT_FILENO, environment: environment),
                                                 markSummary: color.marks(STDERR_FILENO, environment: environment),
                                                 missingList: batch.missing, update: update,
                                                 updateSignature: [Version.description, format.rawValue, common.fullPath ? "full-path" : "",
                                                                   common.noDemangle ? "no-demangle" : ""].filter { !$0.isEmpty }
                                                     .joined(separator: " ")),
                                  diagnostics: diagnostics)
        let output = OutputWriter()
        var status = runner.run(inputs: inputs, output: output)
        locator.saveCache()  // with the files found during the run
        for file in symbolicator.unusedExplicitFiles where !output.closed {
            diagnostics.warn("\(file.path): UUID \(file.identifier ?? "?") (\(file.architecture?.name ?? "?")) matches no image in the reports")
        }
        // A named debug path that gave nothing is a failure of its own, after the reports.
        if !locator.unusableNamedPaths.isEmpty { status = status.worse(.unusableDebugPath) }
        if status != .success { throw ExitCode(status) }
    }
}

extension ReportsCommand: ManyPositionalArguments {
    var positionalArguments: [String] {
        get { batch.reports }
        set { batch.reports = newValue }
    }
}
