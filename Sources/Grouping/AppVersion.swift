/// An app's version as reports give it, made comparable: the trends of a group count reports
/// per version, sorted as versions (2.10 after 2.9), and a group whose reports all come from
/// the newest version is new in it.
///
/// Reports give the marketing version and the build number in either order: a classic macOS
/// report and the `.ips` text `1.2 (34)`, an iOS report and KSCrash `34 (1.2)`. The marketing
/// version is the part with a dot when only one part has one, else the first.
public enum AppVersion {
    /// The marketing version in `text`: `1.2 (34)` → `1.2`, `34 (1.2)` → `1.2`, `2.0` → `2.0`.
    public static func marketing(_ text: String) -> String {
        guard let open = text.firstIndex(of: "("), text.last == ")" else { return text }
        let first = String(text[..<open]).trimmingAll(of: " \t")
        let second = String(text[text.index(after: open)..<text.index(before: text.endIndex)]).trimmingAll(of: " \t")
        if first.isEmpty { return second }
        if second.isEmpty { return first }
        return !first.contains(".") && second.contains(".") ? second : first
    }

    /// Whether version `a` comes before `b`: numbers compared as numbers, part by part
    /// (`2.9` < `2.10` < `10.0`; `1.2` < `1.2.1`); text parts as text.
    public static func precedes(_ a: String, _ b: String) -> Bool {
        let x = parts(a), y = parts(b)
        for (p, q) in zip(x, y) where p != q {
            switch (p, q) {
            case (.number(let m), .number(let n)): return m < n
            case (.number, .text): return true
            case (.text, .number): return false
            case (.text(let s), .text(let t)): return s < t
            }
        }
        return x.count != y.count ? x.count < y.count : a < b
    }

    private enum Part: Equatable {
        case number(UInt64)
        case text(String)
    }

    private static func parts(_ version: String) -> [Part] {
        var parts: [Part] = []
        var current = ""
        var numeric = false
        func flush() {
            guard !current.isEmpty else { return }
            parts.append(numeric ? (UInt64(current).map(Part.number) ?? .text(current)) : .text(current))
            current = ""
        }
        for c in version {
            if c == "." || c == " " || c == "-" || c == "_" {
                flush()
                continue
            }
            let digit = c.isASCII && c.isNumber
            if !current.isEmpty, digit != numeric { flush() }
            numeric = digit
            current.append(c)
        }
        flush()
        return parts
    }
}
