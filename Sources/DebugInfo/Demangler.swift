import CDwarf
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

@_silgen_name("swift_demangle")
private func _swiftDemangle(_ mangledName: UnsafePointer<CChar>?, _ mangledNameLength: Int,
                            _ outputBuffer: UnsafeMutablePointer<CChar>?,
                            _ outputBufferSize: UnsafeMutablePointer<Int>?, _ flags: UInt32) -> UnsafeMutablePointer<CChar>?

/// Turns mangled symbol names into readable ones: Swift through the Swift runtime's
/// `swift_demangle`, C++ through `__cxa_demangle`. Anything else comes back unchanged.
public enum Demangler {
    /// Whether the NUL-terminated name at `name` starts as a mangled name ``demangle(_:)``
    /// reads does (`_Z`, `$s`, `$S`, `_T0`, `$e`).
    public static func isMangled(_ name: UnsafePointer<UInt8>) -> Bool {
        switch (name[0], name[0] == 0 ? 0 : name[1]) {
        case (UInt8(ascii: "_"), UInt8(ascii: "Z")), (UInt8(ascii: "$"), UInt8(ascii: "s")),
             (UInt8(ascii: "$"), UInt8(ascii: "S")), (UInt8(ascii: "$"), UInt8(ascii: "e")):
            return true
        case (UInt8(ascii: "_"), UInt8(ascii: "T")):
            return name[2] == UInt8(ascii: "0")
        default:
            return false
        }
    }

    /// The readable form of `name`, or `name` itself when it is not a mangled name.
    public static func demangle(_ name: String) -> String {
        let demangled: String? = name.withCString { raw in
            guard isMangled(UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self)) else { return nil }
            let out = raw[0] == CChar(UInt8(ascii: "_")) && raw[1] == CChar(UInt8(ascii: "Z"))
                ? cdw_demangle_cxx(raw) : _swiftDemangle(raw, strlen(raw), nil, nil, 0)
            guard let out else { return nil }
            defer { free(out) }
            return String(cString: out)
        }
        return demangled ?? name
    }
}
