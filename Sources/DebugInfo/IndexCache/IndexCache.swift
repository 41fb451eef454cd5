#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CFaultGuard
import Platform

/// Built indexes kept on disk between runs, so a debug file's DWARF is read once, not once
/// per run: the next run maps the stored index and looks addresses up in it where it lies.
///
/// One file per debug file (or slice), in `$XDG_CACHE_HOME/symbolicate/indexes` (else
/// `~/.cache/symbolicate/indexes`), named by what identifies the debug file:
///
///     4c4c44e855553144a1883033e49ba05b-arm64-0-803_1a2b3c-v1.index
///     (UUID or build-id, architecture, slice offset, device and inode in hex, format version)
///
/// (the device and inode keep apart copies of one debug file in several places, which would
/// otherwise replace each other's index on every run)
///
/// and holding the debug file's size, mtime, inode and device when it was indexed: a debug
/// file that changed since is indexed again and its entry replaced. The format and the
/// checks made before a file is used are in ``IndexCacheFormat``; a file that fails them
/// (cut short, damaged, of another version) is passed over and replaced, never trusted.
///
/// Several runs may share the folder: an index is written to a temporary file beside its
/// place and renamed over it, so a reader sees the old file or the new one, whole; no file is
/// ever rewritten in place, so a mapping never changes or shrinks under a run reading it, and
/// runs that map a file keep their mapping when another run replaces or evicts it. (A file
/// damaged or cut short by anything else is found by its checksums and the fault guard: see
/// ``IndexBlocks`` and ``IndexMapping``.)
///
/// The folder is kept under ``sizeLimit`` bytes: after each store, the files used least
/// recently go first (each use sets a file's mtime to the time of use).
///
/// **Shared caches.** An index can also be keyed by the debug file's contents (``ContentKey``:
/// its size and a hash of sampled bytes, with the identifier, architecture and slice), so that
/// it holds on any machine that has the same debug file, whatever its path, inode or mtime
/// there:
///
///     4c4c44e855553144a1883033e49ba05b-arm64-0-c5a3e_9f2b4c1d0e6a7b38-v13.index
///     (identifier, architecture, slice offset, "c" file size _ content hash, version)
///
/// `symbolicate index` writes these (``storeShareable(_:)``). A lookup tries the
/// machine's own key first, then the content key in this folder and in each of
/// ``sharedDirectories`` — folders of other machines' caches (NFS, an object-store mount),
/// only ever read: nothing there is written, touched or removed, so a read-only one works —
/// and builds the index last, storing it here.
public final class IndexCache: @unchecked Sendable {
    /// The bound on the folder's size unless another is given: 2 GiB.
    public static let defaultSizeLimit = 2 << 30
    /// Temporary files older than this (in seconds) are left over from runs that died while
    /// writing.
    static let abandonedAfter = 3600

    /// Where the index files are.
    public let directory: String
    /// Index folders of shared caches, read after ``directory`` (content-keyed files only).
    public let sharedDirectories: [String]
    /// The most bytes the index files may take together.
    public let sizeLimit: Int

    let lock = Lock()
    private var temporaryCount = 0
    /// The folder's total as last counted plus what this store wrote since, and how many
    /// files that is: ``evict(sparing:added:)`` counts again only near the bound or after
    /// ``recountAfter`` files (other runs may write too), so that indexing the thousands of
    /// images of a dyld shared cache does not list the folder once per image.
    private var estimatedTotal: Int?
    private var storedSinceCount = 0
    static let recountAfter = 64

    /// A store in `directory` (created when the first index is stored) holding at most
    /// `sizeLimit` bytes of index files.
    public init(directory: String, sharedDirectories: [String] = [], sizeLimit: Int = IndexCache.defaultSizeLimit) {
        self.directory = directory
        self.sharedDirectories = sharedDirectories
        self.sizeLimit = sizeLimit
    }

    /// `$XDG_CACHE_HOME/symbolicate/indexes` when `XDG_CACHE_HOME` is an absolute path, else
    /// `$HOME/.cache/symbolicate/indexes`; nil when neither is set.
    public static func standardDirectory(environment: [String: String]) -> String? {
        System.cacheDirectory(environment: environment).map { Path.join($0, "indexes") }
    }

    /// The store at ``standardDirectory(environment:)``, reading the `indexes` folders of
    /// ``System/sharedCacheDirectories(environment:)`` too; nil when there is no such place.
    public static func standard(environment: [String: String], sizeLimit: Int = IndexCache.defaultSizeLimit) -> IndexCache? {
        standardDirectory(environment: environment).map {
            IndexCache(directory: $0,
                       sharedDirectories: System.sharedCacheDirectories(environment: environment).map { Path.join($0, "indexes") },
                       sizeLimit: sizeLimit)
        }
    }

