import Platform

/// The caches opened in this run, by main file: a cache's thousands of images share one
/// opening (its files mapped once, its image list read once), however many of them the
/// reports need.
extension DyldSharedCache {
    private static let openLock = Lock()
    nonisolated(unsafe) private static var opened: [String: DyldSharedCache] = [:]

    /// The cache whose main file is at `path`, opened once per run.
    public static func opened(path: String) throws -> DyldSharedCache {
        openLock.lock()
        defer { openLock.unlock() }
        if let known = opened[path] { return known }
        let cache = try DyldSharedCache(path: path)
        opened[path] = cache
        return cache
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
