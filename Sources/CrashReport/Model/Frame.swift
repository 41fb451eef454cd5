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
///
/// A report can hold millions of frames, so a frame is kept compact: its names are indices into
/// the report's shared `FrameText`, its optionals are sentinels and flags, its form is a kind
/// with two numbers, and its number, line and place in the line are 32-bit (a frame with one
/// that does not fit keeps the three in a record of the `FrameText`, `Flags.wide`). The
/// properties below present the parts as plain values.
public struct Frame: Sendable {
    /// The frame's absolute address as printed.
    public var address: UInt64
    var text: FrameText
    // The 64-bit parts first, then the 32-bit ones, then the bytes: no padding between them.
    /// `imageOffset` when `Flags.imageOffset` is set.
    var storedImageOffset: UInt64
    /// The form's first number: its offset (of `unsymbolicated`, `symbol`, `symbolicated`,
    /// `imageOffset`).
    var formOffset: UInt64
    /// The form's second number: the load address of `unsymbolicated`, the source line of
    /// `symbolicated`.
    var formValue: UInt64
    /// `index`, or with `Flags.wide` -1.
    var storedIndex: Int32
    /// `line`, or with `Flags.wide` the index of the record of the three in `text`.
    var storedLine: Int32
    /// `restStart`, or -1 for nil; with `Flags.wide`, -1.
    var storedRestStart: Int32
    /// `image`, or -1 for nil. A report would need 2^31 image lines to overflow it.
    var storedImage: Int32
    /// Indices into `text`, or -1 for nil. `nameID` is the name of a `symbol` or `symbolicated`
    /// form, or `loggedName` of an `unknown` one.
    var imageNameID: Int32
    var nameID: Int32 = -1
    var fileID: Int32 = -1
    var kind: Kind = .unknown
    var flags: Flags

    enum Kind: UInt8 {
        case unsymbolicated, symbol, symbolicated, imageOffset, unknown, addressOnly
    }

    struct Flags: OptionSet {
        let rawValue: UInt8
        static let imageOffset = Flags(rawValue: 1)
        static let returnAddressKnown = Flags(rawValue: 2)
        static let returnAddress = Flags(rawValue: 4)
        static let inlined = Flags(rawValue: 8)
        /// A `symbolicated` form with an offset.
        static let formOffset = Flags(rawValue: 16)
        static let addressUnknown = Flags(rawValue: 32)
        /// `index`, `line` and `restStart` are in the record `storedLine` of `text`.
        static let wide = Flags(rawValue: 64)
    }

    /// Creates a frame from its parts. Its names go to `text`: a parser passes the one table of
    /// its report, so that frames share their names.
    public init(index: Int, imageName: String?, address: UInt64, form: FrameForm, image: Int? = nil,
                line: Int, restStart: Int?, imageOffset: UInt64? = nil, returnAddress: Bool? = nil,
                inlined: Bool = false, text: FrameText = FrameText()) {
        self.address = address
        self.text = text
        storedIndex = -1
        storedLine = -1
        storedRestStart = -1
        storedImageOffset = imageOffset ?? 0
        formOffset = 0
        formValue = 0
        storedImage = image.map { Int32(truncatingIfNeeded: $0) } ?? -1
        imageNameID = imageName.map { text.intern($0) } ?? -1
        flags = imageOffset == nil ? [] : .imageOffset
        setPlace(index: index, line: line, restStart: restStart)
        self.form = form
        self.returnAddress = returnAddress
        self.inlined = inlined
    }

    /// A frame whose image name is the string numbered `imageNameID` of `text` (-1: none),
    /// for a parser that looks an image's name up once for all of its frames.
    init(index: Int, imageNameID: Int32, address: UInt64, form: FrameForm, image: Int?, line: Int, restStart: Int?,
         imageOffset: UInt64?, text: FrameText) {
        self.init(index: index, imageName: nil, address: address, form: form, image: image, line: line,
                  restStart: restStart, imageOffset: imageOffset, text: text)
        self.imageNameID = imageNameID
    }

