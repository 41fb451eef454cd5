/// The options that take a value (the next argument, unless it is attached: `--format=json`,
/// `-j4`) in the commands whose positional arguments are set aside before the argument parser
/// (``ManyPositionalArguments``): the one list of them, for all those commands at once.
///
/// The argument parser knows them from the declarations, but the only way to ask it
/// (`_dumpHelp()`, the description `--experimental-dump-help` prints) costs every run about
/// 1.2 ms of processor time, a tenth to a fifth of a small run. So they are listed here, and
/// the end-to-end tests check the list against the parser's description
/// (`ErrorTests.testTheOptionsTakingAValueAreKnown`): every option of those commands that
/// takes a value is here, nothing else is, and no flag of theirs has a name that is. This file
/// imports nothing: the tests compile it too (`Tests/CLITests/ValueOptions.swift` is a link
/// to it).
enum ValueOptions {
    /// Long names, with their dashes.
    static let long: Set<String> = [
        "--arch", "--cache-dir", "--color", "--debug-files", "--debuginfod", "--examples", "--format", "--html",
        "--jobs", "--max-download-size", "--max-report-size", "--missing", "--output", "--reports-from", "--server-timeout",
        "--shared-cache", "--symbol-server",
    ]
    /// Short names.
    static let short: Set<Character> = ["d", "j", "l", "o"]
}
