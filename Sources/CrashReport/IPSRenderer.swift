/// Writes a symbolicated `.ips` report back as `.ips`. (Being written.)
public enum IPSRenderer {
    /// Appends the `.ips` form of `symbolicated` to `out`; reports not read from JSON `.ips`
    /// are written as text.
    public static func render(_ symbolicated: SymbolicatedReport, fullPath: Bool, into out: inout [UInt8]) {
        TextRenderer(fullPath: fullPath).render(symbolicated, into: &out)
    }
}
