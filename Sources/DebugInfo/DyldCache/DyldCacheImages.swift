import Platform

/// The caches opened in this run, by main file: a cache's thousands of images share one
/// opening (its files mapped once, its image list read once), however many of them the
/// reports need. An opening is kept for the file it was made from: a main file replaced at
/// its path since (another OS build copied over it) is opened anew, not answered for by the
/// old one's images.
extension DyldSharedCache {
    private static let openLock = Lock()
    nonisolated(unsafe) private static var opened: [String: (cache: DyldSharedCache, stamp: DebugFileStamp)] = [:]

    /// The cache whose main file is at `path`, opened once per run and file.
    public static func opened(path: String) throws -> DyldSharedCache {
        openLock.lock()
        defer { openLock.unlock() }
        let stamp = DebugFileStamp(path: path)
        if let known = opened[path], let stamp, known.stamp == stamp, !foundSince(known.cache) { return known.cache }
        let cache = try DyldSharedCache(path: path)
        if let stamp { opened[path] = (cache, stamp) }
        return cache
    }

    /// Whether a file `cache` was opened without (its `.symbols`, a sub-cache) is beside its
    /// main file now.
    private static func foundSince(_ cache: DyldSharedCache) -> Bool {
        let folder = Path.deletingLastComponent(cache.path)
        return cache.missingFiles.contains { System.status(Path.join(folder, $0)) != nil }
    }

    /// The symbol table of the cache image `file` stands for (found by its UUID).
    static func symbolTable(of file: DebugFile) throws -> SymbolTable {
        let cache = try opened(path: file.path)
        guard let uuid = file.identifier, let index = cache.imageIndex(uuid: uuid) else {
            throw DebugInfoError.damagedDyldCache(path: file.path, reason: "no image with UUID \(file.identifier ?? "?") in the cache")
        }
        let table = try cache.symbolTable(forImage: index)
        guard !table.isEmpty else { throw DebugInfoError.noDWARF(path: file.path) }
        return table
    }
}

extension DebugFile {
    /// Whether the file at `path` is a dyld shared cache file (main file, sub-cache or
    /// `.symbols`): reads 16 bytes.
    public static func isDyldCacheFile(path: String) -> Bool {
        guard let file = try? MappedFile(path: path) else { return false }
        return DyldSharedCache.looksLikeCache(file.bytes)
    }
}
