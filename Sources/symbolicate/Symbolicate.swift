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

/// `symbolicate atos ...` goes to ``Atos``; anything else is a report run. (A command with
/// positional arguments cannot also route subcommands through the argument parser.)
@main
enum Entry {
    static func main() {
        System.reserveStandardDescriptors()
        TemporaryFiles.unblockStopSignals()
        // File names as the file system spells them, even when they are not UTF-8.
        let arguments = Array(FileName.arguments.dropFirst())
        if arguments.first == "atos" {
            Atos.parseAndRun(Array(arguments.dropFirst()))
        } else if arguments == ["help", "atos"] {
            Atos.main(["--help"])
        } else {
            Symbolicate.parseAndRun(arguments)
        }
    }
}

extension Symbolicate: ManyPositionalArguments {
    static let valueOptions: Set<String> = ["--debug-files", "--format", "--output", "--jobs", "--max-report-size"]
    static let valueShortOptions: Set<Character> = ["d", "o", "j"]

    var positionalArguments: [String] {
        get { reports }
        set { reports = newValue }
    }
}

/// A number of bytes on the command line: `1048576`, `512K`, `100M`, `1G`.
struct ByteCount: ExpressibleByArgument {
    var bytes: Int

    init?(argument: String) {
        let units: [Character: Int] = ["K": 10, "M": 20, "G": 30, "k": 10, "m": 20, "g": 30]
        var digits = Substring(argument), shift = 0
        if let last = digits.last, let unit = units[last] {
            shift = unit
            digits = digits.dropLast()
        }
        // Up to 1 TiB: a limit, not a way to overflow.
        guard let value = Int(digits), value >= 1, value <= (1 << 40) >> shift else { return nil }
        bytes = value << shift
    }
}

struct Symbolicate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "symbolicate",
        abstract: "Turn raw crash reports into readable stack traces.",
        discussion: """
        Reads Apple crash reports (.crash text, .ips JSON) and Linux crash logs (glibc \
        backtrace_symbols, sanitizer frames), finds each frame's binary image, matches images \
        to debug files by UUID or build-id (dSYM bundles, .xcarchive bundles, Mach-O and ELF \
        files with DWARF) and prints the report with function, file, line and inlined frames. \
        Lines that are not frames, and frames no debug file resolves, are printed exactly as \
        they came in.

        Debug files are looked for in the -d paths, then in the colon-separated \
        SYMBOLICATE_PATH. The identity (UUID, build-id) of every file found, and the \
        index built from each debug file used, are kept in $XDG_CACHE_HOME/symbolicate \
        (else ~/.cache/symbolicate), checked against the file's size, modification time \
        and inode, so that large folders and debug files are not read again on the next run.

        Reports are read from the files named, from every *.crash and *.ips file of a \
        directory, or from standard input when none is named (or with -).

        To look up single addresses the way Apple's atos does, see 'symbolicate atos --help'.

        EXIT STATUS
          0   every report was read and written (warnings may still be on stderr)
          1   some report could not be read or parsed, or (atos) the object could not be
              used or an address could not be read
          2   a path named with -d gave nothing to use (missing, a symbolic link loop, a
              FIFO or device, not an object file); the reports were still written
          64  the command line was wrong
          74  some output could not be written: standard output or an output file (a full
              disk, an I/O error, a closed descriptor; two reports for one output file).
              A reader that goes away (| head) is not an error.
          The highest code that applies is the one returned.
        """
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
            help: ArgumentHelp("Reports symbolicated at once, 1 to \(Symbolicate.maximumJobs) (default: one per core).",
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

    @Argument(help: ArgumentHelp("Crash reports, or directories of them. Standard input when none.", valueName: "report"),
              completion: .file())
    var reports: [String] = []

    /// Where indexes come from: the persistent index cache (built and stored on a miss), or
    /// with `--no-cache` straight from the debug file.
    static func indexSource(cache: Bool, diagnostics: Diagnostics) -> (DebugFile) throws -> SymbolIndex {
        guard cache, let store = IndexStore.standard(environment: System.environment) else { return SymbolIndex.build }
        return { file in try store.index(for: file) { diagnostics.warn($0) } }
    }

    func validate() throws {
        if inPlace && outputDirectory != nil { throw ValidationError("--in-place and --output cannot be used together") }
        if inPlace && (format == .json || format == .frames) {
            throw ValidationError("--in-place writes reports, not \(format.rawValue): use --output DIR or standard output")
        }
        if (inPlace || outputDirectory != nil) && (reports.isEmpty || reports.contains("-")) {
            throw ValidationError("--in-place and --output need report files, not standard input")
        }
        if jobs < 0 || jobs > Self.maximumJobs {
            throw ValidationError("--jobs must be between 1 and \(Self.maximumJobs), or 0 for one per core")
        }
        if let outputDirectory, let problem = OutputFolder.problem(outputDirectory, inputs: reports) {
            throw ValidationError(problem)
        }
    }

    func run() throws {
        let diagnostics = Diagnostics()
        let environment = System.environment
        let locator = DebugFileLocator(paths: debugPaths,
                                       searchPaths: DebugFileLocator.searchPaths(environment: environment),
                                       cache: common.noCache ? nil : IdentityCache.standard(environment: environment) { diagnostics.warn($0) },
                                       diagnostics: diagnostics)
        let symbolicator = Symbolicator(locator: locator, options: .init(demangle: !common.noDemangle, force: force, modulePaths: !noModulePaths),
                                        diagnostics: diagnostics,
                                        indexSource: Self.indexSource(cache: !common.noCache, diagnostics: diagnostics))
        let runner = ReportRunner(symbolicator: symbolicator,
                                  options: .init(format: format, fullPath: common.fullPath,
                                                 destination: inPlace ? .inPlace : outputDirectory.map { .directory($0) } ?? .stream,
                                                 jobs: jobs,
                                                 progress: !quiet && System.isTerminal(STDERR_FILENO),
                                                 summary: !quiet && (System.isTerminal(STDERR_FILENO) || reports.count > 1
                                                                     || reports.contains(where: System.isDirectory)),
                                                 maxReportSize: maxReportSize?.bytes ?? System.defaultReadLimit),
                                  diagnostics: diagnostics)
        let output = OutputWriter()
        let status = runner.run(inputs: reports.isEmpty ? ["-"] : reports, output: output)
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