    /// The index of `file`: the stored one when it is intact and was built from the file as
    /// it is now, else one built from the file (``SymbolIndex/build(_:)``, whose errors are
    /// thrown) and stored for the next run. Failing to store is not an error: `warning` is
    /// told why, once, and the built index is returned.
    ///
    /// A stored index found damaged, when it is opened or later by a lookup (``IndexBlocks``),
    /// is built again from the debug file and replaced, and `warning` is told so in one line:
    /// a damaged cache never changes an answer.
    public func index(for file: DebugFile, warning: @escaping @Sendable (String) -> Void = { _ in }) throws -> SymbolIndex {
        guard let stamp = DebugFileStamp(path: file.path) else { return try SymbolIndex.build(file) }
        do {
            return try load(file, stamp: stamp, warning: warning)
        } catch .damaged(let reason) {
            warning("\(path(for: file, stamp: stamp)): damaged index cache file (\(reason)); the index is built again")
        } catch {}
        if let shared = shareableIndex(for: file, stamp: stamp, warning: warning) { return shared }
        return try buildAndStore(file, stamp: stamp, warning: warning)
    }

    /// The content-keyed index of `file` in this folder or a shared one, if there is an
    /// intact one; a damaged one is said and passed over (and, in this folder, replaced later).
    private func shareableIndex(for file: DebugFile, stamp: DebugFileStamp,
                                warning: @escaping @Sendable (String) -> Void) -> SymbolIndex? {
        guard file.identifier != nil, let key = ContentKey(file) else { return nil }
        for (folder, owned) in [(directory, true)] + sharedDirectories.map({ ($0, false) }) {
            let path = Path.join(folder, name(for: file, content: key))
            do {
                return try openIndex(path, file: file, identity: IndexCacheFormat.Identity(file, content: key), owned: owned,
                                     stamp: stamp, warning: warning)
            } catch .damaged(let reason) {
                warning("\(path): damaged index cache file (\(reason)); passed over")
            } catch {}
        }
        return nil
    }

    /// The stored index of `file` if there is an intact one built from the file as it is now.
    public func cachedIndex(for file: DebugFile) -> SymbolIndex? {
        guard let stamp = DebugFileStamp(path: file.path) else { return nil }
        return try? load(file, stamp: stamp)
    }

    /// The index of `file` built from it, and stored unless it changed meanwhile.
    private func buildAndStore(_ file: DebugFile, stamp: DebugFileStamp, warning: (String) -> Void) throws -> SymbolIndex {
        let index = try SymbolIndex.build(file)
        // A file that changed while it was read is not stored: the next run reads it again.
        guard DebugFileStamp(path: file.path) == stamp else { return index }
        // Nor is the index of a dyld cache image read without some of the cache's files (its
        // `.symbols`, a sub-cache): it is keyed by the main file, which does not change when
        // the missing file is put beside it, and would stand for the whole image from then on.
        if file.format == .dyldCache, (try? DyldSharedCache.opened(path: file.path))?.missingFiles.isEmpty != true {
            return index
        }
        do {
            try store(index, stamp: stamp)
        } catch {
            warning("\(error)")
        }
        return index
    }

    /// Where the index of `file`, as `stamp` describes it, is stored.
    func path(for file: DebugFile, stamp: DebugFileStamp) -> String {
        Path.join(directory, name(for: file, key: String(stamp.device, radix: 16) + "_" + String(stamp.inode, radix: 16)))
    }

    /// The name of the content-keyed index of `file`.
    func name(for file: DebugFile, content: ContentKey) -> String {
        name(for: file, key: "c" + String(content.size, radix: 16) + "_" + String(content.hash, radix: 16))
    }

    private func name(for file: DebugFile, key: String) -> String {
        let identifier = file.identifier.map(IndexCache.fileNamePart)
            ?? "noid-" + String(Array(file.path.utf8).withUnsafeBytes { IndexChecksum.hash($0) }, radix: 16)
        return [identifier, IndexCache.fileNamePart(file.architecture?.name ?? "unknown"), String(file.sliceOffset, radix: 16),
                key, "v\(IndexCacheFormat.version).index"].joined(separator: "-")
    }

