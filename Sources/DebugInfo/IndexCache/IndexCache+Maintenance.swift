#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// Building a cache for other machines (`symbolicate index`), and the housekeeping of
/// `symbolicate cache list` and `cache prune`.
extension IndexCache {
    /// What became of one debug file given to ``storeShareable(_:)``.
    public struct Shareable: Sendable {
        /// The index file.
        public var path: String
        /// Its size in bytes.
        public var size: Int
        /// Whether it was built now (else an intact one was there already).
        public var built: Bool
        /// Whether the one there already is in a shared folder, not in this one.
        public var inSharedFolder: Bool
    }

    /// The content-keyed index of `file` (``ContentKey``), which any machine with the same
    /// debug file can use: the intact one in this folder or a shared one, else one built from
    /// the file and stored here. Files without a UUID or build-id cannot be shared (nothing
    /// would find them): ``DebugInfoError/malformed(path:reason:)`` says so. A file that
    /// changes while it is read is not stored.
    public func storeShareable(_ file: DebugFile) throws -> Shareable {
        guard file.identifier != nil else {
            throw DebugInfoError.malformed(path: file.path, reason: "no UUID or build-id: an index of it could not be found")
        }
        guard let stamp = DebugFileStamp(path: file.path), let key = ContentKey(file) else {
            throw DebugInfoError.unreadable(path: file.path, reason: "cannot be read")
        }
        let name = name(for: file, content: key)
        for (folder, owned) in [(directory, true)] + sharedDirectories.map({ ($0, false) }) {
            let path = Path.join(folder, name)
            if let index = try? openIndex(path, file: file, identity: IndexCacheFormat.Identity(file, content: key), owned: owned,
                                          stamp: stamp, warning: { _ in }) {
                withExtendedLifetime(index) {}
                return Shareable(path: path, size: System.status(path).map { Int($0.st_size) } ?? 0, built: false,
                                 inSharedFolder: !owned)
            }
        }
        let index = try SymbolIndex.build(file)
        guard DebugFileStamp(path: file.path) == stamp, ContentKey(file) == key else {
            throw DebugInfoError.changedWhileRead(path: file.path)
        }
        let path = Path.join(directory, name)
        try store(index, identity: IndexCacheFormat.Identity(file, content: key), at: path)
        return Shareable(path: path, size: System.status(path).map { Int($0.st_size) } ?? 0, built: true, inSharedFolder: false)
    }

    // MARK: - Listing

    /// One file of the folder, as its header describes it.
    public struct Entry: Sendable {
        /// The file name, and the path.
        public var name: String
        public var path: String
        /// Its size in bytes.
        public var size: Int
        /// When it was last used (its mtime), in seconds since 1970.
        public var lastUsed: Int64
        /// What it indexes: the debug file's UUID or build-id and architecture, and its path
        /// on the machine that indexed it; nil when the header cannot be read.
        public var identifier: String?
        public var architecture: String?
        public var debugFile: String?
        /// Keyed by content (usable on other machines), not by the debug file's place.
        public var contentKeyed: Bool
        /// Why the file cannot be used (another format version, damage); nil when it can.
        public var problem: String?
        /// For an index keyed by its debug file's place on this machine: whether that file
        /// is still there as it was indexed. Nil when that cannot be known (keyed by content:
        /// the path is another machine's, perhaps).
        public var debugFileIntact: Bool?
    }

    /// The index files of the folder, by name.
    public func list() -> [Entry] {
        entries().map { describe(name: $0.name, size: $0.size, used: $0.used) }.sorted { $0.name < $1.name }
    }

