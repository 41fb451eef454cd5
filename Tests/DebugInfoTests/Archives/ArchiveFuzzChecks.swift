@testable import DebugInfo
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the zip fuzz target (Fuzz/zip_archive.swift) does with one input, shared with the tests
/// that replay its findings: the bytes as an APK, read as the tool reads one. Returns the
/// promises broken (empty when none); an archive refused with an error is no finding.
enum ArchiveFuzzChecks {
    /// The directory's entries lie in the file, before the directory, and share no bytes; each
    /// member's bytes are as long as its entry says; each library found is a slice of the file
    /// whose bytes open again as the ELF file it was identified as.
    static func zipArchive(_ bytes: [UInt8]) -> [String] {
        var broken: [String] = []
        bytes.withUnsafeBytes { raw in
            guard let directory = try? ZipDirectory(raw) else { return }
            var previous = 0
            for entry in directory.entries.sorted(by: { $0.headerOffset < $1.headerOffset }) {
                if entry.headerOffset < previous || entry.extent.upperBound > bytes.count || entry.dataOffset < entry.headerOffset + 30 {
                    broken.append("entry \(entry.name) at \(entry.extent) overlaps or lies outside the \(bytes.count)-byte file")
                }
                previous = entry.extent.upperBound
            }
        }
        let directory = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        let path = "\(directory)/symbolicate-zip-fuzz-\(getpid()).apk"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return ["cannot write a scratch file"] }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        defer { unlink(path) }
        guard written == bytes.count else { return ["cannot write a scratch file"] }
        guard let archive = try? MappedFile(path: path) else { return broken }
        // Only an archive's libraries are slices of it: a file that is no zip (an object file
        // itself, of any format) is identified as what it is.
        guard let directory = try? ZipDirectory(archive.bytes) else { return broken }
        for entry in directory.entries where [0, 8].contains(entry.method) {
            guard let member = try? ZipArchive.member(entry, of: archive) else { continue }
            if member.bytes.count != entry.size { broken.append("member \(entry.name): \(member.bytes.count) bytes, not \(entry.size)") }
        }
        for file in (try? DebugFile.identify(path: path)) ?? [] {
            if file.format != .elf || file.sliceOffset < 0 || file.sliceSize < 0 || file.sliceOffset > bytes.count - file.sliceSize {
                broken.append("library slice \(file.sliceOffset)+\(file.sliceSize) lies outside the \(bytes.count)-byte file")
            }
            guard let member = try? MappedFile.opening(file) else {
                broken.append("the library at \(file.sliceOffset) does not open again")
                continue
            }
            guard let layout = try? ObjectLayout(file, in: member), case .elf(let image) = layout, image.buildID == file.identifier else {
                broken.append("the library at \(file.sliceOffset) is not the ELF file it was identified as")
                continue
            }
            _ = SymbolTable(layout, of: file, in: member)
        }
        return broken
    }
}
