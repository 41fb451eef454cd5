#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// A file mapped read-only into memory for the life of the value.
///
/// Object files are read in place: the Mach-O and ELF parsers, the DWARF reader and the
/// symbol tables all look at the same mapping, so a debug file is never copied.
public final class MappedFile: @unchecked Sendable {
    /// The path the file was opened with.
    public let path: String
    /// The mapped bytes, valid while this object lives: keep it alive (`withExtendedLifetime`)
    /// for as long as they are read.
    public let bytes: UnsafeRawBufferPointer

    /// Maps `path` read-only. Throws ``DebugInfoError`` naming the file when it cannot be read.
    public init(path: String) throws {
        self.path = path
        let fd = FileName.withCString(path) { open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { throw DebugInfoError.unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw DebugInfoError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw DebugInfoError.unreadable(path: path, reason: "is a directory")
        }
        let size = Int(info.st_size)
        guard size > 0 else {
            self.bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        // Private and writable: libelf updates section headers in place when it inflates a
        // compressed section; those writes go to copy-on-write pages, never to the file. Nothing
        // else writes here: the DWARF reader releases the pages of sections it has read
        // (MADV_DONTNEED, see `cdw_allow_page_release`), which a written page would not survive.
        guard let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            throw DebugInfoError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        self.bytes = UnsafeRawBufferPointer(start: base, count: size)
    }

    deinit {
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
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

extension UnsafeRawBufferPointer {
    /// The bytes as lowercase hex digits, two per byte.
    var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
