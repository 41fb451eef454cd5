import CDemangle
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
/// `swift_demangle`; C++, Rust (legacy and v0) and D through LLVM's demangler library (CDemangle),
/// with the C++ ABI's `__cxa_demangle` for C++ names LLVM cannot read. Anything else comes back
/// unchanged.
///
/// Rust names are spelled as Rust's backtraces spell them: legacy names without their hash and
/// with their escapes decoded (`<app::Circle as app::Area>::area`), v0 names as LLVM prints them
/// (`app::total::<app::Circle>`). The await and suspend resume partial functions of Swift async
/// functions are named after their function, as the Swift runtime's backtracer names them
/// (`App.load() async -> Swift.Int`, not `(1) await resume partial function for App.load() ...`).
///
/// Names come from debug files strangers made, and demanglers recurse over the name's
/// structure and expand back-references, so input and output are bounded: a name longer than
/// ``maximumMangledLength``, with more structure than ``maximumStructure`` (see
/// ``structureEstimate(_:)``), or whose back-references could expand beyond
/// ``maximumExpansionEstimate`` (C++: ``cxxExpansionEstimate(_:)``, Rust v0:
/// ``rustExpansionEstimate(_:)``) is not given to a demangler, and a result longer than
/// ``maximumDemangledLength`` is dropped. Such names are printed mangled, as the binary has them.
public enum Demangler {
    /// The longest name given to a demangler, in bytes. Real Swift and C++ names stay well below.
    public static let maximumMangledLength = 8192
    /// The most structure bytes (see ``structureEstimate(_:)``) a name given to a demangler
    /// may have: a bound on how deep it can nest, so on how deep a demangler recurses.
    public static let maximumStructure = 1024
    /// The longest demangled name kept, in bytes; back-references can make a short name expand
    /// a great deal.
    public static let maximumDemangledLength = 65536
    /// The largest ``cxxExpansionEstimate(_:)`` of a C++ name, and the largest
    /// ``rustExpansionEstimate(_:)`` of a Rust v0 name, given to a demangler.
    public static let maximumExpansionEstimate = 1 << 20

    /// Whether the NUL-terminated name at `name` starts as a mangled name ``demangle(_:)``
    /// reads does (`_Z`, `_R`, `_D` and a digit, `$s`, `$S`, `_T0`, `$e`).
    public static func isMangled(_ name: UnsafePointer<UInt8>) -> Bool {
        switch (name[0], name[0] == 0 ? 0 : name[1]) {
        case (UInt8(ascii: "_"), UInt8(ascii: "Z")), (UInt8(ascii: "_"), UInt8(ascii: "R")),
             (UInt8(ascii: "$"), UInt8(ascii: "s")), (UInt8(ascii: "$"), UInt8(ascii: "S")),
             (UInt8(ascii: "$"), UInt8(ascii: "e")):
            return true
        case (UInt8(ascii: "_"), UInt8(ascii: "T")):
            return name[2] == UInt8(ascii: "0")
        case (UInt8(ascii: "_"), UInt8(ascii: "D")):
            return name[2] &- UInt8(ascii: "0") < 10
        default:
            return false
        }
    }

    /// Whether the NUL-terminated name at `name` is a Swift mangled name (`$s`, `$S`, `$e`, `_T0`).
    static func isSwiftMangled(_ name: UnsafePointer<UInt8>) -> Bool {
        isMangled(name) && (name[0] == UInt8(ascii: "$") || name[1] == UInt8(ascii: "T"))
    }

    /// A cheap upper bound on how deep a mangled name nests: the bytes that are not inside an
    /// identifier. Both manglings spell an identifier as its decimal length and its bytes
    /// (`4main`), and every level of nesting takes at least one byte outside them.
    public static func structureEstimate(_ name: UnsafeBufferPointer<UInt8>) -> Int {
        var structure = 0
        var i = 0
        while i < name.count {
            let byte = name[i]
            guard byte &- UInt8(ascii: "0") < 10 else {
                structure += 1
                i += 1
                continue
            }
            var length = 0
            while i < name.count, name[i] &- UInt8(ascii: "0") < 10, length <= name.count {
                length = length * 10 + Int(name[i] &- UInt8(ascii: "0"))
                i += 1
            }
            // A length that runs past the end is no identifier: count what follows as structure.
            if length < name.count - i { i += length }
            structure += 1
        }
        return structure
    }

