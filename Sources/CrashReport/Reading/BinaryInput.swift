/// Input that is not text — a device such as `/dev/zero` or `/dev/urandom`, an executable, an
/// archive — told from its first block, before the rest is read: such input is refused at
/// once, with the memory of one block, instead of being read up to the size limit and then
/// found to be no report.
///
/// The decision is conservative, for reports are often not clean text: a few NUL or control
/// bytes, bytes of another encoding (Latin-1 names), terminal colours (ESC) and UTF-16 text
/// (half NUL bytes when it is ASCII) are all read as reports. Input is refused only when it
/// starts with the magic number of an object file or archive, or when more than
/// ``refusedShare`` percent of the block is neither text nor UTF-16. The binary reports this
/// tool reads — `.plcrash` reports and Android protobuf tombstones — are let through first.
public enum BinaryInput {
    /// How many leading bytes are looked at: the block a reader hands to ``problem(_:whole:)``.
    public static let sampleSize = 1 << 16

    /// The share of the block, in percent, that must be bytes of no text (NULs, control
    /// characters other than whitespace and ESC, bytes that are not UTF-8) for the input to
    /// be refused. Random bytes come to about 60%, clean text to 0%, text with a stray NUL or
    /// a few Latin-1 bytes to well under 10%.
    static let refusedShare = 30

    /// Why the input that starts with `sample` is not a text report (words for a message:
    /// "binary data, not a text report (...)"), or nil when it may be one. `whole` says that
    /// `sample` is all of the input, not its first block: a sequence cut at the end of a
    /// block is not counted against it.
    public static func problem(_ sample: UnsafeRawBufferPointer, whole: Bool) -> String? {
        let bytes = sample.bindMemory(to: UInt8.self)
        guard !bytes.isEmpty else { return nil }
        if PLCrashParser.looksLikePLCrash(bytes)
            || ProtobufTombstoneParser.looksLikeProtobufTombstone(bytes, whole: whole) { return nil }
        if let kind = magicKind(bytes) { return "binary data, not a text report (\(kind))" }
        let counts = ByteCounts(bytes, whole: whole)
        guard counts.misfits * 100 > bytes.count * refusedShare else { return nil }
        // UTF-16 text is half NULs when it is ASCII; a byte-order mark alone does not make it.
        if UTF16Text.encoding(of: bytes) != nil { return nil }
        let extent = whole ? "its \(bytes.count) byte\(bytes.count == 1 ? "" : "s")"
            : "its first \(bytes.count % 1024 == 0 ? "\(bytes.count / 1024) KiB" : "\(bytes.count) bytes")"
        if counts.nuls == bytes.count { return "binary data, not a text report (\(extent) are all NUL bytes)" }
        let share = counts.misfits * 100 / bytes.count
        return "binary data, not a text report (\(share)% of \(extent) are neither text nor UTF-16)"
    }