    /// `text` with everything but ASCII letters, digits and `_` made `_`.
    private static func fileNamePart(_ text: String) -> String {
        String(decoding: text.utf8.map { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return byte
            default:
                return UInt8(ascii: "_")
            }
        }, as: UTF8.self)
    }

    // MARK: - Loading

    /// The stored index of `file` as `stamp` describes it. Marks the file used. Once a lookup
    /// finds it damaged, the index is built again from `file` (``buildAndStore``), which
    /// `warning` is told.
    ///
    /// Only a regular file of a size the store can hold is read, and opening it never waits:
    /// a FIFO, a device or a link put in the folder in place of an index file is damage,
    /// removed (the file is the store's own to replace).
    func load(_ file: DebugFile, stamp: DebugFileStamp,
              warning: @escaping @Sendable (String) -> Void = { _ in }) throws(IndexCacheFormat.Rejection) -> SymbolIndex {
        try openIndex(path(for: file, stamp: stamp), file: file, identity: IndexCacheFormat.Identity(file, stamp: stamp),
                      owned: true, stamp: stamp, warning: warning)
    }

    /// The index file at `path` if it is an intact index of `file` as `identity` describes
    /// it. A file of the store's own folder (`owned`) is marked used, and removed when it is
    /// not a regular file; one of a shared folder is only read. Once a lookup finds it
    /// damaged, the index is built from `file` (as `stamp` describes it) and stored here.
    func openIndex(_ path: String, file: DebugFile, identity: IndexCacheFormat.Identity, owned: Bool,
                   stamp: DebugFileStamp, warning: @escaping @Sendable (String) -> Void)
        throws(IndexCacheFormat.Rejection) -> SymbolIndex {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard fd >= 0 else {
            guard errno == ELOOP else { throw .absent }
            if owned { unlink(path) }
            throw .damaged("a symbolic link")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .damaged("cannot be examined") }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            if owned { unlink(path) }
            throw .damaged("not a regular file")
        }
        guard info.st_size >= IndexCacheFormat.fixedHeaderSize else { throw .damaged("cut short") }
        // The bound is this folder's; a shared cache is as large as its maker made it.
        guard !owned || info.st_size <= sizeLimit else { throw .damaged("larger than the cache may be") }
        let mapping = try IndexMapping(fd: fd, size: Int(info.st_size))
        let index = try IndexCacheFormat.read(mapping, file: file, identity: identity) {
            [self] in
            warning("\(path): damaged index cache file (block checksum); the index is built again")
            do {
                return try buildAndStore(file, stamp: stamp, warning: warning)
            } catch {
                warning("\(error)")
                return nil
            }
        }
        if owned { futimens(fd, nil) }  // used now; in a read-only store, the time stays as it was
        return index
    }

    // MARK: - Storing

    /// Why an index could not be stored: the file or folder and the system's reason.
    public struct WriteError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Writes `index`, built from its debug file as `stamp` describes it, then evicts what
    /// exceeds the bound. An index larger than the bound by itself is not stored.
    func store(_ index: SymbolIndex, stamp: DebugFileStamp) throws {
        try store(index, identity: IndexCacheFormat.Identity(index.debugFile, stamp: stamp),
                  at: path(for: index.debugFile, stamp: stamp))
    }

    /// Writes `index` with `identity` at `path` (in ``directory``), then evicts what exceeds
    /// the bound.
    func store(_ index: SymbolIndex, identity: IndexCacheFormat.Identity, at path: String) throws {
        try withExtendedLifetime(index) {
            let layout = IndexCacheFormat.layout(of: index, identity: identity)
            guard layout.fileSize <= sizeLimit else { return }
            do {
                try System.createDirectories(directory)
            } catch {
                throw WriteError(description: "\(error) (the folder of the index cache)")
            }
            lock.lock()
            temporaryCount += 1
            let temporary = path + ".\(getpid()).\(temporaryCount).tmp"
            lock.unlock()
            do {
                try AtomicFile.write(to: path, temporary: temporary) { out in
                    var ok = layout.header.withUnsafeBytes { out($0) }
                    var written = layout.header.count
                    let zeros = [UInt8](repeating: 0, count: IndexCacheFormat.sectionAlignment)
                    for section in layout.sections where ok {
                        let padding = section.offset - written
                        ok = zeros.withUnsafeBytes { out(UnsafeRawBufferPointer(rebasing: $0[0..<padding])) }
                            && IndexCache.writeInPieces(section.bytes, out)
                        written = section.offset + section.bytes.count
                    }
                    return ok
                }
            } catch {
                throw WriteError(description: "cannot write the index cache: \(error)")
            }
            evict(sparing: path, added: layout.fileSize)
        }
    }

    /// The largest single write of an index file. The page cache keeps a file in pieces (folios)
    /// as large as the writes that made it, up to 2 MiB, and a mapping takes in a whole piece
    /// at the first touch: a lookup reading 40 scattered elements of a file written in one go
    /// would take in tens of megabytes, instead of the few hundred kilobytes it reads.
    static let writePieceSize = 64 * 1024

    /// Writes `bytes` through `out` in pieces of at most ``writePieceSize``.
    private static func writeInPieces(_ bytes: UnsafeRawBufferPointer, _ out: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + writePieceSize)
            guard out(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) else { return false }
            start = end
        }
        return true
    }

    // MARK: - Eviction

    /// The index files in the folder, with their sizes and times of last use (in nanoseconds).
    /// Removes temporary files abandoned on the way.
    func entries() -> [(name: String, size: Int, used: Int64)] {
        guard let folder = opendir(directory) else { return [] }
        defer { closedir(folder) }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var result: [(name: String, size: Int, used: Int64)] = []
        while let entry = readdir(folder) {
            let name = String(decoding: System.entryName(entry), as: UTF8.self)
            let isIndex = name.hasSuffix(".index"), isTemporary = name.hasSuffix(".tmp")
            guard isIndex || isTemporary else { continue }
            let path = Path.join(directory, name)
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            if isIndex {
                result.append((name, Int(info.st_size), System.times(of: info).modified))
            } else if Int64(now.tv_sec) - System.times(of: info).modified / 1_000_000_000 > IndexCache.abandonedAfter {
                unlink(path)
            }
        }
        return result
    }

    /// Removes the least recently used index files until the rest fit in ``sizeLimit``;
    /// `spared` (just written) stays.
    func evict(sparing spared: String? = nil, added: Int? = nil) {
        lock.lock()
        defer { lock.unlock() }
        if let added, let estimate = estimatedTotal, estimate + added <= sizeLimit / 2,
           storedSinceCount < IndexCache.recountAfter {
            estimatedTotal = estimate + added
            storedSinceCount += 1
            return
        }
        let entries = entries()
        var total = entries.reduce(0) { $0 + $1.size }
        estimatedTotal = total
        storedSinceCount = 0
        guard total > sizeLimit else { return }
        let spared = spared.map(Path.lastComponent)
        for entry in entries.sorted(by: { ($0.used, $0.name) < ($1.used, $1.name) }) where entry.name != spared {
            guard total > sizeLimit else { break }
            if unlink(Path.join(directory, entry.name)) == 0 || errno == ENOENT {
                total -= entry.size
            }
        }
        estimatedTotal = total
    }
}

