import CDwarf
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The result of one pass over a debug file's DWARF, as flat arrays (see CDwarf.h).
struct RawDWARF {
    var functions: [cdw_function]
    /// In memory of its own, which the index takes over for its address ranges.
    var ranges: FlatArray<cdw_range>
    /// In memory of its own, which the index takes over for its line rows.
    var rows: FlatArray<cdw_row>
    /// Per entry of `cdw_result.files`, the offset in `strings` of its path, joined as
    /// llvm-symbolizer joins it (``SourcePath``); 0 for placeholders.
    var files: [UInt32]
    var strings: [UInt8]
    /// Set when some compile units could not be read: the first problem met.
    var problem: String?
}

/// Hands a debug file's DWARF sections to the C shim and collects what it reads.
enum DWARFReader {
    /// How the shim reads (see `cdw_read_options`); the result is the same either way.
    struct Options {
        /// Threads reading units at once; 0: one per core (one for small files).
        var threads: UInt32 = 0
        /// Let the shim release the mapped file's pages once read (``cdw_allow_page_release``).
        var releasePages = true
        /// Bytes released at a time (0: the shim's default); small ones are for tests.
        var releaseStep = 0
        /// Keep the rows and function entries no lookup can use, which the shim otherwise
        /// leaves out (`keep_unused`); for tests, which compare both.
        var keepUnused = false

        static let standard = Options()
    }

    /// Reads the DWARF of `file` (one slice of `mapped`, laid out as `layout` says).
    static func read(_ file: DebugFile, layout: ObjectLayout, in mapped: MappedFile,
                     options: Options = .standard) throws -> RawDWARF {
        try withObject(file, layout: layout, in: mapped) { object in
            try collect(object, path: file.path, releasing: options.releasePages && mapped.pagesComeBackFromTheFile ? mapped.bytes : nil, options: options)
        }
    }

    /// Opens the DWARF of `file` (one slice of `mapped`, laid out as `layout` says) as a shim
    /// object for `body`, which must not keep it: it is closed when `body` returns.
    static func withObject<T>(_ file: DebugFile, layout: ObjectLayout, in mapped: MappedFile,
                              _ body: (OpaquePointer) throws -> T) throws -> T {
        var message = [CChar](repeating: 0, count: 512)
        var object: OpaquePointer?
        let status: Int32
        switch layout {
        case .elf:
            status = cdw_open_elf(mapped.bytes.baseAddress, mapped.bytes.count, &object, &message, message.count)
        case .machO(let slice):
            // The slice as the mapping holds it now (`MachO.slices` bounds it by the bytes
            // mapped), not as `file` was identified: the file may have been cut short since.
            let base = mapped.bytes.baseAddress!.advanced(by: slice.offset)
            let size = UInt64(slice.size)
            // Names must outlive the shim's handle: keep them in one buffer for the call.
            let dwarf = slice.sections.filter { $0.segment == "__DWARF" && $0.size <= size && $0.offset <= size - $0.size }
            let names = dwarf.map { strdup(elfSectionName(forMachO: $0.name)) }
            defer { names.forEach { free($0) } }
            var sections = zip(dwarf, names).map { section, name in
                cdw_section(name: UnsafePointer(name),
                            data: base.advanced(by: Int(section.offset)).assumingMemoryBound(to: UInt8.self),
                            size: section.size, address: section.address)
            }
            status = cdw_open_sections(&sections, UInt32(sections.count), slice.is64Bit ? 8 : 4, 0, &object,
                                       &message, message.count)
            if status == CDW_OK, let object {
                defer { cdw_close(object) }
                return try body(object)
            }
        }
        if status == CDW_NO_DWARF { throw DebugInfoError.noDWARF(path: file.path) }
        guard status == CDW_OK, let object else {
            throw DebugInfoError.corruptDWARF(path: file.path, reason: String(cString: message))
        }
        defer { cdw_close(object) }
        return try body(object)
    }

    /// Reads an open shim object; errors name `path`. `releasing`: the private file mapping whose
    /// pages the shim may release once read, if any.
    static func collect(_ object: OpaquePointer, path: String, releasing mapping: UnsafeRawBufferPointer?,
                        options: Options) throws -> RawDWARF {
        // The sections' pages go once read: the file stays mapped (and its pages cached) while
        // the index is built from what was read, but not resident in this process.
        if let mapping {
            cdw_allow_page_release(object, mapping.baseAddress, mapping.count, options.releaseStep)
        }
        var message = [CChar](repeating: 0, count: 512)
        var result = cdw_result()
        var reading: OpaquePointer?
        var settings = cdw_read_options(threads: options.threads, keep_unused: options.keepUnused ? 1 : 0)
        let status = cdw_read_start(object, &settings, &result, &reading, &message, message.count)
        defer { cdw_result_free(&result) }
        guard status == CDW_OK || status == CDW_PARTIAL else {
            throw DebugInfoError.corruptDWARF(path: path, reason: String(cString: message))
        }
        // The large arrays are copied once, by the reading threads, straight into ours.
        let functionCount = Int(result.function_count), rangeCount = Int(result.range_count), rowCount = Int(result.row_count)
        let rangeWriter = FlatArrayWriter<cdw_range>(count: rangeCount)
        let rowWriter = FlatArrayWriter<cdw_row>(count: rowCount)
        let functions = [cdw_function](unsafeUninitializedCapacity: functionCount) { functionBuffer, functionsMade in
            cdw_read_finish(reading, functionBuffer.baseAddress, rangeWriter.baseAddress, rowWriter.baseAddress)
            functionsMade = functionCount
        }
        let (files, strings) = joinedPaths(of: result)
        cdw_result_free(&result)  // before the arrays are handed on, so that their copies do not add up
        return RawDWARF(
            functions: functions,
            ranges: rangeWriter.array,
            rows: rowWriter.array,
            files: files,
            strings: strings,
            problem: status == CDW_PARTIAL ? String(cString: message) : nil)
    }

