import CrashReport
import DebugInfo
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// Turns a parsed report into a symbolicated one: finds each frame's image, the image's
/// debug file, the address in the debug file, and what the debug file says is there.
///
/// The address arithmetic (docs/debug-files.md, "The address arithmetic"):
///
///     lookup = address − image load address + debug file's text vmaddr
///
///     image App loaded at 0x104a30000, linked at 0x100000000 (its __TEXT vmaddr):
///     frame 3 at 0x104a3c5e0  →  0x100000000 + 0xc5e0 = 0x10000c5e0
///
/// Every frame but the first of a thread is a return address: the call that made it is the
/// instruction before, so those are looked up at their call site (see
/// ``DebugInfo/Architecture/callSite(ofReturnAddress:)``). The printed address is always the
/// reported one.
///
/// Each debug file is indexed at most once per run, when the first report needs it; the
/// indexes are shared by all reports and threads, and reports may be symbolicated from
/// several threads at once.
public final class Symbolicator: @unchecked Sendable {
    /// What to resolve and how to name it.
    public struct Options: Sendable {
        /// Demangle Swift, C++, Rust and D names (see ``Demangler``).
        public var demangle: Bool
        /// Resolve again frames that already name a source file and line.
        public var force: Bool
        /// Resolve a Linux module the log names without a build-id through the file at the
        /// module's path on this machine (said once per module: nothing checks that it is
        /// the file that crashed), unless a name the log gives one of its frames contradicts
        /// that file (``ReportEvidence``).
        public var modulePaths: Bool
        public init(demangle: Bool = true, force: Bool = false, modulePaths: Bool = true) {
            self.demangle = demangle
            self.force = force
            self.modulePaths = modulePaths
        }
    }

    private let locator: DebugFileLocator
    private let options: Options
    private let diagnostics: Diagnostics
    private let indexSource: (DebugFile) throws -> SymbolIndex
    private let lock = Lock()
    private var slots: [DebugFile: IndexSlot] = [:]
    private var used: Set<DebugFile> = []
    /// Why the index of a debug file could not be had, by file.
    private var failures: [DebugFile: DebugInfoError] = [:]
    /// Why each image left unresolved was, by what identifies it: computed once per run, for
    /// up to ``reasonsKept`` images at a time (a batch of reports strangers made can name a
    /// new one in every frame line).
    private var reasons: [String: MissReason] = [:]
    static let reasonsKept = 1 << 16
    /// What the checks of names a report gives share (``ReportEvidence``).
    private let evidence = ReportEvidence.Memo()

    /// One debug file's index, built by the first thread that asks; the others wait for it.
    private final class IndexSlot: @unchecked Sendable {
        let lock = Lock()
        var done = false
        var index: SymbolIndex?
    }

    /// A symbolicator over the debug files `locator` found. `indexSource` builds (or loads)
    /// the index of a debug file; by default it is built from the file.
    public init(locator: DebugFileLocator, options: Options = Options(), diagnostics: Diagnostics,
                indexSource: @escaping (DebugFile) throws -> SymbolIndex = SymbolIndex.build) {
        self.locator = locator
        self.options = options
        self.diagnostics = diagnostics
        self.indexSource = indexSource
    }

    /// The index of `file`, built on first use; nil (said once) when it cannot be built.
    /// Safe to call from several threads: each file is built once, different files in
    /// parallel.
    public func index(for file: DebugFile) -> SymbolIndex? {
        lock.lock()
        let slot: IndexSlot
        if let existing = slots[file] {
            slot = existing
        } else {
            slot = IndexSlot()
            slots[file] = slot
        }
        lock.unlock()

        slot.lock.lock()
        defer { slot.lock.unlock() }
        if slot.done { return slot.index }
        do {
            let index = try indexSource(file)
            if let problem = index.problem {
                diagnostics.warn("\(file.path): part of the DWARF could not be read: \(problem)")
            }
            slot.index = index
        } catch {
            diagnostics.warn("\(error)")
            lock.lock()
            failures[file] = error as? DebugInfoError ?? .corruptDWARF(path: file.path, reason: "\(error)")
            lock.unlock()
        }
        slot.done = true
        return slot.index
    }

