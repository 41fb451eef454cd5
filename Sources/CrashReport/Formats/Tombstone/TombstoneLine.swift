/// One line of an Android tombstone, read on its own: what the line is (a frame, a thread's
/// header, the start of a section, a field of the header), and where in it the tombstone's
/// text starts when logcat put a prefix before it.
///
/// ## Logcat prefixes
///
/// A tombstone that reached logcat has each line behind logcat's own prefix, the tag being
/// `DEBUG` (the crash dumper's). The prefixes of `adb logcat -v brief`, `-v time` and
/// `-v threadtime` (the default), with or without the year, and `-v epoch`/`-v monotonic`
/// seconds are read:
///
///     I/DEBUG   (  135): backtrace:                                          brief
///     11-20 10:00:00.456 I/DEBUG   (  135): backtrace:                       time
///     11-20 10:00:00.456  4242  4242 F DEBUG   :       #00 pc 000...         threadtime
///     2023-11-20 10:00:00.456  4242  4242 A DEBUG   : backtrace:             threadtime, year
///
/// A line with another tag belongs to another writer: it is no part of the tombstone.
///
/// ## Frame lines
///
///     #NN pc PC  MAP[ (offset 0xOFF)][ (FUNCTION[+DEC])][ (BuildId: HEX)]
///
/// `PC` is the frame's address relative to the ELF's load bias, zero-padded to the pointer
/// width: 8 or 16 hexadecimal digits, never another number of them (a pc token of another
/// length is a line cut short or damaged, and its frame is left as it is). `MAP` is the
/// mapped file (`/data/app/.../lib/arm64/libfoo.so`, `base.apk!libfoo.so` for a library
/// loaded from inside its APK, `[vdso]`, `<anonymous:7f...>`, `/memfd:jit-cache (deleted)`);
/// `(offset 0x...)` where the ELF starts in the file; the function and the decimal offset
/// into it as the device's symbol tables tell (without `+0` before Android 12); the GNU
/// build-id of the ELF. The groups are read from the line's end back, each a balanced
/// `(...)` after a blank, so that a function name may hold parentheses and blanks
/// (`(anonymous namespace)::run(int) const`); a last group that does not close makes the
/// line's frame damaged.
///
/// After a frame this tool resolved, the line goes on with ` in FUNCTION FILE:LINE:COLUMN`
/// (``TextRenderer``); read back, that text is not part of the frame's map or groups: it
/// starts at the first ` in ` outside parentheses, and it is what a new resolution replaces.
struct TombstoneLine {
    /// What a line is.
    enum Kind: Equatable {
        /// `*** *** *** *** ...`: a tombstone starts.
        case start
        /// `pid: N, tid: N, name: NAME  >>> PROCESS <<<`: the thread whose registers and
        /// backtrace follow. `process` is nil on lines without `>>> ... <<<`.
        case thread(process: String?)
        /// `backtrace:`: the backtrace of the thread named before.
        case backtrace
        /// `deallocated by thread 1234:`, `allocated by thread 1234:`: a backtrace of its own
        /// (MTE, GWP-ASan), named by this line.
        case otherBacktrace
        /// `--- --- --- ...`: another thread follows.
        case separator
        /// `stack:`, `memory near x0 ...`, `code around pc:`, `memory map ...`, `open files:`:
        /// a section of memory, maps or files, in which nothing is a frame.
        case section
        /// `--------- log main`, `--------- tail end of log main`: the logcat the tombstone
        /// carries, which holds other programs' text up to the next tombstone.
        case log
        /// `KEY: VALUE` of the header (`Build fingerprint`, `ABI`, `Timestamp`, `Cmdline`,
        /// `Abort message`, `Cause`), the value without the quotes Android puts around some.
        case field(key: String, value: String)
        /// `signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0`: the signal's name and
        /// its code's (`SEGV_MAPERR`), as far as the line gives them.
        case signal(name: String?, code: String?)
        /// A frame line.
        case frame(TombstoneFrameLine)
        /// Anything else: registers, text, blank lines.
        case text
    }

    /// What the line is.
    var kind: Kind
    /// Whether the line has a logcat prefix.
    var prefixed: Bool
    /// Where the tombstone's text starts (after a logcat prefix), from the line's first byte.
    var textStart: Int
}

