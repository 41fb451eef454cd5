import CDemangle
@testable import DebugInfo
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the demangler fuzz target (Fuzz/demangle.swift) does with one input, shared with the
/// test that replays the inputs it found (Tests/FuzzRegressions/demangle): the bytes, up to a
/// NUL, are a symbol name, demangled in both styles; the function returns the promises the
/// results break (empty when none).
enum DemanglerFuzzChecks {
    /// Names at most this long are also given to LLVM's Rust demangler with no bound, to check
    /// the bound against what it prints: too short to print more than a few megabytes.
    static let unboundedLength = 80

    static func demangle(_ bytes: [UInt8]) -> [String] {
        let name = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        var broken: [String] = []
        var copy = name
        let withinBounds = copy.withUTF8 { Demangler.isWithinBounds($0) }
        for style in [NameStyle.full, .simplified] {
            let readable = Demangler.demangle(name, style: style)
            if readable.utf8.count > Demangler.maximumDemangledLength {
                broken.append("\(style): \(readable.utf8.count) bytes, more than the \(Demangler.maximumDemangledLength) allowed")
            }
            if !withinBounds && readable != name { broken.append("\(style): a name beyond the bounds was demangled") }
        }
        if name.hasPrefix("_R"), name.utf8.count <= unboundedLength {
            let bound = cdm_rust_v0_bound(name, name.utf8.count)
            if let out = cdm_rust_v0_demangle_unbounded(name, name.utf8.count) {
                if bound == UInt64.max {
                    broken.append("a v0 name LLVM prints is refused by the bound")
                } else if bound < UInt64(strlen(out)) {
                    broken.append("the v0 bound \(bound) is less than the \(strlen(out)) bytes LLVM prints")
                }
                free(out)
            }
        }
        if cdm_scheme_of(name, name.utf8.count) == CDM_RUST_LEGACY, let out = cdm_demangle(name, name.utf8.count, 0, 1 << 20) {
            // Each identifier of a legacy name takes at least two bytes (its length and itself)
            // and prints with at most one more (`1a1b` is `a::b`); escapes print shorter; a
            // suffix gains " ()". So it prints at most half as long again as it is, and 3.
            if strlen(out) > name.utf8.count + name.utf8.count / 2 + 3 {
                broken.append("a legacy name prints longer than its identifiers allow")
            }
            free(out)
        }
        return broken
    }
}
