import CrashReport
import DebugInfo
import Platform

/// The names a report gives its frames, as evidence about a debug file nothing else checks.
///
/// A Linux module without a build-id in the log is resolved through the file now at its path
/// (or one named with `-d` by its file name): another build, or another machine's library,
/// gives answers that are wrong rather than none. Many logs name their frames already —
/// glibc's `./app(crash_here+0x1d)[0x...]`, a sanitizer's `#0 0x... in gsignal (libc.so.6+0x35417)`,
/// ThreadSanitizer's `#0 main <null> (race+0x1249)`, the Swift runtime's `outer(_:_:) + 24 in d`
/// — and a file that gives another function at such a frame's address is not the one that
/// crashed: none of its answers is to be trusted, and the module is left as the report has it.
///
/// A name agrees when it is one the file gives at the frame's address (``FunctionNameKeys``):
/// a function of the inline chain there, or any symbol whose extent holds the address
/// (aliases such as `gsignal` for `raise`, `__libc_start_main` for `__libc_start_main_impl`).
/// The chain is read at the address and at the call site of a return address alike (the report
/// may name either). A name with an offset (`crash_here+0x1d`) places the function's start as
/// well: when the frame's address comes from elsewhere (a module offset), that start must be
/// the start of a function of that name. Frames named `??`, `<null>` or not at all, and
/// addresses the file knows nothing about, say nothing either way.
///
/// The check runs only for images matched without identity; a frame's chain is looked up in
/// the index first, and the file's symbol table is read (once per file and run, ``Memo``) only
/// for the frames whose names the chain does not give.
enum ReportEvidence {
    /// What the checks of a run's reports share: each debug file's symbols, read once.
    final class Memo: @unchecked Sendable {
        private final class Slot: @unchecked Sendable {
            let lock = Lock()
            var done = false
            var aliases: SymbolAliases?
        }

        private let lock = Lock()
        private var slots: [DebugFile: Slot] = [:]

        /// The symbols of `file`, read by the first thread that asks (the others wait for it);
        /// nil when they cannot be read.
        func aliases(of file: DebugFile) -> SymbolAliases? {
            let slot = lock.withLock {
                if let known = slots[file] { return known }
                let made = Slot()
                slots[file] = made
                return made
            }
            slot.lock.lock()
            defer { slot.lock.unlock() }
            if !slot.done {
                slot.aliases = try? SymbolAliases(file)
                slot.done = true
            }
            return slot.aliases
        }
    }

    /// A debug file to check, with what resolves frames through it.
    struct Subject {
        var file: DebugFile
        var index: SymbolIndex
        var architecture: Architecture?
    }

    /// A frame whose name in the report is not one the debug file gives at its address.
    struct Contradiction {
        /// The frame, as the report has it.
        var frame: Frame
        /// The name the report gives (and the offset into it, if it gives one).
        var logged: String
        /// The function the file has at the frame's address, demangled (and the offset into
        /// it, when the report gives one).
        var found: String

        /// The line that says so: the report, the module, the frame, both names, and the file.
        func message(report: CrashReport, image: BinaryImage, file: DebugFile, through: String) -> String {
            let module = image.path ?? image.name
            var origin = through == module ? "the file at the module's path" : "named with -d, by the module's file name"
            if file.path != through { origin = "debug file of " + (through == module ? origin : "\(through), \(origin)") }
            return "\(report.path): \(module): frame \(frame.index) at 0x\(String(frame.address, radix: 16)) is \(logged) "
                + "in the log but \(found) in \(file.path) (\(origin); no build-id in the log to check it by): "
                + "not the build that crashed, its frames are left as they are"
        }
    }

    /// At most this many distinct frames per image are checked against the file's symbol table.
    static let suspectLimit = 1024

