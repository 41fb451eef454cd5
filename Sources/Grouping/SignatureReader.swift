import CrashReport
import Platform
import Symbolication

/// Reads a symbolicated report's signature (``CrashSignature``) from its resolved frames, and
/// the frames of the backtrace it came from, for the page that shows an example.
///
/// 1. The backtrace: the Last Exception Backtrace, else an Application Specific Backtrace,
///    when it has an app frame (an uncaught exception's crashed thread is only the runtime
///    aborting; its cause is where it was thrown), else the crashed thread, else the first
///    thread with frames.
/// 2. Its frames, innermost first, inlined frames each a frame of its own (so that a build
///    that inlines differently gives the same frames): the source frames the debug files
///    gave, else the name the report gives (`foo + 12`, `foo + 12 (File.m:42)`), else none.
/// 3. Frames up to and including a signal trampoline (`_sigtramp`, `__restore_rt`) are left
///    out: they are the crash handler that printed the log, not the crash.
/// 4. Frames in images that are not the app's (`Symbolicator.isAppImage(_:processPath:hasDebugFile:)`,
///    the rule that also sets the app's frames in bold)
///    and frames of ``SignatureRules/skippedFunctions`` are left out; the first
///    ``SignatureRules/depth`` of the others make the signature.
public enum SignatureReader {
    /// The signature of `symbolicated`, and (with `example`) its backtrace's frames.
    /// `namer` names the registers and faulting address of a destroyed stack
    /// (``DestroyedStack``); without one they are `Image+0xOFFSET`.
    public static func read(_ symbolicated: SymbolicatedReport, example: Bool = false, namer: DestroyedStack.Namer? = nil)
        -> (signature: CrashSignature, example: ExampleThread?) {
        let report = symbolicated.report
        let kind = CrashKind.of(exceptionType: header(report, "Exception Type"))
        let processPath = header(report, "Path")
        // Per image: 0 not asked yet, 1 the app's, 2 not.
        var isApp = [UInt8](repeating: 0, count: report.images.count)
        func inApp(_ image: Int?) -> Bool {
            guard let image, isApp.indices.contains(image) else { return false }
            if isApp[image] == 0 {
                let candidate = report.images[image]
                isApp[image] = !SignatureRules.isSimulatorRuntime(candidate.path ?? candidate.name)
                    && Symbolicator.isAppImage(candidate, processPath: processPath,
                                               hasDebugFile: symbolicated.debugFiles[image] != nil) ? 1 : 2
            }
            return isApp[image] == 1
        }

        // Frames of system images are named only where they are shown or decide: the example,
        // and the signature of a report without app frames (a second pass).
        var chosen: (thread: Int, frames: [ExampleFrame])?
        var firstCandidate: Int?
        for t in candidates(report) {
            var frames = self.frames(of: t, in: symbolicated, inApp: inApp, systemNames: example)
            if firstCandidate == nil { firstCandidate = t }
            if mark(&frames, app: true) {
                chosen = (t, frames)
                break
            }
        }
        // A destroyed stack in the crashed thread: what remains of it decides.
        if !DestroyedStack.kindsNotCrashed.contains(kind ?? ""), let crashed = crashedThread(report),
           chosen.map({ $0.thread == crashed }) ?? true {
            let fault = DestroyedStack.faultAddress(of: report, registers: [:])
            if mayBeDestroyed(report, thread: crashed, symbolicated: symbolicated, fault: fault),
               let (signature, frames) = destroyedSignature(report, thread: crashed, symbolicated: symbolicated, kind: kind,
                                                            fault: fault, inApp: inApp, namer: namer) {
                return (signature, example ? ExampleThread(name: name(of: report.threads[crashed]), frames: frames) : nil)
            }
        }
        // Without app frames: the reason, else the system frames (which the example shows too).
        let reason = chosen == nil ? self.reason(report) : nil
        var fallback: (Int, [ExampleFrame])?
        if chosen == nil, example || reason == nil, let t = firstCandidate {
            fallback = (t, frames(of: t, in: symbolicated, inApp: inApp, systemNames: true))
        }
        let signature: CrashSignature
        if let chosen {
            let names = chosen.frames.filter(\.inSignature).map(\.signatureName)
            signature = CrashSignature(kind: kind, frames: names, source: .appFrames)
        } else if let reason {
            signature = CrashSignature(kind: kind, frames: [], reason: reason, source: .reason)
        } else if fallback != nil, mark(&fallback!.1, app: false) {
            signature = CrashSignature(kind: kind, frames: fallback!.1.filter(\.inSignature).map(\.signatureName),
                                       source: .systemFrames)
        } else {
            signature = CrashSignature(kind: kind, frames: [], source: .nothing)
        }
        guard example, let shown = chosen ?? fallback else { return (signature, nil) }
        return (signature, ExampleThread(name: name(of: report.threads[shown.0]), frames: shown.1))
    }

