/// The rules for single lines of call-tree reports (`CallTreeReportParser`): frame lines in the
/// spindump and the `sample` layouts, sample's thread headers, and header entries.
enum CallTreeLine {
    /// A frame line read.
    struct Parsed {
        var style: CallTreeDocument.Style
        /// The column (bytes from the line's start) of the sample count: its depth in the tree.
        var column: Int
        var node: CallTreeDocument.Node
        var form: FrameForm
        /// Where the symbol starts, from the line's start.
        var restStart: Int
        /// The image name's bytes (absolute positions).
        var imageName: Range<Int>?
        var uuid: String?
        var imageOffset: UInt64?
        var address: UInt64?
        /// The line's `[0x...]` address cannot be read (more than 64 bits, no digits): the
        /// frame is a node of its tree with no image, and nothing resolves it.
        var addressUnknown = false
    }

    /// Whether `p..<e` is a line that opens a call tree.
    static func opensCallTree(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ e: Int) -> Bool {
        if b.matches("Call graph:", at: p, end: e) || b.matches("Heaviest stack for", at: p, end: e) { return true }
        guard b.matches("Data Source:", at: p, end: e) else { return false }
        let q = b.skipBlanks(from: p + 12, to: e)
        return b.matches("Stackshots", at: q, end: e) || b.matches("Microstackshots", at: q, end: e)
    }

    /// `[guides] [*]COUNT BODY` where guides are sample's `+ ! : |` and `*` marks a kernel frame;
    /// nil if the body is not a frame in either layout.
    static func frame(_ b: UnsafeBufferPointer<UInt8>, lineStart: Int, _ p: Int, _ e: Int) -> Parsed? {
        var i = p
        while i < e, isBlank(b[i]) || b[i] == ASCII.plus || b[i] == 0x21 || b[i] == ASCII.colon || b[i] == 0x7C {
            i += 1
        }
        if i < e, b[i] == 0x2A { i += 1 }  // *
        guard let (samples, afterCount) = b.decimalNumber(at: i, end: e), afterCount < e, isBlank(b[afterCount])
        else { return nil }
        let q = b.skipBlanks(from: afterCount, to: e)
        guard q < e else { return nil }
        return sampleFrame(b, lineStart: lineStart, column: i - lineStart, samples: samples, q, e)
            ?? spindumpFrame(b, lineStart: lineStart, column: i - lineStart, samples: samples, q, e)
    }

    /// `SYMBOL (IMAGE + OFFSET) [0xADDRESS] TAIL`, the group also `FILE:LINE[,COL] in IMAGE + OFFSET`,
    /// `FILE in IMAGE + OFFSET`, `<UUID> + OFFSET` or `IMAGE`; the address may be missing.
    private static func spindumpFrame(_ b: UnsafeBufferPointer<UInt8>, lineStart: Int, column: Int, samples: UInt64,
                                      _ q: Int, _ e: Int) -> Parsed? {
        let bracket = lastAddressBracket(b, q, e)
        if let bracket, bracket.address == nil {
            return unreadableFrame(lineStart: lineStart, column: column, samples: samples, q, bracket)
        }
        let groupEnd = bracket.map { b.trimEnd(q, $0.start) } ?? e
        guard groupEnd > q, b[groupEnd - 1] == ASCII.closeParen, let open = matchingOpen(b, q, groupEnd - 1),
              open > q, isBlank(b[open - 1])
        else {
            return bracket.flatMap { bracket in
                bracket.address.flatMap { address in
                    imagelessFrame(b, lineStart: lineStart, column: column, samples: samples, q,
                                   (bracket.start, bracket.end, address))
                }
            }
        }
        let inner = open + 1
        let innerEnd = groupEnd - 1
        var imageStart = inner
        var file: (start: Int, end: Int)?
        if let inWord = lastOccurrence(b, " in ", inner, innerEnd) {
            file = (inner, inWord)
            imageStart = inWord + 4
        }
        var imageEnd = innerEnd
        var imageOffset: UInt64?
        if let (plus, value) = trailingPlusNumber(b, imageStart, innerEnd) {
            imageEnd = plus
            imageOffset = value
        }
        guard imageEnd > imageStart else { return nil }
        var uuid: String?
        if b[imageStart] == ASCII.less, b[imageEnd - 1] == ASCII.greater {
            uuid = b.compactUUID(imageStart + 1, imageEnd - 1)
        }

        let symbolEnd = b.trimEnd(q, open)
        var nameEnd = symbolEnd
        var symbolOffset: UInt64?
        if let (plus, value) = trailingPlusNumber(b, q, symbolEnd) {
            nameEnd = plus
            symbolOffset = value
        }
        guard nameEnd > q else { return nil }
        let form = self.form(b, name: q..<nameEnd, symbolOffset: symbolOffset, imageOffset: imageOffset,
                             location: file.flatMap { sourceLocation(b, $0.start, $0.end) })
        let node = CallTreeDocument.Node(
            samples: samples, image: Int32(imageStart - lineStart)..<Int32(innerEnd - lineStart),
            groupEnd: Int32(groupEnd - lineStart),
            address: bracket.map { Int32($0.start - lineStart)..<Int32($0.end - lineStart) })
        return Parsed(style: .spindump, column: column, node: node, form: form, restStart: q - lineStart,
                      imageName: imageStart..<imageEnd, uuid: uuid, imageOffset: imageOffset,
                      address: bracket?.address)
    }

