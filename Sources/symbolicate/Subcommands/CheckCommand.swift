import ArgumentParser
import Platform
import Symbolication

/// `symbolicate check PATH...`: what each debug file found holds, and whether it can be used.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Describe the debug files found under the paths, and whether they can be used.",
        discussion: """
        Every Mach-O or ELF file found (a file, a .dSYM bundle, a folder searched recursively \
        as -d searches it) is described, one line per file or slice of a universal file, \
        tab-separated: the path; format, type, arch, id (UUID or build-id), slice (universal \
        files), dwarf (the compile units' versions), units, lines (line tables), symbols \
        (symbol table entries), compressed (zlib, zstd, zlib (.zdebug)), size (bytes); then \
        'usable', 'partly usable: WHY' or 'not usable: WHY'.


        """ + Symbolicate.exitStatusSection([
            .success: "every object found is usable, at least in part",
            .reportFailed: "some object found is not usable (damaged, stripped, a .o, ...)",
            .unusableDebugPath: "a path named gave nothing to check (missing, no object file in it)",
        ])
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Option(help: "Output format: text (one tab-separated line per object) or json.")
    var format: Format = .text

    @Option(name: [.customShort("j", allowingJoined: true), .customLong("jobs")],
            help: ArgumentHelp("Files read at once (default: one per core).", valueName: "n"))
    var jobs: Int = 0

    @Argument(help: ArgumentHelp("Debug files, .dSYM bundles or folders.", valueName: "path"), completion: .file())
    var paths: [String] = []

    func validate() throws {
        if paths.isEmpty { throw ValidationError("name a debug file, a .dSYM bundle or a folder to check") }
        if jobs < 0 || jobs > BatchOptions.maximumJobs {
            throw ValidationError("--jobs must be between 1 and \(BatchOptions.maximumJobs), or 0 for one per core")
        }
    }

    func run() throws {
        let diagnostics = Diagnostics()
        let (entries, unusable) = DebugFileCheck.check(paths: paths, jobs: jobs, diagnostics: diagnostics)
        let output = OutputWriter()
        switch format {
        case .text:
            for entry in entries where !output.closed {
                output.write(FileName.bytes(DebugFileCheck.text(entry) + "\n"))
            }
        case .json:
            var bytes: [UInt8] = []
            DebugFileCheck.renderJSON(entries, into: &bytes)
            output.write(bytes)
        }
        let someUnusable = entries.contains { if case .unusable = $0.verdict { return true } else { return false } }
        var status: ExitStatus = someUnusable ? .reportFailed : .success
        if !output.finish(diagnostics: diagnostics) { status = status.worse(.outputFailed) }
        if !unusable.isEmpty { status = status.worse(.unusableDebugPath) }
        if status != .success { throw ExitCode(status) }
    }
}

extension CheckCommand: ManyPositionalArguments {
    var positionalArguments: [String] {
        get { paths }
        set { paths = newValue }
    }
}