    /// A frame of the given stored parts (``FrameList`` keeps frames in fewer bytes).
    init(address: UInt64, text: FrameText, storedImageOffset: UInt64, formOffset: UInt64, formValue: UInt64,
         storedIndex: Int32, storedLine: Int32, storedRestStart: Int32, storedImage: Int32, imageNameID: Int32,
         nameID: Int32, fileID: Int32, kind: Kind, flags: Flags) {
        self.address = address
        self.text = text
        self.storedImageOffset = storedImageOffset
        self.formOffset = formOffset
        self.formValue = formValue
        self.storedIndex = storedIndex
        self.storedLine = storedLine
        self.storedRestStart = storedRestStart
        self.storedImage = storedImage
        self.imageNameID = imageNameID
        self.nameID = nameID
        self.fileID = fileID
        self.kind = kind
        self.flags = flags
    }

    /// The frame number as printed; for frames of a parenthesized address list, the position in
    /// the list.
    public var index: Int {
        get { flags.contains(.wide) ? text.place(storedLine).index : Int(storedIndex) }
        set { setPlace(index: newValue, line: line, restStart: restStart) }
    }

    /// The 0-based index of the frame's line in the report.
    public var line: Int {
        get { flags.contains(.wide) ? text.place(storedLine).line : Int(storedLine) }
        set { setPlace(index: index, line: newValue, restStart: restStart) }
    }

    /// Stores the frame's number, line and place in the line: in 32 bits each when they fit,
    /// else in a new record of `text` (never one another frame may share).
    private mutating func setPlace(index: Int, line: Int, restStart: Int?) {
        let rest = restStart ?? -1
        if let index = Int32(exactly: index), let line = Int32(exactly: line), line >= 0,
           let rest = Int32(exactly: rest), rest >= -1 {
            storedIndex = index
            storedLine = line
            storedRestStart = rest
            flags.remove(.wide)
        } else {
            storedIndex = -1
            storedLine = text.addPlace(index: index, line: line, restStart: rest)
            storedRestStart = -1
            flags.insert(.wide)
        }
    }

    /// The image name as printed (it may contain spaces); nil for frames of an address list.
    public var imageName: String? {
        get { imageNameID < 0 ? nil : text[imageNameID] }
        set { imageNameID = newValue.map { text.intern($0) } ?? -1 }
    }

    /// What the line says after the address.
    public var form: FrameForm {
        get {
            switch kind {
            case .unsymbolicated: return .unsymbolicated(loadAddress: formValue, offset: formOffset)
            case .symbol: return .symbol(name: text[nameID], offset: formOffset)
            case .symbolicated:
                return .symbolicated(name: text[nameID], offset: flags.contains(.formOffset) ? formOffset : nil,
                                     file: text[fileID], line: Int(truncatingIfNeeded: formValue))
            case .imageOffset: return .imageOffset(offset: formOffset)
            case .unknown: return .unknown
            case .addressOnly: return .addressOnly
            }
        }
        set {
            nameID = -1
            fileID = -1
            formOffset = 0
            formValue = 0
            flags.remove(.formOffset)
            switch newValue {
            case .unsymbolicated(let loadAddress, let offset):
                kind = .unsymbolicated
                formValue = loadAddress
                formOffset = offset
            case .symbol(let name, let offset):
                kind = .symbol
                nameID = text.intern(name)
                formOffset = offset
            case .symbolicated(let name, let offset, let file, let line):
                kind = .symbolicated
                nameID = text.intern(name)
                fileID = text.intern(file)
                if let offset {
                    formOffset = offset
                    flags.insert(.formOffset)
                }
                formValue = UInt64(truncatingIfNeeded: line)
            case .imageOffset(let offset):
                kind = .imageOffset
                formOffset = offset
            case .unknown: kind = .unknown
            case .addressOnly: kind = .addressOnly
            }
        }
    }

    /// The function a frame line of the `unknown` form names without a source location or an
    /// offset, as the parser read it: a sanitizer's `#0 0x7f... in gsignal (libc.so.6+0x35417)`,
    /// LLVM's `#1 0x55... foo(int) (/tmp/prog+0x1234)`, ThreadSanitizer's `#0 main <null>
    /// (race+0x1249)`. Nil for other forms (their name is the form's) and for lines that name
    /// none; setting ``form`` clears it, and it can be set only on an `unknown` form.
    public var loggedName: String? {
        get { kind == .unknown && nameID >= 0 ? text[nameID] : nil }
        set {
            guard kind == .unknown else { return }
            nameID = newValue.map { text.intern($0) } ?? -1
        }
    }

