import ArgumentParser
import Grouping
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform
import Symbolication

/// How `symbolicate group` prints the groups.
enum GroupFormat: String, CaseIterable, ExpressibleByArgument {
    case table, tsv, json
}

/// `symbolicate group [options] REPORT...`: which crashes matter. Symbolicates the reports as
/// the report command does, and prints their groups by signature instead of the reports.
struct GroupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group",
        abstract: "Group crash reports by signature: which crashes matter, how often, since when.",
        discussion: """
            Symbolicates the reports (same inputs and debug-file options as 'symbolicate \
            reports') and prints one line per group of reports with the same signature, most \
            reports first: its ID, count, share, first and last seen, exception types, app and \
            OS versions, example reports, and reports per app version and per day (JSON, \
            --html). Memory grows with the number of groups, not of reports, unless --members \
            lists every report.


            SIGNATURE
              One per report: the crash's kind and the first \(SignatureRules.depth) frames in \
            app images of the backtrace it comes from.
              - Backtrace: the Last Exception Backtrace (or Application Specific Backtrace) \
            when it has an app frame, since an uncaught exception's crashed thread only shows \
            the runtime aborting; else the crashed thread.
              - Inlined frames count as frames, so that builds that inline differently agree.
              - Frames up to a signal trampoline (_sigtramp, __restore_rt) are a crash \
            handler's own, and left out.
              - App images: not in the system's folders (/System, /usr/lib, /Library/Apple, \
            /lib, ...) and not a runtime (the Swift runtime, libc, libc++, libobjc, the dynamic \
            loader), even inside the app: their frames are where every crash passes.
              - Skipped functions, in any image: where a crash is reported rather than made \
            (abort, raise, __pthread_kill, __assert_rtn, objc_exception_throw, __cxa_throw, \
            std::terminate, _assertionFailure, fatalError, preconditionFailure, \
            swift_unexpectedError, 'Swift runtime failure: ...', Rust panics, ...).
              - Names are normalized: parameter lists, return types, template and generic \
            arguments, clone and specialization markers (.cold, .constprop.0, [clone ...], \
            'generic specialization <...> of') removed, mangled names demangled: they change \
            between builds of the same code. File and line are not used: a line added above \
            moves every crash below it.
              - A frame without a name is IMAGE+0xOFFSET, the offset from the image's start, \
            the same at every load address.
              - The kind (bad access, trap, abort, arithmetic, killed, resource, guard) comes \
            from the exception type: an abort and a bad access in one function are two bugs. \
            Classes, not exact types: one Swift trap is SIGTRAP on arm64 and SIGILL on x86_64.
              - Simulator runtime and Xcode images (iPhoneSimulator.platform, RuntimeRoot, \
            .simruntime, CoreSimulator/Volumes) are system images.
              - A destroyed stack (__stack_chk_fail, frame 0 in no image or at the faulting \
            address, 0-1 frames): the first app function below the damage, else the one pc or \
            lr points into, else the faulting address's image and offset; else 'stack \
            destroyed' and the reason.
              - No app frame: the exception type and termination reason decide (numbers of 3+ \
            digits and addresses masked), or else the first system frames.
              The group ID is the first 12 hex digits of the SHA-256 of the signature: the same \
            on every machine and in every run.


            """ + Symbolicate.exitStatus
    )

    @Option(help: "Output format: table (at most 100 columns), tsv (one line per group), or json.")
    var format: GroupFormat = .table

    @Option(help: ArgumentHelp("Also write the groups as one self-contained HTML page (a chart, each group's details and an example backtrace).",
                               valueName: "file"),
            completion: .file())
    var html: String?

    @Option(help: ArgumentHelp("Example report paths kept per group (default: 3).", valueName: "n"))
    var examples: Int = 3

    @Flag(help: ArgumentHelp("List every report in its group: a 'members' list per group in JSON, one line per report (group ID, path) in TSV, the paths under each group in the table. Memory then grows with the number of reports."))
    var members = false

    @OptionGroup var batch: BatchOptions

    @OptionGroup var common: LookupOptions

    @OptionGroup var debugFiles: DebugFileOptions

    func validate() throws {
        try batch.validate()  // again when the reports set aside are back (Symbolicate.parseAndRun)
        if examples < 1 || examples > 1000 { throw ValidationError("--examples must be between 1 and 1000") }
        if html == "" { throw ValidationError("--html needs a file name") }
        if batch.missing == "-" { throw ValidationError("--missing - would mix the list with the groups on standard output: give it a file") }
    }

    func run() throws {
        let diagnostics = Diagnostics()
        guard let inputs = batch.inputs(diagnostics: diagnostics) else { throw ExitCode(.reportFailed) }
        let environment = common.cache.environment()
        let (locator, symbolicator) = debugFiles.symbolicator(common: common, environment: environment, diagnostics: diagnostics)
        let runner = ReportRunner(symbolicator: symbolicator,
                                  options: .init(jobs: batch.jobs,
                                                 progress: !batch.quiet && System.isTerminal(STDERR_FILENO),
                                                 summary: !batch.quiet && System.isTerminal(STDERR_FILENO),
                                                 maxReportSize: batch.maxReportSize?.bytes ?? System.defaultReadLimit,
                                                 missingList: batch.missing),
                                  diagnostics: diagnostics)
        let table = GroupTable(examples: examples, members: members)
        let withExamples = html != nil
        let fullPath = common.fullPath
        let namer = SymbolicatorNamer.namer(symbolicator)
        var status = runner.summarize(inputs: inputs, { symbolicated in
            ReportFacts(symbolicated, example: withExamples, fullPath: fullPath, namer: namer)
        }, consume: { path, facts in
            table.add(facts, path: path)
        })
        locator.saveCache()

        let output = OutputWriter()
        switch format {
        case .table: output.write(GroupReport.table(table))
        case .tsv: output.write(GroupReport.tsv(table))
        case .json: output.write(GroupReport.json(table))
        }
        if !output.finish(diagnostics: diagnostics) { status = status.worse(.outputFailed) }
        if let html {
            do {
                try AtomicFile.write(GroupPage.render(table), to: html, permissionsFrom: nil, below: nil)
            } catch {
                diagnostics.warn("\(html): cannot write: \(error)")
                status = status.worse(.outputFailed)
            }
        }
        if !locator.unusableNamedPaths.isEmpty { status = status.worse(.unusableDebugPath) }
        if status != .success { throw ExitCode(status) }
    }
}

extension GroupCommand: ManyPositionalArguments {
    var positionalArguments: [String] {
        get { batch.reports }
        set { batch.reports = newValue }
    }
}