    /// A frame line whose `[0x...]` address cannot be read: a node of its tree that names no
    /// image and no offset (which would stand in for the address), left as it is.
    private static func unreadableFrame(lineStart: Int, column: Int, samples: UInt64, _ q: Int,
                                        _ bracket: (start: Int, end: Int, address: UInt64?)) -> Parsed {
        let node = CallTreeDocument.Node(
            samples: samples, image: Int32(q - lineStart)..<Int32(q - lineStart), groupEnd: Int32(q - lineStart),
            address: Int32(bracket.start - lineStart)..<Int32(bracket.end - lineStart))
        return Parsed(style: .spindump, column: column, node: node, form: .unknown, restStart: q - lineStart,
                      imageName: nil, uuid: nil, imageOffset: nil, address: nil, addressUnknown: true)
    }

    /// `SYMBOL [0xADDRESS] TAIL` with no image group: a frame spindump could place in no image
    /// (`*958  ??? [0xffffff80002c1206] 1-958`, a kernel frame of an unknown kext, or a user
    /// frame outside every listed image). It is a frame of its tree, with no image: nothing
    /// resolves it, and its node's `image` is empty, so that the renderer leaves the line as
    /// it is.
    private static func imagelessFrame(_ b: UnsafeBufferPointer<UInt8>, lineStart: Int, column: Int, samples: UInt64,
                                       _ q: Int, _ bracket: (start: Int, end: Int, address: UInt64)) -> Parsed? {
        let symbolEnd = b.trimEnd(q, bracket.start)
        var nameEnd = symbolEnd
        var symbolOffset: UInt64?
        if let (plus, value) = trailingPlusNumber(b, q, symbolEnd) {
            nameEnd = plus
            symbolOffset = value
        }
        guard nameEnd > q, b[q] != ASCII.less else { return nil }  // not `<on behalf of ...>`
        let form = self.form(b, name: q..<nameEnd, symbolOffset: symbolOffset, imageOffset: nil, location: nil)
        let node = CallTreeDocument.Node(
            samples: samples, image: Int32(q - lineStart)..<Int32(q - lineStart), groupEnd: Int32(q - lineStart),
            address: Int32(bracket.start - lineStart)..<Int32(bracket.end - lineStart))
        return Parsed(style: .spindump, column: column, node: node, form: form, restStart: q - lineStart,
                      imageName: nil, uuid: nil, imageOffset: nil, address: bracket.address)
    }