    /// The value of the first header line `key`, if any, without surrounding blanks.
    static func header(_ report: CrashReport, _ key: String) -> String? {
        guard let value = report.header.first(where: { $0.key == key })?.value else { return nil }
        let trimmed = value.trimmingBlanks
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The backtraces a signature may come from, in the order they are tried.
    static func candidates(_ report: CrashReport) -> [Int] {
        let threads = report.threads
        var order: [Int] = []
        order += threads.indices.filter { threads[$0].kind == .lastExceptionBacktrace }
        order += threads.indices.filter {
            if case .applicationSpecificBacktrace = threads[$0].kind { return true }
            return false
        }
        if let crashed = threads.indices.first(where: { threads[$0].crashed }) {
            order.append(crashed)
        } else if let number = report.crashedThread, let crashed = threads.indices.first(where: { threads[$0].kind == .thread(number) }) {
            order.append(crashed)
        } else if let first = threads.indices.first(where: { !threads[$0].frames.isEmpty }) {
            order.append(first)
        }
        return order.filter { !threads[$0].frames.isEmpty }
    }

    /// How many frames of a backtrace are read: a signature is made near its top, and a report
    /// of a million frames (a runaway recursion, or a hostile one) must not cost a million
    /// example frames per report in flight, or per group kept.
    public static let maximumFrames = 512

    /// The first ``maximumFrames`` frames of thread `t`, inlined ones each a frame, nothing marked yet; frames of
    /// system images named only with `systemNames` (a signal trampoline is found either way).
    static func frames(of t: Int, in symbolicated: SymbolicatedReport, inApp: (Int?) -> Bool,
                       systemNames: Bool = true) -> [ExampleFrame] {
        let report = symbolicated.report
        let thread = report.threads[t]
        var frames: [ExampleFrame] = []
        frames.reserveCapacity(thread.frames.count + 8)
        var imageNames = [String?](repeating: nil, count: report.images.count)
        var fileNames = [String?](repeating: nil, count: report.images.count)
        func fileName(_ frame: Frame) -> String? {
            guard let i = frame.image, fileNames.indices.contains(i), let path = report.images[i].path else { return nil }
            if let known = fileNames[i] { return known }
            let name = Path.lastComponent(path)
            fileNames[i] = name
            return name
        }
        func imageName(_ frame: Frame) -> String {
            guard let i = frame.image, imageNames.indices.contains(i) else { return Path.lastComponent(frame.imageName ?? "???") }
            if let known = imageNames[i] { return known }
            let name = Path.lastComponent(report.images[i].name)
            imageNames[i] = name
            return name
        }
        var trampoline: Int?
        for (f, frame) in thread.frames.prefix(maximumFrames).enumerated() {
            if frame.inlined && symbolicated.replacesInlinedLine(thread: t, frame: f) { continue }
            if trampoline == nil, !symbolicated.signalTrampolines.isEmpty,
               symbolicated.signalTrampolines.contains(FrameKey(thread: t, frame: f)) {
                trampoline = frames.count
            }
            let app = inApp(frame.image)
            var shown = ExampleFrame(number: frame.index, image: imageName(frame), address: frame.address,
                                     imageOffset: app || systemNames ? offset(of: frame, in: report) : nil, inApp: app)
            if app { shown.signatureImage = fileName(frame) }
            shown.placed = frame.image.map { report.images.indices.contains($0) && !report.images[$0].isPlaceholder } ?? false
            if !systemNames && !shown.inApp {
                if trampoline == nil, isTrampoline(frame) { trampoline = frames.count }
                frames.append(shown)
                continue
            }
            if let sources = symbolicated.frames[FrameKey(thread: t, frame: f)] {
                for source in sources {
                    var resolved = shown
                    resolved.function = source.function
                    resolved.offset = source.offset
                    resolved.file = source.file
                    resolved.line = source.line
                    resolved.inlined = source.inlined
                    frames.append(resolved)
                }
                continue
            }
            switch frame.form {
            case .symbol(let name, let offset) where name != "<redacted>":
                shown.function = name
                shown.offset = offset
            case .symbolicated(let name, let offset, let file, let line):
                shown.function = name
                shown.offset = offset
                shown.file = file
                shown.line = line
                shown.inlined = frame.inlined
            default:
                break
            }
            frames.append(shown)
        }
        // A signal handler's own frames come before the trampoline it returns through.
        if let trampoline = trampoline ?? frames.firstIndex(where: { $0.function.map(SignalTrampoline.names.contains) ?? false }) {
            for i in 0...trampoline { frames[i].handler = true }
        }
        return frames
    }

    /// Whether the report names `frame` a signal trampoline: a cheap test first, since every
    /// system frame of every report is asked.
    private static func isTrampoline(_ frame: Frame) -> Bool {
        switch frame.form {
        case .symbol(let name, _), .symbolicated(let name, _, _, _):
            guard let first = name.utf8.first, first == UInt8(ascii: "_") || first == UInt8(ascii: "s") else { return false }
            return SignalTrampoline.names.contains(name)
        default:
            return false
        }
    }

    /// Marks the frames that make the signature: the first ``SignatureRules/depth`` frames
    /// past the handler's that are not skipped, in app images (`app`) or in any image. Whether
    /// any was marked.
    static func mark(_ frames: inout [ExampleFrame], app: Bool) -> Bool {
        var count = 0
        for i in frames.indices where count < SignatureRules.depth {
            guard !frames[i].handler, !app || frames[i].inApp else { continue }
            frames[i].signatureName = frames[i].function.map(FunctionName.normalized)
                ?? (frames[i].signatureImage ?? frames[i].image) + "+0x" + String(frames[i].imageOffset ?? frames[i].address, radix: 16)
            if frames[i].function != nil && (frames[i].signatureName.isEmpty || SignatureRules.isSkipped(frames[i].signatureName)) {
                continue
            }
            frames[i].inSignature = true
            count += 1
        }
        return count > 0
    }

    /// A frame's offset from the start of its image: what an unresolved frame is named by,
    /// the same at every load address.
    static func offset(of frame: Frame, in report: CrashReport) -> UInt64? {
        if let offset = frame.imageOffset { return offset }
        switch frame.form {
        case .unsymbolicated(_, let offset), .imageOffset(let offset): return offset
        default: break
        }
        guard let i = frame.image, report.images.indices.contains(i) else { return nil }
        let load = report.images[i].loadAddress, end = report.images[i].endAddress
        guard load <= frame.address, load > 0 || end > 0 else { return nil }
        return frame.address - load
    }

    /// Without app frames: the exception type and the termination reason (or the first line
    /// of Application Specific Information), with what changes from one crash to the next
    /// masked (``masked(_:)``).
    static func reason(_ report: CrashReport) -> String? {
        let type = header(report, "Exception Type")
        let why = header(report, "Termination Reason").map { namespaceAndCode($0) ?? masked($0) }
            ?? header(report, "Application Specific Information").map(masked)
        let parts = [type, why].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: ": ")
    }