    /// How many distinct addresses of one report keep their lookups for the frames that repeat them.
    static let sharedLookups = 2048

    /// Debug files given one by one that no image of any report so far has used.
    public var unusedExplicitFiles: [DebugFile] {
        lock.lock()
        defer { lock.unlock() }
        // A cache's images are given all at once: that most match no report is expected.
        return locator.explicitFiles.filter { !used.contains($0) && $0.format != .dyldCache }
    }

    /// Symbolicates every frame of `report` that a debug file can resolve.
    public func symbolicate(_ report: CrashReport) -> SymbolicatedReport {
        var result = SymbolicatedReport(report: report, frames: ResolvedFrames(for: report))
        // By image index: one object per image, so that a frame reads its debug file without
        // copying it (and touching the counts of strings every thread of a run shares).
        var images = [ResolvedImage?](repeating: nil, count: report.images.count)
        var resolvedCount = 0
        var missing: Set<Int> = []
        // Images whose debug file gives no lines: its index failed, or it has no DWARF.
        var lineless: [Int: DebugFile] = [:]
        // Images with frames matched without identity, and the file they were matched through:
        // said once the names the report gives have been checked against their files.
        var unchecked: [Int: (through: String, file: DebugFile)] = [:]
        // Images a name of the report contradicts: said already, explained with the others.
        var contradicted: [Int: MissReason] = [:]
        // Reports list every loaded image: only those frames point into are indexed.
        var framed = Set<Int>()
        for thread in report.threads {
            for frame in thread.frames { if let image = frame.image { framed.insert(image) } }
        }
        for (i, image) in report.images.enumerated() {
            let architecture = Symbolicator.architecture(of: image, in: report, debugFile: nil)
            guard let (file, match) = debugFile(for: image, architecture: architecture, framed: framed.contains(i)) else {
                missing.insert(i)
                continue
            }
            if case .unchecked(let through, let named) = match {
                if framed.contains(i) { unchecked[i] = (through, file) }
                if let named {
                    lock.lock()
                    used.insert(named)
                    lock.unlock()
                }
            }
            lock.lock()
            used.insert(file)
            lock.unlock()
            result.debugFiles[i] = file.path
            guard framed.contains(i), let index = index(for: file) else {
                if framed.contains(i) { lineless[i] = file }
                continue
            }
            if !file.hasDWARF { lineless[i] = file }
            images[i] = ResolvedImage(file: file, index: index,
                                      architecture: Symbolicator.architecture(of: image, in: report, debugFile: file))
            resolvedCount += 1
        }
        if !unchecked.isEmpty {
            resolvedCount -= dropContradictedImages(unchecked, of: report, images: &images, result: &result,
                                                    lineless: &lineless, contradicted: &contradicted)
        }
        let notInCaches = explainOtherDyldCache(report, missing: missing, framed: framed)
        guard resolvedCount > 0 else {
            if !missing.isEmpty || !lineless.isEmpty || !contradicted.isEmpty {
                result.unresolvedImages = explainUnresolvedImages(missing: missing, lineless: lineless,
                                                                  contradicted: contradicted, framed: framed, in: report)
            }
            result.unresolvedImages.merge(notInCaches) { explained, _ in explained }
            return result
        }
        // Images with a line for some frame: a debug file read only in part may still have none.
        var withLines: Set<Int> = []

        // Frames at the same address of the same image resolve alike: they share one array of
        // source frames, looked up once, instead of each holding a copy. The first
        // `Symbolicator.sharedLookups` addresses of a report (every address of a report of up
        // to that many frames) are kept, whatever their hashes, so that whether two frames
        // share does not depend on the process's hash seed; later addresses are looked up
        // each time, so a report of distinct addresses costs no more than that.
        let frameCount = report.threads.reduce(0) { $0 + $1.frames.count }
        var recent: [ResolvedKey: [SourceFrame]] = [:]
        recent.reserveCapacity(min(frameCount, Symbolicator.sharedLookups))
        for (t, thread) in report.threads.enumerated() {
            let naming = report.frameNaming(ofThread: t)
            // The frame's place among the thread's frames, inlined lines of an already
            // symbolicated report not counted: 0 is the faulting PC.
            var position = -1
            var afterTrampoline = false
            for (f, frame) in thread.frames.enumerated() {
                if frame.inlined { continue }  // resolved with its concrete frame
                position += 1
                // The frame after a signal trampoline is the interrupted instruction itself.
                let interrupted = afterTrampoline
                afterTrampoline = Symbolicator.isDeviceNamedTrampoline(frame)
                if afterTrampoline { result.signalTrampolines.insert(FrameKey(thread: t, frame: f)) }
                guard let imageIndex = frame.image, imageIndex < images.count, let resolved = images[imageIndex] else { continue }
                let index = resolved.index
                var frame = frame
                if interrupted { frame.returnAddress = false }
                let image = report.images[imageIndex]
                guard let (address, lookup) = Symbolicator.addresses(of: frame, at: position, in: thread, image: image,
                                                                     debugFile: resolved.file, index: index,
                                                                     architecture: resolved.architecture)
                else { continue }
                if resolved.trampolines.contains(address) {
                    afterTrampoline = true
                    result.signalTrampolines.insert(FrameKey(thread: t, frame: f))
                }
                if case .symbolicated = frame.form, !options.force { continue }  // already has file and line
                let key = ResolvedKey(image: imageIndex, address: address, lookup: lookup)
                let sourceFrames: [SourceFrame]
                if let known = recent[key] {
                    sourceFrames = known
                } else {
                    // Named as the report's producer names frames: the Swift runtime simplifies
                    // Swift names, and counts a return address's offset from the byte before
                    // it, inlined calls without one.
                    let runtime = naming == .swiftRuntime
                    let counted = runtime && lookup != address ? address &- 1 : address
                    sourceFrames = index.lookup(lookup, demangle: options.demangle,
                                                style: runtime ? .simplified : .full).map { location in
                        SourceFrame(function: location.function,
                                    offset: runtime && location.inlined ? nil
                                        : location.functionStart.flatMap { counted >= $0 ? counted - $0 : nil },
                                    file: location.file,
                                    line: location.line == 0 ? nil : location.line,
                                    column: location.column == 0 ? nil : location.column,
                                    inlined: location.inlined)
                    }
                    if recent.count < Symbolicator.sharedLookups { recent[key] = sourceFrames }
                }
                guard !sourceFrames.isEmpty else { continue }
                result.frames[FrameKey(thread: t, frame: f)] = sourceFrames
                if sourceFrames.contains(where: { ($0.line ?? 0) > 0 }) { withLines.insert(imageIndex) }
            }
        }
        for (i, image) in images.enumerated() {
            guard let image, image.index.problem != nil, image.file.hasDWARF, !withLines.contains(i) else { continue }
            lineless[i] = image.file
        }
        if !missing.isEmpty || !lineless.isEmpty || !contradicted.isEmpty {
            result.unresolvedImages = explainUnresolvedImages(missing: missing, lineless: lineless,
                                                              contradicted: contradicted, framed: framed, in: report)
        }
        result.unresolvedImages.merge(notInCaches) { explained, _ in explained }
        return result
    }

