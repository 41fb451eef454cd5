import ArgumentParser

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
