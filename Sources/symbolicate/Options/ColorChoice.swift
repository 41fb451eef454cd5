import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// `--color`: whether text output marks what matters with terminal escape sequences — the
/// lines of the app's resolved frames in bold, the summary's problems in red.
enum ColorChoice: String, CaseIterable, ExpressibleByArgument {
    /// When the output is a terminal, `NO_COLOR` is not set (or empty) and `TERM` is not `dumb`.
    case auto
    /// Always, also into a pipe (`| less -R`) and whatever `NO_COLOR` says.
    case always
    /// Never.
    case never

    /// Whether output to descriptor `fd` is marked: for `auto`, when it is a terminal and
    /// neither `NO_COLOR` (any non-empty value, as no-color.org has it) nor `TERM=dumb` asks for
    /// plain text. An explicit `--color=always` wins over `NO_COLOR`, as a command-line option
    /// wins over the environment.
    func marks(_ fd: Int32, environment: [String: String]) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto:
            if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
            if environment["TERM"] == "dumb" { return false }
            return System.isTerminal(fd)
        }
    }
}
