#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Parses the classic text form of an Apple crash report (`.crash`, `.txt`, what Console shows).
///
/// The parser is one pass over the lines, a small state machine: header lines until the first
/// backtrace header, then backtraces, register blocks and the image list. It is liberal, since
/// real reports vary:
///
/// - Backtrace headers: `Thread 0:`, `Thread 0 Crashed:`, `Thread 1 Crashed: Some Name`,
///   `Thread 0 Crashed::  Dispatch queue: ...`, `Thread 1:: com.apple.NSEventThread`,
///   `Application Specific Backtrace 0:`, `Last Exception Backtrace:`. A
///   `Thread 0 name:  Dispatch queue: ...` line names the thread whose header follows it.
///   `Thread 0 crashed with ARM Thread State (64-bit):` starts a register block and ends the
///   current backtrace.
/// - Frame lines: `INDEX IMAGE 0xADDRESS REST`, separated by any run of spaces or tabs. IMAGE may
///   contain spaces; the address is the first whitespace-delimited `0x...` token after the index.
///   Addresses may be padded or not. REST is classified as a `FrameForm`.
/// - A backtrace that starts with `(` holds a list of addresses, `(0x18eee41c0 0x18d91c55c ...)`,
///   possibly over several lines; each address becomes an `.addressOnly` frame.
/// - Image lines: `0xSTART - 0xEND [+]NAME [ARCH] [(VERSION)] <UUID> PATH`, where NAME may contain
///   spaces or be a bundle id, ARCH may also appear in parentheses (`(x86_64)`, `(*)`), the UUID may
///   have dashes, any case, or be `???`, and NAME or PATH may be `???`.
///
/// Lines that match none of these are skipped: the model does not describe them, and the
/// renderers print them unchanged.
public enum ClassicReportParser {
    /// Parses `bytes`, the contents of the file at `path`.
    ///
    /// Never throws on odd content: unknown lines are simply not frames or images.
    /// - Throws: `ReportError.empty(path)` if the bytes are empty or only whitespace;
    ///   `ReportError.notAReport(path)` if they are binary data (see `checkText`). Lines with a
    ///   NUL byte are kept but read as neither frames nor images.
    public static func parse(_ bytes: [UInt8], path: String) throws -> CrashReport {
        var report = try bytes.withUnsafeBufferPointer { buffer -> CrashReport in
            try checkText(buffer, path: path)
            var parser = LineParser(buffer)
            parser.run()
            if parser.text.isOverBudget { throw FrameText.tooDense(path: path, threads: parser.threads, images: parser.images) }
            return CrashReport(
                path: path, bytes: bytes, lines: parser.lines, header: parser.header,
                codeType: parser.codeType, crashedThread: parser.crashedThread,
                threads: parser.threads, images: BinaryImageLine.closingOpenEnds(parser.images))
        }
        report.matchFramesToImages()
        report.placeFramesByImageOffset()
        return report
    }

    /// The backtraces that lines `range` of `b` (whose lines are `lines`) make when read as
    /// part of a classic report: for text that a JSON report holds as text (an `.ips` report's
    /// `asiBacktraces` strings, translated line for line), whose frame lines no JSON member
    /// describes. `range` starts with the backtrace's header line; frames' names go to `text`.
    static func backtraces(in b: UnsafeBufferPointer<UInt8>, lines: LineRanges, range: Range<Int>,
                           text: FrameText) -> [Backtrace] {
        var parser = LineParser(b, lines: lines, text: text)
        for lineIndex in range where lines.indices.contains(lineIndex) { parser.read(lineIndex) }
        if !parser.threads.isEmpty { parser.threads[parser.threads.count - 1].frames.shrinkToFit() }
        return parser.threads
    }

