/// The frames of one backtrace, held in 16 bytes each: what a report of millions of frames
/// costs beside its own bytes.
///
/// A ``Frame`` as a value is 64 bytes (its names table, two 64-bit numbers of its form, its
/// image offset, its number). Most frames need far less: their number is their place in the
/// backtrace, a load address is the address less the offset, an offset fits in 32 bits, and
/// at most one of an image offset and a form's offset is given. The list keeps such a frame
/// as a `PackedFrame` and gives it back as a ``Frame`` when asked; a frame that does not fit
/// (a symbolicated form, a load address that is not the address less the offset, ...) is
/// kept whole beside the records, which then name it. A record's names and image are one
/// 16-bit key of the report's ``FrameText`` (a report has far fewer distinct pairs of names
/// than frames; past 65,535 keys, frames are kept whole). Lines are not kept while each frame
/// is on the line after the one before (a backtrace's lines), only from the first frame that
/// is not; numbers likewise, while each is the frame's place.
///
/// The frames' names live in one ``FrameText`` per list: the first frame appended brings it
/// (a parser's frames all share the report's), and a frame from another table has its names
/// added to this one. The records and what they share are one allocation per list; an empty
/// list has none.
public struct FrameList: @unchecked Sendable {
    /// Changed only when this list holds the one reference to it (copy on write), which makes
    /// the list as safe to send as an array.
    private var storage: Storage

    /// No frames (and no allocation: empty lists share one storage until they grow).
    public init() {
        storage = Storage.empty
    }

    /// How many frames the list has room for before it grows.
    public var capacity: Int { storage.room }

    /// Gives back the room past the last frame that growing left (a list grows by half, so a
    /// backtrace of 20 frames had room for 24: a fifth of what its frames take). Room of one
    /// frame, or of a thirty-second of the frames, is kept: the allocator rounds a block up by
    /// about that much anyway (a large one to whole pages), and a copy would have it again.
    public mutating func shrinkToFit() {
        guard storage.room - storage.count > Swift.max(1, storage.count / 32) else { return }
        storage.text?.charge(-(storage.room - storage.count) * FrameList.recordSize)
        storage = storage.count == 0 ? Storage.empty : storage.copy(capacity: storage.count)
    }

    /// Makes the storage this list's own, with room for `room` frames.
    private mutating func unique(room: Int = 0) {
        if !isKnownUniquelyReferenced(&storage) || storage.room < room {
            storage = storage.copy(capacity: Swift.max(room, storage.room))
        }
    }
}

extension FrameList: RandomAccessCollection, MutableCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count }

    public subscript(position: Int) -> Frame {
        get {
            precondition(position >= 0 && position < storage.count, "frame index out of range")
            return storage.frame(at: position)
        }
        set {
            precondition(position >= 0 && position < storage.count, "frame index out of range")
            unique()
            storage.store(newValue, at: position)
        }
    }
}

extension FrameList: RangeReplaceableCollection {
    public mutating func reserveCapacity(_ n: Int) {
        unique(room: n)
    }

    public mutating func append(_ frame: Frame) {
        let count = storage.count, old = storage.room, wasEmpty = storage === Storage.empty
        unique(room: count < old ? count + 1 : Swift.max(16, count + count / 2))
        // What the list takes is charged to its report's model as it grows (``FrameText/charge(_:)``).
        if storage.room != old || wasEmpty {
            frame.text.charge((storage.room - (wasEmpty ? 0 : old)) * FrameList.recordSize + (wasEmpty ? 64 : 0))
        }
        storage.append(frame)
    }

    public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == Frame {
        precondition(subrange.lowerBound >= 0 && subrange.upperBound <= storage.count, "frame range out of bounds")
        unique()
        // A frame's record depends on its place (its number is stored as "its place"), so the
        // frames after the change are taken out and put back at their new places.
        let tail = (subrange.upperBound..<storage.count).map { storage.frame(at: $0) }
        storage.truncate(to: subrange.lowerBound)
        for frame in newElements { append(frame) }
        for frame in tail { append(frame) }
    }
}

extension FrameList: ExpressibleByArrayLiteral {
    public init(arrayLiteral frames: Frame...) {
        self.init(frames)
    }
}

