import DebugInfo
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// What the object files of earlier runs turned out to be, so that a folder of thousands of
/// dSYMs is not read again on the next run.
///
/// Keyed by absolute path and checked against the file's size, modification time, change
/// time and inode: any of them differing means the file is read again. Each entry holds the
/// identity of every slice of the file (as ``DebugFile/identify(path:)`` gives it) or says
/// that the file is not an object file, so the other files of a searched folder are not even
/// opened.
///
/// The file (`$XDG_CACHE_HOME/symbolicate/identities`, else `~/.cache/symbolicate/identities`)
/// is text, one line per file, fields separated by tabs, slices by `;`, slice fields by `,`:
///
///     symbolicate identities 1
///     /dSYMs/A.dSYM/Contents/Resources/DWARF/A	3514	1700000000123456789	1700000000123456789	42	M,arm64,6ab086dc…,100000000,0,dae,6
///     /dSYMs/A.dSYM/Contents/Info.plist	640	1700000000123456789	1700000000123456789	43	-
///     end	2	9c1e0f3d5a7b2e41
///
/// A slice is format (`M`, `E`), architecture (`-` for none), identifier (`-`), text vmaddr,
/// slice offset and size (hex), flags (1 DWARF, 2 relocatable, 4 symbol table) and the ELF
/// debuglink as `crc:name` (or `-`). The last line counts the entries and carries a 64-bit
/// FNV-1a hash of everything before it: a file that is truncated, damaged or of another
/// version is ignored (and rewritten), never trusted. The file is written only when something
/// changed, to a temporary file in the same folder renamed over the old one, so a reader
/// never sees half of it; it keeps at most ``maximumEntries`` files, those seen in this run
/// first.
public final class IdentityCache: @unchecked Sendable {
    /// What a file turned out to be.
    enum Identity: Equatable {
        /// Its slices, with an empty `path` (the path is the key).
        case objects([DebugFile])
        /// Not a Mach-O or ELF file, or one whose headers cannot be read.
        case notAnObject
    }

    /// What identifies a version of a file without reading it.
    struct Stamp: Equatable {
        var size: Int64
        var modified: Int64
        var changed: Int64
        var inode: UInt64

        init(size: Int64, modified: Int64, changed: Int64, inode: UInt64) {
            self.size = size
            self.modified = modified
            self.changed = changed
            self.inode = inode
        }

        init(_ info: stat) {
            let times = System.times(of: info)
            self.init(size: Int64(info.st_size), modified: times.modified, changed: times.changed,
                      inode: UInt64(info.st_ino))
        }
    }

    struct Entry {
        var stamp: Stamp
        var identity: Identity
    }

    /// The most files the cache remembers.
    public static let maximumEntries = 200_000
    private let capacity: Int
    static let header = "symbolicate identities 1"
    /// Larger files are not read: something else wrote them.
    private static let maximumFileSize = 256 << 20

    /// Where the cache lives.
    public let path: String
    private let lock = Lock()
    private var entries: [String: Entry] = [:]
    private var seen: Set<String> = []
    private var changed = false
    /// The entries of shared caches (other machines' identity files), read after this one's;
    /// what is found there is copied here. Never written.
    private var shared: [[String: Entry]] = []

    /// The cache at `path`. A missing file gives an empty cache; an unreadable, damaged or
    /// foreign one too, rewritten on ``save()``, and `warning` is told so in one line.
    public convenience init(path: String, warning: (String) -> Void = { _ in }) {
        self.init(path: path, capacity: IdentityCache.maximumEntries, warning: warning)
    }

    /// The cache at `path`, reading the identity files at `sharedPaths` too (other machines'
    /// caches, only read: a missing or damaged one is passed over, said through `warning`).
    /// An entry of a shared file counts when the file at its path has the stamp it records:
    /// the same file seen through NFS at the same path does; a copy does not.
    public convenience init(path: String, sharedPaths: [String], warning: (String) -> Void = { _ in }) {
        self.init(path: path, capacity: IdentityCache.maximumEntries, warning: warning)
        for shared in sharedPaths {
            switch IdentityCache.contents(of: shared) {
            case .success(nil):
                break
            case .success(let bytes?):
                if let loaded = IdentityCache.parse(bytes) {
                    self.shared.append(loaded)
                } else {
                    warning("\(shared): the shared identity cache is damaged; passed over")
                }
            case .failure(let problem):
                warning("\(shared): the shared identity cache \(problem.reason); passed over")
            }
        }
    }

