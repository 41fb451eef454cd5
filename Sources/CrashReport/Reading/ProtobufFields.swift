/// The top-level fields of a protobuf message, read from its wire format alone, without its
/// schema: what tells a binary report (`ProtobufTombstoneParser`) from other binary input
/// before the whole file is read.
///
/// Each field is a tag (a varint: the field number and the wire type) and a value: a varint
/// (wire type 0), 8 bytes (1), a length and that many bytes (2) or 4 bytes (5). Groups (3, 4)
/// and the undefined wire types 6 and 7 are never written by the producers read here. Every
/// varint is at most 10 bytes, and every length is checked against the bytes left.
enum ProtobufFields {
    /// One field: its number, its wire type, and where its value starts and ends in the bytes.
    struct Field: Equatable {
        var number: UInt64
        var wireType: UInt8
        /// The value's bytes (for wire type 2, without its length); the end may lie past the
        /// bytes given when ``walk(_:whole:_:)`` was told they are not the whole message.
        var value: Range<Int>
    }

    /// Calls `visit` with each top-level field of `bytes` in order, while it returns true.
    /// Returns false when the bytes are not a message: a varint runs past 10 bytes, a wire type
    /// is not 0, 1, 2 or 5, a field number is 0, or a value ends past the bytes. When `whole`
    /// is false, `bytes` are the first block of a longer input, and a field cut by its end is
    /// not counted against it (the walk ends there).
    static func walk(_ bytes: UnsafeBufferPointer<UInt8>, whole: Bool, _ visit: (Field) -> Bool) -> Bool {
        var i = 0
        let count = bytes.count
        while i < count {
            guard let (tag, afterTag) = varint(bytes, at: i) else { return !whole && count - i < 10 }
            let number = tag >> 3, wireType = UInt8(tag & 7)
            guard number > 0 else { return false }
            var start = afterTag, end: Int
            switch wireType {
            case 0:
                guard let (_, after) = varint(bytes, at: afterTag) else { return !whole && count - afterTag < 10 }
                end = after
            case 1:
                end = afterTag + 8
            case 5:
                end = afterTag + 4
            case 2:
                guard let (length, after) = varint(bytes, at: afterTag) else { return !whole && count - afterTag < 10 }
                start = after
                // A length past the bytes left (or past any size) is no message's, unless the
                // bytes are only the input's first block.
                guard length <= UInt64(Int.max - after) else { return false }
                end = after + Int(length)
            default:
                return false
            }
            if end > count {
                guard !whole else { return false }
                _ = visit(Field(number: number, wireType: wireType, value: start..<end))
                return true
            }
            guard visit(Field(number: number, wireType: wireType, value: start..<end)) else { return true }
            i = end
        }
        return true
    }

    /// The varint at `i` and the index after it; nil when it is longer than 10 bytes or runs
    /// past the bytes.
    static func varint(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> (UInt64, Int)? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var k = i
        while k < bytes.count && k - i < 10 {
            let byte = bytes[k]
            value |= UInt64(byte & 0x7F) << shift
            k += 1
            if byte & 0x80 == 0 { return (value, k) }
            shift += 7
        }
        return nil
    }
}

extension ProtobufFields {
    /// How many fields `bytes` hold, counting into each length-delimited value that is itself
    /// a message (down to `depth` levels): at least as many as the values a decoder makes of
    /// them, each an element of a repeated field or a message. An empty message is 2 bytes of
    /// the wire and 100 or more of a decoded report: what this bounds before decoding.
    static func elementCount(_ bytes: UnsafeBufferPointer<UInt8>, depth: Int = 6) -> Int {
        var count = 0
        let isMessage = walk(bytes, whole: true) { field in
            count += 1
            if field.wireType == 2, depth > 1, !field.value.isEmpty {
                count += elementCount(UnsafeBufferPointer(rebasing: bytes[field.value]), depth: depth - 1)
            }
            return true
        }
        return isMessage ? count : 0
    }

    /// The reason a protobuf report of `bytes` is refused before it is decoded, when what its
    /// decoder would make could not be held (48 bytes an element, against four times its size
    /// and ``FrameText/limitBase``, ``FrameText/translationLimit(inputSize:)``); nil when it can be
    /// decoded.
    static func tooDense(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let elements = elementCount(bytes)
        guard elements.multipliedReportingOverflow(by: 48).partialValue
                > FrameText.translationLimit(inputSize: bytes.count) else { return nil }
        return "too dense to read: " + FrameText.tooDense("its \(elements) fields", factor: FrameText.translationFactor)
    }
}