    /// The index into `CrashReport.images` of the frame's image: the smallest image whose range
    /// contains `address`, or, when no range does, the first image whose name (or file name)
    /// equals `imageName`; nil if neither finds one.
    public var image: Int? {
        get { storedImage < 0 ? nil : Int(storedImage) }
        set { storedImage = newValue.map { Int32(truncatingIfNeeded: $0) } ?? -1 }
    }

    /// The byte offset, within the line, of the text after the address (past the blanks that
    /// follow it): a renderer keeps the bytes before it and replaces the rest. Nil for frames of
    /// an address list, which share their line with other frames.
    public var restStart: Int? {
        get {
            let rest = flags.contains(.wide) ? text.place(storedLine).restStart : Int(storedRestStart)
            return rest < 0 ? nil : rest
        }
        set { setPlace(index: index, line: line, restStart: newValue) }
    }

    /// The frame's offset from its image's base when the report gives one instead of (or as well
    /// as) an address the image's range places: a sanitizer's `(module+0x1234)`, glibc's
    /// `prog(+0x1234)`. For ELF modules the offset is from the load bias, i.e. a link-time
    /// address. Nil when the address and the image's load address say it all.
    public var imageOffset: UInt64? {
        get { flags.contains(.imageOffset) ? storedImageOffset : nil }
        set {
            storedImageOffset = newValue ?? 0
            if newValue == nil { flags.remove(.imageOffset) } else { flags.insert(.imageOffset) }
        }
    }

    /// Whether the address is a return address (looked up at its call site), when the format
    /// says so itself; nil leaves it to the position rule (in a thread, every frame but the first
    /// one that is not inlined; in other backtraces, every frame).
    /// Sanitizers print addresses already moved to the call, so their frames say false.
    public var returnAddress: Bool? {
        get { flags.contains(.returnAddressKnown) ? flags.contains(.returnAddress) : nil }
        set {
            flags.remove([.returnAddressKnown, .returnAddress])
            if let newValue { flags.insert(newValue ? [.returnAddressKnown, .returnAddress] : .returnAddressKnown) }
        }
    }

    /// Whether the frame's address cannot be known: its line writes one that does not fit in
    /// 64 bits or has no digits (`0x1ffffffffffffffffff`, `0x`), the report gives an image and
    /// an offset whose sum does not fit, or no address at all (`address` is then 0). Such a
    /// frame is a frame of its backtrace, but no image range places it; it has no image, and
    /// nothing resolves it, unless the report names its image and its offset into it (a
    /// MetricKit frame with `offsetIntoBinaryTextSegment` alone).
    public var addressUnknown: Bool {
        get { flags.contains(.addressUnknown) }
        set { if newValue { flags.insert(.addressUnknown) } else { flags.remove(.addressUnknown) } }
    }

    /// A frame of `index` on `line` whose address cannot be read (`addressUnknown`): no image,
    /// nothing known of it but what its line says, which is written as it came.
    public static func unreadable(index: Int, imageName: String?, line: Int, restStart: Int?,
                                  text: FrameText = FrameText()) -> Frame {
        var frame = Frame(index: index, imageName: imageName, address: 0, form: .unknown, line: line,
                          restStart: restStart, text: text)
        frame.addressUnknown = true
        return frame
    }

    /// Whether the line is an inlined frame of an already symbolicated report (`foo + 4
    /// (File.m:8) [inlined]`): part of the next frame that is not, which has the same address.
    /// Such frames are never looked up themselves; when their concrete frame is resolved again,
    /// the new inlined frames take their place.
    public var inlined: Bool {
        get { flags.contains(.inlined) }
        set { if newValue { flags.insert(.inlined) } else { flags.remove(.inlined) } }
    }
}

extension Frame: Equatable {
    /// Frames are equal when their parts are, whichever tables hold their names.
    public static func == (a: Frame, b: Frame) -> Bool {
        a.index == b.index && a.address == b.address && a.line == b.line && a.restStart == b.restStart
            && a.imageOffset == b.imageOffset && a.storedImage == b.storedImage && a.returnAddress == b.returnAddress
            && a.inlined == b.inlined && a.addressUnknown == b.addressUnknown && a.imageName == b.imageName
            && a.form == b.form && a.loggedName == b.loggedName
    }
}
