import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform
import Symbolication

/// The program: `symbolicate [SUBCOMMAND] ...`, routed by the argument parser; a command line
/// that names no subcommand is a report run (``ReportsCommand``).
@main
enum Entry {
    static func main() {
        System.reserveStandardDescriptors()
        // A reader that goes away is seen as EPIPE by each write (and kept quiet there), not
        // as a signal that kills the run.
        signal(SIGPIPE, SIG_IGN)
        TemporaryFiles.unblockStopSignals()
        // File names as the file system spells them, even when they are not UTF-8.
        Symbolicate.parseAndRun(Array(FileName.arguments.dropFirst()))
    }
}

/// The root command: it only holds the subcommands and the help that covers them all.
struct Symbolicate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "symbolicate",
        abstract: "Turn raw crash reports into readable stack traces.",
        discussion: overview + """


        'symbolicate REPORT...' symbolicates reports: it is 'symbolicate reports REPORT...', \
        whose options 'symbolicate help reports' lists.


        """ + [environment, files, exitStatus, examples].joined(separator: "\n\n"),
        version: Version.description,
        subcommands: [ReportsCommand.self, Atos.self, GroupCommand.self, CheckCommand.self, IndexCommand.self, CacheCommand.self],
        defaultSubcommand: ReportsCommand.self
    )

    /// What the tool does, for the root's and the report command's help.
    static let overview = """
        Reads Apple crash reports (.crash text, .ips JSON, MetricKit payloads, KSCrash and \
        SentryCrash JSON, PLCrashReporter .plcrash reports, stackshots, \
        spindump and sample reports), Linux crash logs (glibc backtrace_symbols, sanitizer \
        frames, Swift runtime backtraces) and Android tombstones (text, also as logcat shows them, and protobuf .pb), \
        finds each frame's binary image, matches images \
        to debug files by UUID or build-id (dSYM bundles, .xcarchive bundles, Mach-O and ELF \
        files with DWARF) and prints the report with function, file, line and inlined frames. \
        Lines that are not frames, and frames no debug file resolves, are printed exactly as \
        they came in.

        Debug files are looked for in the -d paths, then in the colon-separated \
        SYMBOLICATE_PATH. The identity (UUID, build-id) of every file found, and the \
        index built from each debug file used, are kept in the cache folder (--cache-dir or \
        $SYMBOLICATE_CACHE_DIR, else $XDG_CACHE_HOME/symbolicate, else ~/.cache/symbolicate), \
        checked against the file's size, modification time and inode, so that large folders \
        and debug files are not read again on the next run; --shared-cache reads another \
        machine's cache, built by 'symbolicate index'.
        """

    /// The exit codes every subcommand shares.
    static let exitStatus = exitStatusSection([
        .success: "every report was read and written (warnings may still be on stderr)",
        .reportFailed: """
            some report could not be read or parsed, or (atos) the object
            could not be used or an address could not be read
            """,
        .unusableDebugPath: """
            a path named with -d gave nothing to use (missing, a symbolic
            link loop, a FIFO or device, not an object file); the reports
            were still written
            """,
        .usage: "the command line was wrong",
        .outputFailed: """
            some output could not be written: standard output or an output
            file (a full disk, an I/O error, a closed descriptor; two
            reports for one output file). A reader that goes away (| head)
            is not an error.
            """,
    ], closing: "The highest code that applies is the one returned.")

    /// The subcommands whose positional arguments can be many thousands (those that are
    /// ``ManyPositionalArguments``), by name.
    static let manyPositionalSubcommands: [String: any ManyPositionalArguments.Type] = Dictionary(
        uniqueKeysWithValues: configuration.subcommands.compactMap { command in
            (command as? any ManyPositionalArguments.Type).map { (command._commandName, $0) }
        })

    /// Parses `arguments`, validates and runs the subcommand they name (the report command
    /// when they name none); exits as the parser would on an error. The positional arguments
    /// of the subcommand are set aside before parsing (see ``ManyPositionalArguments``).
    static func parseAndRun(_ arguments: [String]) {
        let first = arguments.first ?? ""
        let namesSubcommand = first == "help" || configuration.subcommands.contains { $0._commandName == first }
        do {
            // help, or a subcommand with few arguments: the parser as it is.
            guard let type = namesSubcommand ? manyPositionalSubcommands[first] : ReportsCommand.self else {
                return run(try parseAsRoot(arguments))
            }
            let (kept, positionals) = type.setAsidePositionals(Array(arguments.dropFirst(namesSubcommand ? 1 : 0)))
            var command = try parseAsRoot((namesSubcommand ? [first] : []) + kept)
            if var many = command as? any ManyPositionalArguments, !positionals.isEmpty {
                many.positionalArguments += positionals
                try many.validate()
                command = many
            }
            run(command)
        } catch {
            end(Symbolicate.self, withError: error)
        }
    }

    /// Runs `command`; an error is reported as the subcommand's (its usage line, not the root's).
    private static func run(_ command: ParsableCommand) {
        var command = command
        do {
            try command.run()
        } catch {
            end(type(of: command), withError: error)
        }
    }

    /// Ends the run as `command.exit(withError:)` does, except that the text of a clean exit
    /// (help, version) goes through an ``OutputWriter``: like any other output, when it
    /// cannot be written (a closed or full standard output) the run says so and ends with
    /// ``ExitStatus/outputFailed``; a reader that went away stays quiet.
    private static func end(_ command: any ParsableCommand.Type, withError error: Error) -> Never {
        let message = command.fullMessage(for: error, columns: nil)
        guard command.exitCode(for: error) == .success, !message.isEmpty else { command.exit(withError: error) }
        let output = OutputWriter()
        output.write(message + "\n")
        let written = output.finish(diagnostics: Diagnostics())
        let status: ExitStatus = written ? .success : .outputFailed
        #if canImport(Glibc)
        Glibc.exit(status.rawValue)
        #else
        Darwin.exit(status.rawValue)
        #endif
    }
}

extension ExitCode {
    /// The argument parser's exit with `status`: thrown by a command's `run()`, it ends the
    /// run with that status and no message.
    init(_ status: ExitStatus) {
        self.init(status.rawValue)
    }
}
