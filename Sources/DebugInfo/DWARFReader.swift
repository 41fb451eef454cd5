import CDwarf
import Foundation

/// The result of one pass over a debug file's DWARF, as flat arrays (see CDwarf.h).
struct RawDWARF {
    var functions: [cdw_function]
    var ranges: [cdw_range]
    var rows: [cdw_row]
    var files: [UInt32]
    var strings: [UInt8]
    /// Set when some compile units could not be read: the first problem met.
    var problem: String?
}

/// Hands a debug file's DWARF sections to the C shim and collects what it reads.
enum DWARFReader {
    /// Reads the DWARF of `file` (one slice of `mapped`, laid out as `layout` says).
    static func read(_ file: DebugFile, layout: ObjectLayout, in mapped: MappedFile) throws -> RawDWARF {
        var message = [CChar](repeating: 0, count: 512)
        var object: OpaquePointer?
        let status: Int32
        switch layout {
        case .elf:
            status = cdw_open_elf(mapped.bytes.baseAddress, mapped.bytes.count, &object, &message, message.count)
        case .machO(let slice):
            let base = mapped.bytes.baseAddress!.advanced(by: file.sliceOffset)
            // Names must outlive the shim's handle: keep them in one buffer for the call.
            let dwarf = slice.sections.filter { $0.segment == "__DWARF" && $0.offset + $0.size <= UInt64(file.sliceSize) }
            let names = dwarf.map { strdup(elfSectionName(forMachO: $0.name)) }
            defer { names.forEach { free($0) } }
            var sections = zip(dwarf, names).map { section, name in
                cdw_section(name: UnsafePointer(name),
                            data: base.advanced(by: Int(section.offset)).assumingMemoryBound(to: UInt8.self),
                            size: section.size, address: section.address)
            }
            status = cdw_open_sections(&sections, UInt32(sections.count), slice.is64Bit ? 8 : 4, 0, &object,
                                       &message, message.count)
            if status == CDW_OK, let object { return try collect(object, file: file) }
        }
        if status == CDW_NO_DWARF { throw DebugInfoError.noDWARF(path: file.path) }
        guard status == CDW_OK, let object else {
            throw DebugInfoError.corruptDWARF(path: file.path, reason: String(cString: message))
        }
        return try collect(object, file: file)
    }

    private static func collect(_ object: OpaquePointer, file: DebugFile) throws -> RawDWARF {
        defer { cdw_close(object) }
        var message = [CChar](repeating: 0, count: 512)
        var result = cdw_result()
        let status = cdw_read(object, &result, &message, message.count)
        defer { cdw_result_free(&result) }
        guard status == CDW_OK || status == CDW_PARTIAL else {
            throw DebugInfoError.corruptDWARF(path: file.path, reason: String(cString: message))
        }
        func array<T>(_ pointer: UnsafeMutablePointer<T>?, _ count: UInt64) -> [T] {
            guard let pointer, count > 0 else { return [] }
            return Array(UnsafeBufferPointer(start: pointer, count: Int(count)))
        }
        return RawDWARF(
            functions: array(result.functions, result.function_count),
            ranges: array(result.ranges, result.range_count),
            rows: array(result.rows, result.row_count),
            files: array(result.files, result.file_count),
            strings: result.strings.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(result.strings_size))) } ?? [0],
            problem: status == CDW_PARTIAL ? String(cString: message) : nil)
    }

    /// Mach-O section names are at most 16 bytes: `__debug_str_offs` is `.debug_str_offsets`.
    static func elfSectionName(forMachO name: String) -> String {
        let spelled = name == "__debug_str_offs" ? "__debug_str_offsets" : name
        return spelled.hasPrefix("__") ? "." + spelled.dropFirst(2) : spelled
    }
}
