@testable import DebugInfo
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the object-file fuzz targets (Fuzz/object_identity.swift, Fuzz/index_file.swift) do
/// with one input, shared with the tests that replay the inputs the fuzzers found
/// (Tests/FuzzRegressions): each function reads the bytes as the tool would and returns the
/// promises the result breaks (empty when none). An input refused with an error is no finding.
enum ObjectFuzzChecks {
    /// The bytes as an object file: its identity and slices, each slice's headers and symbol
    /// table, and lookups in the table. Slices must lie in the file and symbol tables be sorted
    /// and point into their strings.
    static func objectIdentity(_ bytes: [UInt8]) -> [String] {
        guard let path = writeScratchFile(bytes) else { return ["cannot write a scratch file"] }
        defer { unlink(path) }
        guard let slices = try? DebugFile.identify(path: path), let mapped = try? MappedFile(path: path) else { return [] }
        var broken: [String] = []
        for file in slices {
            if file.sliceOffset < 0 || file.sliceSize < 0 || file.sliceOffset > bytes.count - file.sliceSize {
                broken.append("slice \(file.sliceOffset)+\(file.sliceSize) lies outside the \(bytes.count)-byte file")
            }
            _ = file.description
            guard let layout = try? ObjectLayout(file, in: mapped) else { continue }
            _ = layout.codeSection
            let symbols = SymbolTable(layout, of: file, in: mapped)
            if !symbols.isWellFormed { broken.append("the symbol table of slice \(file.sliceOffset) is not well formed") }
            for symbol in symbols.symbols.prefix(64) {
                _ = symbols.lookup(symbol.address)
                _ = symbols.name(startingAt: symbol.address)
                _ = symbols.address(of: symbol.name)
            }
            for address in [0, 1, file.textVMAddress, UInt64.max] { _ = symbols.lookup(address) }
        }
        return broken
    }

    /// The bytes as a stored index file, with the fields checked before any table is used (file
    /// length, header checksum) made to fit, so that what follows them is what gets fuzzed: the
    /// index is opened as the store opens one and looked up at addresses taken from the file.
    static func indexFile(_ input: [UInt8]) -> [String] {
        guard input.count >= IndexStoreFormat.fixedHeaderSize else { return [] }
        let mapping = AlignedBytes(input)
        let bytes = mapping.bytes
        let r = ByteReader(UnsafeRawBufferPointer(bytes))
        bytes.storeBytes(of: UInt64(bytes.count), toByteOffset: 16, as: UInt64.self)
        guard let headerSize = r.u64(24), headerSize >= UInt64(IndexStoreFormat.fixedHeaderSize),
              headerSize <= UInt64(bytes.count), let sectionCount = r.u32(32),
              sectionCount <= UInt32(IndexStoreFormat.maximumSections),
              Int(headerSize) >= IndexStoreFormat.fixedHeaderSize + Int(sectionCount) * IndexStoreFormat.sectionEntrySize
        else { return [] }
        // The identity strings, as the reader splits them, make the debug file it expects.
        let stringsStart = IndexStoreFormat.fixedHeaderSize + Int(sectionCount) * IndexStoreFormat.sectionEntrySize
        bytes.storeBytes(of: UInt32(Int(headerSize) - stringsStart), toByteOffset: 88, as: UInt32.self)
        bytes.storeBytes(of: 0, toByteOffset: 96, as: UInt64.self)
        bytes.storeBytes(of: IndexChecksum.hash(UnsafeRawBufferPointer(rebasing: bytes[0..<Int(headerSize)])),
                         toByteOffset: 96, as: UInt64.self)
        let strings = UnsafeRawBufferPointer(rebasing: bytes[stringsStart..<Int(headerSize)])
            .split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard strings.count == 4, let sliceOffset = Int(exactly: r.u64(72)!), let sliceSize = Int(exactly: r.u64(80)!),
              let architecture = Architecture(name: strings[1])
        else { return [] }
        let file = DebugFile(path: "fuzz.debug", format: .elf, architecture: architecture,
                             identifier: strings[0].isEmpty ? nil : strings[0], textVMAddress: 0,
                             sliceOffset: sliceOffset, sliceSize: sliceSize, hasDWARF: true)
        let stamp = DebugFileStamp(size: r.u64(40)!, modified: Int64(bitPattern: r.u64(48)!), inode: r.u64(56)!,
                                   device: r.u64(64)!)
        guard let index = try? IndexStoreFormat.read(UnsafeRawBufferPointer(bytes), owner: mapping, file: file,
                                                     identity: IndexStoreFormat.Identity(file, stamp: stamp))
        else { return [] }
        var addresses: Set<UInt64> = [0, 1, UInt64.max]
        var at = Int(headerSize + 15) / 16 * 16
        while at + 8 <= bytes.count && addresses.count < 200 {
            let value = r.u64(at)!
            addresses.formUnion([value &- 1, value, value &+ 1])
            at += 8
        }
        for address in addresses {
            _ = index.lookup(address)
            _ = index.lookup(address, demangle: false)
            _ = index.symbolName(startingAt: address)
        }
        _ = index.address(ofSymbol: "main")
        return []
    }

    /// Writes `bytes` to a file of this process's own and returns its path.
    private static func writeScratchFile(_ bytes: [UInt8]) -> String? {
        let directory = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        let path = "\(directory)/symbolicate-fuzz-\(getpid())"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return written == bytes.count ? path : nil
    }
}

/// A copy of some bytes at an address aligned as a mapped file is, freed with the last table
/// that points into it.
private final class AlignedBytes {
    let bytes: UnsafeMutableRawBufferPointer

    init(_ source: [UInt8]) {
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: source.count, alignment: 16)
        source.withUnsafeBytes { bytes.copyMemory(from: $0) }
    }

    deinit { bytes.deallocate() }
}
