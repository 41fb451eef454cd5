import ArgumentParser
import Symbolication

/// Which reports a command reads and how many at once: the options of every command that
/// goes over reports (`reports`, `group`).
struct BatchOptions: ParsableArguments {
    @Option(name: [.customShort("j", allowingJoined: true), .customLong("jobs")],
            help: ArgumentHelp("Reports symbolicated at once, 1 to \(BatchOptions.maximumJobs) (default: one per core).",
                               valueName: "n"))
    var jobs: Int = 0

    @Option(help: ArgumentHelp("The largest report read, in bytes or with K, M, G (default: 1G).", valueName: "size"))
    var maxReportSize: ByteCount?

    @Flag(name: [.customShort("q"), .customLong("quiet")],
          help: "No progress line and no summary on stderr (warnings are still printed).")
    var quiet = false

    @Option(help: ArgumentHelp("Also the report paths listed in this file, one per line (or NUL-separated, as find -print0 writes them); - for standard input.",
                               valueName: "file"),
            completion: .file())
    var reportsFrom: String?

    @Option(help: ArgumentHelp("""
        Also write the images left without a usable debug file, as CSV: debug_file, debug_id, code_file, \
        code_id, arch, frames, reports, reason; one row per image, most frames first (frames the report \
        already names do not count); - for standard output.
        """, valueName: "file"),
            completion: .file())
    var missing: String?

    @Argument(help: ArgumentHelp("Crash reports, or directories of them. Standard input when none.", valueName: "report"),
              completion: .file())
    var reports: [String] = []

    /// More would only multiply threads and buffers: reports are not that parallel.
    static let maximumJobs = 256

    func validate() throws {
        if jobs < 0 || jobs > Self.maximumJobs {
            throw ValidationError("--jobs must be between 1 and \(Self.maximumJobs), or 0 for one per core")
        }
        if missing == "" { throw ValidationError("--missing needs a file name, or - for standard output") }
        if reportsFrom == "-" && reports.contains("-") {
            throw ValidationError("--reports-from - reads the list from standard input: a report cannot come from it too")
        }
    }

    /// The reports named as arguments, then those `--reports-from` lists; nil, said on stderr,
    /// when the list cannot be read.
    func inputs(diagnostics: Diagnostics) -> [String]? {
        ReportList.inputs(reports, list: reportsFrom, diagnostics: diagnostics)
    }
}