extension FrameList: Equatable {
    public static func == (a: FrameList, b: FrameList) -> Bool {
        a.storage === b.storage || a.elementsEqual(b)
    }
}

extension FrameList: CustomStringConvertible {
    public var description: String { Array(self).description }
}

extension FrameList {
    /// The bytes a frame takes in the list, when it fits a record.
    public static var recordSize: Int { MemoryLayout<PackedFrame>.stride }

    /// The bytes a list's shared part takes besides its records (for the tests).
    static var headerSize: Int { MemoryLayout<Header>.stride }

    /// The frames kept whole beside the records (for the tests).
    var framesKeptWhole: Int { storage.overflow.count }

    /// Whether the list keeps each frame's line, rather than the first one's (for the tests).
    var keepsLines: Bool { storage.keepsLines }

    /// Whether the list keeps each frame's number, rather than its place (for the tests).
    var keepsIndexes: Bool { storage.keepsIndexes }
}

/// A frame in 16 bytes; see ``FrameList``.
private struct PackedFrame {
    var address: UInt64
    /// The form's offset; or the image offset, when the form has none (`imageOffsetHere`); for
    /// a frame kept whole, its index in the overflow.
    var offset: UInt32
    /// The frame's names and image, as a key of the list's ``FrameText`` (``FrameText/NameKey``).
    var key: UInt16
    /// The place of the rest in the line, or `noRest`.
    var restStart: UInt8
    /// The kind in the low 3 bits (`wholeKind` for a frame kept whole), the frame's flags in
    /// the 5 above (`flagBits(_:)`).
    var bits: UInt8

    static let noRest: UInt8 = .max
    static let kindMask: UInt8 = 0x7
    static let wholeKind: UInt8 = 0x7
    /// The frame's flags a record keeps: all but `formOffset` (16, of symbolicated forms only)
    /// and `wide` (64).
    static let keptFlags = Frame.Flags(rawValue: 0x2F)

    /// `flags` (a subset of `keptFlags`) as the record's bits: `addressUnknown` (32) moved
    /// down to the free 16, then all above the kind.
    static func flagBits(_ flags: Frame.Flags) -> UInt8 {
        ((flags.rawValue & 0xF) | (flags.rawValue & 0x20) >> 1) << 3
    }

    /// The flags of `bits`, as `flagBits` stored them.
    static func flags(_ bits: UInt8) -> Frame.Flags {
        let f = bits >> 3
        return Frame.Flags(rawValue: (f & 0xF) | (f & 0x10) << 1)
    }

    var isWhole: Bool { bits & Self.kindMask == Self.wholeKind }
}

/// What a list's records share: their number, their names, and (rarely) the frames kept whole
/// and the lines when they are not one per frame from the first. 24 bytes: a report of many
/// short backtraces pays it once for each (with the object's own 16 and one record, 56 bytes,
/// which the allocator rounds to 64; 32 rounded to 80).
private struct Header {
    /// The room for records the list asked for. The allocator may give more (it rounds a block
    /// up by what it has free, which differs from run to run), which is left unused: the room,
    /// how the list grows and what a report's budget counts for it are the same in every run,
    /// so that a report near its bound is refused in every run or in none.
    var room: Int32 = 0
    var count: Int32 = 0
    /// The line of frame 0 (then frame k is on line `firstLine + k`), unless `extras.lines` is set.
    var firstLine: Int32 = 0
    /// Whether `owner` is the list's ``Extras`` (which then holds the names), else its
    /// ``FrameText``: one reference for both, since most lists have no extras.
    private var ownerIsExtras = false
    private var owner: AnyObject?

    init(room: Int32) {
        self.room = room
    }

    /// The names of the records' frames; nil until a frame is stored.
    var text: FrameText? {
        get {
            guard let owner else { return nil }
            return ownerIsExtras ? unsafeDowncast(owner, to: Extras.self).text : unsafeDowncast(owner, to: FrameText.self)
        }
        set {
            if ownerIsExtras {
                unsafeDowncast(owner!, to: Extras.self).text = newValue
            } else {
                owner = newValue
            }
        }
    }