    /// A cache that keeps at most `capacity` files (tests use small ones).
    init(path: String, capacity: Int, warning: (String) -> Void = { _ in }) {
        self.path = path
        self.capacity = capacity
        switch IdentityCache.contents(of: path) {
        case .success(nil):
            break
        case .success(let bytes?):
            if let loaded = IdentityCache.parse(bytes) {
                entries = loaded
            } else {
                changed = true
                warning("\(path): the identity cache is damaged; it is made again")
            }
        case .failure(let problem):
            changed = true
            warning("\(path): the identity cache \(problem.reason); it is made again")
        }
    }

    private struct ReadProblem: Error {
        var reason: String
    }

    /// The bytes of the file at `path`, nil when there is none. Only a regular file of at
    /// most ``maximumFileSize`` bytes is read, and opening it never waits: a FIFO, a device,
    /// or a link (to anything: the file is the cache's own, and replaced on ``save()``) put
    /// in its place is a problem, said once.
    private static func contents(of path: String) -> Result<[UInt8]?, ReadProblem> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard fd >= 0 else {
            if errno == ENOENT { return .success(nil) }
            return .failure(ReadProblem(reason: errno == ELOOP ? "is a symbolic link" : "cannot be opened: \(String(cString: strerror(errno)))"))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            return .failure(ReadProblem(reason: "is not a regular file"))
        }
        guard info.st_size <= maximumFileSize else { return .failure(ReadProblem(reason: "is larger than it can be")) }
        // The size is a hint: read one byte more, to see a file grown past it.
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { return .failure(ReadProblem(reason: "cannot be read: \(String(cString: strerror(errno)))")) }
            if n == 0 { break }
            count += n
        }
        guard count < bytes.count else { return .failure(ReadProblem(reason: "changed while it was being read")) }
        bytes.removeLast(bytes.count - count)
        return .success(bytes)
    }

    /// The cache in the user's cache folder: `$XDG_CACHE_HOME/symbolicate/identities` when
    /// `XDG_CACHE_HOME` is an absolute path, else `$HOME/.cache/symbolicate/identities`; nil
    /// when neither is set.
    public static func standardPath(environment: [String: String]) -> String? {
        System.cacheDirectory(environment: environment).map { Path.join($0, "identities") }
    }

    /// The cache at ``standardPath(environment:)``, reading the identity files of the shared
    /// caches (``System/sharedCacheDirectories(environment:)``) too, or nil when there is no
    /// such place; `warning` is told when a file is damaged.
    public static func standard(environment: [String: String], warning: (String) -> Void = { _ in }) -> IdentityCache? {
        standardPath(environment: environment).map {
            IdentityCache(path: $0, sharedPaths: System.sharedCacheDirectories(environment: environment).map { Path.join($0, "identities") },
                          warning: warning)
        }
    }

    /// Whether the cache holds something the file on disk does not.
    public var hasChanges: Bool {
        lock.lock()
        defer { lock.unlock() }
        return changed
    }

    /// How many files the cache knows.
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
    }

    // MARK: - Lookups

    /// The identity recorded for `key` if the file is still the one it was recorded for.
    func identity(of key: String, stamp: Stamp) -> Identity? {
        lock.lock()
        defer { lock.unlock() }
        if let entry = entries[key], entry.stamp == stamp {
            seen.insert(key)
            return entry.identity
        }
        for entries in shared {
            guard let entry = entries[key], entry.stamp == stamp else { continue }
            self.entries[key] = entry
            seen.insert(key)
            changed = true
            return entry.identity
        }
        return nil
    }

    /// Forgets the files that are no longer where they were recorded, or changed since;
    /// returns how many. For `cache prune`.
    public func forgetMissingFiles() -> Int {
        lock.lock()
        defer { lock.unlock() }
        let gone = entries.filter { key, entry in
            System.status(key).map { Stamp($0) != entry.stamp } ?? true
        }.map(\.key)
        for key in gone { entries[key] = nil }
        if !gone.isEmpty { changed = true }
        return gone.count
    }

    /// Records what the file at `key` is. Files whose names (or debuglink names) the format
    /// cannot hold are not recorded, and so read on every run.
    func record(_ identity: Identity, of key: String, stamp: Stamp) {
        guard IdentityCache.canStore(key, identity) else { return }
        let stored: Identity
        if case .objects(let files) = identity {
            stored = .objects(files.map { var file = $0; file.path = ""; return file })
        } else {
            stored = identity
        }
        lock.lock()
        defer { lock.unlock() }
        seen.insert(key)
        if let old = entries[key], old.stamp == stamp, old.identity == stored { return }
        entries[key] = Entry(stamp: stamp, identity: stored)
        changed = true
    }

    /// Forgets the files under the folder `root` (an absolute path) that this run did not
    /// meet: a walk of `root` met every file there is but those in hidden folders, so the
    /// others are gone.
    func forgetUnseen(under root: String) {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        lock.lock()
        defer { lock.unlock() }
        let gone = entries.keys.filter { key in
            key.hasPrefix(prefix) && !seen.contains(key) && !key.dropFirst(prefix.count).contains("/.")
                && !key.dropFirst(prefix.count).hasPrefix(".")
        }
        for key in gone { entries[key] = nil }
        if !gone.isEmpty { changed = true }
    }

    // MARK: - Writing

    /// Writes the cache if something changed: to a temporary file beside it, then renamed
    /// over it. Creates the folder if needed.
    public func save() throws {
        lock.lock()
        defer { lock.unlock() }
        guard changed else { return }
        if entries.count > capacity {
            // Keep what this run met, then the rest in path order, up to the bound.
            let keys = entries.keys.sorted { (seen.contains($0) ? 0 : 1, $0) < (seen.contains($1) ? 0 : 1, $1) }
            for key in keys.dropFirst(capacity) { entries[key] = nil }
        }
        // AtomicFile makes the folder, writes a temporary file beside the cache and renames it.
        try AtomicFile.write(IdentityCache.serialize(entries), to: path)
        changed = false
    }

    // MARK: - Format

    private static func canStore(_ key: String, _ identity: Identity) -> Bool {
        guard key.hasPrefix("/"), !key.utf8.contains(where: { $0 == 9 || $0 == 10 }) else { return false }
        if case .objects(let files) = identity {
            return files.allSatisfy { file in
                file.debugLink.map { !$0.name.utf8.contains { $0 == 9 || $0 == 10 || $0 == 44 || $0 == 59 } } ?? true
            }
        }
        return true
    }

    static func fnv1a(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    static func serialize(_ entries: [String: Entry]) -> [UInt8] {
        var out = Array((header + "\n").utf8)
        out.reserveCapacity(entries.count * 160)
        for key in entries.keys.sorted() {
            let entry = entries[key]!
            let s = entry.stamp
            out += key.utf8
            out += "\t\(s.size)\t\(s.modified)\t\(s.changed)\t\(s.inode)\t".utf8
            switch entry.identity {
            case .notAnObject:
                out.append(UInt8(ascii: "-"))
            case .objects(let files):
                out += files.map(serialize).joined(separator: ";").utf8
            }
            out.append(10)
        }
        out += "end\t\(entries.count)\t\(String(fnv1a(out[...]), radix: 16))\n".utf8
        return out
    }

    private static func serialize(_ file: DebugFile) -> String {
        let flags = (file.hasDWARF ? 1 : 0) | (file.isRelocatable ? 2 : 0) | (file.hasSymbolTable ? 4 : 0)
        let link = file.debugLink.map { String($0.crc, radix: 16) + ":" + $0.name } ?? "-"
        let format = file.format == .machO ? "M" : file.format == .elf ? "E" : "D"
        return [format, file.architecture?.name ?? "-", file.identifier ?? "-",
                String(file.textVMAddress, radix: 16), String(file.sliceOffset, radix: 16),
                String(file.sliceSize, radix: 16), String(flags), link].joined(separator: ",")
    }

    /// The entries of a cache file, or nil when any part of it is not as ``serialize(_:)``
    /// writes it.
    static func parse(_ bytes: [UInt8]) -> [String: Entry]? {
        // The trailer: the last line, "end\t<count>\t<hash>".
        guard bytes.last == 10 else { return nil }
        let body = bytes[..<(bytes.count - 1)]
        let trailerStart = (body.lastIndex(of: 10) ?? -1) + 1
        guard trailerStart > 0 else { return nil }
        let trailer = body[trailerStart...].split(separator: 9, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        // Spelled exactly as written: a digit in another case or with a sign is damage too.
        guard trailer.count == 3, trailer[0] == "end", let count = Int(trailer[1]), trailer[1] == String(count),
              trailer[2] == String(fnv1a(bytes[..<trailerStart]), radix: 16)
        else { return nil }
        var lines = bytes[..<(trailerStart - 1)].split(separator: 10, omittingEmptySubsequences: false)[...]
        guard let first = lines.popFirst(), String(decoding: first, as: UTF8.self) == header else { return nil }
        var entries: [String: Entry] = [:]
        entries.reserveCapacity(count)
        for line in lines {
            let fields = line.split(separator: 9, omittingEmptySubsequences: false)
            guard fields.count == 6,
                  let size = Int64(ascii: fields[1]), let modified = Int64(ascii: fields[2]),
                  let changed = Int64(ascii: fields[3]), let inode = UInt64(ascii: fields[4])
            else { return nil }
            let identity: Identity
            if fields[5].elementsEqual([UInt8(ascii: "-")]) {
                identity = .notAnObject
            } else {
                var files: [DebugFile] = []
                for slice in fields[5].split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false) {
                    guard let file = parseSlice(slice) else { return nil }
                    files.append(file)
                }
                identity = .objects(files)
            }
            entries[String(decoding: fields[0], as: UTF8.self)] = Entry(
                stamp: Stamp(size: size, modified: modified, changed: changed, inode: inode), identity: identity)
        }
        guard entries.count == count else { return nil }
        return entries
    }

    private static func parseSlice(_ bytes: ArraySlice<UInt8>) -> DebugFile? {
        let f = bytes.split(separator: UInt8(ascii: ","), maxSplits: 7, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard f.count == 8, f[0] == "M" || f[0] == "E" || f[0] == "D",
              let textVMAddress = UInt64(f[3], radix: 16), let offset = Int(f[4], radix: 16),
              let size = Int(f[5], radix: 16), let flags = Int(f[6]), (0..<8).contains(flags)
        else { return nil }
        var architecture: Architecture?
        if f[1] != "-" {
            guard let known = Architecture(name: f[1]) else { return nil }
            architecture = known
        }
        guard f[2] == "-" || (!f[2].isEmpty && f[2].utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) })
        else { return nil }
        var link: DebugFile.DebugLink?
        if f[7] != "-" {
            guard let colon = f[7].firstIndex(of: ":"), let crc = UInt32(f[7][..<colon], radix: 16) else { return nil }
            link = DebugFile.DebugLink(name: String(f[7][f[7].index(after: colon)...]), crc: crc)
        }
        return DebugFile(path: "", format: f[0] == "M" ? .machO : f[0] == "E" ? .elf : .dyldCache, architecture: architecture,
                         identifier: f[2] == "-" ? nil : f[2], textVMAddress: textVMAddress,
                         sliceOffset: offset, sliceSize: size, hasDWARF: flags & 1 != 0, isRelocatable: flags & 2 != 0,
                         hasSymbolTable: flags & 4 != 0, debugLink: link)
    }
}

private extension FixedWidthInteger {
    /// A decimal number spelled in ASCII digits (a leading `-` for signed types), nothing else.
    init?(ascii digits: ArraySlice<UInt8>) {
        guard digits.first != UInt8(ascii: "+"), let value = Self(String(decoding: digits, as: UTF8.self), radix: 10) else { return nil }
        self = value
    }
}