    /// An over-estimate of how long the demangled form of the C++ name `name` can be, found
    /// without parsing it: `__cxa_demangle` builds the whole result before it returns, and
    /// back-references (`S_`, `S0_`, `T_`) repeat earlier parts, so that a name of 200 bytes
    /// whose template arguments each repeat the previous one twice expands to 100 MB.
    ///
    /// Every byte counts 8 (the longest builtin types print that long), an identifier its
    /// length, and a back-reference the largest part seen so far; a part is an identifier or
    /// what a nesting (`I`, `N`, `Z`, `F` ... `E`) printed. A doubling chain then doubles the
    /// estimate at each step, while the references of real names add a bounded amount.
    public static func cxxExpansionEstimate(_ name: UnsafeBufferPointer<UInt8>) -> Int {
        var printed = 0
        var largestPart = 0
        var openings: [Int] = []
        var i = 2
        func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }
        func isSequenceDigit(_ byte: UInt8) -> Bool { isDigit(byte) || byte &- UInt8(ascii: "A") < 26 }
        while i < name.count, printed <= maximumExpansionEstimate {
            let byte = name[i]
            switch byte {
            case _ where isDigit(byte):
                var length = 0
                while i < name.count, isDigit(name[i]), length <= name.count {
                    length = length * 10 + Int(name[i] &- UInt8(ascii: "0"))
                    i += 1
                }
                i += min(length, name.count - i)
                printed += length
                largestPart = max(largestPart, length)
            case UInt8(ascii: "S"), UInt8(ascii: "T"):
                var end = i + 1
                while end < name.count, isSequenceDigit(name[end]) { end += 1 }
                if end < name.count, name[end] == UInt8(ascii: "_") {
                    printed += max(largestPart, 8)
                    i = end + 1
                } else {
                    printed += 24  // std:: abbreviations (St, Sa, Ss, ...) print at most this long
                    i += 2
                }
            case UInt8(ascii: "I"), UInt8(ascii: "N"), UInt8(ascii: "Z"), UInt8(ascii: "F"):
                openings.append(printed)
                printed += 8
                i += 1
            case UInt8(ascii: "E"):
                if let start = openings.popLast() { largestPart = max(largestPart, printed - start) }
                printed += 8
                i += 1
            default:
                printed += 8
                i += 1
            }
        }
        return printed
    }

    /// An upper bound on how long LLVM prints the Rust v0 name `name`, found by walking its
    /// grammar without printing (`cdm_rust_v0_bound`): a back-reference (`B4_`) prints again
    /// what it refers to, so that a tuple of two references to the tuple before it doubles the
    /// output, and 200 bytes print 400 MB. `Int.max` for a name LLVM would not read.
    public static func rustExpansionEstimate(_ name: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = name.baseAddress else { return .max }
        let bound = base.withMemoryRebound(to: CChar.self, capacity: name.count) { cdm_rust_v0_bound($0, name.count) }
        return bound >= UInt64(Int.max) ? .max : Int(bound)
    }

    /// Whether `name` is within the bounds a demangler is given.
    public static func isWithinBounds(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.count <= maximumMangledLength, structureEstimate(name) <= maximumStructure else { return false }
        guard name.count >= 2, name[0] == UInt8(ascii: "_") else { return true }
        switch name[1] {
        case UInt8(ascii: "Z"): return cxxExpansionEstimate(name) <= maximumExpansionEstimate
        case UInt8(ascii: "R"): return rustExpansionEstimate(name) <= maximumExpansionEstimate
        default: return true
        }
    }

    /// The readable form of `name`, or `name` itself when it is not a mangled name, is beyond
    /// the bounds, or its readable form would be too long.
    public static func demangle(_ name: String) -> String {
        var name = name
        let withinBounds = name.withUTF8 { isWithinBounds($0) }
        guard withinBounds else { return name }
        let demangled: String? = name.withCString { raw in
            let bytes = UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self)
            guard isMangled(bytes) else { return nil }
            let length = strlen(raw)
            let isSwift = isSwiftMangled(bytes)
            let out = isSwift ? _swiftDemangle(raw, length, nil, nil, 0)
                : cdm_demangle(raw, length, maximumExpansionEstimate, maximumDemangledLength)
            guard let out else { return nil }
            defer { free(out) }
            guard strnlen(out, maximumDemangledLength + 1) <= maximumDemangledLength else { return nil }
            let text = String(cString: out)
            return isSwift ? withoutPartialFunctionPrefix(text) : text
        }
        return demangled ?? name
    }

    /// `App.load() async -> Swift.Int` for `(1) await resume partial function for App.load()
    /// async -> Swift.Int`: an async function is split at each `await` into partial functions,
    /// and a crash in one of them is a crash in the function, as the Swift runtime's backtracer
    /// names it (its simplified names leave the prefix out). Suspend resume partial functions
    /// likewise.
    static func withoutPartialFunctionPrefix(_ name: String) -> String {
        guard name.utf8.first == UInt8(ascii: "(") else { return name }
        let bytes = Array(name.utf8)
        var i = 1
        while i < bytes.count, bytes[i] &- UInt8(ascii: "0") < 10 { i += 1 }
        guard i > 1 else { return name }
        for marker in [") await resume partial function for ", ") suspend resume partial function for "] {
            let marker = Array(marker.utf8)
            if bytes.count > i + marker.count, Array(bytes[i..<(i + marker.count)]) == marker {
                return String(decoding: bytes[(i + marker.count)...], as: UTF8.self)
            }
        }
        return name
    }
}