    /// `SYMBOL  (in IMAGE) [+ OFFSET | load address 0xLOAD + 0xOFFSET]  [0xADDRESS]  [FILE:LINE]`.
    private static func sampleFrame(_ b: UnsafeBufferPointer<UInt8>, lineStart: Int, column: Int, samples: UInt64,
                                    _ q: Int, _ e: Int) -> Parsed? {
        guard let open = firstOccurrence(b, " (in ", q, e).map({ $0 + 1 }) else { return nil }
        var close = open + 4
        while close < e && b[close] != ASCII.closeParen { close += 1 }
        guard close < e, close > open + 4 else { return nil }
        let groupEnd = close + 1
        var i = b.skipBlanks(from: groupEnd, to: e)
        var symbolOffset: UInt64?
        var imageOffset: UInt64?
        if i < e, b[i] == ASCII.plus {
            let digits = b.skipBlanks(from: i + 1, to: e)
            if let (value, next) = b.decimalNumber(at: digits, end: e) {
                symbolOffset = value
                i = b.skipBlanks(from: next, to: e)
            }
        } else if b.matches("load address ", at: i, end: e) {
            let load = b.skipBlanks(from: i + 13, to: e)
            if let (_, afterLoad) = b.hexNumber(at: load, end: e) {
                let plus = b.skipBlanks(from: afterLoad, to: e)
                if plus < e, b[plus] == ASCII.plus, let (value, next) = b.hexNumber(at: b.skipBlanks(from: plus + 1, to: e), end: e) {
                    imageOffset = value
                    i = b.skipBlanks(from: next, to: e)
                }
            }
        }
        var bracket: (start: Int, end: Int, address: UInt64)?
        if i + 1 < e, b[i] == 0x5B, let (token, next) = b.hexToken(at: i + 1, end: e) {  // [
            var close = next
            while close < e && b[close] != 0x5D { close += 1 }  // ]
            if close < e {
                guard case .value(let value) = token else {
                    return unreadableFrame(lineStart: lineStart, column: column, samples: samples, q, (i, close + 1, nil))
                }
                bracket = (i, close + 1, value)
            }
        }
        var location: (file: String, line: Int)?
        if let bracket {
            let after = b.skipBlanks(from: bracket.end, to: e)
            if after < e { location = sourceLocation(b, after, e) }
        }
        let nameEnd = b.trimEnd(q, open)
        guard nameEnd > q else { return nil }
        let form = self.form(b, name: q..<nameEnd, symbolOffset: symbolOffset, imageOffset: imageOffset,
                             location: location)
        let node = CallTreeDocument.Node(
            samples: samples, image: Int32(open - lineStart)..<Int32(groupEnd - lineStart),
            groupEnd: Int32(groupEnd - lineStart),
            address: bracket.map { Int32($0.start - lineStart)..<Int32($0.end - lineStart) })
        return Parsed(style: .sample, column: column, node: node, form: form, restStart: q - lineStart,
                      imageName: (open + 4)..<close, uuid: nil, imageOffset: imageOffset, address: bracket?.address)
    }

    /// What the line says of the frame: `???` with an image offset, a symbol from the device's
    /// tables, or a symbol with a source location.
    private static func form(_ b: UnsafeBufferPointer<UInt8>, name: Range<Int>, symbolOffset: UInt64?,
                             imageOffset: UInt64?, location: (file: String, line: Int)?) -> FrameForm {
        if b.equals("???", name.lowerBound, name.upperBound) {
            return imageOffset.map { .imageOffset(offset: $0) } ?? .unknown
        }
        let symbol = b.string(name.lowerBound, name.upperBound)
        if let location { return .symbolicated(name: symbol, offset: symbolOffset, file: location.file, line: location.line) }
        return .symbol(name: symbol, offset: symbolOffset ?? 0)
    }