    /// Frames kept whole and each frame's line, once a list has either; nil for most lists.
    var extras: Extras? {
        get { ownerIsExtras ? unsafeDowncast(owner!, to: Extras.self) : nil }
        set {
            let text = self.text
            if let newValue {
                newValue.text = text
                owner = newValue
                ownerIsExtras = true
            } else {
                owner = text
                ownerIsExtras = false
            }
        }
    }
}

/// What only some lists need. A class so that lists without it pay no room of their own for
/// it; it is copied with the storage (`Storage.copy`), never shared by two storages.
private final class Extras {
    /// Each frame's line, once a frame is not on the line after the one before.
    var lines: CountedArray<UInt32>?
    /// Each frame's number, once a frame's number is not its place (a log whose lines all
    /// say `#0`): four bytes a frame, not a frame kept whole.
    var indexes: CountedArray<Int32>?
    /// Frames that do not fit a record.
    var overflow = CountedArray<Frame>()
    /// The list's names (``Header/text``), held here while the list has extras.
    var text: FrameText?

    init(lines: CountedArray<UInt32>? = nil, indexes: CountedArray<Int32>? = nil, overflow: CountedArray<Frame> = CountedArray()) {
        self.lines = lines
        self.indexes = indexes
        self.overflow = overflow
    }
}

/// An array of a list's extras and the room it grows by, counted by the list rather than read
/// from the array (whose capacity is what the allocator gave, which differs from run to run):
/// the room doubles when it is full, and what a report's budget is charged for it (``FrameText/charge(_:)``)
/// is the same in every run.
private struct CountedArray<Element> {
    private(set) var elements: [Element] = []
    /// The elements the array was asked to hold room for.
    private var room = 0

    init() {}

    /// `elements`, with room for as many, charged to `text`.
    init(_ elements: [Element], charging text: FrameText?) {
        self.elements = elements
        room = elements.count
        text?.charge(room * MemoryLayout<Element>.stride)
    }

    var count: Int { elements.count }

    subscript(i: Int) -> Element {
        get { elements[i] }
        set { elements[i] = newValue }
    }

    /// Appends `element`, charging `text` for the room when it grows.
    mutating func append(_ element: Element, charging text: FrameText?) {
        if elements.count == room {
            let grown = Swift.max(16, 2 * room)
            elements.reserveCapacity(grown)
            text?.charge((grown - room) * MemoryLayout<Element>.stride)
            room = grown
        }
        elements.append(element)
    }

    /// Appends `element` until there are `count`.
    mutating func pad(_ element: Element, to count: Int, charging text: FrameText?) {
        while elements.count < count { append(element, charging: text) }
    }

    /// Drops the elements from `n` on; the room stays.
    mutating func truncate(to n: Int) {
        if n < elements.count { elements.removeSubrange(n...) }
    }
}

/// The records and what they share, in one allocation; shared by copies of a list until one
/// changes. Reached through pointers (`withUnsafeMutablePointers`): a property of a class would
/// be checked for exclusive access at every frame.
private final class Storage: ManagedBuffer<Header, PackedFrame> {
    /// The storage of every empty list.
    static let empty = Storage.make(capacity: 0)

    static func make(capacity: Int) -> Storage {
        let buffer = Storage.create(minimumCapacity: capacity) { _ in Header(room: Int32(truncatingIfNeeded: capacity)) }
        return unsafeDowncast(buffer, to: Storage.self)
    }

    var count: Int { withUnsafeMutablePointerToHeader { Int($0.pointee.count) } }
    var text: FrameText? { withUnsafeMutablePointerToHeader { $0.pointee.text } }
    var room: Int { withUnsafeMutablePointerToHeader { Int($0.pointee.room) } }
    var overflow: [Frame] { withUnsafeMutablePointerToHeader { $0.pointee.extras?.overflow.elements ?? [] } }
    var keepsLines: Bool { withUnsafeMutablePointerToHeader { $0.pointee.extras?.lines != nil } }
    var keepsIndexes: Bool { withUnsafeMutablePointerToHeader { $0.pointee.extras?.indexes != nil } }