    /// `Namespace FRONTBOARD, Code 0x8badf00d` from a termination reason that starts so, the
    /// code in hexadecimal whichever base it was written in (a `.crash` report writes
    /// `0x8badf00d`, the text of an `.ips` report `2343432205`) and what follows it (the
    /// signal's name, an explanation with process ids) left out.
    static func namespaceAndCode(_ text: String) -> String? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," })
        guard words.count >= 4, words[0] == "Namespace", words[2] == "Code" else { return nil }
        let code = words[3]
        let value = code.hasPrefix("0x") || code.hasPrefix("0X") ? UInt64(code.dropFirst(2), radix: 16) : UInt64(code)
        guard let value else { return nil }
        return "Namespace \(words[1]), Code 0x\(String(value, radix: 16))"
    }

    /// `text` with numbers that differ from crash to crash masked: decimal numbers of three or
    /// more digits (process ids, times) become `#`, hexadecimal numbers of nine or more digits
    /// (addresses) `0x#`. Shorter ones stay: `Code 0x8badf00d` is the reason itself.
    public static func masked(_ text: String) -> String {
        var out = ""
        var chars = Substring(text)
        while let c = chars.first {
            if c == "0", chars.dropFirst().first == "x" || chars.dropFirst().first == "X" {
                let digits = chars.dropFirst(2).prefix(while: \.isHexDigit)
                out += digits.count >= 9 ? "0x#" : "0x" + digits
                chars = chars.dropFirst(2 + digits.count)
            } else if c.isASCII, c.isNumber {
                let digits = chars.prefix(while: { $0.isASCII && $0.isNumber })
                out += digits.count >= 3 ? "#" : String(digits)
                chars = chars.dropFirst(digits.count)
            } else {
                out.append(c)
                chars = chars.dropFirst()
            }
        }
        return out
    }

    /// How the page titles a backtrace: `Thread 0 Crashed: main-thread`, `Last Exception Backtrace`.
    static func name(of thread: Backtrace) -> String {
        switch thread.kind {
        case .lastExceptionBacktrace: return "Last Exception Backtrace"
        case .applicationSpecificBacktrace(let n): return "Application Specific Backtrace \(n)"
        case .thread(let n):
            return "Thread \(n)" + (thread.crashed ? " Crashed" : "") + (thread.name.map { ": " + $0 } ?? "")
        }
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    var trimmingBlanks: String {
        var text = Substring(self)
        while let c = text.first, c == " " || c == "\t" { text = text.dropFirst() }
        while let c = text.last, c == " " || c == "\t" { text = text.dropLast() }
        return String(text)
    }
}