    /// Says once per OS named when the report's system images are in none of the dyld
    /// shared caches given (``dyldCacheMiss(report:missing:caches:)``), and returns the
    /// reason each such image gives in JSON (`other_os_build`).
    private func explainOtherDyldCache(_ report: CrashReport, missing: Set<Int>,
                                       framed: Set<Int>) -> [Int: UnresolvedImage] {
        let caches = locator.dyldCachePaths
        guard !caches.isEmpty else { return [:] }
        let processPath = report.header.first { $0.key == "Path" }?.value
        let system = missing.filter {
            framed.contains($0) && report.images[$0].uuid != nil
                && !Symbolicator.isAppImage(report.images[$0], processPath: processPath, hasDebugFile: false)
        }
        guard !system.isEmpty else { return [:] }
        guard let miss = Symbolicator.dyldCacheMiss(report: report, missing: system.sorted(), caches: Array(caches))
        else { return [:] }
        let os = report.header.first { $0.key == "OS Version" }?.value ?? ""
        diagnostics.warn(miss.line, once: "dyld cache for \(os)")
        let reason = MissReason.otherOSBuild(miss.message).unresolvedImage(idWord: "UUID", architecture: nil)
        return Dictionary(uniqueKeysWithValues: system.map { ($0, reason) })
    }

