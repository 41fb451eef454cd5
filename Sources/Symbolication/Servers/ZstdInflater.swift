import CFetch

/// Inflates a zstd-compressed file as its bytes come (RFC 8878), with a bound on what it
/// inflates to. Symbol servers may keep their files compressed (Sentry's `symsorter -z`
/// writes `debuginfo`, `executable` and `breakpad` as zstd frames); what such a server sends
/// is untrusted, and a few KiB of zstd can say gigabytes of zeros (an RLE block of 4 bytes
/// makes 128 KiB), so every byte inflated is counted against the limit before it is written.
///
/// One or more frames, one after the other (the format allows several, and `zstd` writes
/// one per input file, concatenated), each with or without a content size and checksum.
/// A frame's content size, when its header gives one, only rejects early: a frame that says
/// it holds more than the limit allows is refused before a byte of it is inflated. It is not
/// trusted otherwise (nothing is allocated by it); the count of bytes inflated is the bound,
/// and libzstd refuses a frame whose content differs from the size it says.
///
/// The memory libzstd may take is bounded too: a frame that asks for a window larger than
/// 2^27 bytes (128 MiB, what the `zstd` tool itself decodes without `--memory`) is refused.
final class ZstdInflater {
    /// The four bytes every zstd frame starts with (the magic number 0xFD2FB528, little-endian).
    static let magic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]

    /// The largest window a frame may ask for, as a power of 2 (`ZSTD_WINDOWLOG_LIMIT_DEFAULT`).
    static let windowLogMax: Int32 = 27

    /// Whether `head`, a file's first bytes, is the start of a zstd frame.
    static func isCompressed(_ head: some Collection<UInt8>) -> Bool {
        head.starts(with: magic)
    }

    /// Why the bytes could not be inflated.
    enum Problem: Error, Equatable, CustomStringConvertible {
        /// libzstd refused them (its words): not zstd after the first frame, a damaged block,
        /// a checksum or content size that does not match, a window too large.
        case damaged(String)
        /// The bytes ended inside a frame.
        case cutShort
        /// The frames inflate to more than `limit` bytes.
        case overLimit(limit: Int)
        /// A frame's header says it holds `claimed` bytes, more than `limit` allows.
        case claimsOverLimit(claimed: UInt64, limit: Int)
        /// libzstd could not allocate its state.
        case noMemory

        /// Whether the problem is the limit (which `--max-download-size` sets).
        var isLimit: Bool {
            switch self {
            case .overLimit, .claimsOverLimit: return true
            default: return false
            }
        }

        var description: String {
            switch self {
            case .damaged(let reason):
                return "zstd-compressed, but it cannot be inflated (\(reason))"
            case .cutShort:
                return "zstd-compressed, but cut short (its last frame is incomplete)"
            case .overLimit(let limit):
                return "zstd-compressed, and it inflates to more than the limit of \(DebugFileServers.bytes(limit))"
            case .claimsOverLimit(let claimed, let limit):
                return "zstd-compressed, and its frame says it holds \(claimed) bytes, more than the limit of "
                    + DebugFileServers.bytes(limit)
            case .noMemory:
                return "zstd-compressed, and there is no memory to inflate it"
            }
        }
    }

    /// The largest number of bytes the frames may inflate to.
    let limit: Int
    /// The bytes inflated so far.
    private(set) var inflated = 0
    /// What went wrong; once set, nothing more is inflated.
    private(set) var problem: Problem?

    private let stream: OpaquePointer?
    private let output: UnsafeMutableRawBufferPointer
    /// libzstd's last answer: 0 when the bytes so far end a frame, else more are expected.
    private var expecting = 1
    /// Whether the next byte given starts a frame (whose header is then read for its size).
    private var atFrameStart = true

    /// An inflater whose frames may inflate to at most `limit` bytes; ``problem`` is
    /// ``Problem/noMemory`` when libzstd cannot be set up.
    init(limit: Int) {
        self.limit = max(0, limit)
        output = .allocate(byteCount: ZSTD_DStreamOutSize(), alignment: 16)
        stream = ZSTD_createDStream()
        if let stream {
            if ZSTD_isError(ZSTD_DCtx_setParameter(stream, ZSTD_d_windowLogMax, Self.windowLogMax)) != 0 {
                problem = .noMemory
            }
        } else {
            problem = .noMemory
        }
    }

    deinit {
        ZSTD_freeDStream(stream)
        output.deallocate()
    }

    /// Inflates `input`, the next bytes of the file, giving what it inflates to `write`
    /// (which returns false once a write fails). False when the bytes cannot be inflated
    /// (``problem`` says why) or a write failed (``problem`` is nil).
    func write(_ input: UnsafeRawBufferPointer, to write: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        guard problem == nil, let stream else { return false }
        guard let base = input.baseAddress, !input.isEmpty else { return true }
        var source = ZSTD_inBuffer(src: base, size: input.count, pos: 0)
        while source.pos < source.size {
            if atFrameStart {
                // Only when the frame's header lies in these bytes; the count below holds anyway.
                let claimed = ZSTD_getFrameContentSize(base + source.pos, source.size - source.pos)
                if claimed < UInt64.max - 1, claimed > UInt64(limit - inflated) {
                    problem = .claimsOverLimit(claimed: claimed, limit: limit)
                    return false
                }
                atFrameStart = false
            }
            let before = source.pos
            var target = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
            let result = ZSTD_decompressStream(stream, &target, &source)
            if ZSTD_isError(result) != 0 {
                problem = .damaged(String(cString: ZSTD_getErrorName(result)))
                return false
            }
            if target.pos > limit - inflated {
                problem = .overLimit(limit: limit)
                return false
            }
            inflated += target.pos
            if target.pos > 0, !write(UnsafeRawBufferPointer(start: output.baseAddress, count: target.pos)) {
                return false
            }
            // libzstd takes a frame's last byte only once all of it is out: 0 means the frame
            // ended at `source.pos` and the next byte starts another.
            expecting = result
            if result == 0 {
                atFrameStart = true
            } else if source.pos == before, target.pos == 0 {
                problem = .damaged("no progress")  // not seen from libzstd; a bound on the loop
                return false
            }
        }
        return true
    }

    /// Says whether the bytes given were whole frames; ``problem`` says why not.
    func finish() -> Bool {
        guard problem == nil else { return false }
        if expecting != 0 { problem = .cutShort }
        return problem == nil
    }
}
