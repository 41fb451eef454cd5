/// Mangled names that nest deeply, are long, or expand through back-references: a demangler
/// must print them mangled, quickly, without overflowing a worker thread's stack.
public enum HostileMangledNames {
    /// One name of each kind: Itanium back-references that double at each step, Swift
    /// nesting, a long Swift generic, deeply nested Itanium function pointers and templates,
    /// and the Rust v0 and D names of ``rust``.
    public static let all: [String] = itanium + rust

    /// Rust v0 names whose back-references double what they print at each step (a tuple of
    /// two references to the tuple before it: 30 steps print 8 GB), that hold a reference to
    /// themselves, that bind thousands of lifetimes in each of a thousand function pointers,
    /// or that nest deeply; and a D name of chained back-references.
    public static let rust: [String] = {
        // Offsets count from after "_R".
        let selfReference = "INvC1a1fTB\(base62(8))B\(base62(8))EE"
        let binders = "INvC1a1f" + String(repeating: "FG\(base62(6000))Eu", count: 1000) + "E"
        return [rustDoubling(steps: 30), "_R" + selfReference, "_R" + binders,
                "_R" + String(repeating: "INv", count: 1000) + "C1a1f" + String(repeating: "uE1g", count: 1000),
                "_D3foo" + String(repeating: "Qd", count: 3000) + "i"]
    }()

    /// `a::f::<(), ((), ()), (((), ()), ((), ())), ...>`: a v0 name of `steps` tuples, each of
    /// two back-references to the one before, so that it prints 2^steps times more than it is long.
    public static func rustDoubling(steps: Int) -> String {
        var name = "INvC1a1fu"
        var previous = name.utf8.count - 1
        for _ in 0..<steps {
            let here = name.utf8.count
            name += "TB\(base62(previous))B\(base62(previous))E"
            previous = here
        }
        return "_R" + name + "E"
    }

    /// A v0 back-reference's offset: `_` for 0, else the offset less one in base 62 and `_`.
    private static func base62(_ value: Int) -> String {
        guard value > 0 else { return "_" }
        let digits = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        var n = value - 1, text = ""
        repeat {
            text = String(digits[n % 62]) + text
            n /= 62
        } while n > 0
        return text + "_"
    }

    /// The Itanium and Swift names of ``all``.
    public static let itanium: [String] = {
        func sequence(_ i: Int) -> String {
            let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
            return i < 36 ? "S\(digits[i])_" : "S\(digits[i / 36])\(digits[i % 36])_"
        }
        var doubling = "_Z1f1AIS_S_E"
        for i in 0..<30 { doubling += "S_I\(sequence(i))\(sequence(i))E" }
        return [
            doubling,
            "$sSi" + String(repeating: "Sp", count: 600) + "D",
            "$s" + String(repeating: "Say", count: 20000) + "Si" + String(repeating: "G", count: 20000) + "D",
            "_Z1fP" + String(repeating: "FP", count: 3000) + "i" + String(repeating: "vE", count: 3000),
            "_Z1f" + String(repeating: "I1A", count: 50000) + "i" + String(repeating: "E", count: 50000),
        ]
    }()
}