    /// Whether the report itself names the frame a signal trampoline (`_sigtramp + 56` in
    /// Apple reports, `libc.so.6(__restore_rt+0x0)` in glibc ones).
    static func isDeviceNamedTrampoline(_ frame: Frame) -> Bool {
        switch frame.form {
        case .symbol(let name, _), .symbolicated(let name, _, _, _):
            return SignalTrampoline.names.contains(name)
        default:
            return false
        }
    }

    /// How an image's debug file was found.
    enum Match {
        /// By the UUID or build-id the report gives.
        case identity
        /// A Linux module without a build-id in the log, through the object file at `through`:
        /// the one at the module's path, else the one `named` with `-d` that has the module's
        /// file name.
        case unchecked(through: String, named: DebugFile?)
    }

    /// The debug file of an image: by UUID / build-id, else (a Linux module without a
    /// build-id, unless `modulePaths` is off) through the object file now at the module's
    /// path on this machine, or one the user named that has the module's file name (a
    /// ThreadSanitizer log names `race`, the user passes `-d build/race`).
    /// An image no frame points into (not `framed`) is only matched to the files already
    /// known: a report lists every loaded image, and one that strangers made can list a
    /// million, each of whose identifiers looked for (and asked of servers) would be kept for
    /// the run. With `framed`, an identifier no local file matches is asked of the locator's
    /// servers.
    func debugFile(for image: BinaryImage, architecture: Architecture?, framed: Bool) -> (DebugFile, Match)? {
        if let identifier = image.uuid {
            guard framed else { return locator.knownDebugFile(identifier: identifier, architecture: architecture).map { ($0, .identity) } }
            let format: DebugFile.Format = image.format == .elf ? .elf : .machO
            return locator.debugFile(identifier: identifier, architecture: architecture, fetching: format).map { ($0, .identity) }
        }
        guard framed, options.modulePaths, image.format == .elf, let path = image.path else { return nil }
        if let file = locator.debugFile(forModulePath: path, architecture: architecture) {
            return (file, .unchecked(through: path, named: nil))
        }
        let name = Symbolicator.moduleFileName(path)
        guard let named = locator.explicitFiles.first(where: {
            $0.format == .elf && !$0.isRelocatable && Path.lastComponent($0.path) == name
                && (architecture == nil || $0.architecture == architecture)
        }) else { return nil }
        if let identifier = named.identifier,
           let file = locator.debugFile(identifier: identifier, architecture: named.architecture) {
            return (file, .unchecked(through: named.path, named: named))
        }
        return named.hasDWARF || named.hasSymbolTable ? (named, .unchecked(through: named.path, named: named)) : nil
    }

    /// The file name of a module's path: its last component, or for an Android library loaded
    /// from inside its APK (`/data/app/.../base.apk!libfoo.so`) the library's (`libfoo.so`).
    static func moduleFileName(_ path: String) -> String {
        let file = Path.lastComponent(path)
        guard let bang = file.lastIndex(of: "!"), file.index(after: bang) < file.endIndex else { return file }
        return String(file[file.index(after: bang)...])
    }