    /// Rejects empty and binary input (for every text format).
    ///
    /// A NUL byte or two (a line a logger cut short, a stray byte from a crash) spoils a line,
    /// not a report; a binary file is told by its magic number (Mach-O, ELF, archives and the
    /// like: `BinaryInput.magicKind`) or by its proportions: in the first 64 KiB, more than one
    /// byte in 100 NUL, or more than one in 10 another control character (blanks, line ends and
    /// ESC of colour codes aside: `BinaryInput.ByteCounts`).
    static func checkText(_ b: UnsafeBufferPointer<UInt8>, path: String) throws {
        guard b.baseAddress != nil else { throw ReportError.empty(path) }
        if BinaryInput.magicKind(b) != nil { throw ReportError.notAReport(path) }
        let sample = min(b.count, BinaryInput.sampleSize)
        let counts = BinaryInput.ByteCounts(UnsafeBufferPointer(rebasing: b[0..<sample]), whole: sample == b.count)
        if counts.nuls * 100 > sample || counts.controls * 10 > sample { throw ReportError.notAReport(path) }
        guard b.contains(where: { $0 > ASCII.space }) else { throw ReportError.empty(path) }
    }
}

/// The state of one pass over a report's lines.
private struct LineParser {
    let b: UnsafeBufferPointer<UInt8>
    var lines = LineRanges()
    var header: [(key: String, value: String)] = []
    var codeType: String?
    var threads: [Backtrace] = []
    var images: [BinaryImage] = []
    /// The names of the report's frames, shared by the frames that print them.
    let text: FrameText

