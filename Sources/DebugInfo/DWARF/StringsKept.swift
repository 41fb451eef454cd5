#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The strings an index keeps of those the DWARF pass read: each name and path a function
/// block or a line row uses, once, in a string table of their own — a C++ program's DWARF
/// names four times as much as its code ever answers with — and the file table of the paths.
struct StringsKept {
    private let old: [UInt8]
    /// The new table; offset 0 is the empty string standing for none.
    private(set) var strings: [UInt8] = [0]
    /// Source paths: their offsets in `strings`; index 0 stands for none.
    private(set) var files: [UInt32] = [0]
    private var moved: [UInt32: UInt32] = [:]
    /// New offsets by a hash of the string, to keep equal strings at different old offsets once.
    private var byContent: [Int: UInt32] = [:]
    private var fileIndex: [UInt32: UInt32] = [:]
    /// The last path asked for and its index: rows after rows name the same file.
    private var lastFile: (offset: UInt32, index: UInt32) = (0, 0)

    /// `old` ends in a NUL (so every string in it does: `strlen` stays inside it).
    init(_ old: [UInt8]) {
        self.old = old
    }

    /// The new offset of the string at `offset` of the old table (0 for 0 and for an offset
    /// outside it).
    mutating func name(_ offset: UInt32) -> UInt32 {
        guard offset != 0, Int(offset) < old.count else { return 0 }
        if let known = moved[offset] { return known }
        let new = old.withUnsafeBufferPointer { table -> UInt32 in
            let start = Int(offset)
            let end = start + strlen(UnsafeRawPointer(table.baseAddress! + start).assumingMemoryBound(to: CChar.self))
            let text = UnsafeBufferPointer(rebasing: table[start..<end])
            var hasher = Hasher()
            hasher.combine(bytes: UnsafeRawBufferPointer(text))
            let key = hasher.finalize()
            if let same = byContent[key], strings.count - Int(same) > text.count,
               strings[Int(same)..<(Int(same) + text.count)].elementsEqual(text), strings[Int(same) + text.count] == 0 {
                return same
            }
            let placed = UInt32(strings.count)
            strings.append(contentsOf: text)
            strings.append(0)
            byContent[key] = placed
            return placed
        }
        moved[offset] = new
        return new
    }

    /// The file-table index of the path at `offset` of the old table (0 for none).
    @inline(__always)
    mutating func file(_ offset: UInt32) -> UInt32 {
        if offset == lastFile.offset { return lastFile.index }
        let index = addedFile(offset)
        lastFile = (offset, index)
        return index
    }

    private mutating func addedFile(_ offset: UInt32) -> UInt32 {
        let path = name(offset)
        guard path != 0 else { return 0 }
        if let known = fileIndex[path] { return known }
        let index = UInt32(files.count)
        files.append(path)
        fileIndex[path] = index
        return index
    }
}