    /// `FILE:LINE` or `FILE:LINE,COLUMN` (spindump) / `FILE:LINE` (sample); nil for a bare file.
    private static func sourceLocation(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ e: Int) -> (file: String, line: Int)? {
        var colon = e - 1
        while colon > p && b[colon] != ASCII.colon { colon -= 1 }
        guard colon > p, let (line, next) = b.decimalNumber(at: colon + 1, end: e), line <= UInt64(Int32.max),
              next == e || b[next] == ASCII.comma
        else { return nil }
        return (b.string(p, colon), Int(line))
    }

    /// sample's thread header in a call graph: `COUNT Thread_ID   DispatchQueue_1: ...`; its name.
    static func sampleThreadHeader(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ e: Int) -> String? {
        guard let (_, afterCount) = b.decimalNumber(at: p, end: e), afterCount < e, isBlank(b[afterCount]) else {
            return nil
        }
        let q = b.skipBlanks(from: afterCount, to: e)
        guard b.matches("Thread_", at: q, end: e) else { return nil }
        return b.string(q, e)
    }

    /// `Key: value` at the start of a line, keys of letters, digits, blanks and a few signs.
    static func headerEntry(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ e: Int) -> (String, String)? {
        var colon = p
        while colon < e && colon - p <= 64 && b[colon] != ASCII.colon { colon += 1 }
        guard colon < e, colon - p <= 64, isLetter(b[p]) else { return nil }
        for i in p..<colon {
            let byte = b[i]
            guard isLetter(byte) || isDigit(byte) || isBlank(byte) || byte == ASCII.minus || byte == 0x2F
                || byte == ASCII.openParen || byte == ASCII.closeParen
            else { return nil }
        }
        return (b.string(p, b.trimEnd(p, colon)), b.string(b.skipBlanks(from: colon + 1, to: e), e))
    }

    /// The last `[0xHEX...]` of `p..<e` that starts a token: its bounds and address, nil when
    /// the digits make no 64-bit number (none, or too many).
    private static func lastAddressBracket(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ e: Int)
        -> (start: Int, end: Int, address: UInt64?)? {
        var i = e - 1
        while i > p {
            if b[i] == 0x5B, isBlank(b[i - 1]), let (token, next) = b.hexToken(at: i + 1, end: e), next < e,
               b[next] == 0x5D {
                guard case .value(let value) = token else { return (i, next + 1, nil) }
                return (i, next + 1, value)
            }
            i -= 1
        }
        return nil
    }

    /// The `(` that `)` at `close` closes, nested parentheses counted.
    private static func matchingOpen(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ close: Int) -> Int? {
        var depth = 0
        var i = close
        while i >= p {
            if b[i] == ASCII.closeParen {
                depth += 1
            } else if b[i] == ASCII.openParen {
                depth -= 1
                if depth == 0 { return i }
            }
            i -= 1
        }
        return nil
    }

    /// A trailing ` + DECIMAL` of `p..<e`: where the text before it ends, and the number.
    private static func trailingPlusNumber(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ e: Int) -> (Int, UInt64)? {
        var i = e
        while i > p && isDigit(b[i - 1]) { i -= 1 }
        guard i < e, i - 3 >= p, b[i - 1] == ASCII.space, b[i - 2] == ASCII.plus, b[i - 3] == ASCII.space,
              let (value, _) = b.decimalNumber(at: i, end: e)
        else { return nil }
        return (b.trimEnd(p, i - 3), value)
    }

    private static func lastOccurrence(_ b: UnsafeBufferPointer<UInt8>, _ literal: StaticString, _ p: Int, _ e: Int) -> Int? {
        let n = literal.utf8CodeUnitCount
        var i = e - n
        while i >= p {
            if b.matches(literal, at: i, end: e) { return i }
            i -= 1
        }
        return nil
    }

    private static func firstOccurrence(_ b: UnsafeBufferPointer<UInt8>, _ literal: StaticString, _ p: Int, _ e: Int) -> Int? {
        let n = literal.utf8CodeUnitCount
        var i = p
        while i + n <= e {
            if b.matches(literal, at: i, end: e) { return i }
            i += 1
        }
        return nil
    }
}