    /// Checks the images matched without identity (`unchecked`: by image, the file it was
    /// matched through and its debug file) against the names the report gives their frames
    /// (``ReportEvidence``): an image a name contradicts is left unresolved, as the report has
    /// it, and said so (its reason in `contradicted`); the others are said to be unchecked.
    /// Returns how many were left.
    private func dropContradictedImages(_ unchecked: [Int: (through: String, file: DebugFile)], of report: CrashReport,
                                        images: inout [ResolvedImage?], result: inout SymbolicatedReport,
                                        lineless: inout [Int: DebugFile], contradicted: inout [Int: MissReason]) -> Int {
        var subjects: [Int: ReportEvidence.Subject] = [:]
        for i in unchecked.keys {
            if let resolved = images[i] {
                subjects[i] = ReportEvidence.Subject(file: resolved.file, index: resolved.index,
                                                     architecture: resolved.architecture)
            }
        }
        let contradictions = subjects.isEmpty ? [:] : ReportEvidence.contradictions(in: report, subjects: subjects, memo: evidence)
        for (i, (through, file)) in unchecked.sorted(by: { $0.key < $1.key }) {
            guard let contradiction = contradictions[i] else {
                warnAboutUncheckedMatch(report.images[i], file, through: through, in: report)
                continue
            }
            diagnostics.warn(contradiction.message(report: report, image: report.images[i], file: file, through: through))
            images[i] = nil
            result.debugFiles[i] = nil
            lineless[i] = nil
            contradicted[i] = .contradicted(path: file.path, frame: "\(contradiction.frame.index) at 0x\(String(contradiction.frame.address, radix: 16))",
                                            logged: contradiction.logged, found: contradiction.found)
        }
        return contradictions.count
    }

    /// Says once per module that its frames are resolved through an object file found by the
    /// module's path or name: without a build-id in the log nothing shows that it is the file
    /// that crashed (a rebuilt or upgraded program gives wrong answers, not none).
    private func warnAboutUncheckedMatch(_ image: BinaryImage, _ file: DebugFile, through: String,
                                         in report: CrashReport) {
        let path = image.path ?? image.name
        let how = through == path ? "the file at that path" : "\(through), named with -d, by the module's file name"
        let debug = file.path == through ? "" : " (debug file \(file.path))"
        diagnostics.warn("\(report.path): \(path): no build-id in the log; resolved through \(how)\(debug), "
                         + "unchecked: it may not be the one that crashed (--no-module-paths turns this off)",
                         once: "module path \(path)")
    }

    /// Says once per image why an app image with frames in the report is left without file
    /// and line — no debug file (and why none matched), or one without DWARF or that cannot be
    /// used — with the UUID (as Xcode and App Store Connect print it) and architecture to
    /// search for; returns the reasons by image. System images are passed over: their symbols
    /// come from the device's own tables.
    /// `framed`: the images some frame points into.
    private func explainUnresolvedImages(missing: Set<Int>, lineless: [Int: DebugFile],
                                         contradicted: [Int: MissReason] = [:], framed: Set<Int>,
                                         in report: CrashReport) -> [Int: UnresolvedImage] {
        let processPath = report.header.first { $0.key == "Path" }?.value
        var result: [Int: UnresolvedImage] = [:]
        for i in missing.union(lineless.keys).union(contradicted.keys).sorted() {
            let image = report.images[i]
            // A debug file that gave no lines does not make the image the app's: a dyld shared
            // cache gives the system's images their symbols, whatever their path.
            guard framed.contains(i), Symbolicator.isAppImage(image, processPath: processPath, hasDebugFile: false)
            else { continue }
            let architecture = Symbolicator.architecture(of: image, in: report, debugFile: nil)
            let architectureName = architecture?.name ?? "unknown arch"
            // Made when said (once per image in a run) or when its reason is first made.
            func identity() -> String {
                if let uuid = image.uuid {
                    return image.format == .machO ? "UUID \(ImageIdentity.dashedUUID(uuid)), \(architectureName)"
                        : "build-id \(uuid)"
                } else if image.format == .elf, lineless[i] != nil {
                    return "no build-id in the log"
                } else if image.format == .elf {
                    return options.modulePaths ? "no build-id in the log, and no usable object file at that path"
                        : "no build-id in the log; --no-module-paths"
                }
                return "no UUID in the report"
            }
            let idWord = image.format == .machO ? "UUID" : "build-id"
            let key = "\(image.uuid ?? image.path ?? image.name) \(architectureName)"
            if let reason = contradicted[i] {  // said when it was found
                result[i] = reason.unresolvedImage(idWord: idWord, architecture: architecture)
                continue
            }
            let reason = self.reason(for: image, matched: lineless[i], architecture: architecture, key: key,
                                     identity: identity)
            let explained = reason.unresolvedImage(idWord: idWord, architecture: architecture)
            result[i] = explained
            func line() -> String {
                switch reason {
                case .noIdentifier:
                    return "no debug file for \(image.name) (\(identity())); its frames are left as they are"
                case .symbolTableOnly:
                    return "no debug file for \(image.name) (\(identity())) but \(explained.message)"
                case .partlyRead:
                    return "\(image.name) (\(identity())): \(explained.message)"
                default:
                    return "no debug file for \(image.name) (\(identity())): \(explained.message); its frames are left as they are"
                }
            }
            diagnostics.warn("\(report.path): \(line())", once: "no debug file \(key)")
        }
        return result
    }

