import CDwarf
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The libraries inside an APK, an app bundle or a zip of debug symbols, as debug files.
///
/// Each entry named like a library or its debug file (`lib/arm64-v8a/libfoo.so`,
/// `base/lib/armeabi-v7a/libfoo.so`, `arm64-v8a/libfoo.so.dbg`) whose bytes are an ELF file is
/// one ``DebugFile``: the archive's path, and as its slice the entry's extent in the archive —
/// `sliceOffset` its local header, `sliceSize` the header and data — so that the identity
/// cache, the index cache and the content key hold it as they hold a slice of a universal
/// file. It is matched by its build-id like any other ELF file, never by its name.
///
/// A stored entry (`zip -0`, as Android wants libraries it loads in place) is read in place:
/// its bytes are a range of the archive's mapping. A deflated one is inflated into memory of
/// its own, mapped for it alone and unmapped when its reader is done; its size must be what the
/// directory says, no more than deflate can make of its compressed bytes (1032 to 1), and its
/// CRC-32 the directory's. Pieces of zeros are never written there, so that they take no
/// memory. What cannot be read — a damaged directory, a library entry that does not inflate
/// — makes the whole archive ``DebugInfoError/damagedArchive(path:reason:)``: one message
/// naming the file.
enum ZipArchive {
    /// The most bytes deflate can make of one compressed byte (a 258-byte match in 2 bits,
    /// and some): a size beyond this many times the compressed size, with room for the
    /// stream's own blocks, is a lie.
    static let deflateRatio = 1032

    /// Whether an entry's name is that of a library or a debug file.
    static func isLibraryName(_ name: String) -> Bool {
        guard !name.hasSuffix("/") else { return false }
        return [".so", ".dbg", ".sym", ".debug"].contains { name.hasSuffix($0) }
    }

    /// Whether a file met by a walk is worth opening as an archive of libraries: an APK, an
    /// app bundle or a zip (not the jars and other zips of a build folder).
    static func isArchiveName(_ path: String) -> Bool {
        let lowered = path.lowercased()
        return [".apk", ".aab", ".zip"].contains { lowered.hasSuffix($0) }
    }

    /// The debug files in the archive mapped as `archive`.
    static func debugFiles(in archive: MappedFile) throws -> [DebugFile] {
        let directory = try readDirectory(archive)
        var files: [DebugFile] = []
        for entry in directory.entries where isLibraryName(entry.name) && !entry.isEncrypted && [0, 8].contains(entry.method) {
            guard try startsLikeELF(entry, in: archive) else { continue }
            let member = try self.member(entry, of: archive)
            let image: ELFImage
            do {
                ELF.pinHeaders(of: member)
                image = try ELF.parse(member.bytes, path: member.path)
            } catch let error as DebugInfoError {
                throw DebugInfoError.damagedArchive(path: archive.path, reason: "\(entry.name): \(error.reason)")
            }
            files.append(DebugFile(path: archive.path, format: .elf, architecture: image.architecture,
                                   identifier: image.buildID, textVMAddress: image.firstLoadAddress,
                                   sliceOffset: entry.headerOffset, sliceSize: entry.extent.count,
                                   hasDWARF: image.hasDWARF, isRelocatable: image.fileType == 1,
                                   hasSymbolTable: image.hasSymbolTable, debugLink: image.debugLink))
        }
        guard !files.isEmpty else {
            throw DebugInfoError.archiveWithoutLibraries(path: archive.path)
        }
        return files
    }

    /// The bytes of the entry whose local header is at `headerOffset` (a ``DebugFile``'s
    /// `sliceOffset`).
    static func member(at headerOffset: Int, of archive: MappedFile) throws -> MappedFile {
        let directory = try readDirectory(archive)
        guard let entry = directory.entries.first(where: { $0.headerOffset == headerOffset }) else {
            throw DebugInfoError.damagedArchive(path: archive.path, reason: "no entry at offset \(headerOffset) (changed since?)")
        }
        return try member(entry, of: archive)
    }

