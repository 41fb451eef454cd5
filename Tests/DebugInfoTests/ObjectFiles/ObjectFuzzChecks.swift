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
    /// The bytes as an object file: its identity and slices, each slice's headers, symbol
    /// table and survey (``ObjectSurvey``: what `check` reads), and lookups in the table. Slices must lie in the file and symbol tables be sorted
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
            // What `check` reads: unit headers of the DWARF sections, symbol table sizes, compression.
            if let survey = try? ObjectSurvey.survey(file, layout: layout, in: mapped),
               survey.units < 0 || survey.lineTables < 0 || survey.symbols < 0 {
                broken.append("a survey of slice \(file.sliceOffset) counts below zero")
            }
        }
        return broken
    }

    /// The bytes as a stored index file, with the fields checked before any table is used made
    /// to fit (file length, block count, identity strings' length, header checksum), so that
    /// what follows them is what gets fuzzed: the file is mapped and opened as the store opens
    /// one, and looked up at addresses taken from it.
    ///
    /// The low bit of the input's header checksum field (recomputed anyway) chooses whether the
    /// block checksums are recomputed too: when they are not, a changed table is a damaged
    /// block, caught on first touch; when they are, the tables are well formed as far as the
    /// checksums go but hostile, and no block may then be found damaged.
    static func indexFile(_ input: [UInt8]) -> [String] {
        guard input.count >= IndexCacheFormat.fixedHeaderSize else { return [] }
        var bytes = input
        let fileSize = bytes.count
        func u64(_ at: Int) -> UInt64 { bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt64.self) } }
        func u32(_ at: Int) -> UInt32 { bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt32.self) } }
        func store<T: FixedWidthInteger>(_ value: T, at offset: Int) {
            bytes.withUnsafeMutableBytes { $0.storeBytes(of: value, toByteOffset: offset, as: T.self) }
        }
        let recomputesBlocks = bytes[96] & 1 == 0
        store(UInt64(fileSize), at: 16)
        // The header size and section count are the input's; the block count follows from the
        // data after the header, and the identity strings take what is left of the header.
        let headerSize64 = u64(24), sectionCount = Int(u32(32))
        guard headerSize64 <= UInt64(fileSize), sectionCount <= IndexCacheFormat.maximumSections else { return [] }
        let headerSize = Int(headerSize64), dataStart = IndexCacheFormat.aligned(headerSize)
        guard dataStart <= fileSize else { return [] }
        let blockCount = (fileSize - dataStart + IndexBlocks.size - 1) / IndexBlocks.size
        let stringsStart = IndexCacheFormat.fixedHeaderSize + sectionCount * IndexCacheFormat.sectionEntrySize
        let stringsEnd = headerSize - blockCount * 8
        guard stringsEnd >= stringsStart else { return [] }
        store(UInt32(stringsEnd - stringsStart), at: 88)
        store(UInt32(blockCount), at: 92)
        if recomputesBlocks {
            bytes.withUnsafeMutableBytes { buffer in
                for block in 0..<blockCount {
                    let start = dataStart + block * IndexBlocks.size
                    let data = UnsafeRawBufferPointer(rebasing: buffer[start..<min(start + IndexBlocks.size, fileSize)])
                    buffer.storeBytes(of: IndexChecksum.hash(data), toByteOffset: stringsEnd + block * 8, as: UInt64.self)
                }
            }
        }
        store(UInt64(0), at: 96)
        store(bytes.withUnsafeBytes { IndexChecksum.hash(UnsafeRawBufferPointer(rebasing: $0[0..<headerSize])) }, at: 96)

        // The identity strings, as the reader splits them, make the debug file it expects.
        let strings = bytes[stringsStart..<stringsEnd].split(separator: 0, maxSplits: 4, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard strings.count == 5, let sliceOffset = Int(exactly: u64(72)), let sliceSize = Int(exactly: u64(80)) else { return [] }
        let architecture = Architecture(name: strings[1])
        guard architecture != nil || strings[1].isEmpty else { return [] }
        let file = DebugFile(path: "fuzz.debug", format: .elf, architecture: architecture,
                             identifier: strings[0].isEmpty ? nil : strings[0], textVMAddress: 0,
                             sliceOffset: sliceOffset, sliceSize: sliceSize, hasDWARF: true)
        let stamp = DebugFileStamp(size: u64(40), modified: Int64(bitPattern: u64(48)), inode: u64(56), device: u64(64))

        guard let mapping = mapScratchFile(bytes) else { return ["cannot map a scratch file"] }
        var identity = IndexCacheFormat.Identity(file, stamp: stamp)
        identity.contentKeyed = u32(36) & IndexCacheFormat.contentKeyedFlag != 0
        guard let index = try? IndexCacheFormat.read(mapping, file: file, identity: identity, rebuild: { nil })
        else { return [] }
        var addresses: Set<UInt64> = [0, 1, UInt64.max]
        var at = dataStart
        while at + 8 <= fileSize && addresses.count < 200 {
            let value = u64(at)
            addresses.formUnion([value &- 1, value, value &+ 1])
            at += 8
        }
        for address in addresses {
            _ = index.lookup(address)
            _ = index.lookup(address, demangle: false)
            _ = index.symbolName(startingAt: address)
        }
        _ = index.address(ofSymbol: "main")
        if recomputesBlocks && index.isDamaged { return ["a block whose checksum matches was found damaged"] }
        return []
    }

    /// `bytes` mapped as the store maps an index file: written to a scratch file, which is
    /// gone once mapped (so that the next input's file is a new one, not this one cut short).
    private static func mapScratchFile(_ bytes: [UInt8]) -> IndexMapping? {
        guard let path = writeScratchFile(bytes, suffix: "-index") else { return nil }
        defer { unlink(path) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return try? IndexMapping(fd: fd, size: bytes.count)
    }

    /// Writes `bytes` to a file of this process's own and returns its path.
    private static func writeScratchFile(_ bytes: [UInt8], suffix: String = "") -> String? {
        let directory = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        let path = "\(directory)/symbolicate-fuzz-\(getpid())\(suffix)"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return written == bytes.count ? path : nil
    }
}