    /// A copy with room for `capacity` records (at least the count).
    func copy(capacity: Int) -> Storage {
        withUnsafeMutablePointers { h, records in
            let copy = Storage.make(capacity: Swift.max(capacity, Int(h.pointee.count)))
            copy.withUnsafeMutablePointers { copyHeader, copyRecords in
                let room = copyHeader.pointee.room
                copyHeader.pointee = h.pointee
                copyHeader.pointee.room = room
                if let extras = h.pointee.extras {
                    copyHeader.pointee.extras = Extras(lines: extras.lines, indexes: extras.indexes, overflow: extras.overflow)
                }
                copyRecords.initialize(from: records, count: Int(h.pointee.count))
            }
            return copy
        }
    }

    func truncate(to n: Int) {
        withUnsafeMutablePointerToHeader { h in
            h.pointee.count = Int32(Swift.min(Int(h.pointee.count), n))
            if h.pointee.count == 0 {
                h.pointee.extras = nil
            } else if let extras = h.pointee.extras {
                extras.lines?.truncate(to: Int(h.pointee.count))
                extras.indexes?.truncate(to: Int(h.pointee.count))
            }
        }
    }

    /// Appends `frame`; the caller has made room.
    func append(_ frame: Frame) {
        withUnsafeMutablePointers { h, records in
            let i = Int(h.pointee.count)
            h.pointee.count += 1
            if i == 0 { h.pointee.firstLine = Int32(truncatingIfNeeded: frame.line) }
            (records + i).initialize(to: Self.pack(frame, at: i, replacing: nil, h))
        }
    }

    func store(_ frame: Frame, at i: Int) {
        withUnsafeMutablePointers { h, records in
            records[i] = Self.pack(frame, at: i, replacing: records[i], h)
        }
    }

    func frame(at i: Int) -> Frame {
        withUnsafeMutablePointers { h, records in
            let record = records[i]
            if record.isWhole { return h.pointee.extras!.overflow[Int(record.offset)] }
            let text = h.pointee.text!
            let names = text.nameKey(record.key)
            let flags = PackedFrame.flags(record.bits)
            let kind = Frame.Kind(rawValue: record.bits & PackedFrame.kindMask) ?? .unknown
            let offset = UInt64(record.offset)
            let here = names.imageBits & FrameText.NameKey.imageOffsetHere != 0
            let formOffset = here ? 0 : offset
            let imageOffset = flags.contains(.imageOffset) ? (here ? offset : formOffset) : 0
            let line = h.pointee.extras?.lines.map { Int32(bitPattern: $0[i]) } ?? h.pointee.firstLine &+ Int32(truncatingIfNeeded: i)
            let image = Int32(names.imageBits & FrameText.NameKey.imageMask) - 1
            return Frame(address: record.address, text: text, storedImageOffset: imageOffset,
                         formOffset: formOffset, formValue: kind == .unsymbolicated ? record.address &- formOffset : 0,
                         storedIndex: h.pointee.extras?.indexes.map { $0[i] } ?? Int32(truncatingIfNeeded: i), storedLine: line,
                         storedRestStart: record.restStart == PackedFrame.noRest ? -1 : Int32(record.restStart),
                         storedImage: image, imageNameID: names.imageNameID, nameID: names.nameID, fileID: -1,
                         kind: kind, flags: flags)
        }
    }

    /// The list's extras, made when first needed.
    private static func extras(_ h: UnsafeMutablePointer<Header>) -> Extras {
        if let extras = h.pointee.extras { return extras }
        let extras = Extras()
        h.pointee.extras = extras
        return extras
    }

    /// `frame` as the record at place `i`; a frame that does not fit goes to the overflow (into
    /// the slot of `old`, when that was a frame kept whole).
    private static func pack(_ frame: Frame, at i: Int, replacing old: PackedFrame?,
                             _ h: UnsafeMutablePointer<Header>) -> PackedFrame {
        if h.pointee.text == nil { h.pointee.text = frame.text }
        if let record = compact(frame, at: i, h) {
            place(line: UInt32(frame.storedLine), at: i, h)
            place(index: frame.storedIndex, at: i, h)
            return record
        }
        let extras = extras(h)
        let slot: Int
        if let old, old.isWhole {
            slot = Int(old.offset)
            extras.overflow[slot] = frame
        } else {
            slot = extras.overflow.count
            extras.overflow.append(frame, charging: h.pointee.text)
        }
        // A frame kept whole holds its own line and number; those of the others stay as they were.
        extras.lines?.pad(0, to: Int(h.pointee.count), charging: h.pointee.text)
        extras.indexes?.pad(0, to: Int(h.pointee.count), charging: h.pointee.text)
        return PackedFrame(address: frame.address, offset: UInt32(truncatingIfNeeded: slot), key: 0,
                           restStart: PackedFrame.noRest, bits: PackedFrame.wholeKind)
    }

