/// Mangled names that nest deeply, are long, or expand through back-references: a demangler
/// must print them mangled, quickly, without overflowing a worker thread's stack.
public enum HostileMangledNames {
    /// One name of each kind: Itanium back-references that double at each step, Swift
    /// nesting, a long Swift generic, deeply nested Itanium function pointers and templates.
    public static let all: [String] = {
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
