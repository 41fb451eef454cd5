/// Parses the crash logs the Swift runtime's backtracer (`swift-backtrace`, Swift 5.9+) writes
/// when `SWIFT_BACKTRACE=enable=yes` and a program crashes, in its text form and its JSON form
/// (`format=json`, read by `SwiftBacktraceJSON`).
///
/// The text form, with `symbolicate=off` (addresses only):
///
///     *** Program crashed: Illegal instruction at 0x00007ffff796df7f ***
///
///     Thread 0 "c" crashed:                                  <- `Thread N ["NAME"] [crashed]:`
///
///     0      0x00007ffff796df7f                              <- the faulting PC
///     1 [ra] 0x00007ffff7af961f                              <- a return address
///     2 [async] 0x0000555555556b30                           <- an async resume point
///     3      ...                                             <- frames left out
///
///     Registers:
///     rax 0x0000000000000000  0
///
///     Images (12 omitted):                                   <- START–END BUILD-ID NAME PATH
///     0x0000555555554000–0x0000555555555e90 fdeb5b5d06b6... c   /tmp/sbt/c
///
/// and with `symbolicate=full`, every frame named, inlined calls on lines of their own:
///
///       0 [inlined] [system] 0x00005555555560f8 specialized Array.subscript.getter in d at //<compiler-generated>
///       1 [inlined]          0x00005555555560f8 inner(_:_:) in d at /tmp/sbt/d.swift:2:69
///       2                    0x00005555555560f8 outer(_:_:) + 24 in d at /tmp/sbt/d.swift:3:65
///
/// A frame line is an index, attributes in brackets (`ra`, `async`, `inlined`, `thunk`,
/// `system`), an address and, when symbolicated, `NAME [+ OFFSET] in IMAGE [at FILE:LINE:COL]`.
/// Frame lines count only under a thread header, until the next header, `Registers:` or
/// `Images`. Each image line is an ELF `BinaryImage` with its range (the end printed is the end
/// of its text, exclusive), its build-id and its path; frames are placed in images by address.
///
/// The runtime says itself what each address is: `[ra]` frames are return addresses (looked up
/// at their call), the others (the PC, `[async]` resume points) are looked up as printed. A
/// frame's `restStart` is the end of its address: a renderer writes the frame's name, image and
/// source location after it. A frame that already names its source location (a `symbolicate=full`
/// log) is `symbolicated`; one that names only a function is `symbol`; its `[inlined]` lines
/// are marked `inlined`. Every other line is kept as it is.
public enum SwiftBacktraceParser {
    /// Whether `bytes` hold a Swift runtime backtrace: a `*** Program crashed:` line, or a
    /// `Thread N ... crashed:` header followed by a frame line in the runtime's form, or a JSON
    /// crash log (`SwiftBacktraceJSON`).
    public static func looksLikeSwiftBacktrace(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            var inThread = false, found = false
            b.forEachLine { range in
                let e = b.trimEnd(range.lowerBound, b.contentEnd(range))
                let p = b.skipBlanks(from: range.lowerBound, to: e)
                guard p < e else { return true }
                if b.matches("*** Program crashed: ", at: p, end: e)
                    || (b[p] == UInt8(ascii: "{") && SwiftBacktraceJSON.isCrashLog(b, p, e)) {
                    found = true
                } else if let header = threadHeader(b, p, e) {
                    inThread = header.crashed
                } else if inThread, frameLine(b, range.lowerBound, p, e) != nil {
                    found = true
                }
                return !found
            }
            return found
        }
    }

    /// Parses `bytes`, the contents of the file at `path`.
    ///
    /// Never throws on odd content: lines that are not frames are kept as text.
    /// - Throws: `ReportError.empty(path)` or `ReportError.notAReport(path)` as
    ///   `ClassicReportParser.checkText` decides.
    public static func parse(_ bytes: [UInt8], path: String) throws -> CrashReport {
        try bytes.withUnsafeBufferPointer { b in
            try ClassicReportParser.checkText(b, path: path)
            let lines = LineRanges(b)
            let text = FrameText(budgetFor: b.count)
            var threads: [Backtrace] = []
            var images: [BinaryImage] = []
            var json: [SwiftBacktraceJSON.Log] = []
            var section = Section.other
            for (n, range) in lines.enumerated() {
                let e = b.trimEnd(range.lowerBound, b.contentEnd(range))
                let p = b.skipBlanks(from: range.lowerBound, to: e)
                guard p < e, !b.containsNUL(range) else { continue }
                if json.isEmpty, b[p] == UInt8(ascii: "{"), let log = SwiftBacktraceJSON.parse(bytes, line: n, p, e, text: text) {
                    json.append(log)
                    section = .other
                } else if let header = threadHeader(b, p, e) {
                    if !threads.isEmpty { threads[threads.count - 1].frames.shrinkToFit() }
                    threads.append(Backtrace(kind: .thread(header.number), name: header.name, crashed: header.crashed,
                                          headerLine: n))
                    text.charge(FrameText.backtraceCost)
                    section = .thread
                } else if b.matches("Registers:", at: p, end: e) || b.matches("Backtrace took", at: p, end: e) {
                    section = .other
                } else if b.matches("Images", at: p, end: e) && b[e - 1] == ASCII.colon {
                    section = .images
                } else if section == .thread, let parsed = frameLine(b, range.lowerBound, p, e) {
                    // A frame whose address cannot be read is a frame of its thread all the same,
                    // left as it came.
                    threads[threads.count - 1].frames.append(parsed.unreadable
                        ? Frame.unreadable(index: parsed.index, imageName: nil, line: n, restStart: nil, text: text)
                        : Frame(index: parsed.index, imageName: nil, address: parsed.address, form: parsed.form,
                                line: n, restStart: parsed.addressEnd - range.lowerBound,
                                returnAddress: parsed.returnAddress, inlined: parsed.inlined, text: text))
                } else if section == .images, var image = imageLine(b, p, e) {
                    image.line = n
                    images.append(image)
                    text.charge(FrameText.imageCost)
                }
                // A log too dense to read is refused as soon as its model passes its bound.
                if text.isOverBudget { throw FrameText.tooDense(path: path, threads: threads, images: images) }
            }
            if !threads.isEmpty { threads[threads.count - 1].frames.shrinkToFit() }
            // A log holds one report: text, or a JSON document (the first one).
            var document: SwiftBacktraceDocument?
            if threads.isEmpty, let log = json.first {
                threads = log.threads
                images = log.images
                document = SwiftBacktraceDocument(tree: log.tree)
            }
            var report = CrashReport(path: path, bytes: bytes, lines: lines,
                                     crashedThread: threads.first { $0.crashed }.flatMap {
                                         if case .thread(let number) = $0.kind { return number }
                                         return nil
                                     },
                                     threads: threads, images: images, source: .swiftBacktrace(document))
            report.matchFramesToImages()
            return report
        }
    }

    private enum Section { case other, thread, images }

    /// `Thread N:`, `Thread N crashed:`, `Thread N "NAME":`, `Thread N "NAME" crashed:`.
    static func threadHeader(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ e: Int)
        -> (number: Int, name: String?, crashed: Bool)? {
        guard b.matches("Thread ", at: p, end: e), b[e - 1] == ASCII.colon,
              let (number, next) = b.decimalNumber(at: p + 7, end: e), number <= UInt64(Int32.max) else { return nil }
        var i = b.skipBlanks(from: next, to: e - 1)
        var name: String?
        if i < e - 1, b[i] == ASCII.quote {
            // The name may hold quotes itself: it runs to the last quote of the line.
            var close = e - 2
            while close > i, b[close] != ASCII.quote { close -= 1 }
            guard close > i else { return nil }
            name = b.string(i + 1, close)
            i = b.skipBlanks(from: close + 1, to: e - 1)
        }
        let crashed = b.equals("crashed", i, e - 1)
        guard crashed || i == e - 1 else { return nil }
        return (Int(number), name, crashed)
    }

    /// What a frame line says.
    struct ParsedFrame {
        var index: Int
        var address: UInt64
        /// The index just past the address's last digit.
        var addressEnd: Int
        var returnAddress: Bool
        var inlined: Bool
        var form: FrameForm
        /// The address is there but cannot be read (`0x1ffffffffffffffffff`, `0x`).
        var unreadable = false
    }

    /// `INDEX [ATTR]... 0xADDRESS [NAME [+ OFFSET] in IMAGE [at FILE:LINE:COL]]`.
    static func frameLine(_ b: UnsafeBufferPointer<UInt8>, _ lineStart: Int, _ p: Int, _ e: Int) -> ParsedFrame? {
        guard let (index, afterIndex) = b.decimalNumber(at: p, end: e), index <= UInt64(Int32.max),
              afterIndex < e, isBlank(b[afterIndex]) else { return nil }
        var i = b.skipBlanks(from: afterIndex, to: e)
        var returnAddress = false, inlined = false
        while i < e, b[i] == UInt8(ascii: "[") {
            let close = b.skipToken(from: i, to: e)
            guard b[close - 1] == UInt8(ascii: "]") else { return nil }
            if b.equals("[ra]", i, close) {
                returnAddress = true
            } else if b.equals("[inlined]", i, close) {
                inlined = true
            } else if !(b.equals("[async]", i, close) || b.equals("[thunk]", i, close) || b.equals("[system]", i, close)) {
                return nil
            }
            i = b.skipBlanks(from: close, to: e)
        }
        guard let (address, addressEnd) = b.hexNumber(at: i, end: e), addressEnd == e || isBlank(b[addressEnd]) else {
            let tokenEnd = b.skipToken(from: i, to: e)
            guard b.isUnreadableHexToken(i, tokenEnd) else { return nil }
            return ParsedFrame(index: Int(index), address: 0, addressEnd: tokenEnd, returnAddress: returnAddress,
                               inlined: inlined, form: .unknown, unreadable: true)
        }
        let rest = b.skipBlanks(from: addressEnd, to: e)
        return ParsedFrame(index: Int(index), address: address, addressEnd: addressEnd, returnAddress: returnAddress,
                           inlined: inlined, form: rest < e ? symbolicatedForm(b, rest, e) : .unknown)
    }

    /// What a `symbolicate=full` frame says after its address: `NAME [+ OFFSET] in IMAGE
    /// [at FILE[:LINE[:COL]]]`. The name may hold ` in ` itself (`closure #1 in f()`), so the
    /// image is the last ` in ` before the location.
    static func symbolicatedForm(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ e: Int) -> FrameForm {
        let at = lastMatch(" at ", b, p, e)
        let nameAndImage = at ?? e
        guard let inImage = lastMatch(" in ", b, p, nameAndImage) else { return .unknown }
        var nameEnd = inImage
        var offset: UInt64 = 0
        if let plus = lastMatch(" + ", b, p, inImage), let (value, next) = b.decimalNumber(at: plus + 3, end: inImage),
           next == inImage {
            nameEnd = plus
            offset = value
        }
        let name = b.string(p, nameEnd)
        guard let at else { return .symbol(name: name, offset: offset) }
        // FILE:LINE:COL, FILE:LINE or FILE.
        var fileEnd = e
        var line = 0
        var numbers: [UInt64] = []
        var k = e
        while numbers.count < 2, k > at + 4 {
            var digits = k
            while digits > at + 4, isDigit(b[digits - 1]) { digits -= 1 }
            guard digits < k, b[digits - 1] == ASCII.colon, let (value, _) = b.decimalNumber(at: digits, end: k),
                  value <= UInt64(Int32.max) else { break }
            numbers.append(value)
            k = digits - 1
            fileEnd = k
        }
        if let last = numbers.last { line = Int(last) }
        return .symbolicated(name: name, offset: offset == 0 ? nil : offset, file: b.string(at + 4, fileEnd), line: line)
    }

    /// The start of the last `literal` in `p..<e`.
    private static func lastMatch(_ literal: StaticString, _ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ e: Int) -> Int? {
        var i = e - literal.utf8CodeUnitCount
        while i >= p {
            if b.matches(literal, at: i, end: e) { return i }
            i -= 1
        }
        return nil
    }

    /// `0xSTART–0xEND BUILD-ID NAME PATH` (the dash may be `-`, `–` or `−`; the build-id may
    /// be `<no build ID>`).
    static func imageLine(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ e: Int) -> BinaryImage? {
        guard let (start, afterStart) = b.hexNumber(at: p, end: e) else { return nil }
        var i = afterStart
        if b.matches("-", at: i, end: e) {
            i += 1
        } else if b.matches("\u{2013}", at: i, end: e) || b.matches("\u{2212}", at: i, end: e)
                    || b.matches("\u{2010}", at: i, end: e) {
            i += 3
        } else {
            return nil
        }
        guard let (end, afterEnd) = b.hexNumber(at: i, end: e), afterEnd < e, isBlank(b[afterEnd]), end > start
        else { return nil }
        i = b.skipBlanks(from: afterEnd, to: e)
        var buildID: String?
        if b.matches("<no build ID>", at: i, end: e) {
            i += 13
        } else {
            let idEnd = b.skipToken(from: i, to: e)
            guard idEnd > i, (i..<idEnd).allSatisfy({ hexDigitValue(b[$0]) != nil || b[$0] == ASCII.colon })
            else { return nil }
            buildID = b.string(i, idEnd).lowercased()
            i = idEnd
        }
        i = b.skipBlanks(from: i, to: e)
        let nameEnd = b.skipToken(from: i, to: e)
        guard nameEnd > i else { return nil }
        let pathStart = b.skipBlanks(from: nameEnd, to: e)
        let path = pathStart < e ? b.string(pathStart, e) : nil
        return BinaryImage(loadAddress: start, endAddress: end - 1, name: b.string(i, nameEnd), uuid: buildID,
                           path: path == "<unknown>" ? nil : path, format: .elf)
    }
}