    /// A RawDWARF of a result whose arrays are all filled (one another reader made, say);
    /// `result` itself is left as it is.
    static func raw(of result: cdw_result, problem: String?) -> RawDWARF {
        let rows = FlatArray(count: Int(result.row_count)) { result.rows[$0] }
        let (files, strings) = joinedPaths(of: result)
        return RawDWARF(functions: Array(buffer(result.functions, result.function_count)),
                        ranges: FlatArray(Array(buffer(result.ranges, result.range_count))),
                        rows: rows, files: files, strings: strings, problem: problem)
    }

    private static func buffer<T>(_ pointer: UnsafeMutablePointer<T>?, _ count: UInt64) -> UnsafeBufferPointer<T> {
        guard let pointer, count > 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: pointer, count: Int(count))
    }

    /// ``joinedPaths(files:units:directories:strings:)`` of a result's file lists.
    private static func joinedPaths(of result: cdw_result) -> (files: [UInt32], strings: [UInt8]) {
        let zero: [UInt8] = [0]
        return zero.withUnsafeBytes { zero in
            joinedPaths(files: buffer(result.files, result.file_count), units: buffer(result.units, result.unit_count),
                        directories: buffer(result.directories, result.directory_count),
                        strings: result.strings.map { UnsafeRawBufferPointer(start: $0, count: Int(result.strings_size)) } ?? zero)
        }
    }

    /// The path of every file entry (see ``SourcePath``), as an offset into the string table
    /// returned, which is `table` followed by each distinct path, added once; 0 (the empty
    /// string) for placeholders.
    static func joinedPaths(files: UnsafeBufferPointer<cdw_file>, units: UnsafeBufferPointer<cdw_unit>,
                            directories: UnsafeBufferPointer<UInt32>,
                            strings table: UnsafeRawBufferPointer) -> (files: [UInt32], strings: [UInt8]) {
        func string(_ offset: UInt32) -> String {
            guard offset != 0, Int(offset) < table.count else { return "" }
            let start = Int(offset)
            let end = table[start...].firstIndex(of: 0) ?? table.count
            return String(decoding: UnsafeRawBufferPointer(rebasing: table[start..<end]), as: UTF8.self)
        }
        var added: [String: UInt32] = [:]
        var paths: [UInt8] = []  // what follows `table`
        func add(_ path: String) -> UInt32 {
            if path.isEmpty { return 0 }
            if let offset = added[path] { return offset }
            let offset = UInt32(table.count + paths.count)
            paths.append(contentsOf: path.utf8)
            paths.append(0)
            added[path] = offset
            return offset
        }
        var unitDirectories: [Int: (compilationDirectory: String, include: [String])] = [:]
        let joined = files.map { file -> UInt32 in
            guard file.name != 0, file.unit != CDW_NO_UNIT, Int(file.unit) < units.count else { return 0 }
            let unit = units[Int(file.unit)]
            let known = unitDirectories[Int(file.unit)] ?? {
                let first = Int(unit.first_directory), end = min(first + Int(unit.directory_count), directories.count)
                let entry = (string(unit.comp_dir), (first..<max(first, end)).map { string(directories[$0]) })
                unitDirectories[Int(file.unit)] = entry
                return entry
            }()
            return add(SourcePath.joined(name: string(file.name), directoryIndex: UInt64(file.directory),
                                         includeDirectories: known.include, compilationDirectory: known.compilationDirectory,
                                         lineTableVersion: Int(unit.line_version)))
        }
        let strings = [UInt8](unsafeUninitializedCapacity: table.count + paths.count) { buffer, made in
            let bytes = UnsafeMutableRawBufferPointer(buffer)
            bytes.copyMemory(from: table)
            paths.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: bytes[table.count...]).copyMemory(from: $0) }
            made = table.count + paths.count
        }
        return (joined, strings)
    }

    /// Mach-O section names are at most 16 bytes: `__debug_str_offs` is `.debug_str_offsets`.
    static func elfSectionName(forMachO name: String) -> String {
        let spelled = name == "__debug_str_offs" ? "__debug_str_offsets" : name
        return spelled.hasPrefix("__") ? "." + spelled.dropFirst(2) : spelled
    }
}

extension cdw_row {
    /// The row's address (the shim keeps it in two halves).
    var address: UInt64 { cdw_row_address(self) }
    /// The row's column.
    var column: UInt32 { cdw_row_column(self) }
    /// 1 when the row closes its sequence, else 0.
    var end_sequence: UInt32 { cdw_row_ends_sequence(self) }
}