/// A frame line, as read from the line alone. Offsets are from the line's first byte.
struct TombstoneFrameLine: Equatable {
    /// The printed frame number; nil when it does not fit in 32 bits.
    var number: Int?
    /// The pc as printed; nil when it cannot be read (empty, not 8 or 16 hexadecimal digits):
    /// the frame is then left as it is, and no other number of the line stands in for it.
    var pc: UInt64?
    /// The mapped file, as printed; nil when the line names none, or names no file
    /// (`<unknown>`, `<anonymous:...>`).
    var map: String?
    /// `(offset 0x...)`: where the ELF starts in the mapped file.
    var elfOffset: UInt64?
    /// The function the device named, and the offset into it.
    var function: String?
    var functionOffset: UInt64?
    /// The GNU build-id, lowercase.
    var buildID: String?
    /// The groups after the map cannot be read (a group that does not close, a build-id or
    /// offset that is not a number): the line is cut short or damaged.
    var damaged = false
    /// What this tool wrote after an earlier resolution (` in FUNCTION FILE:LINE:COLUMN`):
    /// the function, and the file and line when it gave them.
    var resolved: Resolution?
    /// Where a resolution's text goes: the end of the line's text, or where an earlier
    /// resolution's starts.
    var restStart: Int

    /// The text of an earlier resolution: the function, and the file and line when it gave
    /// them (line 0 for none).
    struct Resolution: Equatable {
        var function: String
        var file: String?
        var line: Int
    }
}