    /// Why `image` is left without lines: what went wrong with the file `matched` for it, or
    /// (none matched) what the locator met instead. Computed once per `key`.
    private func reason(for image: BinaryImage, matched: DebugFile?, architecture: Architecture?, key: String,
                        identity: () -> String) -> MissReason {
        lock.lock()
        if let known = reasons[key] {
            lock.unlock()
            return known
        }
        let failure = matched.flatMap { failures[$0] }
        let matchedIndex = matched.flatMap { slots[$0]?.index }
        lock.unlock()
        let reason: MissReason
        if let matched {
            switch failure {
            case nil:
                // Read in part: the units that read answer, the rest falls back to the symbol table.
                // Only a file of which nothing can be used "cannot be used".
                if !matched.hasDWARF {
                    reason = .symbolTableOnly(file: matched)
                } else if let index = matchedIndex, index.hasDWARFAnswers || index.hasSymbols {
                    reason = .partlyRead(file: matched, reason: index.problem ?? "?", inPart: index.hasDWARFAnswers)
                } else {
                    reason = .damaged(path: matched.path, reason: "its DWARF cannot be read: \(matchedIndex?.problem ?? "?")",
                                      matched: true)
                }
            case .noDWARF? where !matched.hasDWARF:
                // A file cut short loses its section headers or symbol table: damage, not a strip.
                if let problem = (try? ObjectSurvey.survey(matched))?.problems.first {
                    reason = .damaged(path: matched.path, reason: problem, matched: true)
                } else {
                    reason = .noDebugInfo(file: matched)
                }
            case .noDWARF?:
                reason = .damaged(path: matched.path, reason: "the DWARF sections its headers list are not in the file (cut short?)",
                                  matched: true)
            case let error?:
                reason = .damaged(path: matched.path, reason: error.reason, matched: true)
            }
        } else if image.uuid == nil {
            reason = .noIdentifier(identity())
        } else {
            reason = locator.missReason(imageNames: [image.name, image.path ?? ""], identifier: image.uuid,
                                        architecture: architecture)
        }
        lock.lock()
        if reasons.count >= Self.reasonsKept { reasons.removeAll() }
        reasons[key] = reason
        lock.unlock()
        return reason
    }

    /// Whether an image is the app's own code rather than the system's: the one rule for the
    /// frames set in bold on a terminal, the images the summary names when their frames are left
    /// without file and line, and the frames crash signatures are made of (`SignatureReader`).
    ///
    /// Never the app's: a runtime, known by its file name wherever it was loaded from (the Swift
    /// runtime, libc, libc++, libobjc, the dynamic loader: an app may carry them in its bundle,
    /// and every crash passes through them), and an image in the system's folders
    /// (``isSystemPath(_:)``) other than the process itself. The app's: an image the report marks
    /// (`+` in Binary Images), the process's own path, a path in an app (`.app/`,
    /// `/Applications/`, ...), a Linux module outside the system's folders; else, with
    /// `hasDebugFile`, an image resolved with a debug file given for it (MetricKit and call-tree
    /// reports name images without a path).
    public static func isAppImage(_ image: BinaryImage, processPath: String?, hasDebugFile: Bool) -> Bool {
        let file = Path.lastComponent(image.path ?? image.name)
        if runtimeImagePrefixes.contains(where: file.hasPrefix) || isSystemLibraryName(file) { return false }
        if let path = image.path, path != processPath, isSystemPath(path) { return false }
        if image.isApp { return true }
        if let path = image.path {
            if path == processPath || image.format == .elf { return true }
            var bytes = path
            if bytes.withUTF8({ bytes in appFolders.contains { bytes.contains(bytes: $0) } }) { return true }
        }
        return hasDebugFile
    }