    /// "Triggered by Thread" / "Crashed Thread" from the header.
    private var crashedFromHeader: Int?
    /// Still before the first backtrace or image list.
    private var inHeader = true
    /// Inside the lines that follow "Application Specific Information:" (up to a blank line).
    private var inInformation = false
    /// The header entry of "Application Specific Information".
    private var informationEntry: Int?
    /// The backtrace that frame lines belong to.
    private var current: Int?
    /// Inside a parenthesized address list that has not been closed yet.
    private var inAddressList = false
    /// The name given by a `Thread N name:` line to the header that should follow it.
    private var pendingName: (thread: Int, name: String)?

    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        self.init(buffer, lines: LineRanges(buffer), text: FrameText(budgetFor: buffer.count))
    }

    init(_ buffer: UnsafeBufferPointer<UInt8>, lines: LineRanges, text: FrameText) {
        b = buffer
        self.lines = lines
        self.text = text
    }

    /// The crashed thread: from the header, else from the first thread header marked "Crashed".
    var crashedThread: Int? {
        if let crashedFromHeader { return crashedFromHeader }
        for thread in threads where thread.crashed {
            if case .thread(let number) = thread.kind { return number }
        }
        return nil
    }

    mutating func run() {
        threads.reserveCapacity(backtraceHeadersAtMost())
        for lineIndex in lines.indices {
            read(lineIndex)
            // A report too dense to read is refused as soon as its model passes its bound.
            if text.isOverBudget { return }
        }
        if !threads.isEmpty { threads[threads.count - 1].frames.shrinkToFit() }
        if let crashed = crashedThread {
            for t in threads.indices where threads[t].kind == .thread(crashed) {
                threads[t].crashed = true
            }
        }
    }

    /// Reads line `lineIndex`, after the lines before it.
    mutating func read(_ lineIndex: Int) {
        let range = lines[lineIndex]
        var start = range.lowerBound
        if lineIndex == 0 { start += b.byteOrderMarkLength }
        let p = b.skipBlanks(from: start, to: range.upperBound)
        let e = b.trimEnd(p, b.contentEnd(range))
        if p == e {
            inInformation = false
            inAddressList = false
            return
        }
        if b.containsNUL(range) { return }
        handle(line: lineIndex, start: range.lowerBound, p: p, e: e, indented: p > start)
    }

    /// At least the number of backtraces the report holds, counted from the lines that could
    /// open one (`Thread N` but `Thread N name:`, `Last Exception Backtrace`, `Application
    /// Specific Backtrace`), so that a report of a hundred thousand threads holds them in an
    /// array of about their number, not in one grown by doubling and then copied.
    private func backtraceHeadersAtMost() -> Int {
        var count = 0
        for range in lines {
            let p = b.skipBlanks(from: range.lowerBound, to: range.upperBound), e = range.upperBound
            guard p < e else { continue }
            switch b[p] {
            case UInt8(ascii: "T"):
                guard b.matches("Thread", at: p, end: e), p + 6 < e, isBlank(b[p + 6]) else { continue }
                let q = b.skipBlanks(from: p + 6, to: e)
                guard let (_, afterNumber) = b.decimalNumber(at: q, end: e) else { continue }
                if !b.matches("name", at: b.skipBlanks(from: afterNumber, to: e), end: e) { count += 1 }
            case UInt8(ascii: "L"):
                if b.matches("Last Exception Backtrace", at: p, end: e) { count += 1 }
            case UInt8(ascii: "A"):
                if b.matches("Application Specific Backtrace", at: p, end: e) { count += 1 }
            default:
                continue
            }
        }
        return count
    }

    /// Classifies one non-blank line. `start` is the line's first byte, `p..<e` its text without
    /// surrounding blanks.
    private mutating func handle(line: Int, start: Int, p: Int, e: Int, indented: Bool) {
        if inAddressList {
            if addAddresses(p, e, line: line) { return }
            inAddressList = false
        }
        let first = b[p]
        if first == ASCII.zero && p + 1 < e && (b[p + 1] | 0x20) == ASCII.lowerX,
           let image = BinaryImageLine.parse(b, p, e, line: line) {
            images.append(image)
            text.charge(FrameText.imageCost)
            current = nil
            inHeader = false
            inInformation = false
            return
        }
        if isDigit(first), let current {
            if let frame = parseFrame(start, p, e, line: line) {
                threads[current].frames.append(frame)
                return
            }
            // A frame line with no address to read (`5   ???   ???`) does not end its
            // backtrace: the frames after it are still frames.
            if continuesNumbering(current, p, e) { return }
        }
        if (first == 0x54 /* T */ || first == 0x41 /* A */ || first == 0x4C /* L */)
            && handleBacktraceHeader(p, e, line: line) {
            inInformation = false
            return
        }
        if b.matches("Binary Images:", at: p, end: e) {
            current = nil
            inHeader = false
            inInformation = false
            return
        }
        if first == ASCII.openParen, let current, threads[current].frames.isEmpty {
            inAddressList = true
            if addAddresses(p, e, line: line) { return }
            inAddressList = false
        }
        current = nil
        guard inHeader else { return }
        if inInformation {
            if let entry = informationEntry, header[entry].value.isEmpty {
                header[entry].value = b.string(p, e)
            }
        } else if !indented {
            addHeaderEntry(p, e)
        }
    }

    // MARK: Header

    /// Adds a `Key: value` line to the header, if it is one.
    private mutating func addHeaderEntry(_ p: Int, _ e: Int) {
        var colon = p
        while colon < e && b[colon] != ASCII.colon { colon += 1 }
        guard colon < e, colon - p <= 64, isLetter(b[p]) else { return }
        for i in p..<colon {
            let byte = b[i]
            guard isLetter(byte) || isDigit(byte) || isBlank(byte) || byte == ASCII.slash
                || byte == ASCII.minus || byte == 0x5F || byte == 0x2E
                || byte == ASCII.openParen || byte == ASCII.closeParen
            else { return }
        }
        let keyEnd = b.trimEnd(p, colon)
        let valueStart = b.skipBlanks(from: colon + 1, to: e)
        let key = b.string(p, keyEnd)
        let value = b.string(valueStart, e)
        header.append((key: key, value: value))
        switch key {
        case "Code Type":
            codeType = value
        case "Crashed Thread", "Triggered by Thread":
            if let (number, _) = b.decimalNumber(at: valueStart, end: e), number <= Int.max {
                crashedFromHeader = Int(number)
            }
        case "Application Specific Information":
            inInformation = true
            informationEntry = header.count - 1
        default:
            break
        }
    }

    // MARK: Backtraces

    /// Handles a line starting with "Thread", "Application Specific Backtrace" or
    /// "Last Exception Backtrace". Returns false if the line is none of the headers.
    private mutating func handleBacktraceHeader(_ p: Int, _ e: Int, line: Int) -> Bool {
        if b.matches("Thread", at: p, end: e) && p + 6 < e && isBlank(b[p + 6]) {
            return handleThreadHeader(p + 6, e, line: line)
        }
        if b.matches("Application Specific Backtrace", at: p, end: e) {
            let q = b.skipBlanks(from: p + 30, to: e)
            var number = 0
            var t = q
            if let (value, next) = b.decimalNumber(at: q, end: e), value <= Int.max {
                number = Int(value)
                t = b.skipBlanks(from: next, to: e)
            }
            guard t < e && b[t] == ASCII.colon else { return false }
            startBacktrace(.applicationSpecificBacktrace(number), crashed: false, name: nil, line: line)
            addAddressesAfterHeader(t + 1, e, line: line)
            return true
        }
        if b.matches("Last Exception Backtrace", at: p, end: e) {
            let t = b.skipBlanks(from: p + 24, to: e)
            guard t < e && b[t] == ASCII.colon else { return false }
            startBacktrace(.lastExceptionBacktrace, crashed: false, name: nil, line: line)
            addAddressesAfterHeader(t + 1, e, line: line)
            return true
        }
        return false
    }

    /// Handles what follows `Thread ` on a line: `N:`, `N::`, `N: Crashed:`, `N MARK:` or
    /// `N MARK::` (MARK one word: `Crashed`, `Attributed` in resource reports, ...), each
    /// optionally followed by the thread's name, or `N name: NAME`. Returns false for anything
    /// else (`Thread 0 crashed with ARM Thread State (64-bit):` starts a register block).
    private mutating func handleThreadHeader(_ p: Int, _ e: Int, line: Int) -> Bool {
        let q = b.skipBlanks(from: p, to: e)
        guard let (number, afterNumber) = b.decimalNumber(at: q, end: e), number <= Int.max
        else { return false }
        var t = b.skipBlanks(from: afterNumber, to: e)
        var crashed = false
        if t < e && b[t] == ASCII.colon {
            // `Thread 0: Crashed:` (some third-party reporters): the mark after the colon.
            var u = b.skipBlanks(from: t + 1, to: e)
            if b.matchesIgnoringCase("crashed", at: u, end: e) {
                u = b.skipBlanks(from: u + 7, to: e)
                if u < e && b[u] == ASCII.colon {
                    crashed = true
                    t = u
                }
            }
        } else {
            guard t > afterNumber else { return false }
            var wordEnd = t
            while wordEnd < e && isLetter(b[wordEnd]) { wordEnd += 1 }
            let colon = b.skipBlanks(from: wordEnd, to: e)
            guard wordEnd > t, colon < e, b[colon] == ASCII.colon else { return false }
            if b.equals("name", t, wordEnd) {
                let nameStart = b.skipBlanks(from: colon + 1, to: e)
                pendingName = nameStart < e ? (Int(number), b.string(nameStart, e)) : nil
                current = nil
                inAddressList = false
                return true
            }
            crashed = wordEnd - t == 7 && b.matchesIgnoringCase("crashed", at: t, end: wordEnd)
            t = colon
        }
        var nameStart = t + 1
        if nameStart < e && b[nameStart] == ASCII.colon { nameStart += 1 }
        nameStart = b.skipBlanks(from: nameStart, to: e)
        let name = nameStart < e ? b.string(nameStart, e) : nil
        startBacktrace(.thread(Int(number)), crashed: crashed, name: name, line: line)
        return true
    }

    private mutating func startBacktrace(_ kind: BacktraceKind, crashed: Bool, name: String?, line: Int) {
        var name = name
        if case .thread(let number) = kind, let pending = pendingName, pending.thread == number {
            name = name ?? pending.name
        }
        pendingName = nil
        if !threads.isEmpty { threads[threads.count - 1].frames.shrinkToFit() }
        threads.append(Backtrace(kind: kind, name: name, crashed: crashed, headerLine: line))
        text.charge(FrameText.backtraceCost)
        current = threads.count - 1
        inHeader = false
        inAddressList = false
    }

    /// An address list may start on the header line itself: `Last Exception Backtrace: (0x1 0x2)`.
    private mutating func addAddressesAfterHeader(_ p: Int, _ e: Int, line: Int) {
        let q = b.skipBlanks(from: p, to: e)
        guard q < e && b[q] == ASCII.openParen else { return }
        inAddressList = true
        if !addAddresses(q, e, line: line) { inAddressList = false }
    }

    /// Adds the addresses of one line of a parenthesized list as `.addressOnly` frames. The line
    /// may open with `(` and close with `)`; otherwise it must hold only `0x...` tokens (commas
    /// allowed). Returns false, adding nothing, if it holds anything else.
    private mutating func addAddresses(_ p: Int, _ e: Int, line: Int) -> Bool {
        guard let current else { return false }
        var addresses: [UInt64] = []
        var closed = false
        var i = p
        if i < e && b[i] == ASCII.openParen { i += 1 }
        while true {
            while i < e && (isBlank(b[i]) || b[i] == ASCII.comma) { i += 1 }
            guard i < e else { break }
            if b[i] == ASCII.closeParen {
                guard b.skipBlanks(from: i + 1, to: e) == e else { return false }
                closed = true
                break
            }
            guard let (value, next) = b.hexNumber(at: i, end: e) else { return false }
            guard next == e || isBlank(b[next]) || b[next] == ASCII.comma || b[next] == ASCII.closeParen
            else { return false }
            addresses.append(value)
            i = next
        }
        let first = threads[current].frames.count
        let listed = threads[current].addressListLines ?? line..<line + 1
        threads[current].addressListLines = min(listed.lowerBound, line)..<max(listed.upperBound, line + 1)
        for (k, address) in addresses.enumerated() {
            threads[current].frames.append(Frame(
                index: first + k, imageName: nil, address: address, form: .addressOnly,
                line: line, restStart: nil, text: text))
        }
        if closed { inAddressList = false }
        return true
    }

    // MARK: Frames

    /// Parses `INDEX IMAGE 0xADDRESS REST`; nil if the line is not a frame line.
    private func parseFrame(_ start: Int, _ p: Int, _ e: Int, line: Int) -> Frame? {
        guard let (index, afterIndex) = b.decimalNumber(at: p, end: e), index <= Int.max,
              afterIndex < e, isBlank(b[afterIndex])
        else { return nil }
        let nameStart = b.skipBlanks(from: afterIndex, to: e)
        var nameEnd = nameStart
        var t = nameStart
        // The first bare hexadecimal token, with the end of the name before it: the address
        // when no token has `0x` (`0   ???   000000000000000000 0 + 0` in watchdog reports).
        var bare: (address: UInt64, start: Int, end: Int, nameEnd: Int)?
        while t < e {
            let tokenEnd = b.skipToken(from: t, to: e)
            if let (address, next) = b.hexNumber(at: t, end: tokenEnd), next == tokenEnd {
                return frame(index: Int(index), nameStart, nameEnd, address: address, after: tokenEnd,
                             start, e, line: line)
            }
            // An address no image can hold (`0x1ffffffffffffffffff`, `0x`): the frame is one,
            // but no other number of the line stands in for its address.
            if b.isUnreadableHexToken(t, tokenEnd) {
                return Frame.unreadable(index: Int(index), imageName: nameEnd > nameStart ? name(nameStart, nameEnd) : nil,
                                        line: line, restStart: b.skipBlanks(from: tokenEnd, to: e) - start, text: text)
            }
            if bare == nil, t > nameStart, let address = bareAddress(t, tokenEnd) {
                bare = (address, t, tokenEnd, nameEnd)
            }
            nameEnd = tokenEnd
            t = b.skipBlanks(from: tokenEnd, to: e)
        }
        guard let bare else { return nil }
        return frame(index: Int(index), nameStart, bare.nameEnd, address: bare.address, after: bare.end,
                     start, e, line: line)
    }

    /// The frame of a line whose image name is `nameStart..<nameEnd` and whose address token
    /// ends at `addressEnd`.
    private func frame(index: Int, _ nameStart: Int, _ nameEnd: Int, address: UInt64, after addressEnd: Int,
                       _ start: Int, _ e: Int, line: Int) -> Frame {
        let imageName = nameEnd > nameStart ? name(nameStart, nameEnd) : nil
        let restStart = b.skipBlanks(from: addressEnd, to: e)
        let inlinedEnd = inlinedMarker(restStart, e)
        return Frame(
            index: index, imageName: imageName, address: address,
            form: parseForm(restStart, inlinedEnd ?? e, imageName: imageName),
            line: line, restStart: restStart - start, inlined: inlinedEnd != nil, text: text)
    }

    /// `p..<e` as an address written without `0x`: 8 to 24 hexadecimal digits, at most 16 of
    /// them after the leading zeros.
    private func bareAddress(_ p: Int, _ e: Int) -> UInt64? {
        guard e - p >= 8, e - p <= 24 else { return nil }
        var value: UInt64 = 0
        var significant = 0
        for i in p..<e {
            guard let digit = hexDigitValue(b[i]) else { return nil }
            if significant > 0 || digit != 0 { significant += 1 }
            guard significant <= 16 else { return nil }
            value = value << 4 | digit
        }
        return value
    }

    /// Whether the line starts with a number, then a blank, that can number a frame of
    /// backtrace `t`: above its last frame's (a few lines may be unreadable in a row), or
    /// small when it has none yet.
    private func continuesNumbering(_ t: Int, _ p: Int, _ e: Int) -> Bool {
        guard let (index, next) = b.decimalNumber(at: p, end: e), next < e, isBlank(b[next]) else { return false }
        guard let last = threads[t].frames.last else { return index < 8 }
        return last.restStart != nil && index > UInt64(last.index) && index - UInt64(last.index) <= 8
    }

    /// The bytes `start..<end` as a name of the report's `text`: the string its other frames
    /// share, made only the first time.
    private func name(_ start: Int, _ end: Int) -> String {
        text[text.intern(b, start, end)]
    }

    /// Where the text before a trailing ` [inlined]` ends, if the rest of a frame line has one.
    private func inlinedMarker(_ p: Int, _ e: Int) -> Int? {
        let length = 10  // " [inlined]"
        guard e - p > length, b.matches(" [inlined]", at: e - length, end: e) else { return nil }
        return b.trimEnd(p, e - length)
    }

    /// Classifies the text after a frame's address.
    private func parseForm(_ p: Int, _ e: Int, imageName: String?) -> FrameForm {
        guard p < e else { return .unknown }
        // 0x104a30000 + 50656
        if let (load, afterLoad) = b.hexToken(at: p, end: e) {
            if case .value(let address) = load, let (offset, afterOffset) = plusOffset(afterLoad, e), afterOffset == e {
                return .unsymbolicated(loadAddress: address, offset: offset)
            }
            // A load address that cannot be read is no symbol's name either.
            if load == .unreadable, afterLoad == e || isBlank(b[afterLoad]) { return .unknown }
        }
        // `0 + 0` after an address without `0x`: no symbol starts with a digit; the reporter
        // knew nothing.
        if isDigit(b[p]) { return .unknown }
        // A trailing source location: "(File.m:42)".
        var end = e
        var location: (file: String, line: Int)?
        if b[e - 1] == ASCII.closeParen, let (open, file, line) = sourceLocation(p, e) {
            location = (file, line)
            end = b.trimEnd(p, open)
        }
        // A trailing " + DECIMAL": the offset into the symbol.
        var nameEnd = end
        var offset: UInt64?
        var i = end
        while i > p && isDigit(b[i - 1]) { i -= 1 }
        if i < end, i > p, isBlank(b[i - 1]) {
            let plus = b.trimEnd(p, i)
            if plus > p, b[plus - 1] == ASCII.plus, plus - 1 > p, isBlank(b[plus - 2]),
               let (value, _) = b.decimalNumber(at: i, end: end) {
                offset = value
                nameEnd = b.trimEnd(p, plus - 1)
            }
        }
        // atos's ` (in Image)` between the name and the offset or location is not the name.
        nameEnd = atosImageStart(p, nameEnd) ?? nameEnd
        guard nameEnd > p else { return .unknown }
        if let location {
            return .symbolicated(name: name(p, nameEnd), offset: offset,
                                 file: location.file, line: location.line)
        }
        guard let offset else { return .unknown }
        if isBracketedUUID(p, nameEnd) || isMachHeaderSymbol(p, nameEnd) { return .imageOffset(offset: offset) }
        let symbol = name(p, nameEnd)
        if symbol == imageName { return .imageOffset(offset: offset) }
        return .symbol(name: symbol, offset: offset)
    }

    /// Where the name ends if `p..<e` ends in atos's ` (in Image)`.
    private func atosImageStart(_ p: Int, _ e: Int) -> Int? {
        guard e - p > 6, b[e - 1] == ASCII.closeParen else { return nil }
        var open = e - 2
        while open > p && b[open] != ASCII.openParen { open -= 1 }
        guard open > p, isBlank(b[open - 1]), b.matches("in ", at: open + 1, end: e - 1) else { return nil }
        return b.trimEnd(p, open)
    }

    /// Whether `p..<e` names the Mach-O header, the first byte of an image: what a reporter
    /// prints when the symbol table it read has nothing nearer (`_mh_execute_header + 17220`).
    private func isMachHeaderSymbol(_ p: Int, _ e: Int) -> Bool {
        var q = p
        while q < e && q < p + 2 && b[q] == 0x5F { q += 1 }  // _
        return b.equals("mh_execute_header", q, e) || b.equals("mh_dylib_header", q, e)
            || b.equals("mh_bundle_header", q, e)
    }

    /// Parses `WS + WS DECIMAL` at `p`.
    private func plusOffset(_ p: Int, _ e: Int) -> (UInt64, Int)? {
        guard p < e, isBlank(b[p]) else { return nil }
        let plus = b.skipBlanks(from: p, to: e)
        guard plus < e, b[plus] == ASCII.plus, plus + 1 < e, isBlank(b[plus + 1]) else { return nil }
        let digits = b.skipBlanks(from: plus + 1, to: e)
        return b.decimalNumber(at: digits, end: e)
    }

    /// Parses a trailing ` (FILE:LINE)` or ` (FILE:LINE:COLUMN)` ending at `e`, which is `)`.
    /// Returns the position of `(`, the file and the line.
    private func sourceLocation(_ p: Int, _ e: Int) -> (Int, String, Int)? {
        var open = e - 2
        while open > p && b[open] != ASCII.openParen { open -= 1 }
        guard open > p, isBlank(b[open - 1]) else { return nil }
        let inner = open + 1
        let innerEnd = e - 1
        // The last ":DIGITS", and one more before it if there is a column.
        func trailingNumber(_ end: Int) -> (value: UInt64, colon: Int)? {
            var i = end
            while i > inner && isDigit(b[i - 1]) { i -= 1 }
            guard i < end, i - 1 > inner, b[i - 1] == ASCII.colon,
                  let (value, _) = b.decimalNumber(at: i, end: end), value <= UInt64(Int.max)
            else { return nil }
            return (value, i - 1)
        }
        guard var number = trailingNumber(innerEnd) else { return nil }
        if let line = trailingNumber(number.colon) { number = line }
        return (open, b.string(inner, number.colon), Int(number.value))
    }

    /// Whether `p..<e` is `<UUID>`: 32 hexadecimal digits, dashes allowed.
    private func isBracketedUUID(_ p: Int, _ e: Int) -> Bool {
        guard e - p >= 34, b[p] == ASCII.less, b[e - 1] == ASCII.greater else { return false }
        return b.compactUUID(p + 1, e - 1) != nil
    }
}
