/// What decides which group a report falls into: two reports are one group exactly when their
/// signatures are equal.
///
/// A signature is the crash's kind (``CrashKind``) and the first ``SignatureRules/depth``
/// frames of the crashed thread that are in app images, skipped functions left out (see
/// ``SignatureReader``), each a normalized function name (``FunctionName``) or, where no
/// name is known, `Image+0xOFFSET` (the offset from the image's start, which is the same at
/// every load address). File and line are not part of it: a line added above a function moves
/// every crash in it. Without an app frame the exception type and reason decide (a watchdog
/// kill, an abort from a system library), or else the first system frames.
public struct CrashSignature: Sendable, Hashable {
    /// The crash's kind, or nil when the report does not say it.
    public var kind: String?
    /// The frames that decide, innermost first: app frames, or the system frames of
    /// ``Source/systemFrames``.
    public var frames: [String]
    /// Without app frames: the exception type and the reason the report gives (numbers that
    /// change from crash to crash masked), when there is one.
    public var reason: String?
    /// What the signature was made of.
    public var source: Source

    /// What a signature was made of.
    public enum Source: String, Sendable {
        /// App frames.
        case appFrames = "app frames"
        /// No app frame: the exception type and reason.
        case reason
        /// No app frame and no reason: system frames.
        case systemFrames = "system frames"
        /// No frame at all, nor a reason.
        case nothing
        /// The crashed thread's stack was destroyed (stack smashing, a jump to an address no
        /// image holds or to the faulting address, a thread of 0–1 frames): what remains — the
        /// first app function below the damage, or the one a register (pc, lr) or the faulting
        /// address points into — or, when nothing does, the reason (``DestroyedStack``).
        case destroyedStack = "stack destroyed"
    }

    /// Creates a signature from its parts.
    public init(kind: String?, frames: [String], reason: String? = nil, source: Source) {
        self.kind = kind
        self.frames = frames
        self.reason = reason
        self.source = source
    }

    /// The version of the rules: part of what is hashed, so that IDs made under other rules
    /// are not mistaken for these.
    public static let rulesVersion = 1

    /// The text the ID is the hash of: one `key value` line per part.
    ///
    ///     symbolicate-group 1
    ///     kind bad access
    ///     frame load_word
    ///     frame payload_header
    ///     frame header_is_valid
    public var canonical: String {
        var lines = ["symbolicate-group \(CrashSignature.rulesVersion)", "kind \(kind ?? "")"]
        switch source {
        case .appFrames: lines += frames.map { "frame \($0)" }
        case .systemFrames: lines += frames.map { "system \($0)" }
        case .reason: lines.append("reason \(reason ?? "")")
        case .nothing: lines.append("nothing")
        case .destroyedStack:
            lines.append("destroyed")
            lines += frames.map { "frame \($0)" }
            if frames.isEmpty { lines.append("reason \(reason ?? "")") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The group's stable ID: the first 12 hexadecimal digits of the SHA-256 of ``canonical``,
    /// the same on every machine and in every run.
    public var id: String { String(SHA256.hex(canonical).prefix(12)) }

    /// The signature as one line: `load_word | payload_header | header_is_valid`, or
    /// `no app frame: EXC_CRASH (SIGKILL): Namespace FRONTBOARD, Code 0x8badf00d`,
    /// `stack destroyed: engine_run`.
    public var text: String {
        switch source {
        case .appFrames: return frames.joined(separator: " | ")
        case .systemFrames: return "no app frame: " + frames.joined(separator: " | ")
        case .reason: return "no app frame: " + (reason ?? "")
        case .nothing: return "no backtrace"
        case .destroyedStack:
            let rest = frames.isEmpty ? reason : frames.joined(separator: " | ")
            return "stack destroyed" + (rest.map { ": " + $0 } ?? "")
        }
    }
}
