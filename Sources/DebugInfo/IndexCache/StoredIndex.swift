import Platform

/// An index mapped from the cache, as ``SymbolIndex`` sees it: the checks of its file, and
/// the index to answer from once they find damage, made once by `rebuild` (from the debug
/// file; ``IndexCache`` says so in one line and replaces the damaged file).
final class StoredIndex: @unchecked Sendable {
    let blocks: IndexBlocks
    private let rebuild: @Sendable () -> SymbolIndex?
    private let lock = Lock()
    private var rebuilt = false
    private var replacement: SymbolIndex?

    init(blocks: IndexBlocks, rebuild: @escaping @Sendable () -> SymbolIndex?) {
        self.blocks = blocks
        self.rebuild = rebuild
    }

    /// nil while no damage has been found; else the index to answer from instead, itself
    /// nil when it could not be made (the frames are then left as they are).
    @inline(__always)
    func replacementIfDamaged() -> SymbolIndex?? {
        guard blocks.isDamaged else { return nil }
        return replaced()
    }

    @inline(never)
    private func replaced() -> SymbolIndex?? {
        lock.lock()
        defer { lock.unlock() }
        if !rebuilt {
            replacement = rebuild()
            rebuilt = true
        }
        return .some(replacement)
    }
}
