import CrashReport
import DebugInfo
import Platform

/// `symbolicate index`: the index of every debug file found, built in parallel into a cache
/// that other machines can share (content-keyed: see ``DebugInfo/IndexCache``).
public enum CacheBuilder {
    /// What became of one debug file.
    public enum Outcome: Sendable {
        /// Built now and stored.
        case built(IndexCache.Shareable)
        /// An intact index was there already (here, or in a shared cache).
        case present(IndexCache.Shareable)
        /// Not indexed, and why.
        case failed(String)
    }

    /// One debug file, its outcome and the seconds it took.
    public struct Result: Sendable {
        public var file: DebugFile
        public var outcome: Outcome
        public var seconds: Double
    }

    /// Every debug file a report run could use: each slice with DWARF and a UUID or build-id
    /// (copies with the same contents share one index), the ELF debug files found through
    /// build-id folders and `.gnu_debuglink`, and where an identifier has no DWARF at all, the
    /// file with its symbol table. In path order.
    public static func debugFiles(of locator: DebugFileLocator) -> [DebugFile] {
        var chosen: [DebugFile] = []
        var places: Set<String> = []
        func add(_ file: DebugFile) {
            // The images of a dyld shared cache share its path: each is told by its UUID.
            let image = file.format == .dyldCache ? file.identifier ?? "" : ""
            if places.insert("\(file.path)\u{0}\(file.sliceOffset)\u{0}\(image)").inserted { chosen.append(file) }
        }
        var identities: Set<String> = []
        for file in locator.debugFiles where !file.isRelocatable && file.identifier != nil {
            if file.hasDWARF { add(file) }
            identities.insert("\(file.identifier!)\u{0}\(file.architecture?.name ?? "")")
        }
        for identity in identities.sorted() {
            let parts = identity.split(separator: "\u{0}", omittingEmptySubsequences: false)
            // What a run would take: finds separate ELF debug files, else gives the symbol table.
            if let best = locator.debugFile(identifier: String(parts[0]), architecture: Architecture(name: String(parts[1]))),
               best.hasDWARF || best.hasSymbolTable {
                add(best)
            }
        }
        return chosen.sorted { ($0.path, $0.sliceOffset) < ($1.path, $1.sliceOffset) }
    }

    /// Indexes `files` into `store` on `jobs` threads (0: one per core), handing each result
    /// to `each` in the order of `files`; `each` returns false to stop.
    public static func build(_ files: [DebugFile], into store: IndexCache, jobs: Int, each: (Result) -> Bool) {
        let work = OrderedWork(count: files.count, workers: jobs > 0 ? jobs : System.processorCount) { i -> Result in
            let start = System.monotonicSeconds
            let outcome: Outcome
            do {
                let shareable = try store.storeShareable(files[i])
                outcome = shareable.built ? .built(shareable) : .present(shareable)
            } catch let error as DebugInfoError {
                outcome = .failed(error.reason)
            } catch {
                outcome = .failed("\(error)")
            }
            return Result(file: files[i], outcome: outcome, seconds: System.monotonicSeconds - start)
        }
        work.forEachInOrder { _, result in each(result) }
    }

    /// The line `index` prints for a result, tab-separated: the debug file, its id and
    /// architecture, the index's size and the time taken, and what was done.
    public static func line(_ result: Result) -> String {
        let file = result.file
        var fields = [OutputEscaping.escaped(file.path),
                      "id=\(file.identity?.spelled ?? "none")",
                      "arch=\(file.architecture?.name ?? "unknown")"]
        switch result.outcome {
        case .built(let index), .present(let index):
            fields.append("index=\(index.size)")
        case .failed:
            fields.append("index=0")
        }
        var seconds = String(Int((result.seconds * 1000).rounded())) + "ms"
        if result.seconds >= 10 { seconds = String(Int(result.seconds.rounded())) + "s" }
        fields.append("time=\(seconds)")
        switch result.outcome {
        case .built: fields.append("built")
        case .present(let index): fields.append(index.inSharedFolder ? "in the shared cache" : "already indexed")
        case .failed(let why): fields.append("failed: \(why)")
        }
        return fields.joined(separator: "\t")
    }
}
