import CDwarf
@testable import DebugInfo
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// DWARF sections opened as a shim object, as a Mach-O slice's `__DWARF` sections are
/// (`cdw_open_sections`): for the tests and the fuzz harnesses that hand the reader sections
/// made or mutated in memory.
enum SectionObject {
    /// Opens `sections` for `body`, which must not keep the object. Each section lies in a
    /// buffer of its own, so that a read past one is caught (by AddressSanitizer in a fuzz build).
    static func withObject<T>(_ sections: [(name: String, bytes: [UInt8])], pointerSize: UInt8 = 8,
                              bigEndian: Bool = false, _ body: (OpaquePointer) throws -> T) throws -> T {
        let names = sections.map { strdup($0.name) }
        defer { names.forEach { free($0) } }
        let buffers = sections.map { section -> UnsafeMutablePointer<UInt8> in
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, section.bytes.count))
            buffer.initialize(from: section.bytes, count: section.bytes.count)
            return buffer
        }
        defer { buffers.forEach { $0.deallocate() } }
        var described = zip(zip(sections, names), buffers).map { pair, buffer in
            cdw_section(name: UnsafePointer(pair.1), data: UnsafePointer(buffer), size: UInt64(pair.0.bytes.count), address: 0)
        }
        var message = [CChar](repeating: 0, count: 512)
        var object: OpaquePointer?
        let status = cdw_open_sections(&described, UInt32(described.count), pointerSize, bigEndian ? 1 : 0,
                                       &object, &message, message.count)
        guard status == CDW_OK, let object else {
            throw DebugInfoError.corruptDWARF(path: "<sections>", reason: String(cString: message))
        }
        defer { cdw_close(object) }
        return try body(object)
    }
}