/// An index file mapped read-only, unmapped when the last table reading it is gone.
///
/// Guarded (`CFaultGuard`): the store never rewrites a file in place, but someone else may
/// cut it short while it is mapped; its vanished pages then read as zeros, and
/// ``damagedFlag`` says so. A file of at most ``copiedSize`` bytes is read into memory of
/// its own instead: opening it checks all its blocks anyway, and a cut could otherwise leave
/// zeros in a page that was checked before, with no page vanishing to say so.
final class IndexMapping: @unchecked Sendable {
    static let copiedSize = 2 * IndexBlocks.size
    let bytes: UnsafeRawBufferPointer
    private let region: Int32

    init(fd: Int32, size: Int) throws(IndexCacheFormat.Rejection) {
        let copied = size <= IndexMapping.copiedSize
        guard let base = copied ? mmap(nil, max(size, 1), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                                : mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0),
              base != MAP_FAILED
        else { throw .damaged("cannot be mapped") }
        if copied {
            var done = 0
            while done < size {
                let got = pread(fd, base + done, size - done, off_t(done))
                if got < 0, errno == EINTR { continue }
                guard got > 0 else {
                    munmap(base, max(size, 1))
                    throw .damaged("cut short while read")
                }
                done += got
            }
            mprotect(base, max(size, 1), PROT_READ)
        } else {
            // Lookups jump about (binary searches): no read-ahead, no pages mapped around the
            // one touched, so a run costs the pages it reads, not the whole file.
            _ = madvise(base, size, MADV_RANDOM)
        }
        bytes = UnsafeRawBufferPointer(start: base, count: size)
        region = cfg_register(base, size)
    }

    /// Set when a page vanished under a read: the file was cut short. Valid while this lives.
    var damagedFlag: UnsafePointer<Int32> { cfg_damaged_flag(region) }

    deinit {
        cfg_unregister(region)
        munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress!), max(bytes.count, 1))
    }
}
