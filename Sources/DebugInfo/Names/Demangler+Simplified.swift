import CDemangle
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The demangler the Swift runtime's own backtracer names frames with: Swift names in the
// simplified form (`crash(_:)`, `closure #1 in Box.run(_:)`, `specialized Array.subscript.getter`)
// and C++ names through the C++ ABI, as `swift-backtrace` prints them with `symbolicate=full`.
// libswiftCore exports it, static and shared alike.
@_silgen_name("_swift_backtrace_demangle")
private func _swiftBacktraceDemangle(_ mangledName: UnsafePointer<CChar>?, _ mangledNameLength: Int,
                                     _ outputBuffer: UnsafeMutablePointer<CChar>?,
                                     _ outputBufferSize: UnsafeMutablePointer<Int>?) -> UnsafeMutablePointer<CChar>?

/// How a demangled name is spelled.
public enum NameStyle: Sendable, Hashable {
    /// Every detail, as `swift demangle` and llvm-symbolizer print it:
    /// `c.crash(Swift.Array<Swift.Int>) -> Swift.Int`.
    case full
    /// As the Swift runtime's backtracer prints it: `crash(_:)`, without module, types or
    /// generic arguments.
    case simplified
}

extension Demangler {
    /// The readable form of `name` in `style`, or `name` itself when it is not a mangled name,
    /// is beyond the bounds (``isWithinBounds(_:)``), or its readable form would be too long.
    ///
    /// In the simplified style, Swift and C++ names are spelled by the runtime's backtracer
    /// (C++ through the C++ ABI's demangler); Rust and D names, which it leaves mangled, as in
    /// the full style.
    public static func demangle(_ name: String, style: NameStyle) -> String {
        guard style == .simplified else { return demangle(name) }
        var name = name
        let withinBounds = name.withUTF8 { isWithinBounds($0) }
        guard withinBounds else { return name }
        let isBacktracers = name.withCString { raw in
            isSwiftMangled(UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self)) || cdm_scheme_of(raw, strlen(raw)) == CDM_ITANIUM
        }
        guard isBacktracers else { return demangle(name) }
        let demangled: String? = name.withCString { raw in
            guard let out = _swiftBacktraceDemangle(raw, strlen(raw), nil, nil) else { return nil }
            defer { free(out) }
            guard strnlen(out, maximumDemangledLength + 1) <= maximumDemangledLength else { return nil }
            return String(cString: out)
        }
        return demangled ?? name
    }
}
