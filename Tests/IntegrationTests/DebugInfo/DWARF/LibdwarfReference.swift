import CDwarf
import CDwarfReference
@testable import DebugInfo

/// libdwarf reading a debug file into the shape the shim's own reader gives: the independent
/// reference the reader is compared with (CDwarfReference), never part of the shipped program.
enum LibdwarfReference {
    static func read(_ file: DebugFile) throws -> RawDWARF {
        let mapped = try MappedFile(path: file.path)
        let layout = try ObjectLayout(file, in: mapped)
        return try DWARFReader.withObject(file, layout: layout, in: mapped) { object in
            var result = cdw_result()
            var message = [CChar](repeating: 0, count: 512)
            let status = cdwref_read(object, &result, &message, message.count)
            defer { cdw_result_free(&result) }
            guard status == CDW_OK || status == CDW_PARTIAL else {
                throw DebugInfoError.corruptDWARF(path: file.path, reason: String(cString: message))
            }
            return DWARFReader.raw(of: result, problem: status == CDW_PARTIAL ? String(cString: message) : nil)
        }
    }
}
