/// How a run of `symbolicate` ends, as the process exit status: one set for every subcommand
/// (`symbolicate --help` lists them under EXIT STATUS, made from these cases; `check` and
/// `index` say what theirs mean). The small numbers are the program's own; 64 and 74 are those
/// of sysexits.h. When several apply, the highest is the one returned (``worse(_:)``).
///
/// This file imports nothing: the end-to-end tests, which run the program rather than import
/// it, compile it too (`Tests/CLITests/ExitStatus.swift` is a link to it).
public enum ExitStatus: Int32, CaseIterable, Sendable {
    /// Everything was read and written; warnings may still be on stderr.
    case success = 0
    /// Something named could not be used, and the rest was done: a report that could not be
    /// read or parsed (reports, group); the object, or an address that could not be read
    /// (atos); an object found that is not usable (check); a debug file that could not be
    /// indexed (index); a cache file that could not be removed or written (cache prune).
    case reportFailed = 1
    /// A path named with `-d` (or given to check) gave nothing to use: missing, a symbolic
    /// link loop, a FIFO or device, not an object file. The reports were still written.
    case unusableDebugPath = 2
    /// The command line was wrong, or (index, cache) there is no cache folder: EX_USAGE, which
    /// the argument parser also returns for a command line it rejects.
    case usage = 64
    /// Some output could not be written: standard output or an output file (a full disk, an
    /// I/O error, a closed descriptor, two reports for one output path); EX_IOERR. A reader
    /// that goes away (`| head`) is not an error.
    case outputFailed = 74

    /// The worse of two outcomes, the higher status: an output lost outweighs a report unread.
    public func worse(_ other: ExitStatus) -> ExitStatus { rawValue >= other.rawValue ? self : other }
}
