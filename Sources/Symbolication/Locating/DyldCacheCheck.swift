import DebugInfo
import Platform

/// `symbolicate check` of a dyld shared cache: one line for the cache (its main file), not one
/// per image, with what a user needs to know before using it:
///
///     dyld_shared_cache_arm64e	format=dyld_shared_cache	arch=arm64e	platform=iOS	os=15.0
///         id=B2B435FC-…	images=1942	subcaches=.1,.2	missing=none	local_symbols=.symbols(4211830)	size=…	usable
///
/// `os` is the OS version the header records (caches before iOS 15 record none: `unknown`);
/// `missing` names the sub-caches and `.symbols` file the main file names that are not beside
/// it: images in a missing sub-cache cannot be read, and without the local symbols only
/// exported functions are named (the verdict says so). A sub-cache named alone is described
/// as a part of its cache.
enum DyldCacheCheck {
    /// The entry of the file at `path` when it is a dyld shared cache file; nil otherwise.
    static func entry(path: String, size: Int) -> DebugFileCheck.Entry? {
        guard DebugFile.isDyldCacheFile(path: path) else { return nil }
        let cache: DyldSharedCache
        do {
            cache = try DyldSharedCache.opened(path: path)
        } catch DebugInfoError.partOfDyldCache {
            var entry = DebugFileCheck.Entry(path: path, file: nil, fileSize: size, survey: nil,
                                             verdict: .partial("a sub-cache or .symbols file, read with its main file"))
            entry.fields = [("format", "dyld_shared_cache_part")]
            return entry
        } catch let error as DebugInfoError {
            var entry = DebugFileCheck.Entry(path: path, file: nil, fileSize: size, survey: nil, verdict: .unusable(error.reason))
            entry.fields = [("format", "dyld_shared_cache")]
            return entry
        } catch {
            return DebugFileCheck.Entry(path: path, file: nil, fileSize: size, survey: nil, verdict: .unusable("\(error)"))
        }
        let subcaches = cache.parts.map(\.name).filter { !$0.hasSuffix(".symbols") }
        let stem = Path.lastComponent(path)
        let suffixes = subcaches.map { String($0.dropFirst(stem.count)) }
        let missing = cache.missingFiles.map { String($0.dropFirst(stem.count)) }
        let symbolsFile = cache.parts.contains { $0.name.hasSuffix(".symbols") }
        let unmapped = cache.images.filter { !$0.isMapped }.count
        var fields: [(String, String)] = [
            ("format", "dyld_shared_cache"),
            ("arch", cache.architectureName),
            ("platform", String((cache.platformName ?? "unknown").map { $0 == " " ? "_" : $0 })),
            ("os", cache.osVersion ?? "unknown"),
            ("id", ImageIdentity.dashedUUID(cache.uuid)),
            ("images", String(cache.images.count)),
            ("subcaches", suffixes.isEmpty ? "none" : suffixes.joined(separator: ",")),
            ("missing", missing.isEmpty ? "none" : missing.joined(separator: ",")),
        ]
        let where_ = symbolsFile ? ".symbols" : "main"
        fields.append(("local_symbols", cache.hasLocalSymbols ? "\(where_)(\(cache.localSymbolCount))" : "none"))
        fields.append(("size", String(size)))
        let verdict: DebugFileCheck.Verdict
        if unmapped == cache.images.count {
            verdict = .unusable("no image's header is in the files at hand (missing: \(missing.joined(separator: ",")))")
        } else if !missing.isEmpty {
            verdict = .partial("\(unmapped) of \(cache.images.count) images lie in missing files (\(missing.joined(separator: ",")))"
                               + (cache.hasLocalSymbols ? "" : "; without the local symbols, only exported functions are named"))
        } else if symbolsFile && !cache.hasLocalSymbols {
            verdict = .partial("its local symbols are in no file at hand: only exported functions are named")
        } else {
            verdict = .usable
        }
        var entry = DebugFileCheck.Entry(path: path, file: nil, fileSize: size, survey: nil, verdict: verdict)
        entry.fields = fields
        return entry
    }
}
