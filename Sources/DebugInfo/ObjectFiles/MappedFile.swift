#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CFaultGuard
import Platform

/// A file mapped into memory for the life of the value.
///
/// Object files are read in place: the Mach-O and ELF parsers, the DWARF reader and the
/// symbol tables all look at the same mapping, so a debug file is never copied.
///
/// The file may be cut short or rewritten while it is read (another process writing it):
/// the mapping is guarded (`CFaultGuard`), so a page that vanished reads as zeros instead of
/// killing the run, and the headers' pages are made private copies before they are parsed
/// (``makePrivate(_:_:)``), so that what was checked there stays as it was checked. Every
/// reader is bounds-checked, so either gives a bounded, wrong result: whoever reads the file
/// asks ``changedWhileMapped`` afterwards and throws the result away (``checkUnchanged()``).
public final class MappedFile: @unchecked Sendable {
    /// The path the file was opened with.
    public let path: String
    /// The mapped bytes, valid while this object lives: keep it alive (`withExtendedLifetime`)
    /// for as long as they are read.
    public let bytes: UnsafeRawBufferPointer
    /// Kept open to see whether the file mapped changes while it is read.
    private let descriptor: Int32
    private let opened: stat
    private let region: Int32
    /// For the bytes of an archive's member (``init(member:of:ownsBytes:)``): the archive's
    /// mapping, which the bytes lie in or were inflated from, kept mapped and asked whether
    /// it changed.
    private let archive: MappedFile?
    /// Whether `bytes` are memory of this object's own (a member inflated), unmapped with it.
    private let ownsBytes: Bool

    /// Maps `path` read-only. Throws ``DebugInfoError`` naming the file when it cannot be read.
    public init(path: String) throws {
        self.path = path
        // Non-blocking: a FIFO named as a debug file must not stop the run at the open.
        let fd = FileName.withCString(path) { open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { throw DebugInfoError.unreadable(path: path, reason: String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw DebugInfoError.unreadable(path: path, reason: reason)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw DebugInfoError.unreadable(path: path, reason: (info.st_mode & S_IFMT) == S_IFDIR ? "is a directory" : "not a regular file")
        }
        descriptor = fd
        opened = info
        archive = nil
        ownsBytes = false
        let size = Int(info.st_size)
        guard size > 0 else {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            region = -1
            return
        }
        // Private and writable: libelf updates section headers in place when it inflates a
        // compressed section, and ``makePrivate(_:_:)`` copies the headers' pages; those writes
        // go to copy-on-write pages, never to the file. Nothing else writes here: the DWARF
        // reader releases the pages of sections it has read (MADV_DONTNEED, see
        // `cdw_allow_page_release`, which keeps the headers), which a written page would not
        // survive.
        guard let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw DebugInfoError.unreadable(path: path, reason: reason)
        }
        bytes = UnsafeRawBufferPointer(start: base, count: size)
        region = cfg_register(base, size)
    }

    /// The bytes of a member of `archive` under the archive's path and `name`: a range of its
    /// mapping (a stored member, read in place), or memory mapped for them alone, which this
    /// object unmaps (`ownsBytes`: a member inflated).
    init(member bytes: UnsafeRawBufferPointer, named name: String, of archive: MappedFile, ownsBytes: Bool) {
        path = archive.path + "!" + name
        self.bytes = bytes
        descriptor = -1
        opened = stat()
        region = -1
        self.archive = archive
        self.ownsBytes = ownsBytes
    }

    /// Whether the pages of `bytes` may be released once read (``DWARFReader``): pages of a
    /// file come back from the file; memory of its own, inflated, would come back as zeros.
    var pagesComeBackFromTheFile: Bool { !ownsBytes }

    deinit {
        if archive != nil {
            if ownsBytes, let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
            return
        }
        cfg_unregister(region)
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
        close(descriptor)
    }

    /// Makes the pages holding bytes `[offset, offset + length)` (as far as the file goes)
    /// copies of this process's own: what is read there afterwards no longer follows the file.
    /// For headers, which are checked once and then relied on.
    func makePrivate(_ offset: Int, _ length: Int) {
        guard !ownsBytes, let base = bytes.baseAddress, offset >= 0, offset < bytes.count, length > 0 else { return }
        cfg_make_private(UnsafeMutableRawPointer(mutating: base + offset), min(length, bytes.count - offset))
    }

    /// Whether the file was cut short or written since it was mapped: a page vanished under
    /// a read, or its size or modification time changed. What was read from it may be wrong.
    public var changedWhileMapped: Bool {
        if let archive { return archive.changedWhileMapped }
        if cfg_is_damaged(region) != 0 { return true }
        var now = stat()
        guard fstat(descriptor, &now) == 0 else { return true }
        return now.st_size != opened.st_size || System.times(of: now).modified != System.times(of: opened).modified
    }

    /// What `read` makes of the file, unless the file changed while it was mapped
    /// (``changedWhileMapped``), then ``DebugInfoError/changedWhileRead(path:)`` instead of
    /// what it returned or threw: a read of a changing file can fail or succeed with garbage,
    /// and either way the change is what the user is told about.
    public func reading<T>(_ read: () throws -> T) throws -> T {
        let result = Result(catching: read)
        if changedWhileMapped { throw DebugInfoError.changedWhileRead(path: path) }
        return try result.get()
    }
}

/// Little helpers for reading fixed-size integers at byte offsets, bounds-checked.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    let bigEndian: Bool

    init(_ bytes: UnsafeRawBufferPointer, bigEndian: Bool = false) {
        self.bytes = bytes
        self.bigEndian = bigEndian
    }

    var count: Int { bytes.count }

    func u8(_ offset: Int) -> UInt8? {
        guard offset >= 0, offset < bytes.count else { return nil }
        return bytes[offset]
    }

    func u16(_ offset: Int) -> UInt16? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        let v = bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
        return bigEndian ? v.bigEndian : v.littleEndian
    }

    func u32(_ offset: Int) -> UInt32? {
        guard offset >= 0, offset <= bytes.count - 4 else { return nil }
        let v = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        return bigEndian ? v.bigEndian : v.littleEndian
    }

    func u64(_ offset: Int) -> UInt64? {
        guard offset >= 0, offset <= bytes.count - 8 else { return nil }
        let v = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        return bigEndian ? v.bigEndian : v.littleEndian
    }

    /// A NUL-terminated string starting at `offset`, at most `limit` bytes long.
    func cString(_ offset: Int, limit: Int = Int.max) -> String? {
        guard offset >= 0, offset < bytes.count else { return nil }
        let end = min(bytes.count, offset &+ min(limit, bytes.count))
        var i = offset
        while i < end, bytes[i] != 0 { i += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<i]), as: UTF8.self)
    }

    func slice(_ offset: Int, _ length: Int) -> UnsafeRawBufferPointer? {
        guard offset >= 0, length >= 0, offset <= bytes.count, length <= bytes.count - offset else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
    }
}