    /// Records that frame `i` is on `line`: implied while every frame is on the line after the
    /// one before, else in `extras.lines`.
    private static func place(line: UInt32, at i: Int, _ h: UnsafeMutablePointer<Header>) {
        if h.pointee.extras?.lines == nil {
            if Int(line) == Int(h.pointee.firstLine) + i { return }
            // Every frame's line from here on is kept: those so far are implied.
            let first = Int(h.pointee.firstLine)
            extras(h).lines = CountedArray((0..<Int(h.pointee.count)).map { UInt32(truncatingIfNeeded: first + $0) },
                                           charging: h.pointee.text)
        }
        let extras = h.pointee.extras!
        extras.lines!.pad(0, to: Int(h.pointee.count), charging: h.pointee.text)
        extras.lines![i] = line
    }

    /// Records that frame `i` is numbered `index`: implied while every frame's number is its
    /// place, else in `extras.indexes`.
    private static func place(index: Int32, at i: Int, _ h: UnsafeMutablePointer<Header>) {
        if h.pointee.extras?.indexes == nil {
            if Int(index) == i { return }
            // Every frame's number from here on is kept: those so far are their places.
            extras(h).indexes = CountedArray((0..<Int(h.pointee.count)).map { Int32(truncatingIfNeeded: $0) },
                                             charging: h.pointee.text)
        }
        let extras = h.pointee.extras!
        extras.indexes!.pad(0, to: Int(h.pointee.count), charging: h.pointee.text)
        extras.indexes![i] = index
    }

    /// `frame` as a record at place `i`, or nil when it does not fit one.
    private static func compact(_ frame: Frame, at i: Int, _ h: UnsafeMutablePointer<Header>) -> PackedFrame? {
        guard frame.flags.isSubset(of: PackedFrame.keptFlags), frame.storedLine >= 0,
              frame.storedRestStart < Int32(PackedFrame.noRest), frame.kind != .symbolicated, frame.fileID < 0,
              frame.storedImage < Int32(FrameText.NameKey.imageMask),
              let offset = UInt32(exactly: frame.formOffset) else { return nil }
        switch frame.kind {
        case .unsymbolicated: guard frame.formValue == frame.address &- frame.formOffset else { return nil }
        default: guard frame.formValue == 0 else { return nil }
        }
        var imageBits = UInt16(frame.storedImage + 1)
        var stored = offset
        if frame.flags.contains(.imageOffset) {
            if frame.storedImageOffset == frame.formOffset {
                imageBits |= FrameText.NameKey.imageOffsetIsOffset
            } else if frame.formOffset == 0, frame.kind == .unknown || frame.kind == .addressOnly,
                      let imageOffset = UInt32(exactly: frame.storedImageOffset) {
                stored = imageOffset
                imageBits |= FrameText.NameKey.imageOffsetHere
            } else {
                return nil
            }
        }
        var nameID = frame.nameID, imageNameID = frame.imageNameID
        let text = h.pointee.text!
        if frame.text !== text {
            // Names of another table are added to this one.
            nameID = nameID < 0 ? -1 : text.intern(frame.text[nameID])
            imageNameID = imageNameID < 0 ? -1 : text.intern(frame.text[imageNameID])
        }
        guard let key = text.key(FrameText.NameKey(nameID: nameID, imageNameID: imageNameID, imageBits: imageBits)) else {
            return nil
        }
        return PackedFrame(address: frame.address, offset: stored, key: key,
                           restStart: frame.storedRestStart < 0 ? PackedFrame.noRest : UInt8(frame.storedRestStart),
                           bits: frame.kind.rawValue | PackedFrame.flagBits(frame.flags))
    }
}
