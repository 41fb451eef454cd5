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
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "atos" {
            Atos.main(Array(arguments.dropFirst()))
        } else if arguments == ["help", "atos"] {
            Atos.main(["--help"])
        } else {
            Symbolicate.run(arguments)
        }
    }
}

extension Symbolicate {
    /// The options that take a value (the next argument, when not attached), long and short.
    static let valueOptions: Set<String> = ["--debug-files", "--format", "--output", "--jobs"]
    static let valueShortOptions: Set<Character> = ["d", "o", "j"]

    /// Parses `arguments` and runs. Report paths after the first are set aside before the
    /// argument parser sees them and added afterwards: it takes time quadratic in the number
    /// of positional arguments (6.5 s for `symbolicate crashes/*.crash` over 16,000 files).
    static func run(_ arguments: [String]) {
        let (kept, reports) = setAsideReports(arguments)
        do {
            guard var command = try parseAsRoot(kept) as? Symbolicate else {
                return Symbolicate.main(arguments)  // --help, --version: as the parser answers them
            }
            command.reports += reports
            try command.validate()
            try command.run()
        } catch {
            exit(withError: error)
        }
    }

    /// `arguments` without the report paths after the first (which stays, so that the parser
    /// sees a report where there is one), and those paths in order. An argument is a report
    /// path when it does not start with `-` (or is `-` alone, or follows `--`) and is not the
    /// value of an option.
    static func setAsideReports(_ arguments: [String]) -> (kept: [String], reports: [String]) {
        var kept: [String] = [], reports: [String] = []
        var sawReport = false, takesValue = false, afterTerminator = false
        for argument in arguments {
            let isReport: Bool
            if afterTerminator {
                isReport = true
            } else if takesValue {
                isReport = false
                takesValue = false
            } else if argument == "--" {
                afterTerminator = true
                isReport = false
            } else if argument.hasPrefix("--") {
                isReport = false
                takesValue = valueOptions.contains(argument)
            } else if argument.hasPrefix("-"), argument != "-" {
                isReport = false
                // A group of short options: a value option last takes the next argument;
                // one earlier in the group takes the rest of the group as its value.
                let letters = argument.dropFirst()
                if let value = letters.firstIndex(where: { valueShortOptions.contains($0) }) {
                    takesValue = letters.index(after: value) == letters.endIndex
                }
            } else {
                isReport = true
            }
            if isReport && sawReport {
                reports.append(argument)
            } else {
                kept.append(argument)
                sawReport = sawReport || isReport
            }
        }
        return (kept, reports)
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
          1   some report could not be read or parsed, or (atos) the object could not be used
          64  the command line was wrong
        """
    )

    @Option(name: [.customShort("d"), .customLong("debug-files")],
            help: ArgumentHelp("A debug file, a .dSYM or .xcarchive bundle, or a directory searched recursively (repeatable).",
                               valueName: "path"),
            completion: .file())
    var debugPaths: [String] = []

    @Option(help: """
        Output format: text (the report, resolved in place), json, ips (.ips reports written \
        back as .ips with symbols), or frames (one tab-separated line per frame: report, \
        thread, frame, image, address, function, file:line, [inlined]).
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
            help: ArgumentHelp("Reports symbolicated at once (default: one per core).", valueName: "n"))
    var jobs: Int = 0

    @Flag(name: [.customShort("q"), .customLong("quiet")],
          help: "No progress line and no summary on stderr (warnings are still printed).")
    var quiet = false

    @OptionGroup var common: LookupOptions

    @Flag(help: "Resolve again frames that already name a source file and line ('foo + 12 (File.m:42)').")
    var force = false

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
        if jobs < 0 { throw ValidationError("--jobs must be 0 (one per core) or more") }
    }

    func run() throws {
        let diagnostics = Diagnostics()
        let environment = System.environment
        let locator = DebugFileLocator(paths: debugPaths,
                                       searchPaths: DebugFileLocator.searchPaths(environment: environment),
                                       cache: common.noCache ? nil : IdentityCache.standard(environment: environment) { diagnostics.warn($0) },
                                       diagnostics: diagnostics)
        let symbolicator = Symbolicator(locator: locator, options: .init(demangle: !common.noDemangle, force: force),
                                        diagnostics: diagnostics,
                                        indexSource: Self.indexSource(cache: !common.noCache, diagnostics: diagnostics))
        let runner = ReportRunner(symbolicator: symbolicator,
                                  options: .init(format: format, fullPath: common.fullPath,
                                                 destination: inPlace ? .inPlace : outputDirectory.map { .directory($0) } ?? .stream,
                                                 jobs: jobs,
                                                 progress: !quiet && System.isTerminal(STDERR_FILENO),
                                                 summary: !quiet && (System.isTerminal(STDERR_FILENO) || reports.count > 1
                                                                     || reports.contains(where: System.isDirectory))),
                                  diagnostics: diagnostics)
        let output = OutputWriter()
        let status = runner.run(inputs: reports.isEmpty ? ["-"] : reports, output: output)
        locator.saveCache()  // with the files found during the run
        for file in symbolicator.unusedExplicitFiles where !output.closed {
            diagnostics.warn("\(file.path): UUID \(file.identifier ?? "?") (\(file.architecture?.name ?? "?")) matches no image in the reports")
        }
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
