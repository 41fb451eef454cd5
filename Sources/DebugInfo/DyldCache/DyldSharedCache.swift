import CDyldCache
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// A dyld shared cache: Apple's system libraries of one OS build, linked into one address
/// space and written as a main file and, since iOS 15 and macOS 12, sub-caches beside it.
///
/// What a device or `ipsw extract --dyld` gives, and how it is read:
///
///     dyld_shared_cache_arm64e            header, image list, some images' code
///     dyld_shared_cache_arm64e.01 ...     more code and data (`.1` ... in iOS 15)
///     dyld_shared_cache_arm64e.symbols    the local symbols of every image (iOS 15 on)
///
/// The main file names its sub-caches (UUID, offset from the cache's base, and since iOS 16
/// the file suffix); each is looked for beside it and checked by UUID. Every file is mapped,
/// never copied, and read by the C reader (`CDyldCache`), which joins them through their
/// mappings: an image's Mach-O header and code may lie in one file and its `__LINKEDIT`
/// (symbol table, exports, function starts) in another. A missing sub-cache costs the images
/// that lie in it, and is named by ``missingFiles``.
///
/// Each image is a ``DebugFile`` of format ``DebugFile/Format/dyldCache`` keyed by its
/// `LC_UUID`, the UUID a report gives for a system image (``debugFiles(path:)``); its
/// ``SymbolIndex`` is built from its symbols (``symbolTable(forImage:)``) and stored in the
/// index cache like any other, so a cache is read once, not once per report or run. A cache
/// carries no DWARF: frames get function names and offsets, never files and lines.
///
/// Worked example: a report's `CoreFoundation 0x1a8f0c7e4 0x1a8f06000 + 26596` with UUID
/// 2dc74254… is found in the cache's image list at 0x180f06000 (its `__TEXT` vmaddr); the
/// address asked of its symbols is 0x180f06000 + 26596 - 4 (the call before the return
/// address), which the symbol `___CFRunLoopRun` at 0x180f0c5d0 holds: `__CFRunLoopRun + 532`.
public final class DyldSharedCache: @unchecked Sendable {
    /// One image of the cache.
    public struct Image: Sendable {
        public var path: String
        /// 32 lowercase hex digits; nil when neither the header nor the image-text list gives one.
        public var uuid: String?
        /// The address of `__TEXT` (the image's Mach-O header).
        public var textAddress: UInt64
        public var textSize: UInt64
        /// Whether its Mach-O header is in the files at hand (else its sub-cache is missing).
        public var isMapped: Bool
    }

    /// The main file.
    public let path: String
    /// As the header's magic spells it: `arm64e`, `x86_64`, ...
    public let architectureName: String
    /// The cache's UUID (32 lowercase hex digits): what an `.ips` report's `sharedCache` names.
    public let uuid: String
    /// Apple's platform number (1 macOS, 2 iOS, 7 iOS simulator, ...); 0 when the header has none.
    public let platform: UInt32
    /// `15.0`, `13.2.1`; nil when the header has no OS version (before iOS 15).
    public let osVersion: String?
    public let isSimulator: Bool
    /// The images, in the cache's order.
    public let images: [Image]
    /// The sub-cache and `.symbols` files the main file names, with whether each was found.
    public let parts: [(name: String, present: Bool)]
    /// Whether the local (non-exported) symbols are at hand: in the main file, or in a
    /// `.symbols` file found beside it.
    public let hasLocalSymbols: Bool
    /// How many local symbols the local-symbol table holds.
    public let localSymbolCount: UInt64

    private let files: [MappedFile]
    private let handle: OpaquePointer
    private let byUUID: [String: Int]

    /// The files the main file names that are not beside it.
    public var missingFiles: [String] { parts.filter { !$0.present }.map(\.name) }

    /// The architecture of the cache's images.
    public var architecture: Architecture? { Architecture(name: architectureName) }

    /// The platform's name as reports spell it.
    public var platformName: String? {
        switch platform {
        case 1: return "macOS"
        case 2: return "iOS"
        case 3: return "tvOS"
        case 4: return "watchOS"
        case 6: return "Mac Catalyst"
        case 7: return "iOS Simulator"
        case 8: return "tvOS Simulator"
        case 9: return "watchOS Simulator"
        case 10: return "DriverKit"
        case 11: return "visionOS"
        case 12: return "visionOS Simulator"
        default: return nil
        }
    }

    /// Whether `bytes` start like a dyld shared cache file (main file or sub-cache).
    static func looksLikeCache(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 16 && bytes.prefix(6).elementsEqual("dyld_v".utf8)
    }