    /// Image names of runtimes that an app may carry inside its own bundle or folder (older
    /// apps embed `libswiftCore.dylib` in `Frameworks/`), and that are the system's all the same.
    static let runtimeImagePrefixes = [
        "libswift", "libc++", "libobjc", "libdispatch", "libsystem_", "libdyld", "dyld", "ld-linux", "ld64.so",
        "libclang_rt.", "libBlocksRuntime", "libFoundation", "libXCTest",
    ]

    /// Parts of a path that put an Apple image in an app.
    private static let appFolders: [[UInt8]] = [".app/", "/Bundle/Application/", "/Applications/"].map { Array($0.utf8) }

    /// Whether `path` is in a folder of the operating system's own images (`/System/`,
    /// `/usr/`, `/lib/`, the Swift toolchain's `/opt/swift/`, Android's `/system/`, `/apex/`,
    /// `/vendor/`, ...), or a bracketed pseudo-path such as `[vdso]`.
    public static func isSystemPath(_ path: String) -> Bool {
        systemFolders.contains { path.utf8.starts(with: $0) }
    }

    private static let systemFolders: [[UInt8]] = [
        "/System/", "/usr/", "/Library/Apple/", "/private/preboot/", "/Developer/",
        "/AppleInternal/", "/lib/", "/lib64/", "/lib32/", "/libx32/", "/opt/swift/", "[",
        // Android: the system image, its APEX modules and partitions, ART's compiled code, JIT code.
        "/system/", "/system_ext/", "/apex/", "/vendor/", "/product/", "/odm/", "/data/dalvik-cache/", "/memfd:",
    ].map { Array($0.utf8) }

    /// Whether a module a Linux log names by its file name alone (ThreadSanitizer prints
    /// `libc.so.6+0x27249`) is one of the C, C++, sanitizer or Swift runtime libraries, which
    /// are the system's whatever folder they were loaded from.
    public static func isSystemLibraryName(_ path: String) -> Bool {
        guard !path.utf8.contains(UInt8(ascii: "/")) else { return false }
        return runtimeLibraries.contains { path.utf8.starts(with: $0) }
    }

    private static let runtimeLibraries: [[UInt8]] = [
        "libc.so", "libm.so", "libdl.so", "librt.so", "libpthread.so", "libresolv.so", "libutil.so",
        "libstdc++.so", "libc++.so", "libc++abi.so", "libgcc_s.so", "libunwind.so", "ld-linux",
        "libasan.so", "libtsan.so", "libubsan.so", "liblsan.so", "libhwasan.so", "libclang_rt.",
        "libswift", "libdispatch.so", "libFoundation", "libBlocksRuntime.so", "libz.so",
    ].map { Array($0.utf8) }

