/// What a frame line says after its address.
public enum FrameForm: Sendable, Equatable {
    /// `0x104a30000 + 50656`: the image's load address and the frame's offset from it.
    case unsymbolicated(loadAddress: UInt64, offset: UInt64)
    /// `foo + 12`, `<redacted> + 12`: a symbol from the device's own tables and the offset into it.
    case symbol(name: String, offset: UInt64)
    /// `foo + 12 (File.m:42)` or `main (main.m:16)`: already symbolicated with a source location.
    case symbolicated(name: String, offset: UInt64?, file: String, line: Int)
    /// `App + 12`, `<6b0a6a3f...> + 12`: the frame's offset from the start of its image.
    case imageOffset(offset: UInt64)
    /// `???` or anything else; the line is kept verbatim.
    case unknown
    /// An address from a parenthesized "Last Exception Backtrace" list, with nothing after it.
    case addressOnly
}

/// One stack frame of a thread or backtrace.
public struct Frame: Sendable, Equatable {
    /// The frame number as printed; for frames of a parenthesized address list, the position in
    /// the list.
    public var index: Int
    /// The image name as printed (it may contain spaces); nil for frames of an address list.
    public var imageName: String?
    /// The frame's absolute address as printed.
    public var address: UInt64
    /// What the line says after the address.
    public var form: FrameForm
    /// The index into `CrashReport.images` of the frame's image: the smallest image whose range
    /// contains `address`, or, when no range does, the first image whose name (or file name)
    /// equals `imageName`; nil if neither finds one.
    public var image: Int?
    /// The 0-based index of the frame's line in the report.
    public var line: Int
    /// The byte offset, within the line, of the text after the address (past the blanks that
    /// follow it): a renderer keeps the bytes before it and replaces the rest. Nil for frames of
    /// an address list, which share their line with other frames.
    public var restStart: Int?
    /// The frame's offset from its image's base when the report gives one instead of (or as well
    /// as) an address the image's range places: a sanitizer's `(module+0x1234)`, glibc's
    /// `prog(+0x1234)`. For ELF modules the offset is from the load bias, i.e. a link-time
    /// address. Nil when the address and the image's load address say it all.
    public var imageOffset: UInt64?
    /// Whether the address is a return address (looked up at its call site), when the format
    /// says so itself; nil leaves it to the position rule (in a thread, every frame but the first
    /// one that is not inlined; in other backtraces, every frame).
    /// Sanitizers print addresses already moved to the call, so their frames say false.
    public var returnAddress: Bool?
    /// Whether the line is an inlined frame of an already symbolicated report (`foo + 4
    /// (File.m:8) [inlined]`): part of the next frame that is not, which has the same address.
    /// Such frames are never looked up themselves; when their concrete frame is resolved again,
    /// the new inlined frames take their place.
    public var inlined: Bool

    /// Creates a frame from its parts.
    public init(index: Int, imageName: String?, address: UInt64, form: FrameForm, image: Int? = nil,
                line: Int, restStart: Int?, imageOffset: UInt64? = nil, returnAddress: Bool? = nil,
                inlined: Bool = false) {
        self.index = index
        self.imageName = imageName
        self.address = address
        self.form = form
        self.image = image
        self.line = line
        self.restStart = restStart
        self.imageOffset = imageOffset
        self.returnAddress = returnAddress
        self.inlined = inlined
    }
}