    /// Opens the cache whose main file is at `path`, with the sub-caches and `.symbols` file
    /// found beside it. Throws ``DebugInfoError`` naming the file when it is not a main file,
    /// or when a file is damaged (cut short, tables past its end, mappings overlapping, a
    /// sub-cache of another build).
    public init(path: String) throws {
        self.path = path
        let main = try MappedFile(path: path)
        let bytes = main.bytes
        var header = dsc_header()
        var message = [CChar](repeating: 0, count: 256)
        guard dsc_read_header(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count), &header,
                              &message, message.count) == DSC_OK else {
            throw DebugInfoError.damagedDyldCache(path: path, reason: String(cString: message))
        }
        guard header.image_count > 0 else {
            throw DebugInfoError.partOfDyldCache(path: path)
        }
        var files = [main]
        var handed = [dsc_file(bytes: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: UInt64(bytes.count))]
        var parts: [(name: String, present: Bool)] = []
        for i in 0..<header.subcache_count {
            var entry = dsc_subcache()
            guard dsc_read_subcache(handed[0].bytes, handed[0].size, i, &entry, &message, message.count) == DSC_OK else {
                throw DebugInfoError.damagedDyldCache(path: path, reason: String(cString: message))
            }
            let suffix = withUnsafeBytes(of: entry.suffix) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let part = path + suffix
            if let mapped = try? MappedFile(path: part), !mapped.bytes.isEmpty {
                files.append(mapped)
                handed.append(dsc_file(bytes: mapped.bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                       size: UInt64(mapped.bytes.count)))
                parts.append((Path.lastComponent(part), true))
            } else {
                handed.append(dsc_file(bytes: nil, size: 0))
                parts.append((Path.lastComponent(part), false))
            }
        }
        var symbols = dsc_file(bytes: nil, size: 0)
        if header.has_symbol_file != 0 {
            let part = path + ".symbols"
            if let mapped = try? MappedFile(path: part), !mapped.bytes.isEmpty {
                files.append(mapped)
                symbols = dsc_file(bytes: mapped.bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                   size: UInt64(mapped.bytes.count))
                parts.append((Path.lastComponent(part), true))
            } else {
                parts.append((Path.lastComponent(part), false))
            }
        }
        var opened: OpaquePointer?
        let status = handed.withUnsafeBufferPointer { list in
            dsc_open(list.baseAddress, UInt32(list.count), &symbols, &opened, &message, message.count)
        }
        guard status == DSC_OK, let opened else {
            throw DebugInfoError.damagedDyldCache(path: path, reason: String(cString: message))
        }
        handle = opened
        self.files = files
        self.parts = parts
        architectureName = withUnsafeBytes(of: header.architecture) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        uuid = withUnsafeBytes(of: header.uuid) { ImageIdentity(uuidBytes: $0).hex }
        platform = header.platform
        isSimulator = header.simulator != 0
        osVersion = header.os_version == 0 ? nil : DyldSharedCache.version(header.os_version)
        hasLocalSymbols = dsc_has_local_symbols(opened) != 0
        localSymbolCount = dsc_local_symbol_count(opened)
        var images: [Image] = []
        var byUUID: [String: Int] = [:]
        let count = dsc_image_count(opened)
        images.reserveCapacity(Int(count))
        for i in 0..<count {
            var image = dsc_image()
            let read = dsc_image_info(opened, i, &image, &message, message.count) == DSC_OK
            let path = image.path.map { String(decoding: UnsafeBufferPointer(start: $0, count: Int(image.path_length)), as: UTF8.self) } ?? ""
            let uuid = read && image.has_uuid != 0 ? withUnsafeBytes(of: image.uuid) { ImageIdentity(uuidBytes: $0).hex } : nil
            images.append(Image(path: path, uuid: uuid, textAddress: image.text_address, textSize: image.text_size,
                                isMapped: image.header_mapped != 0))
            if let uuid, byUUID[uuid] == nil { byUUID[uuid] = Int(i) }
        }
        self.images = images
        self.byUUID = byUUID
        if main.changedWhileMapped { throw DebugInfoError.changedWhileRead(path: path) }
    }

    deinit {
        dsc_close(handle)
    }

    /// The position of the image whose UUID is `uuid` (32 lowercase hex digits).
    public func imageIndex(uuid: String) -> Int? { byUUID[uuid] }

    /// The images as debug files, one per image with a UUID. Their "slice" is the main file's
    /// first page: its header (with the cache's UUID) and the start of its image list, which
    /// is what a content key (``ContentKey``) samples — the same few bytes for every image,
    /// not the whole cache thousands of times.
    public func debugFiles() -> [DebugFile] {
        let size = min(files[0].bytes.count, 4096)
        return images.compactMap { image in
            guard let uuid = image.uuid else { return nil }
            return DebugFile(path: path, format: .dyldCache, architecture: architecture, identifier: uuid,
                             textVMAddress: image.textAddress, sliceOffset: 0, sliceSize: size, hasDWARF: false,
                             hasSymbolTable: true)
        }
    }

    /// The images of the cache whose main file is at `path`, as debug files: from the
    /// opening their symbols are read from later (``opened(path:)``), the files mapped once.
    static func debugFiles(path: String) throws -> [DebugFile] {
        try opened(path: path).debugFiles()
    }

    /// The function symbols of image `index`, and what of them could not be read (a table in
    /// a missing sub-cache, a damaged exports trie).
    public func symbols(ofImage index: Int) throws -> (symbols: [DyldCacheSymbol], starts: [UInt64], problem: String?) {
        var read = dsc_symbols()
        var message = [CChar](repeating: 0, count: 256)
        guard dsc_read_symbols(handle, UInt32(index), &read, &message, message.count) == DSC_OK else {
            throw DebugInfoError.damagedDyldCache(path: path, reason: String(cString: message))
        }
        defer { dsc_free_symbols(&read) }
        var symbols: [DyldCacheSymbol] = []
        symbols.reserveCapacity(Int(read.count))
        for i in 0..<Int(read.count) {
            let symbol = read.symbols[i]
            symbols.append(DyldCacheSymbol(address: symbol.address,
                                           name: String(decoding: UnsafeBufferPointer(start: symbol.name, count: Int(symbol.name_length)), as: UTF8.self),
                                           source: symbol.source))
        }
        let starts = Array(UnsafeBufferPointer(start: read.starts, count: Int(read.start_count)))
        let problem = withUnsafeBytes(of: read.problem) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return (symbols, starts, problem.isEmpty ? nil : problem)
    }

    /// The symbol table of image `index`, for its ``SymbolIndex``: every function symbol,
    /// each running up to the next function start (LC_FUNCTION_STARTS), the end of its
    /// section or the end of `__TEXT`, whichever comes first — so that an address in a
    /// function without a name is not given the name of the one before it.
    func symbolTable(forImage index: Int) throws -> SymbolTable {
        var read = dsc_symbols()
        var message = [CChar](repeating: 0, count: 256)
        guard dsc_read_symbols(handle, UInt32(index), &read, &message, message.count) == DSC_OK else {
            throw DebugInfoError.damagedDyldCache(path: path, reason: String(cString: message))
        }
        defer { dsc_free_symbols(&read) }
        let image = images[index]
        if read.count == 0, read.problem.0 != 0 {
            let problem = withUnsafeBytes(of: read.problem) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw DebugInfoError.damagedDyldCache(path: path, reason: "image \(image.path): \(problem)")
        }
        let textEnd = image.textAddress &+ image.textSize
        let starts = UnsafeBufferPointer(start: read.starts, count: Int(read.start_count))
        let sections = UnsafeBufferPointer(start: read.section_ranges, count: 2 * Int(read.section_count))
        var strings: [UInt8] = [0]
        var entries: [SymbolTable.Entry] = []
        entries.reserveCapacity(Int(read.count))
        for i in 0..<Int(read.count) {
            let symbol = read.symbols[i]
            var end = UInt64.max
            let section = Int(symbol.section)
            if section > 0, section <= Int(read.section_count) {
                if symbol.address >= sections[2 * section - 2], symbol.address < sections[2 * section - 1] {
                    end = sections[2 * section - 1]
                }
            } else if symbol.address >= image.textAddress, symbol.address < textEnd {
                end = textEnd
            }
            if let next = DyldSharedCache.firstStart(after: symbol.address, in: starts) { end = min(end, next) }
            let name = UInt32(truncatingIfNeeded: strings.count)
            strings.append(contentsOf: UnsafeBufferPointer(start: symbol.name, count: Int(symbol.name_length)))
            strings.append(0)
            entries.append(SymbolTable.Entry(address: symbol.address, end: max(end, symbol.address &+ 1), name: name))
        }
        guard strings.count <= Int(UInt32.max) else {
            throw DebugInfoError.damagedDyldCache(path: path, reason: "image \(image.path): its symbol names exceed 4 GiB")
        }
        return SymbolTable(machOEntries: entries, strings: strings)
    }

    /// The first function start above `address` in ascending `starts`.
    private static func firstStart(after address: UInt64, in starts: UnsafeBufferPointer<UInt64>) -> UInt64? {
        var low = 0, high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= address { low = middle + 1 } else { high = middle }
        }
        return low < starts.count ? starts[low] : nil
    }

    /// xxxx.yy.zz → "15.2" or "13.2.1".
    static func version(_ packed: UInt32) -> String {
        let major = packed >> 16, minor = (packed >> 8) & 0xff, patch = packed & 0xff
        return patch == 0 ? "\(major).\(minor)" : "\(major).\(minor).\(patch)"
    }
}

/// One function symbol of a cache image, as the reader gives it.
public struct DyldCacheSymbol: Sendable {
    public var address: UInt64
    /// As the symbol table spells it (with Mach-O's leading underscore).
    public var name: String
    /// 0 the image's symbol table, 1 the local-symbol table, 2 the exports trie.
    public var source: UInt8
}