    /// For each image of `subjects` (by index into `report.images`), the first frame, in report
    /// order, whose name contradicts the image's debug file; images without one are absent.
    static func contradictions(in report: CrashReport, subjects: [Int: Subject], memo: Memo) -> [Int: Contradiction] {
        var checks: [Int: ImageCheck] = [:]
        for (i, subject) in subjects { checks[i] = ImageCheck(subject, memo: memo) }
        for (t, thread) in report.threads.enumerated() {
            let naming = report.frameNaming(ofThread: t)
            // The frame's place among the thread's frames, as `Symbolicator` counts it: inlined
            // frames of a symbolized log take the place of the frame they are part of.
            var position = -1
            for frame in thread.frames {
                if !frame.inlined { position += 1 }
                guard let i = frame.image, let check = checks[i], !check.isFull,
                      let (name, offset) = loggedName(of: frame, naming: naming)
                else { continue }
                let image = report.images[i]
                let subject = check.subject
                guard let (address, lookup) = Symbolicator.addresses(
                    of: frame, at: frame.inlined ? position + 1 : position, in: thread, image: image,
                    debugFile: subject.file, index: subject.index, architecture: subject.architecture)
                else { continue }
                // A glibc `symbol+0x1d` of a module the log does not place: its address is the
                // symbol's in this file plus the offset, which places nothing.
                let placedByName = frame.imageOffset == nil && image.loadAddress == 0 && image.endAddress == 0
                let claim = Claim(frame: frame, name: name, printedOffset: offset, offset: placedByName ? nil : offset,
                                  address: address, lookup: lookup,
                                  fromByteBefore: naming == .swiftRuntime && lookup != address)
                check.weigh(claim)
            }
        }
        var result: [Int: Contradiction] = [:]
        for (i, check) in checks {
            if let contradiction = check.settle() { result[i] = contradiction }
        }
        return result
    }

    /// The name (and offset into it) the report gives `frame`, when it gives one.
    static func loggedName(of frame: Frame, naming: FrameNaming) -> (String, UInt64?)? {
        let named: (String, UInt64?)
        switch frame.form {
        case .symbol(let name, let offset):
            // The Swift runtime prints no `+ 0`: an offset of 0 is none.
            named = (name, naming == .swiftRuntime && offset == 0 ? nil : offset)
        case .symbolicated(let name, let offset, _, _):
            named = (name, offset)
        case .unknown:
            // A sanitizer's, LLVM's or ThreadSanitizer's frame that names its module offset.
            guard frame.imageOffset != nil, let name = frame.loggedName else { return nil }
            named = (name, nil)
        default:
            return nil
        }
        return FunctionNameKeys.isPlaceholder(named.0) ? nil : named
    }
}

/// What a report says about one frame: its name, the offset into it, and where the frame is in
/// the debug file.
private struct Claim {
    var frame: Frame
    var name: String
    /// The offset into the named function the report gives.
    var printedOffset: UInt64?
    /// The offset into the named function, when it places the function's start (not for
    /// frames whose address was found by the name itself).
    var offset: UInt64?
    var address: UInt64
    var lookup: UInt64
    /// The offset is counted from the byte before the address (the Swift runtime counts a
    /// return address's so).
    var fromByteBefore: Bool

    /// Where the named function starts if the offset is right: the frame's address (or the
    /// byte before it) less the offset; nil without an offset, or one past the address.
    var claimedStart: UInt64? {
        let counted = fromByteBefore ? address &- 1 : address
        guard let offset, offset <= counted else { return nil }
        return counted - offset
    }

    /// Whether a function starting at `start` starts where the claim puts the named one (any
    /// does when the claim gives no offset).
    func isStart(_ start: UInt64?) -> Bool {
        offset == nil || (start != nil && start == claimedStart)
    }
}

/// The check of one image: frames weighed one by one against the index's inline chains, the
/// rest settled against the file's symbol table.
private final class ImageCheck {
    let subject: ReportEvidence.Subject
    /// Frames the chains did not settle, by what they claim, in report order.
    private var suspects: [Claim] = []
    /// What the frames weighed so far claim, settled or not: a report repeats its frames.
    private var weighed: Set<ClaimKey> = []
    /// Keys by name: a report repeats its few names over many frames.
    private var keys: [String: FunctionNameKeys] = [:]