    private func describe(name: String, size: Int, used: Int64) -> Entry {
        let path = Path.join(directory, name)
        var entry = Entry(name: name, path: path, size: size, lastUsed: used / 1_000_000_000, identifier: nil,
                          architecture: nil, debugFile: nil, contentKeyed: false, problem: nil, debugFileIntact: nil)
        guard let header = IndexCache.header(at: path) else {
            entry.problem = "not an index file of this machine's byte order"
            return entry
        }
        let r = ByteReader(header.withUnsafeBytes { $0 })
        guard let version = r.u32(8), version == IndexCacheFormat.version else {
            entry.problem = "format version \(r.u32(8) ?? 0), not \(IndexCacheFormat.version)"
            return entry
        }
        let sectionCount = Int(r.u32(32) ?? 0), stringsSize = Int(r.u32(88) ?? 0)
        let stringsStart = IndexCacheFormat.fixedHeaderSize + sectionCount * IndexCacheFormat.sectionEntrySize
        var zeroed = header
        for i in 96..<104 { zeroed[i] = 0 }
        guard stringsStart + stringsSize <= header.count, r.u64(96) == zeroed.withUnsafeBytes({ IndexChecksum.hash($0) })
        else {
            entry.problem = "damaged (header checksum)"
            return entry
        }
        let strings = header[stringsStart..<(stringsStart + stringsSize)].split(separator: 0, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard strings.count == 5 else {
            entry.problem = "damaged (identity strings)"
            return entry
        }
        entry.identifier = strings[0].isEmpty ? nil : strings[0]
        entry.architecture = strings[1].isEmpty ? nil : strings[1]
        entry.debugFile = strings[3].isEmpty ? nil : strings[3]
        entry.contentKeyed = (r.u32(36) ?? 0) & IndexCacheFormat.contentKeyedFlag != 0
        if !entry.contentKeyed, let debugFile = entry.debugFile {
            let recorded = DebugFileStamp(size: r.u64(40)!, modified: Int64(bitPattern: r.u64(48)!), inode: r.u64(56)!,
                                          device: r.u64(64)!)
            entry.debugFileIntact = DebugFileStamp(path: debugFile) == recorded
        }
        return entry
    }

    /// The header of the index file at `path` (up to its recorded header size, at most 64 MiB);
    /// nil when it is not an index file of this byte order.
    private static func header(at path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        func read(_ count: Int) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, 0) }
            return n == count ? bytes : nil
        }
        guard let fixed = read(IndexCacheFormat.fixedHeaderSize), fixed.starts(with: IndexCacheFormat.magic) else { return nil }
        let r = ByteReader(fixed.withUnsafeBytes { $0 })
        guard r.u32(12) == IndexCacheFormat.byteOrderMark, let size = r.u64(24),
              size >= UInt64(IndexCacheFormat.fixedHeaderSize), size <= 64 << 20
        else { return r.u32(12) == IndexCacheFormat.byteOrderMark ? fixed : nil }
        return read(Int(size)) ?? fixed
    }

    // MARK: - Pruning

    /// Removes the files that can no longer be used — of another format version, damaged,
    /// keyed by a debug file on this machine that is gone or changed — then those not used
    /// for `olderThan` seconds, then the least recently used until the rest take at most
    /// `maxSize` bytes. Returns what was removed, each with why.
    public func prune(maxSize: Int?, olderThan: Int64?, now: Int64) -> [(entry: Entry, why: String)] {
        lock.lock()
        defer { lock.unlock() }
        var removed: [(entry: Entry, why: String)] = []
        var kept: [Entry] = []
        func remove(_ entry: Entry, _ why: String) {
            if unlink(entry.path) == 0 || errno == ENOENT {
                removed.append((entry, why))
            } else {
                removed.append((entry, "\(why); cannot be removed: \(SystemError.reason(errno))"))
            }
        }
        for entry in list() {
            if let problem = entry.problem {
                remove(entry, problem)
            } else if entry.debugFileIntact == false {
                remove(entry, "its debug file \(entry.debugFile ?? "?") is gone or changed")
            } else if let olderThan, now - entry.lastUsed > olderThan {
                remove(entry, "not used for \((now - entry.lastUsed) / 86400) days")
            } else {
                kept.append(entry)
            }
        }
        if let maxSize {
            var total = kept.reduce(0) { $0 + $1.size }
            for entry in kept.sorted(by: { ($0.lastUsed, $0.name) < ($1.lastUsed, $1.name) }) where total > maxSize {
                remove(entry, "the least recently used, over the size bound")
                total -= entry.size
            }
        }
        return removed
    }
}
