import CDwarf
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// One debug file — or one architecture slice of a universal file — and its identity.
///
/// Identifying a file reads only its headers; the DWARF is read later, and only if a report
/// needs it (see ``SymbolIndex``).
public struct DebugFile: Sendable, Hashable, CustomStringConvertible {
    /// The object-file format.
    public enum Format: String, Sendable {
        case machO = "Mach-O", elf = "ELF"
        /// An image inside a dyld shared cache: `path` is the cache's main file, `identifier`
        /// the image's UUID (``DyldSharedCache``).
        case dyldCache = "dyld shared cache"
    }

    /// An ELF `.gnu_debuglink`: the file name of the separate debug file and the CRC-32 of
    /// its whole contents.
    public struct DebugLink: Sendable, Hashable {
        /// A file name without directories, looked for beside the binary, in `.debug/` beside
        /// it and under `/usr/lib/debug` followed by the binary's directory.
        public var name: String
        /// zlib's CRC-32 of the debug file.
        public var crc: UInt32

        /// A link as `.gnu_debuglink` records it.
        public init(name: String, crc: UInt32) {
            self.name = name
            self.crc = crc
        }

        /// zlib's CRC-32 of the file at `path`, as `.gnu_debuglink` records it. Reads the whole
        /// file: for a candidate that has no build-id to compare instead.
        public static func checksum(ofFileAt path: String) throws -> UInt32 {
            let file = try MappedFile(path: path)
            return try file.reading {
                guard let base = file.bytes.baseAddress else { return 0 }
                return cdw_crc32(0, base, file.bytes.count)
            }
        }
    }

    /// The file (for a `.dSYM` bundle, the file under `Contents/Resources/DWARF`).
    public var path: String
    /// Mach-O or ELF.
    public var format: Format
    /// The slice's architecture; nil when the header names one this tool does not know.
    public var architecture: Architecture?
    /// The Mach-O LC_UUID (32 lowercase hex digits) or the ELF GNU build-id (lowercase hex).
    public var identifier: String?
    /// `identifier` as an identity: a build-id for ELF, a UUID for Mach-O and cache images.
    public var identity: ImageIdentity? {
        identifier.map { ImageIdentity(hex: $0, kind: format == .elf ? .buildID : .uuid) }
    }
    /// The address the image was linked at: the `__TEXT` vmaddr, or the first PT_LOAD vaddr.
    public var textVMAddress: UInt64
    /// Where the slice lies in the file (the whole file for thin Mach-O and ELF).
    public var sliceOffset: Int
    /// The slice's size in bytes.
    public var sliceSize: Int
    /// Whether the file carries DWARF (a dSYM or an ELF file with `.debug_info`).
    public var hasDWARF: Bool
    /// An object file not yet linked (`.o`): not the debug file of any image.
    public var isRelocatable: Bool
    /// Whether the slice has a symbol table with symbols (Mach-O `LC_SYMTAB`, ELF `.symtab`
    /// or `.dynsym`): the fallback where the DWARF says nothing or is absent.
    public var hasSymbolTable: Bool
    /// The ELF `.gnu_debuglink` naming a separate debug file, if any.
    public var debugLink: DebugLink?

    /// A debug file described by hand; ``identify(path:)`` reads one from disk.
    public init(path: String, format: Format, architecture: Architecture?, identifier: String?,
                textVMAddress: UInt64, sliceOffset: Int, sliceSize: Int, hasDWARF: Bool, isRelocatable: Bool = false,
                hasSymbolTable: Bool = false, debugLink: DebugLink? = nil) {
        self.path = path
        self.format = format
        self.architecture = architecture
        self.identifier = identifier
        self.textVMAddress = textVMAddress
        self.sliceOffset = sliceOffset
        self.sliceSize = sliceSize
        self.hasDWARF = hasDWARF
        self.isRelocatable = isRelocatable
        self.hasSymbolTable = hasSymbolTable
        self.debugLink = debugLink
    }

    public var description: String {
        "\(path) (\(architecture?.name ?? "unknown arch"), \(identifier ?? "no identifier"))"
    }

    /// The files or slices at `path`: one for a thin Mach-O or ELF file, one per slice for a
    /// universal file, one per ELF library inside a zip archive (an APK or app bundle:
    /// ``ZipArchive``).
    ///
    /// Throws ``DebugInfoError/changedWhileRead(path:)`` when the file changed while it was read.
    public static func identify(path: String) throws -> [DebugFile] {
        let file = try MappedFile(path: path)
        return try file.reading { try identify(file) }
    }

    /// Whether the file starts like a Mach-O (thin or universal) or ELF file, or is a zip named
    /// like an APK, an app bundle or a zip of symbols (``ZipArchive``); reads 16 bytes.
    /// For passing over the other files of a searched directory cheaply. Only a regular file
    /// can be one, and opening another (a FIFO) never waits.
    public static func looksLikeObjectFile(path: String) -> Bool {
        let fd = FileName.withCString(path) { open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        var head = [UInt8](repeating: 0, count: 16)
        let count = read(fd, &head, head.count)
        guard count > 0 else { return false }
        return head.withUnsafeBytes { raw in
            let bytes = UnsafeRawBufferPointer(rebasing: raw[0..<count])
            return MachO.isMachO(bytes) || ELF.isELF(bytes) || DyldSharedCache.looksLikeCache(bytes)
                || (ZipDirectory.isZip(bytes) && ZipArchive.isArchiveName(path))
        }
    }

    static func identify(_ file: MappedFile) throws -> [DebugFile] {
        let bytes = file.bytes
        if MachO.isMachO(bytes) {
            MachO.pinHeaders(of: file)
            return try MachO.slices(of: bytes, path: file.path).map { slice in
                DebugFile(path: file.path, format: .machO, architecture: slice.architecture,
                          identifier: slice.uuid, textVMAddress: slice.textVMAddress,
                          sliceOffset: slice.offset, sliceSize: slice.size,
                          hasDWARF: slice.sections.contains { $0.segment == "__DWARF" && $0.name == "__debug_info" },
                          isRelocatable: slice.fileType == 1,
                          hasSymbolTable: (slice.symbolTable?.count ?? 0) > 0)
            }
        }
        if ELF.isELF(bytes) {
            ELF.pinHeaders(of: file)
            let image = try ELF.parse(bytes, path: file.path)
            return [DebugFile(path: file.path, format: .elf, architecture: image.architecture,
                              identifier: image.buildID, textVMAddress: image.firstLoadAddress,
                              sliceOffset: 0, sliceSize: bytes.count, hasDWARF: image.hasDWARF,
                              isRelocatable: image.fileType == 1, hasSymbolTable: image.hasSymbolTable,
                              debugLink: image.debugLink)]
        }
        if DyldSharedCache.looksLikeCache(bytes) { return try DyldSharedCache.debugFiles(path: file.path) }
        if ZipDirectory.isZip(bytes) { return try ZipArchive.debugFiles(in: file) }
        throw DebugInfoError.unknownFormat(path: file.path)
    }
}