    private struct ClaimKey: Hashable {
        var name: String
        var offset: UInt64?
        var address: UInt64
        var lookup: UInt64
    }

    private let memo: ReportEvidence.Memo

    init(_ subject: ReportEvidence.Subject, memo: ReportEvidence.Memo) {
        self.subject = subject
        self.memo = memo
    }

    /// Whether enough frames wait for the symbol table.
    var isFull: Bool { suspects.count >= ReportEvidence.suspectLimit }

    private func keys(of name: String) -> FunctionNameKeys {
        if let known = keys[name] { return known }
        let made = FunctionNameKeys(name)
        keys[name] = made
        return made
    }

    /// The inline chains at the claim's lookup address and at its address, without the
    /// functions the index cannot name.
    private func chain(of claim: Claim) -> [SymbolIndex.Location] {
        var locations = subject.index.lookup(claim.lookup, demangle: false)
        if claim.address != claim.lookup { locations += subject.index.lookup(claim.address, demangle: false) }
        return locations.filter { !FunctionNameKeys.isPlaceholder($0.function) }
    }

    /// Settles `claim` by the inline chains if they agree; keeps it for the symbol table if not.
    func weigh(_ claim: Claim) {
        guard weighed.insert(ClaimKey(name: claim.name, offset: claim.offset, address: claim.address, lookup: claim.lookup))
            .inserted else { return }
        let chain = chain(of: claim)
        guard !chain.isEmpty else { return }  // the file knows nothing there: no evidence
        let logged = keys(of: claim.name)
        if chain.contains(where: { claim.isStart($0.functionStart) && keys(of: $0.function).agrees(with: logged) }) { return }
        suspects.append(claim)
    }

    /// The first suspect that the symbol table's names do not save either.
    func settle() -> ReportEvidence.Contradiction? {
        guard !suspects.isEmpty else { return nil }
        // Per suspect: the symbols holding its lookup address, its address, and its claimed start.
        var addresses: [UInt64] = []
        for claim in suspects { addresses += [claim.lookup, claim.address, claim.claimedStart ?? claim.address] }
        let symbols = memo.aliases(of: subject.file)?.symbols(holding: addresses) ?? []
        for (k, claim) in suspects.enumerated() {
            let held = symbols.count == addresses.count ? Array(symbols[(3 * k)..<(3 * k + 3)]) : []
            if agrees(claim, symbols: held) { continue }
            let concrete = subject.index.lookup(claim.lookup, demangle: false).last ?? chain(of: claim).last
            var found = Demangler.demangle(concrete?.function ?? "??")
            var logged = claim.name
            if let offset = claim.printedOffset {
                logged += "+0x" + String(offset, radix: 16)
                let counted = claim.fromByteBefore ? claim.address &- 1 : claim.address
                if let start = concrete?.functionStart, start <= counted {
                    found += "+0x" + String(counted - start, radix: 16)
                }
            }
            return ReportEvidence.Contradiction(frame: claim.frame, logged: logged, found: found)
        }
        return nil
    }

    /// Whether the claim's name is one of the chains' or the symbols' at its addresses, and its
    /// offset (if any) puts the start of a function of that name where one starts. `symbols`:
    /// those holding the lookup address, the address and the claimed start.
    private func agrees(_ claim: Claim, symbols: [[(name: String, start: UInt64)]]) -> Bool {
        let logged = keys(of: claim.name)
        let chain = chain(of: claim)
        let holding = symbols.prefix(2).joined()
        let nameAgrees = chain.contains { keys(of: $0.function).agrees(with: logged) }
            || holding.contains { keys(of: $0.name).agrees(with: logged) }
        guard nameAgrees else { return false }
        if chain.contains(where: { claim.isStart($0.functionStart) && keys(of: $0.function).agrees(with: logged) }) {
            return true
        }
        return symbols.joined().contains { claim.isStart($0.start) && keys(of: $0.name).agrees(with: logged) }
    }
}