    private static func readDirectory(_ archive: MappedFile) throws -> ZipDirectory {
        do {
            return try ZipDirectory(archive.bytes)
        } catch let damage as ZipDirectory.Damage {
            throw DebugInfoError.damagedArchive(path: archive.path, reason: "" + damage.reason)
        }
    }

    /// Whether the entry's first bytes are an ELF header's: only 16 bytes are inflated.
    private static func startsLikeELF(_ entry: ZipDirectory.Entry, in archive: MappedFile) throws -> Bool {
        guard entry.size >= 16, let data = ByteReader(archive.bytes).slice(entry.dataOffset, entry.compressedSize) else {
            return false
        }
        if entry.method == 0 { return ELF.isELF(data) }
        var head = [UInt8](repeating: 0, count: 16)
        let status = head.withUnsafeMutableBytes { cdw_inflate_raw(data.baseAddress, data.count, $0.baseAddress, 16, nil) }
        guard status == CDW_INFLATE_OK || status == CDW_INFLATE_TOO_LONG else {
            let what = status == CDW_INFLATE_DAMAGED ? "not a deflate stream" : "inflates to fewer bytes than its header gives"
            throw DebugInfoError.damagedArchive(path: archive.path, reason: "\(entry.name): \(what)")
        }
        return head.withUnsafeBytes { ELF.isELF($0) }
    }

    /// The entry's bytes: in place when stored, else inflated (see the type's comment).
    static func member(_ entry: ZipDirectory.Entry, of archive: MappedFile) throws -> MappedFile {
        func damaged(_ reason: String) -> DebugInfoError {
            .damagedArchive(path: archive.path, reason: "\(entry.name): \(reason)")
        }
        guard !entry.isEncrypted else { throw damaged("encrypted") }
        guard let data = ByteReader(archive.bytes).slice(entry.dataOffset, entry.compressedSize) else {
            throw damaged("its data lies past the end of the file")
        }
        switch entry.method {
        case 0:
            return MappedFile(member: data, named: entry.name, of: archive, ownsBytes: false)
        case 8:
            let (most, overflow) = (entry.compressedSize + 64).multipliedReportingOverflow(by: deflateRatio)
            guard !overflow, entry.size <= most else {
                throw damaged("\(entry.compressedSize) compressed bytes said to inflate to \(entry.size), "
                              + "more than deflate makes (a zip bomb?)")
            }
            guard entry.size > 0 else {
                return MappedFile(member: UnsafeRawBufferPointer(start: nil, count: 0), named: entry.name, of: archive, ownsBytes: false)
            }
            guard let base = mmap(nil, entry.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
                  base != MAP_FAILED else {
                throw damaged("no memory for its \(entry.size) bytes")
            }
            let bytes = UnsafeRawBufferPointer(start: base, count: entry.size)
            // Owned from here: unmapped with the member, whatever happens next.
            let member = MappedFile(member: bytes, named: entry.name, of: archive, ownsBytes: true)
            var written = 0
            let status = cdw_inflate_raw(data.baseAddress, data.count, base, entry.size, &written)
            switch status {
            case CDW_INFLATE_OK: break
            case CDW_INFLATE_TOO_LONG: throw damaged("inflates past the \(entry.size) bytes its header gives (a zip bomb?)")
            case CDW_INFLATE_TOO_SHORT: throw damaged("inflates to \(written) bytes, not the \(entry.size) its header gives")
            default: throw damaged("damaged deflate data after \(written) bytes")
            }
            guard cdw_crc32(0, base, entry.size) == entry.crc32 else { throw damaged("its CRC-32 is not the one its header gives") }
            return member
        default:
            throw damaged("compression method \(entry.method), which is not read")
        }
    }
}

extension MappedFile {
    /// The bytes of `file`: its file mapped, or for a library inside an archive (an ELF
    /// ``DebugFile`` whose file is a zip), that member's bytes (``ZipArchive``).
    static func opening(_ file: DebugFile) throws -> MappedFile {
        let whole = try MappedFile(path: file.path)
        guard file.format == .elf, ZipDirectory.isZip(whole.bytes) else { return whole }
        return try whole.reading { try ZipArchive.member(at: file.sliceOffset, of: whole) }
    }
}