    /// The magic numbers of the files no report can start like, object files and archives,
    /// with what each file is. (A universal Mach-O file starts like a Java class file:
    /// ``magicKind(_:)`` tells them apart by the architecture count.)
    private static let magics: [(magic: [UInt8], kind: String)] = [
        ([0x7F, 0x45, 0x4C, 0x46], "an ELF file"),
        ([0xFE, 0xED, 0xFA, 0xCE], "a Mach-O file"), ([0xFE, 0xED, 0xFA, 0xCF], "a Mach-O file"),
        ([0xCE, 0xFA, 0xED, 0xFE], "a Mach-O file"), ([0xCF, 0xFA, 0xED, 0xFE], "a Mach-O file"),
        ([0xCA, 0xFE, 0xBA, 0xBE], "a universal Mach-O or Java class file"),
        ([0xBE, 0xBA, 0xFE, 0xCA], "a universal Mach-O file"),  // its header in the other byte order
        (Array("!<arch>\n".utf8), "an ar archive"), (Array("!<thin>\n".utf8), "an ar archive"),
        ([0x1F, 0x8B], "a gzip file"),
        ([0x28, 0xB5, 0x2F, 0xFD], "a zstd file"),
        ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], "an xz file"),
        ([0x50, 0x4B, 0x03, 0x04], "a zip file"),
    ]

    /// The kind of file whose magic number `bytes` start with, for the kinds no report can
    /// start like: object files and archives. Every text parser refuses them too
    /// (`ClassicReportParser.checkText`).
    static func magicKind(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard let (magic, kind) = magics.first(where: { bytes.starts(with: $0.magic) }) else { return nil }
        // A universal file's architecture count is small; a Java class file's version is not.
        if magic.first == 0xCA, bytes.count >= 8, bytes[4] == 0, bytes[5] == 0, bytes[6] == 0, bytes[7] > 0, bytes[7] < 64 {
            return "a universal Mach-O file"
        }
        return kind
    }

    /// The bytes of a block that belong to no text: control characters, NULs among them, and
    /// bytes that are no part of a valid UTF-8 sequence. Both checks of input count them so:
    /// ``problem(_:whole:)`` against the share it refuses, `ClassicReportParser.checkText`
    /// against its own for NULs and controls.
    struct ByteCounts: Equatable {
        /// NUL bytes.
        var nuls = 0
        /// Control characters other than NUL, tab, line feed, vertical tab, form feed,
        /// carriage return and ESC (the blanks, line ends and colour codes of text), and DEL.
        var controls = 0
        /// Bytes that are no part of a valid UTF-8 sequence.
        var undecodable = 0

        /// All the bytes of no text.
        var misfits: Int { nuls + controls + undecodable }
    }
}

extension BinaryInput.ByteCounts {
    /// Counts `bytes`; when not `whole`, a sequence cut by their end is not counted.
    init(_ bytes: UnsafeBufferPointer<UInt8>, whole: Bool) {
        var i = 0
        let count = bytes.count
        guard let base = bytes.baseAddress else { return }
        while i < count {
            // Eight bytes at a time while they are all printable ASCII, the common case.
            if i + 8 <= count, Self.isPrintableASCII(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) {
                i += 8
                continue
            }
            let byte = bytes[i]
            if byte >= 0x20 && byte < 0x7F {
                i += 1
                continue
            }
            if byte < 0x80 {
                switch byte {
                case 0x09...0x0D, 0x1B: break
                case 0: nuls += 1
                default: controls += 1
                }
                i += 1
                continue
            }
            let length = Self.utf8SequenceLength(bytes, at: i)
            if length > 0 {
                i += length
            } else if length < 0 {
                // Cut short by the end of the block, not wrong: the rest is not counted.
                if !whole { break }
                undecodable += count - i
                break
            } else {
                undecodable += 1
                i += 1
            }
        }
    }

    /// Whether the eight bytes of `word` are all printable ASCII (0x20 to 0x7E): none has its
    /// high bit set, none is below 0x20, none is 0x7F (the tests of "Bit Twiddling Hacks",
    /// exact for whether any byte is so).
    @inline(__always)
    private static func isPrintableASCII(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let below = (word &- ones &* 0x20) & ~word & highs
        let del = word ^ (ones &* 0x7F)
        let isDel = (del &- ones) & ~del & highs
        return (word & highs) | below | isDel == 0
    }

    /// The length of the valid UTF-8 sequence at `i` (a byte of 0x80 or more): 2 to 4, 0 when
    /// it is not one, -1 when the bytes end before it does and it is valid so far.
    private static func utf8SequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
        let lead = bytes[i]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return 0
        }
        for k in 1..<length {
            guard i + k < bytes.count else { return -1 }
            let byte = bytes[i + k]
            let (lower, upper) = k == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
            guard byte >= lower && byte <= upper else { return 0 }
        }
        return length
    }
}