    /// The frame's address in the debug file, and the address to look up there: the same for
    /// a faulting PC, the call site for a return address. Nil when the frame cannot be placed
    /// in its image (below its load address, or a symbol the debug file does not have).
    ///
    /// - Mach-O: `address − load address + __TEXT vmaddr`; with an image offset (`.ips`),
    ///   `offset + __TEXT vmaddr`.
    /// - ELF modules of Linux logs: the module offset is already a link-time address (it is
    ///   taken from the load bias, 0 for non-PIE executables). An ELF image the report
    ///   places — the Swift runtime's image list, whose start is the first mapped page, or a
    ///   module base the log gives (`<unavailable> + 5329`, from `dladdr`) — is placed as a
    ///   Mach-O image is, with the first `PT_LOAD` vaddr in place of `__TEXT`'s. Otherwise
    ///   `symbol+0x12` is the symbol's address plus the offset.
    public static func addresses(of frame: Frame, at position: Int, in thread: Backtrace, image: BinaryImage,
                                 debugFile: DebugFile, index: SymbolIndex? = nil, architecture: Architecture?)
        -> (address: UInt64, lookup: UInt64)? {
        let address: UInt64
        if let offset = frame.imageOffset {
            address = debugFile.format == .elf ? offset : offset &+ debugFile.textVMAddress
        } else if image.format == .elf && image.loadAddress == 0 && image.endAddress == 0 {
            guard case .symbol(let name, let offset) = frame.form,
                  let start = index?.address(ofSymbol: name) else { return nil }
            address = start &+ offset
        } else {
            guard frame.address >= image.loadAddress else { return nil }
            address = frame.address - image.loadAddress &+ debugFile.textVMAddress
        }
        let isReturn = frame.returnAddress
            ?? isReturnAddress(position: position, of: thread, address: address, architecture: architecture)
        guard isReturn, let architecture else { return (address, address) }
        return (address, architecture.callSite(ofReturnAddress: address))
    }

    /// Whether the frame at `position` holds a return address rather than the faulting PC.
    ///
    /// The first frame of a thread is the PC; every later one a return address. Exception
    /// backtraces are lists of return addresses throughout. On 32-bit ARM a PC is always even
    /// and a return into Thumb code odd, so an odd first frame is a return address too (some
    /// reporters put the link register there).
    static func isReturnAddress(position: Int, of thread: Backtrace, address: UInt64,
                                architecture: Architecture?) -> Bool {
        if case .thread = thread.kind {
            if position > 0 { return true }
            return architecture?.family == .arm && address & 1 == 1
        }
        return true
    }

    /// An image's architecture: as the image list says, else as the report's "Code Type"
    /// says (macOS reports name no architecture per image), else the debug file's.
    public static func architecture(of image: BinaryImage, in report: CrashReport, debugFile: DebugFile?) -> Architecture? {
        image.arch.flatMap(Architecture.init(name:)) ?? architecture(ofCodeType: report.codeType) ?? debugFile?.architecture
    }

    /// The architecture a report's "Code Type" names, for images that do not say theirs.
    public static func architecture(ofCodeType codeType: String?) -> Architecture? {
        guard let codeType = codeType?.uppercased() else { return nil }
        if codeType.hasPrefix("ARM-64") || codeType.hasPrefix("ARM64") { return .arm64 }
        if codeType.hasPrefix("X86-64") || codeType.hasPrefix("X86_64") { return .x86_64 }
        if codeType.hasPrefix("ARM") { return Architecture(name: "armv7") }
        if codeType.hasPrefix("X86") || codeType.hasPrefix("I386") { return Architecture(name: "i386") }
        return nil
    }
}

/// What a frame's source frames depend on: its image, the address it is given, and the address
/// looked up for it (the call site of a return address).
private struct ResolvedKey: Hashable {
    var image: Int
    var address: UInt64
    var lookup: UInt64
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// Whether `part` occurs in these bytes.
    fileprivate func contains(bytes part: [UInt8]) -> Bool {
        guard let first = part.first, count >= part.count else { return part.isEmpty }
        for i in 0...(count - part.count) where self[i] == first
            && UnsafeBufferPointer(rebasing: self[i..<i + part.count]).elementsEqual(part) {
            return true
        }
        return false
    }
}

/// An image of a report with the debug file and index it resolves through.
private final class ResolvedImage {
    let file: DebugFile
    let index: SymbolIndex
    let architecture: Architecture?
    /// Where the debug file's signal trampolines start (`SignalTrampoline`): none but in a C
    /// library's.
    let trampolines: [UInt64]

    init(file: DebugFile, index: SymbolIndex, architecture: Architecture?) {
        self.file = file
        self.index = index
        self.architecture = architecture
        trampolines = index.startsOfSymbols(named: SignalTrampoline.names)
    }
}