/// Reads lines of a tombstone out of `b`.
struct TombstoneLineReader {
    let b: UnsafeBufferPointer<UInt8>

    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        b = buffer
    }

    /// The line `range`; nil for a line of logcat that another program wrote (a tag other
    /// than `DEBUG`).
    func read(_ range: Range<Int>) -> TombstoneLine? {
        let start = range.lowerBound
        let end = b.contentEnd(range)
        var first = start
        if first == 0 { first = min(b.byteOrderMarkLength, end) }
        var textStart = first
        var prefixed = false
        if let (message, tagIsDebug) = logcatMessage(first, end) {
            guard tagIsDebug else { return nil }
            textStart = message
            prefixed = true
        }
        let p = b.skipBlanks(from: textStart, to: end)
        let e = b.trimEnd(p, end)
        return TombstoneLine(kind: kind(lineStart: start, contentEnd: end, p, e), prefixed: prefixed,
                             textStart: textStart - start)
    }

    // MARK: Logcat

    private static let priorities: Set<UInt8> = Set("VDIWEFAS".utf8)

    /// Where the message of a logcat line starts, and whether its tag is `DEBUG`; nil when
    /// the line has no logcat prefix.
    func logcatMessage(_ p: Int, _ e: Int) -> (Int, Bool)? {
        let i = b.skipBlanks(from: p, to: e)
        if let found = briefMessage(i, e) { return found }
        guard let afterTime = timestamp(i, e) else { return nil }
        let q = b.skipBlanks(from: afterTime, to: e)
        guard q > afterTime else { return nil }
        if let found = briefMessage(q, e) { return found }
        // threadtime: [UID] PID TID P TAG: MESSAGE.
        var k = q
        for _ in 0..<4 {
            let tokenEnd = b.skipToken(from: k, to: e)
            guard tokenEnd > k else { return nil }
            if tokenEnd == k + 1, Self.priorities.contains(b[k]) {
                let tagStart = b.skipBlanks(from: tokenEnd, to: e)
                guard tagStart > tokenEnd else { return nil }
                return tagged(tagStart, e)
            }
            k = b.skipBlanks(from: tokenEnd, to: e)
            guard k > tokenEnd else { return nil }
        }
        return nil
    }

    /// `P/TAG(  PID): MESSAGE` at `i` (brief and time formats).
    private func briefMessage(_ i: Int, _ e: Int) -> (Int, Bool)? {
        guard i + 2 < e, Self.priorities.contains(b[i]), b[i + 1] == ASCII.slash else { return nil }
        var open = i + 2
        while open < e && b[open] != ASCII.openParen && b[open] != ASCII.colon { open += 1 }
        guard open < e, b[open] == ASCII.openParen else { return nil }
        var close = b.skipBlanks(from: open + 1, to: e)
        while close < e && isDigit(b[close]) { close += 1 }
        close = b.skipBlanks(from: close, to: e)
        guard close + 1 < e, b[close] == ASCII.closeParen, b[close + 1] == ASCII.colon else { return nil }
        let tagEnd = b.trimEnd(i + 2, open)
        let message = close + 2 < e && b[close + 2] == ASCII.space ? close + 3 : close + 2
        return (message, b.equals("DEBUG", i + 2, tagEnd))
    }

    /// `TAG   : MESSAGE` at `tagStart`.
    private func tagged(_ tagStart: Int, _ e: Int) -> (Int, Bool)? {
        var colon = tagStart
        while colon < e && b[colon] != ASCII.colon { colon += 1 }
        guard colon < e, colon > tagStart else { return nil }
        let tagEnd = b.trimEnd(tagStart, colon)
        let message = colon + 1 < e && b[colon + 1] == ASCII.space ? colon + 2 : colon + 1
        return (message, b.equals("DEBUG", tagStart, tagEnd))
    }

    /// The end of a logcat timestamp at `i`: `[YYYY-]MM-DD HH:MM:SS[.fff]`, or the seconds of
    /// `-v epoch` and `-v monotonic` (`1700000000.123`).
    private func timestamp(_ i: Int, _ e: Int) -> Int? {
        func digits(_ at: Int, _ count: Int) -> Bool {
            guard at + count <= e else { return false }
            for k in at..<(at + count) where !isDigit(b[k]) { return false }
            return true
        }
        var k = i
        if digits(k, 4), k + 4 < e, b[k + 4] == ASCII.minus, digits(k + 5, 2), k + 7 < e, b[k + 7] == ASCII.minus {
            k += 5
        }
        if digits(k, 2), k + 2 < e, b[k + 2] == ASCII.minus, digits(k + 3, 2), k + 5 < e, isBlank(b[k + 5]) {
            let t = b.skipBlanks(from: k + 5, to: e)
            guard digits(t, 2), t + 2 < e, b[t + 2] == ASCII.colon, digits(t + 3, 2), t + 5 < e, b[t + 5] == ASCII.colon,
                  digits(t + 6, 2)
            else { return nil }
            var end = t + 8
            if end < e && b[end] == 0x2E /* . */ {
                end += 1
                while end < e && isDigit(b[end]) { end += 1 }
            }
            return end
        }
        // Seconds with a fraction.
        var end = i
        while end < e && isDigit(b[end]) { end += 1 }
        guard end > i, end < e, b[end] == 0x2E else { return nil }
        let fraction = end + 1
        end = fraction
        while end < e && isDigit(b[end]) { end += 1 }
        return end > fraction ? end : nil
    }

    // MARK: Kinds

    /// What the tombstone text `p..<e` (no surrounding blanks) of a line is.
    private func kind(lineStart: Int, contentEnd: Int, _ p: Int, _ e: Int) -> TombstoneLine.Kind {
        guard p < e else { return .text }
        switch b[p] {
        case 0x23:  // #
            return frame(lineStart: lineStart, contentEnd: contentEnd, p, e).map { .frame($0) } ?? .text
        case 0x2A:  // *
            return b.matches("*** *** *** ***", at: p, end: e) ? .start : .text
        case ASCII.minus:
            if b.matches("--- --- ---", at: p, end: e) { return .separator }
            if b.matches("--------- log ", at: p, end: e) || b.matches("--------- tail end of log", at: p, end: e) {
                return .log
            }
            return .text
        default:
            break
        }
        if b.matches("pid: ", at: p, end: e) { return threadLine(p, e) ?? .text }
        if b.equals("backtrace:", p, e) { return .backtrace }
        if b.matches("signal ", at: p, end: e) { return signalLine(p, e) ?? .text }
        for opening in Self.sections where b.matches(opening, at: p, end: e) { return .section }
        if b[e - 1] == ASCII.colon, b.matches("allocated by thread ", at: p, end: e)
            || b.matches("deallocated by thread ", at: p, end: e) {
            return .otherBacktrace
        }
        for key in Self.fields where b.matches(key, at: p, end: e) {
            let keyEnd = p + key.utf8CodeUnitCount
            guard keyEnd < e, b[keyEnd] == ASCII.colon else { continue }
            var valueStart = b.skipBlanks(from: keyEnd + 1, to: e)
            var valueEnd = e
            if valueEnd - valueStart >= 2, b[valueStart] == 0x27, b[valueEnd - 1] == 0x27 {  // 'quoted'
                valueStart += 1
                valueEnd -= 1
            }
            return .field(key: b.string(p, keyEnd), value: b.string(valueStart, valueEnd))
        }
        return .text
    }

    /// The openings of the sections that hold no frames.
    private static let sections: [StaticString] = [
        "stack:", "stack (", "memory near ", "memory map", "code around ", "open files:", "maps:",
    ]

    /// The header fields a report keeps.
    private static let fields: [StaticString] = [
        "Build fingerprint", "ABI", "Timestamp", "Cmdline", "Abort message", "Cause",
    ]

    /// `pid: N, tid: N[, name: NAME][  >>> PROCESS <<<]`.
    private func threadLine(_ p: Int, _ e: Int) -> TombstoneLine.Kind? {
        guard let (_, afterPID) = b.decimalNumber(at: p + 5, end: e), b.matches(", tid: ", at: afterPID, end: e),
              b.decimalNumber(at: afterPID + 7, end: e) != nil
        else { return nil }
        var process: String?
        var open = afterPID
        while open + 4 <= e && !b.matches(">>> ", at: open, end: e) { open += 1 }
        if open + 4 <= e {
            var close = e
            if e - 4 >= open + 4, b.matches(" <<<", at: e - 4, end: e) { close = e - 4 }
            let start = open + 4
            let end = b.trimEnd(start, close)
            if end > start { process = b.string(start, end) }
        }
        return .thread(process: process)
    }

    /// `signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x...`, `signal 6 (SIGABRT), code -1
    /// (SI_QUEUE), fault addr --------`, or the older `signal 11 (SIGSEGV), fault addr deadbaad`.
    private func signalLine(_ p: Int, _ e: Int) -> TombstoneLine.Kind? {
        guard let (_, afterNumber) = b.decimalNumber(at: p + 7, end: e) else { return nil }
        func parenthesized(_ at: Int) -> String? {
            guard at < e, b[at] == ASCII.openParen, let close = (at..<e).first(where: { b[$0] == ASCII.closeParen }),
                  close > at + 1
            else { return nil }
            return b.string(at + 1, close)
        }
        let name = parenthesized(b.skipBlanks(from: afterNumber, to: e))
        var code: String?
        var k = afterNumber
        while k + 6 <= e && !b.matches(", code ", at: k, end: e) { k += 1 }
        let codeStart = k + 7 < e && b[k + 7] == ASCII.minus ? k + 8 : k + 7
        if k + 7 <= e, let (_, afterCode) = b.decimalNumber(at: codeStart, end: e) {
            code = parenthesized(b.skipBlanks(from: afterCode, to: e))
        }
        return .signal(name: name, code: code)
    }

    // MARK: Frames

    /// `#NN pc PC ...` at `p`; nil when the line is not a frame line (`#00  7fd2c1a0f0` of a
    /// stack dump has no `pc`).
    func frame(lineStart: Int, contentEnd: Int, _ p: Int, _ e: Int) -> TombstoneFrameLine? {
        var digitsEnd = p + 1
        while digitsEnd < e && isDigit(b[digitsEnd]) { digitsEnd += 1 }
        guard digitsEnd > p + 1, digitsEnd < e, isBlank(b[digitsEnd]) else { return nil }
        let pcWord = b.skipBlanks(from: digitsEnd, to: e)
        guard b.matches("pc", at: pcWord, end: e), pcWord + 2 == e || isBlank(b[pcWord + 2]) else { return nil }
        var number: Int?
        if let (value, _) = b.decimalNumber(at: p + 1, end: digitsEnd), value <= UInt64(Int32.max) { number = Int(value) }
        var frame = TombstoneFrameLine(number: number, restStart: contentEnd - lineStart)
        let pcStart = b.skipBlanks(from: pcWord + 2, to: e)
        let pcEnd = b.skipToken(from: pcStart, to: e)
        guard number != nil, pcEnd - pcStart == 8 || pcEnd - pcStart == 16,
              (pcStart..<pcEnd).allSatisfy({ hexDigitValue(b[$0]) != nil })
        else { return frame }
        var pc: UInt64 = 0
        for k in pcStart..<pcEnd { pc = pc << 4 | hexDigitValue(b[k])! }
        frame.pc = pc
        readRest(b.skipBlanks(from: pcEnd, to: e), e, lineStart: lineStart, into: &frame)
        return frame
    }

    /// The map, its groups and an earlier resolution's text in `q..<e`.
    private func readRest(_ q: Int, _ e: Int, lineStart: Int, into frame: inout TombstoneFrameLine) {
        guard q < e else { return }
        var end = e
        if let (suffix, resolved) = earlierResolution(q, e) {
            frame.resolved = resolved
            frame.restStart = suffix - lineStart
            end = b.trimEnd(q, suffix)
        }
        // The groups, from the end back: build-id, function, offset.
        var mapEnd = end
        if let (open, id) = group(q, mapEnd, "BuildId: ") {
            guard let id = hexText(id) else { return damage(&frame, q, open) }
            frame.buildID = id
            mapEnd = b.trimEnd(q, open)
        }
        if let (open, inner) = anyGroup(q, mapEnd), !b.equals("deleted", inner.lowerBound, inner.upperBound),
           !b.matches("offset 0x", at: inner.lowerBound, end: inner.upperBound) {
            var plus = inner.upperBound
            while plus > inner.lowerBound && isDigit(b[plus - 1]) { plus -= 1 }
            if plus < inner.upperBound, plus - 1 > inner.lowerBound, b[plus - 1] == ASCII.plus,
               let (offset, _) = b.decimalNumber(at: plus, end: inner.upperBound) {
                frame.function = b.string(inner.lowerBound, plus - 1)
                frame.functionOffset = offset
            } else {
                frame.function = b.string(inner.lowerBound, inner.upperBound)
            }
            mapEnd = b.trimEnd(q, open)
        }
        if let (open, inner) = group(q, mapEnd, "offset 0x") {
            guard let (offset, next) = b.hexNumber(at: inner.lowerBound - 2, end: inner.upperBound), next == inner.upperBound
            else { return damage(&frame, q, open) }
            frame.elfOffset = offset
            mapEnd = b.trimEnd(q, open)
        }
        if mapEnd > q, b[mapEnd - 1] == ASCII.closeParen, anyGroup(q, mapEnd) == nil,
           !b.equals("(deleted)", max(q, mapEnd - 9), mapEnd) {
            return damage(&frame, q, mapEnd)
        }
        if end > q, b[end - 1] != ASCII.closeParen, b.containsOpenGroup(q, end) {
            return damage(&frame, q, end)  // a group cut short
        }
        frame.map = mapName(q, mapEnd)
    }

    /// Marks `frame` damaged, naming the map up to the first group.
    private func damage(_ frame: inout TombstoneFrameLine, _ q: Int, _ end: Int) {
        frame.damaged = true
        frame.buildID = nil
        frame.function = nil
        frame.functionOffset = nil
        frame.elfOffset = nil
        var mapEnd = q
        while mapEnd < end && !(b[mapEnd] == ASCII.openParen && mapEnd > q && isBlank(b[mapEnd - 1])) { mapEnd += 1 }
        frame.map = mapName(q, b.trimEnd(q, mapEnd))
    }

    /// The map `q..<end` names, unless it names no file.
    private func mapName(_ q: Int, _ end: Int) -> String? {
        guard end > q, b[q] != ASCII.less else { return nil }  // <unknown>, <anonymous:...>
        return b.string(q, end)
    }

    /// The last group of `q..<end` when it is `(LABEL...)` after a blank: where `(` is, and
    /// the text after the label up to `)`.
    private func group(_ q: Int, _ end: Int, _ label: StaticString) -> (Int, Range<Int>)? {
        guard let (open, inner) = anyGroup(q, end), b.matches(label, at: inner.lowerBound, end: inner.upperBound)
        else { return nil }
        return (open, (inner.lowerBound + label.utf8CodeUnitCount)..<inner.upperBound)
    }

    /// The last group of `q..<end`: a balanced `(...)` ending at `end`, its `(` after a blank
    /// and after the map's first byte; where `(` is, and the text inside.
    private func anyGroup(_ q: Int, _ end: Int) -> (Int, Range<Int>)? {
        guard end - q >= 3, b[end - 1] == ASCII.closeParen else { return nil }
        var depth = 0
        var k = end - 1
        while k > q {
            if b[k] == ASCII.closeParen { depth += 1 }
            if b[k] == ASCII.openParen {
                depth -= 1
                if depth == 0 { break }
            }
            k -= 1
        }
        guard k > q, depth == 0, isBlank(b[k - 1]), k + 1 < end - 1 else { return nil }
        return (k, (k + 1)..<(end - 1))
    }

    /// Lowercase hexadecimal digits of `range`, nil when it holds anything else or nothing.
    private func hexText(_ range: Range<Int>) -> String? {
        guard !range.isEmpty else { return nil }
        var digits: [UInt8] = []
        digits.reserveCapacity(range.count)
        for k in range {
            guard hexDigitValue(b[k]) != nil else { return nil }
            digits.append(b[k] &- 0x41 < 26 ? b[k] | 0x20 : b[k])
        }
        return String(decoding: digits, as: UTF8.self)
    }

    /// What an earlier resolution wrote at the end of `q..<e`: ` in FUNCTION[ FILE:LINE[:COLUMN]]`
    /// from the first ` in ` outside parentheses that no offset or build-id group follows (a
    /// map whose name holds ` in ` is still the map); where its blank is, and what it says.
    private func earlierResolution(_ q: Int, _ e: Int) -> (Int, TombstoneFrameLine.Resolution)? {
        var depth = 0
        var k = q + 1
        while k + 4 < e {
            switch b[k] {
            case ASCII.openParen: depth += 1
            case ASCII.closeParen: depth = max(0, depth - 1)
            case ASCII.space where depth == 0 && b[k + 1] == 0x69 && b[k + 2] == 0x6E && b[k + 3] == ASCII.space:  // " in "
                let textStart = b.skipBlanks(from: k + 4, to: e)
                guard textStart < e else { return nil }
                if followedByAndroidGroup(textStart, e) { break }
                var blank = k
                while blank > q && isBlank(b[blank - 1]) { blank -= 1 }
                if let (tokenStart, file, line) = sourceLocation(textStart, e), b.trimEnd(textStart, tokenStart) > textStart {
                    return (blank, .init(function: b.string(textStart, b.trimEnd(textStart, tokenStart)), file: file, line: line))
                }
                return (blank, .init(function: b.string(textStart, e), file: nil, line: 0))
            default: break
            }
            k += 1
        }
        return nil
    }

    /// Whether `p..<e` holds ` (offset 0x` or ` (BuildId: ` outside parentheses: groups only
    /// Android writes.
    private func followedByAndroidGroup(_ p: Int, _ e: Int) -> Bool {
        var depth = 0
        for k in p..<e {
            if b[k] == ASCII.openParen {
                if depth == 0, k > p, isBlank(b[k - 1]),
                   b.matches("(offset 0x", at: k, end: e) || b.matches("(BuildId: ", at: k, end: e) {
                    return true
                }
                depth += 1
            } else if b[k] == ASCII.closeParen {
                depth = max(0, depth - 1)
            }
        }
        return false
    }

    /// A last token `FILE:LINE` or `FILE:LINE:COLUMN` of `p..<e`: where it starts, the file
    /// and the line.
    private func sourceLocation(_ p: Int, _ e: Int) -> (Int, String, Int)? {
        var tokenStart = e
        while tokenStart > p && !isBlank(b[tokenStart - 1]) { tokenStart -= 1 }
        func trailingNumber(_ end: Int) -> (value: Int, colon: Int)? {
            var i = end
            while i > tokenStart && isDigit(b[i - 1]) { i -= 1 }
            guard i < end, i - 1 > tokenStart, b[i - 1] == ASCII.colon,
                  let (value, _) = b.decimalNumber(at: i, end: end), value <= UInt64(Int32.max)
            else { return nil }
            return (Int(value), i - 1)
        }
        guard var number = trailingNumber(e) else { return nil }
        if let line = trailingNumber(number.colon) { number = line }
        return (tokenStart, b.string(tokenStart, number.colon), number.value)
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// Whether `p..<e` has a `(` after a blank that no `)` closes: a group cut short.
    fileprivate func containsOpenGroup(_ p: Int, _ e: Int) -> Bool {
        var depth = 0
        var opened = false
        for k in p..<e {
            if self[k] == ASCII.openParen {
                if depth == 0 { opened = k > p && isBlank(self[k - 1]) }
                depth += 1
            } else if self[k] == ASCII.closeParen {
                depth = Swift.max(0, depth - 1)
            }
        }
        return depth > 0 && opened
    }
}
