/// The names a report's frames print — image, symbol and source file names — each held once
/// per report and shared by every frame that prints it, so that a frame carries small indices
/// rather than strings of its own: a report of a million frames naming a hundred images holds a
/// hundred image names, not a million.
///
/// Names are only ever added (while a report is parsed, or when a frame's form is set); an
/// index, once handed out, names the same string for the life of the table. Adding is not
/// locked: a report's frames are made and changed by one thread at a time (its parser).
public final class FrameText: @unchecked Sendable {
    /// The distinct names, in the order they were first added.
    private var strings: [String] = []
    /// An open-addressing hash table over `strings`: each slot holds an index into `strings`
    /// plus one, or 0 when empty. Its size is a power of two, kept at least twice the count.
    private var slots: [Int32] = Array(repeating: 0, count: 16)

    /// Creates an empty table, without a limit on what its report's model may take.
    public init() {
        limit = .max
    }

    /// Creates an empty table for the model of a report of `inputSize` bytes: the model may
    /// take ``limitFactor`` times that and ``limitBase`` more (``charge(_:)``).
    public init(budgetFor inputSize: Int) {
        limit = inputSize.multipliedReportingOverflow(by: Self.limitFactor).partialValue &+ Self.limitBase
    }

    // MARK: What the model takes

    /// What a report's model (its frames, backtraces, images and the text it was translated
    /// to) may take beside its bytes, as a multiple of their size and a constant. A report of
    /// a real reporter takes well under one times its size (a frame is 16 bytes, its line 40
    /// to 100; a backtrace 48 and its list 64, its lines some 200). A file strangers made of
    /// lines of a few bytes, each a frame or an image, or of empty JSON objects, would take 8
    /// to 70 times its size; it is refused once it passes this bound
    /// (``ReportError/tooDense(_:reason:)``), before it fills memory.
    public static let limitFactor = 2
    public static let limitBase = 16 << 20

    /// The bytes the model may take (``init(budgetFor:)``); `Int.max` for none.
    public let limit: Int
    /// The bytes charged so far.
    public private(set) var charged = 0

    /// Counts `bytes` more of the model's memory.
    @inline(__always)
    public func charge(_ bytes: Int) {
        charged &+= bytes
    }

    /// Whether the model took more than its ``limit``: the parser stops and refuses the report.
    @inline(__always)
    public var isOverBudget: Bool { charged > limit }

    /// The name with index `id`.
    subscript(id: Int32) -> String { strings[Int(id)] }

    /// The number, line and place in the line of frames whose values do not fit the 32 bits a
    /// frame has for them (a report past 2 GiB, a frame number past 2^31), one record per
    /// value a frame was given: a record is never changed, so copies of a frame stay apart.
    private var places: [(index: Int, line: Int, restStart: Int)] = []

    /// The record `id` of ``addPlace(index:line:restStart:)``.
    func place(_ id: Int32) -> (index: Int, line: Int, restStart: Int) { places[Int(id)] }

    /// Adds a record of a frame's number, line and place in the line (-1 for none), and gives
    /// its index.
    func addPlace(index: Int, line: Int, restStart: Int) -> Int32 {
        places.append((index, line, restStart))
        return Int32(truncatingIfNeeded: places.count - 1)
    }

    /// A frame's names and image as one value: what ``FrameList`` keeps of them in a 16-bit
    /// key per frame (a report has few distinct ones: about one per image and name it prints).
    struct NameKey: Hashable {
        /// The name of a `symbol` form, or a frame's logged name; -1 for none.
        var nameID: Int32
        /// The image name the frame line prints; -1 for none.
        var imageNameID: Int32
        /// The image index plus one (0: none) in the low 14 bits; `imageOffsetHere` and
        /// `imageOffsetIsOffset` in the top two.
        var imageBits: UInt16

        static let imageMask: UInt16 = 0x3FFF
        /// The record's offset is the image offset (the form has none).
        static let imageOffsetHere: UInt16 = 0x8000
        /// The image offset is the form's offset.
        static let imageOffsetIsOffset: UInt16 = 0x4000
    }

    /// The keys handed out, by number, and their numbers (``key(_:)``).
    private var nameKeys: [NameKey] = []
    private var nameKeyNumbers: [NameKey: UInt16] = [:]
    /// The key asked for last, and its number: frames of one backtrace often share one.
    private var lastNameKey: (key: NameKey, number: UInt16)?

    /// The number of `key`, added if new; nil once 65,535 keys are held (the frame is then
    /// kept whole by its list).
    func key(_ key: NameKey) -> UInt16? {
        if let last = lastNameKey, last.key == key { return last.number }
        if let number = nameKeyNumbers[key] {
            lastNameKey = (key, number)
            return number
        }
        guard nameKeys.count < Int(UInt16.max) else { return nil }
        let number = UInt16(nameKeys.count)
        nameKeys.append(key)
        nameKeyNumbers[key] = number
        lastNameKey = (key, number)
        return number
    }

    /// The key with number `number` (one ``key(_:)`` gave).
    func nameKey(_ number: UInt16) -> NameKey { nameKeys[Int(number)] }

    /// The index of the name spelled by the UTF-8 bytes `start..<end` of `bytes` (bytes that
    /// are not UTF-8: of the name they decode to), added if new. Finding a name already held
    /// costs no allocation.
    func intern(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int32 {
        let name = UnsafeBufferPointer(rebasing: bytes[start..<end])
        switch find(name) {
        case .found(let id): return id
        case .free(let slot):
            let string = String(decoding: name, as: UTF8.self)
            // Bytes that are not UTF-8 decode to others (U+FFFD): the string is found or kept
            // as it decodes, which every spelling of it shares.
            guard string.utf8.elementsEqual(name) else { return intern(string) }
            return insert(string, at: slot)
        }
    }

    /// The index of `string`, added if new.
    func intern(_ string: String) -> Int32 {
        var copy = string
        let place = copy.withUTF8 { find($0) }
        switch place {
        case .found(let id): return id
        case .free(let slot): return insert(string, at: slot)
        }
    }

    private enum Place {
        case found(Int32)
        case free(Int)
    }

    private func find(_ name: UnsafeBufferPointer<UInt8>) -> Place {
        let mask = slots.count - 1
        var slot = Self.hash(name) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { return .free(slot) }
            let id = entry - 1
            let equal = strings[Int(id)].utf8.withContiguousStorageIfAvailable { $0.elementsEqual(name) }
                ?? strings[Int(id)].utf8.elementsEqual(name)
            if equal { return .found(id) }
            slot = (slot + 1) & mask
        }
    }

    private func insert(_ string: String, at slot: Int) -> Int32 {
        let id = Int32(truncatingIfNeeded: strings.count)
        strings.append(string)
        slots[slot] = id + 1
        if strings.count * 2 > slots.count { grow() }
        return id
    }

    private func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for id in strings.indices {
            var string = strings[id]
            var slot = string.withUTF8 { Self.hash($0) } & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(truncatingIfNeeded: id + 1)
        }
    }

    /// Swift's seeded hash, so that names a report chooses cannot be made to collide.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        return hasher.finalize()
    }
}
