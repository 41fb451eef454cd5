import ArgumentParser

/// A command whose positional arguments (report paths, addresses) can be many thousands: the
/// argument parser takes time quadratic in their number (6.5 s for 16,000 report paths,
/// 22 s for 20,000 atos addresses), so all but the first are set aside before it parses and
/// added afterwards (``Symbolicate/parseAndRun(_:)``). The values of options are told apart
/// from positional arguments by ``ValueOptions``.
protocol ManyPositionalArguments: ParsableCommand {
    /// Where the positional arguments go.
    var positionalArguments: [String] { get set }
}

extension ManyPositionalArguments {
    /// `arguments` without the positional arguments after the first (which stays, so that
    /// the parser sees one where there is one), and those arguments in order. An argument is
    /// positional when it does not start with `-` (or is `-` alone, or follows `--`) and is
    /// not the value of an option.
    static func setAsidePositionals(_ arguments: [String]) -> (kept: [String], positionals: [String]) {
        var kept: [String] = [], positionals: [String] = []
        var sawPositional = false, takesValue = false, afterTerminator = false
        for argument in arguments {
            let isPositional: Bool
            if afterTerminator {
                isPositional = true
            } else if takesValue {
                isPositional = false
                takesValue = false
            } else if argument == "--" {
                afterTerminator = true
                isPositional = false
            } else if argument.hasPrefix("--") {
                isPositional = false
                takesValue = ValueOptions.long.contains(argument)
            } else if argument.hasPrefix("-"), argument != "-" {
                isPositional = false
                // A group of short options: a value option last takes the next argument;
                // one earlier in the group takes the rest of the group as its value.
                let letters = argument.dropFirst()
                if let value = letters.firstIndex(where: { ValueOptions.short.contains($0) }) {
                    takesValue = letters.index(after: value) == letters.endIndex
                }
            } else {
                isPositional = true
            }
            if isPositional && sawPositional {
                positionals.append(argument)
            } else {
                kept.append(argument)
                sawPositional = sawPositional || isPositional
            }
        }
        return (kept, positionals)
    }
}
