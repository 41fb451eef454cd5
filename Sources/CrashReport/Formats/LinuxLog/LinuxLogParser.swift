/// Parses Linux crash-style logs: the frame lines glibc's `backtrace_symbols` writes, and the
/// `#N 0x...` lines of the sanitizers and of LLVM's `PrintStackTrace`, among any other text.
///
/// ## glibc
///
/// `backtrace_symbols_fd` (glibc 2.36, `debug/backtracesymsfd.c`) writes one line per frame,
/// after whatever prefix the program printed; `backtrace_symbols` is the same with a blank
/// before `[`:
///
///     ./prog(+0x1279)[0x55fd7aec4279]                      no symbol: offset from the load bias
///     ./prog(inventory_total+0x38)[0x5595a322d388]         a dynamic symbol and the offset into it
///     /lib/x86_64-linux-gnu/libc.so.6(abort+0xd3)[0x7f...]
///     ./prog[0x401269]          (_fd)                      no symbol, load bias 0 (non-PIE)
///     ./prog() [0x401136]       (backtrace_symbols)        the same
///     [0x7f...]                                            dladdr knew no module
///
/// glibc prints the `(...)` group only when there is a symbol or a non-zero load bias, so a
/// frame without it (or with `()`) lies in a module loaded at its link-time address: its
/// absolute address is its module offset. The line is recognized from its end, `[0xADDR]`;
/// the module is the blank-free run before `(` or `[` (paths with blanks are not recognized
/// after a prefix), and what precedes it is the program's own prefix (timestamps,
/// "backtrace:"). Lines that are only `MODULE[0xADDR]` without a slash, or `[0xADDR]`, say
/// too little on their own: they count as frames only next to clearer ones.
///
/// `backtrace()` returns return addresses, so glibc frames are looked up at their call site,
/// except the frame right after a signal trampoline (`__restore_rt`, the vDSO's
/// `__kernel_rt_sigreturn`): that one is the interrupted PC. The trampoline is recognized only
/// by name or by a vDSO module; glibc prints the x86-64 `__restore_rt` as `libc.so.6(+0x3c050)`
/// (a local symbol), which the log alone cannot tell from any other libc frame.
///
/// ## Sanitizers and LLVM
///
/// Sanitizers print `    #%n %p %F %L` per frame (sanitizer_common's stack trace format):
///
///     #0 0x55c9f9e4943d  (/tmp/prog+0x17443d)                 unsymbolized (`%F` empty)
///     #2 0x7f0b57245249  (/lib/x86_64-linux-gnu/libc.so.6+0x27249) (BuildId: 93ac61ec...)
///     #3 0x5607584d7eee in main /src/asan_main.cpp:39:20       already symbolized
///     #7 0x5607583e4260 in _start (/tmp/prog+0x80260)          a symbol but no source
///     #2 0x400000002  (<unknown module>)
///
/// The printed address is already moved to the call (`StackTrace::GetPreviousInstructionPc`,
/// and the faulting PC is moved forward by one first), and the sanitizer symbolizes exactly
/// the printed module offset; so sanitizer frames are looked up as printed. Symbolized logs
/// print each inlined frame on a line of its own with the same address and the next number;
/// those frames are marked `inlined`.
///
/// ThreadSanitizer prints no address (`    #%n %f %S %M`): `#0 <null> <null> (prog+0x1249)`
/// unsymbolized, `#0 main /src/race.c:9 (prog+0x1249)` symbolized, the module often by its
/// file name alone. Its offsets are symbolized as printed, like the other sanitizers'.
///
/// LLVM's `PrintStackTrace` prints `#0 0x000055d0c0a01234 (/path/prog+0x1234)`,
/// `#1 0x... foo /src/a.c:10:5` or `#2 0x... foo(int) (/path/prog+0x...)`: a single blank
/// after the address and no `in`. Its addresses come from `backtrace()` unchanged, so they
/// are return addresses, as in glibc logs. A run of `#` lines is a sanitizer run when any
/// line has `in `, two blanks after the address or a build-id.
///
/// ## Swift's "Current stack trace:"
///
/// The Swift runtime before 5.9 (and later ones with `SWIFT_BACKTRACE=enable=no`) prints
/// `backtrace()`'s return addresses with `dladdr`'s answers:
///
///     Current stack trace:
///     0    libswiftCore.so                    0x00007fe4b8b5f130 swift_reportError + 33
///     5    inventory                          0x0000557fa3a3b7e4 <unavailable> + 6116
///
/// `<unavailable> + N` is the offset from the module's base, its lowest mapping, which gives
/// the image's load address; `SYMBOL + N` the offset into a dynamic symbol.
///
/// ## The model
///
/// Each run of consecutive frame lines is one `Thread` (`.thread(0)`, `.thread(1)`, ... in
/// order; the first is the crashed one); a `#0` line starts a new run. The line just before a
/// run ("backtrace:", "freed by thread T0 here:") names it. Each distinct module path is one
/// ELF `BinaryImage` (name: its file name; uuid: the build-id when a line gives one; no
/// address range). A frame's `imageOffset` is the module offset, when known; `restStart` is,
/// for `#` lines, right after the address (a renderer puts ` in FUNC FILE:LINE:COL` there, as
/// a sanitizer would), and for glibc lines the end of the line's text. All other lines are
/// kept verbatim.
public enum LinuxLogParser {
    /// Whether `bytes` hold glibc `backtrace_symbols` or sanitizer / LLVM frame lines, and
    /// nothing that marks an Apple crash report ("Incident Identifier:", "Binary Images:",
    /// "Exception Type:", a `Thread N Crashed:` header, ...).
    public static func looksLikeLinuxLog(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            let scanner = LineScanner(b)
            var foundFrame = false, apple = false
            b.forEachLine { range in
                let start = range.lowerBound
                let line = scanner.content(start, b.contentEnd(range))
                if line.p < line.e, !b.containsNUL(range) {
                    if scanner.isAppleMarker(line.p, line.e) {
                        apple = true
                        return false
                    }
                    if !foundFrame, let frame = scanner.frame(lineStart: start, line.p, line.e), frame.isStrong {
                        foundFrame = true
                    }
                }
                return true
            }
            return foundFrame && !apple
        }
    }

    /// Parses `bytes`, the contents of the file at `path`.
    ///
    /// Never throws on odd content: lines that are not frames are simply kept as text.
    /// - Throws: `ReportError.empty(path)` if the bytes are empty or only whitespace;
    ///   `ReportError.notAReport(path)` if they are binary data (see `ClassicReportParser.checkText`).
    ///   Lines with a NUL byte are kept but never read as frames.
    public static func parse(_ bytes: [UInt8], path: String) throws -> CrashReport {
        try bytes.withUnsafeBufferPointer { b in
            try ClassicReportParser.checkText(b, path: path)
            var builder = LogBuilder(b)
            builder.run()
            if builder.isOverBudget { throw FrameText.tooDense(path: path, threads: builder.threads, images: builder.images) }
            return CrashReport(
                path: path, bytes: bytes, lines: builder.lines,
                crashedThread: builder.threads.isEmpty ? nil : 0,
                threads: builder.threads, images: builder.images, source: .linuxLog)
        }
    }
}

/// Which program wrote a frame line.
private enum Family: Equatable {
    /// `MODULE(SYMBOL+0xOFF)[0xADDR]` and its variants.
    case glibc
    /// `#N 0xADDR ...`: a sanitizer or LLVM's PrintStackTrace.
    case numbered
    /// `N  MODULE  0xADDR SYMBOL + DEC`: the Swift runtime's "Current stack trace:" before
    /// Swift 5.9 (and LLVM's PrintStackTrace before LLVM 3.9).
    case indexed
}

/// One frame line, as read from the line alone.
private struct ParsedFrame {
    var family: Family
    /// The printed frame number (`#N`); nil for glibc lines.
    var number: Int?
    var address: UInt64
    /// Where the module path is in the log, as printed; nil when the line names none. (A
    /// range, not a string: most frames name a module an earlier frame named.)
    var module: Range<Int>?
    /// Where the build-id's hexadecimal digits are in the log, as printed.
    var buildID: Range<Int>?
    var imageOffset: UInt64?
    var form: FrameForm
    /// The function the line names (symbolized, or a dynamic symbol), for recognizing
    /// signal trampolines, and kept as the frame's `loggedName` when its form has none.
    var function: String?
    /// The byte offset of the replaced text, from the line's first byte.
    var restStart: Int
    /// For `#` lines: the line has a sanitizer's marks (`in `, two blanks after the address,
    /// a build-id).
    var sanitizer: Bool
    /// The line is a frame on its own; weak lines (`MODULE[0xADDR]` without a slash,
    /// `[0xADDR]`) only next to a run.
    var isStrong: Bool
    /// Where the module's lowest mapping starts, when the line tells.
    var moduleBase: UInt64?
    /// The line is a frame of a run whose address cannot be read (`0x1ffffffffffffffffff`,
    /// `0x`, an offset past 64 bits or past the address): a frame of its backtrace, left as it
    /// came; nothing else on its line stands in for its address.
    var unreadable = false

    /// A frame of `family` numbered `number` whose address cannot be read. Weak: it joins a
    /// run, and starts none.
    static func unreadable(_ family: Family, number: Int?) -> ParsedFrame {
        ParsedFrame(family: family, number: number, address: 0, module: nil, buildID: nil, imageOffset: nil, form: .unknown,
                    function: nil, restStart: 0, sanitizer: false, isStrong: false, unreadable: true)
    }
}

/// Reads single lines. `p..<e` is always a line's text without surrounding blanks or its
/// terminator; `lineStart` is the line's first byte.
private struct LineScanner {
    let b: UnsafeBufferPointer<UInt8>

    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        b = buffer
    }

    /// The text of the line `start..<end` (`end` its `contentEnd`, or any point between that
    /// and its "\n": a "\r" there is trimmed too): without a leading byte-order mark,
    /// surrounding blanks, or "\r".
    func content(_ start: Int, _ end: Int) -> (p: Int, e: Int) {
        var s = start
        if s == 0 { s = min(b.byteOrderMarkLength, end) }
        let p = b.skipBlanks(from: s, to: end)
        return (p, b.trimEnd(p, end))
    }

    // MARK: Apple reports

    private static let appleMarkers: [StaticString] = [
        "Incident Identifier:", "Binary Images:", "Exception Type:", "Exception Codes:",
        "Hardware Model:", "Crashed Thread:", "Triggered by Thread:", "Code Type:",
        "Last Exception Backtrace:", "Application Specific Backtrace",
    ]

    /// Whether a line is one only an Apple crash report has.
    func isAppleMarker(_ p: Int, _ e: Int) -> Bool {
        let first = b[p]
        guard first == 0x49 /* I */ || first == 0x42 /* B */ || first == 0x45 /* E */ || first == 0x48 /* H */
            || first == 0x43 /* C */ || first == 0x54 /* T */ || first == 0x4C /* L */ || first == 0x41 /* A */
        else { return false }
        if first == 0x54, b.matches("Thread ", at: p, end: e) {
            // "Thread 0 Crashed:"; a bare "Thread 3:" could head a Linux program's own dump.
            guard let (_, next) = b.decimalNumber(at: p + 7, end: e) else { return false }
            let q = b.skipBlanks(from: next, to: e)
            return b.matches("Crashed:", at: q, end: e)
        }
        return Self.appleMarkers.contains { b.matches($0, at: p, end: e) }
    }

    // MARK: Frames

    /// The frame a line holds, if any.
    func frame(lineStart: Int, _ p: Int, _ e: Int) -> ParsedFrame? {
        guard p < e else { return nil }
        if b[e - 1] == 0x5D /* ] */, let frame = glibcFrame(lineStart: lineStart, p, e) { return frame }
        if isDigit(b[p]) { return indexedFrame(lineStart: lineStart, p, e) }
        return numberedFrame(lineStart: lineStart, p, e)
    }

    /// `N  MODULE  0xADDR SYMBOL + DEC` or `N  MODULE  0xADDR <unavailable> + DEC`, the
    /// second an offset from the module's base (`dladdr`'s `dli_fbase`, its lowest mapping),
    /// which places the module (`moduleBase`). The line is a frame on its own with
    /// `<unavailable>` or a shared-library module (`.so`): an Apple report's frame lines have
    /// the same shape, but neither.
    private func indexedFrame(lineStart: Int, _ p: Int, _ e: Int) -> ParsedFrame? {
        guard let (number, afterNumber) = b.decimalNumber(at: p, end: e), number <= Int.max,
              afterNumber < e, isBlank(b[afterNumber])
        else { return nil }
        let moduleStart = b.skipBlanks(from: afterNumber, to: e)
        var moduleEnd = moduleStart
        while moduleEnd < e && !isBlank(b[moduleEnd]) { moduleEnd += 1 }
        let addressStart = b.skipBlanks(from: moduleEnd, to: e)
        guard moduleEnd > moduleStart, addressStart > moduleEnd else { return nil }
        let addressEnd = b.skipToken(from: addressStart, to: e)
        let nameStart = b.skipBlanks(from: addressEnd, to: e)
        var digits = e
        while digits > nameStart && isDigit(b[digits - 1]) { digits -= 1 }
        guard addressEnd < e, digits < e, digits - 3 > nameStart, b[digits - 1] == ASCII.space,
              b[digits - 2] == ASCII.plus, b[digits - 3] == ASCII.space
        else { return nil }
        // The frame's shape with an address or an offset that cannot be read.
        guard let (address, next) = b.hexNumber(at: addressStart, end: e), next == addressEnd,
              let (offset, _) = b.decimalNumber(at: digits, end: e)
        else {
            let readable = b.hexNumber(at: addressStart, end: e)?.next == addressEnd
            return readable || b.isUnreadableHexToken(addressStart, addressEnd)
                ? .unreadable(.indexed, number: Int(number)) : nil
        }
        let nameEnd = digits - 3
        let module = moduleStart..<moduleEnd
        var frame = ParsedFrame(family: .indexed, number: Int(number), address: address, module: module, buildID: nil,
                                imageOffset: nil, form: .unknown, function: nil, restStart: addressEnd - lineStart,
                                sanitizer: false, isStrong: false)
        if b.equals("<unavailable>", nameStart, nameEnd) {
            // An offset from the module's base past the address places the module nowhere.
            guard offset <= address else { return .unreadable(.indexed, number: Int(number)) }
            frame.moduleBase = address - offset
            frame.isStrong = true
        } else {
            let name = b.string(nameStart, nameEnd)
            frame.function = name
            frame.form = .symbol(name: name, offset: offset)
            frame.isStrong = isSharedLibrary(module)
        }
        return frame
    }

    /// `MODULE(SYMBOL+0xOFF)[0xADDR]`, `MODULE(+0xOFF) [0xADDR]`, `MODULE() [0xADDR]`,
    /// `MODULE[0xADDR]`, `[0xADDR]`, each after any prefix.
    private func glibcFrame(lineStart: Int, _ p: Int, _ e: Int) -> ParsedFrame? {
        // [0xADDR] at the end.
        var open = e - 2
        while open >= p && b[open] != 0x5B /* [ */ {
            guard b[open] != 0x5D && !isBlank(b[open]) else { return nil }
            open -= 1
        }
        guard open >= p, let (address, next) = b.hexNumber(at: open + 1, end: e - 1), next == e - 1 else { return nil }
        var frame = ParsedFrame(family: .glibc, number: nil, address: address, module: nil, buildID: nil,
                                imageOffset: nil, form: .unknown, function: nil, restStart: e - lineStart,
                                sanitizer: false, isStrong: false)
        var m = open
        if m > p && b[m - 1] == ASCII.space { m -= 1 }  // backtrace_symbols: "MODULE(...) [0x...]"
        guard m > p else { return frame }               // "[0xADDR]" alone
        if b[m - 1] == ASCII.closeParen {
            var paren = m - 2
            while paren >= p && b[paren] != ASCII.openParen {
                guard b[paren] != ASCII.closeParen && !isBlank(b[paren]) else { return nil }
                paren -= 1
            }
            guard paren >= p else { return nil }
            let moduleStart = moduleStart(before: paren, p)
            guard moduleStart < paren else { return nil }
            frame.module = moduleStart..<paren
            frame.isStrong = true
            let inner = paren + 1
            let innerEnd = m - 1
            if inner == innerEnd {
                // "()": no symbol and a load bias of 0, so the address is the link-time one.
                frame.imageOffset = address
                return frame
            }
            // SYMBOL+0xOFF, SYMBOL-0xOFF or +0xOFF: the sign is the last '+' or '-' before 0x.
            var sign = innerEnd - 1
            while sign >= inner && hexDigitValue(b[sign]) != nil { sign -= 1 }
            guard sign >= inner + 2, b[sign] == ASCII.lowerX || b[sign] == ASCII.upperX, b[sign - 1] == ASCII.zero,
                  b[sign - 2] == ASCII.plus || b[sign - 2] == ASCII.minus,
                  let (offset, end) = b.hexNumber(at: sign - 1, end: innerEnd), end == innerEnd
            else { return nil }
            let plus = b[sign - 2] == ASCII.plus
            let symbolEnd = sign - 2
            if symbolEnd == inner {
                if plus { frame.imageOffset = offset }
            } else {
                let name = b.string(inner, symbolEnd)
                frame.function = name
                if plus { frame.form = .symbol(name: name, offset: offset) }
            }
            return frame
        }
        guard !isBlank(b[m - 1]), m == open else { return frame }
        // "MODULE[0xADDR]" (backtrace_symbols_fd, no symbol, load bias 0).
        let moduleStart = moduleStart(before: open, p)
        frame.module = moduleStart..<open
        frame.imageOffset = address
        frame.isStrong = b[moduleStart..<open].contains(ASCII.slash)
        return frame
    }

    /// Whether the module at `module` is a shared library: its name ends in `.so` or has `.so.`.
    private func isSharedLibrary(_ module: Range<Int>) -> Bool {
        let e = module.upperBound
        return (e - module.lowerBound >= 3 && b.equals(".so", e - 3, e)) || b.firstIndex(of: ".so.", in: module) != nil
    }

    /// The start of the blank-free run that ends at `end`.
    private func moduleStart(before end: Int, _ p: Int) -> Int {
        var i = end
        while i > p && !isBlank(b[i - 1]) { i -= 1 }
        return i
    }

    /// `#N 0xADDR REST`, `#` at the line's start or after a blank.
    private func numberedFrame(lineStart: Int, _ p: Int, _ e: Int) -> ParsedFrame? {
        var hash = p
        while true {
            while hash < e && b[hash] != 0x23 /* # */ { hash += 1 }
            guard hash < e else { return nil }
            if hash == p || isBlank(b[hash - 1]) { break }
            hash += 1
        }
        guard let (number, afterNumber) = b.decimalNumber(at: hash + 1, end: e), number <= Int.max,
              afterNumber < e, isBlank(b[afterNumber])
        else { return nil }
        let addressStart = b.skipBlanks(from: afterNumber, to: e)
        let addressEnd = b.skipToken(from: addressStart, to: e)
        // `#3 0x1ffffffffffffffffff (prog+0x1234)`: a frame whose address cannot be read, not
        // ThreadSanitizer's address-less line, whose module offset would stand in for it.
        if b.isUnreadableHexToken(addressStart, addressEnd) { return .unreadable(.numbered, number: Int(number)) }
        guard let (address, next) = b.hexNumber(at: addressStart, end: e), next == addressEnd else {
            return hash == p ? threadSanitizerFrame(lineStart: lineStart, number: Int(number), addressStart, e) : nil
        }
        var frame = ParsedFrame(family: .numbered, number: Int(number), address: address, module: nil, buildID: nil,
                                imageOffset: nil, form: .unknown, function: nil, restStart: addressEnd - lineStart,
                                sanitizer: false, isStrong: false)
        let q = b.skipBlanks(from: addressEnd, to: e)
        guard q < e else { return frame }
        frame.sanitizer = q - addressEnd >= 2
        var end = e

        // A trailing "(BuildId: HEX)".
        if b[end - 1] == ASCII.closeParen, let (open, id) = buildID(q, end) {
            frame.buildID = id
            frame.sanitizer = true
            end = b.trimEnd(q, open)
        }

        // %L: "(MODULE+0xOFF)", "(<unknown module>)" or "FILE:LINE[:COLUMN]".
        var location: (file: String, line: Int)?
        var functionEnd = end
        if end > q && b[end - 1] == ASCII.closeParen {
            if let (open, module, offset) = moduleOffset(q, end) {
                frame.module = module
                frame.imageOffset = offset
                functionEnd = b.trimEnd(q, open)
            } else if let open = unknownModule(q, end) {
                functionEnd = b.trimEnd(q, open)
            }
        } else if let (tokenStart, file, line) = sourceLocation(q, end) {
            location = (file, line)
            functionEnd = b.trimEnd(q, tokenStart)
        }

        // %F: "in FUNCTION" (sanitizers) or "FUNCTION" (LLVM).
        var functionStart = q
        if b.matches("in ", at: q, end: functionEnd) || b.equals("in", q, functionEnd) {
            frame.sanitizer = true
            functionStart = b.skipBlanks(from: q + 2, to: functionEnd)
        }
        frame.isStrong = frame.module != nil || location != nil || functionStart > q
        guard functionStart < functionEnd else { return frame }
        var name = b.string(functionStart, functionEnd)
        var offset: UInt64?
        if let (value, plus) = trailingOffset(functionStart, functionEnd) {
            offset = value
            name = b.string(functionStart, plus)
        }
        frame.function = name
        if let location {
            frame.form = .symbolicated(name: name, offset: offset, file: location.file, line: location.line)
        } else if let offset {
            frame.form = .symbol(name: name, offset: offset)
        }
        return frame
    }

    /// ThreadSanitizer's `#N FUNCTION LOCATION (MODULE+0xOFF)` (its stack format is
    /// `    #%n %f %S %M`: no address), LOCATION being `FILE:LINE[:COLUMN]` or `<null>`, and
    /// FUNCTION `<null>` when unsymbolized. `q` is where FUNCTION starts. The frame's address
    /// is its module offset, the only one the line has; the replaced text starts at FUNCTION.
    private func threadSanitizerFrame(lineStart: Int, number: Int, _ q: Int, _ e: Int) -> ParsedFrame? {
        var end = e
        var buildID: Range<Int>?
        if b[end - 1] == ASCII.closeParen, let (open, id) = self.buildID(q, end) {
            buildID = id
            end = b.trimEnd(q, open)
        }
        guard end > q, b[end - 1] == ASCII.closeParen, let (open, module, offset) = moduleOffset(q, end) else { return nil }
        let textEnd = b.trimEnd(q, open)
        guard textEnd > q, textEnd < open else { return nil }
        var frame = ParsedFrame(family: .numbered, number: number, address: offset, module: module, buildID: buildID,
                                imageOffset: offset, form: .unknown, function: nil, restStart: q - lineStart,
                                sanitizer: true, isStrong: true)
        var locationStart = textEnd
        while locationStart > q && !isBlank(b[locationStart - 1]) { locationStart -= 1 }
        let functionEnd = b.trimEnd(q, locationStart)
        guard functionEnd > q, !b.equals("<null>", q, functionEnd) else { return frame }
        let name = b.string(q, functionEnd)
        frame.function = name
        if let (_, file, line) = sourceLocation(locationStart, textEnd) {
            frame.form = .symbolicated(name: name, offset: nil, file: file, line: line)
        }
        return frame
    }

    /// A trailing ` (BuildId: HEX)` ending at `e`: the position of `(` and where the digits are.
    private func buildID(_ p: Int, _ e: Int) -> (Int, Range<Int>)? {
        var open = e - 2
        while open > p && hexDigitValue(b[open]) != nil { open -= 1 }
        guard open < e - 2, open >= p + 10, b[open] == ASCII.space else { return nil }
        let label = open - 9  // "(BuildId:" is 9 bytes
        guard b.matches("(BuildId:", at: label, end: open) else { return nil }
        return (label, (open + 1)..<(e - 1))
    }

    /// The build-id whose digits are at `digits`, in lowercase.
    func buildID(at digits: Range<Int>) -> String {
        String(unsafeUninitializedCapacity: digits.count) { out in
            for (k, i) in digits.enumerated() {
                let byte = b[i]
                out[k] = byte &- 0x41 < 26 ? byte | 0x20 : byte
            }
            return digits.count
        }
    }

    /// A trailing `(MODULE+0xOFF)` ending at `e`, its `(` at `p` or after a blank: the
    /// position of `(`, where the module is and the offset.
    private func moduleOffset(_ p: Int, _ e: Int) -> (Int, Range<Int>, UInt64)? {
        var x = e - 2
        while x > p && hexDigitValue(b[x]) != nil { x -= 1 }
        guard x < e - 2, x >= p + 3, b[x] == ASCII.lowerX, b[x - 1] == ASCII.zero, b[x - 2] == ASCII.plus,
              let (offset, next) = b.hexNumber(at: x - 1, end: e - 1), next == e - 1
        else { return nil }
        let plus = x - 2
        var open = plus - 1
        while open >= p && !(b[open] == ASCII.openParen && (open == p || isBlank(b[open - 1]))) { open -= 1 }
        guard open >= p, open + 1 < plus else { return nil }
        return (open, (open + 1)..<plus, offset)
    }

    /// A trailing `(<unknown module>)`: the position of `(`.
    private func unknownModule(_ p: Int, _ e: Int) -> Int? {
        let length = 18  // "(<unknown module>)"
        guard e - p >= length, b.equals("(<unknown module>)", e - length, e),
              e - length == p || isBlank(b[e - length - 1])
        else { return nil }
        return e - length
    }

    /// A last token `FILE:LINE` or `FILE:LINE:COLUMN` in `p..<e`: the token's start, the file
    /// and the line.
    private func sourceLocation(_ p: Int, _ e: Int) -> (Int, String, Int)? {
        var tokenStart = e
        while tokenStart > p && !isBlank(b[tokenStart - 1]) { tokenStart -= 1 }
        func trailingNumber(_ end: Int) -> (value: UInt64, colon: Int)? {
            var i = end
            while i > tokenStart && isDigit(b[i - 1]) { i -= 1 }
            guard i < end, i - 1 > tokenStart, b[i - 1] == ASCII.colon,
                  let (value, _) = b.decimalNumber(at: i, end: end), value <= UInt64(Int.max)
            else { return nil }
            return (value, i - 1)
        }
        guard var number = trailingNumber(e) else { return nil }
        if let line = trailingNumber(number.colon) { number = line }
        return (tokenStart, b.string(tokenStart, number.colon), Int(number.value))
    }

    /// A trailing `+0xOFF` on a function name (`in foo+0x24`): the offset and the position
    /// of `+`.
    private func trailingOffset(_ p: Int, _ e: Int) -> (UInt64, Int)? {
        var x = e - 1
        while x > p && hexDigitValue(b[x]) != nil { x -= 1 }
        guard x < e - 1, x >= p + 3, b[x] == ASCII.lowerX, b[x - 1] == ASCII.zero, b[x - 2] == ASCII.plus,
              let (offset, next) = b.hexNumber(at: x - 1, end: e), next == e
        else { return nil }
        return (offset, x - 2)
    }
}

/// One pass over the lines of a log: runs of frame lines become threads.
private struct LogBuilder {
    let b: UnsafeBufferPointer<UInt8>
    let scanner: LineScanner
    var lines = LineRanges()
    var threads: [Backtrace] = []
    var images: [BinaryImage] = []

    /// The image of each module, by the number of its path in ``text``: a frame's module is
    /// found by its bytes, with no string made for it.
    private var imageOfName: [Int32: Int] = [:]
    /// Per image: whether it is the vDSO (``isSignalTrampoline(function:vdso:)``).
    private var imageIsVDSO: [Bool] = []
    /// The names of the log's frames, shared by the frames that print them.
    private let text: FrameText
    /// The family of the run being read; nil between runs.
    private var runFamily: Family?
    /// Whether a line of the current run has a sanitizer's marks.
    private var runIsSanitizer = false
    /// Per frame of the current run: whether its function or module names a signal trampoline,
    /// for setting return addresses once the run is complete (a flag, not the names: a run can
    /// be most of a large log).
    private var trampolines: [Bool] = []
    /// The first frame of the run made with its return-address flag already cleared, the run
    /// being a sanitizer's when it was added; nil while none was.
    private var sanitizerFrom: Int?
    /// Whether a frame of the run has the address of the one before it (an inlined frame of a
    /// symbolized log, a recursion): only then are inlined frames looked for.
    private var repeatsAddress = false
    /// The address of the run's last frame.
    private var lastAddress: UInt64 = 0
    /// Weak glibc lines seen outside a run, kept until a strong line confirms them.
    private var pending: [(line: Int, frame: ParsedFrame)] = []
    /// The last line that was neither blank nor a frame, while it is the line just read.
    private var previousText: (line: Int, p: Int, e: Int)?

    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        b = buffer
        scanner = LineScanner(buffer)
        text = FrameText(budgetFor: buffer.count)
    }

    mutating func run() {
        lines = LineRanges(b)
        for (lineIndex, range) in lines.enumerated() {
            handle(line: lineIndex, start: range.lowerBound, end: b.contentEnd(range))
            // A log too dense to read is refused as soon as its model passes its bound.
            if text.isOverBudget { return }
        }
        endRun()
    }

    /// Whether the log is too dense to read (``FrameText/isOverBudget``).
    var isOverBudget: Bool { text.isOverBudget }

    private mutating func handle(line: Int, start: Int, end: Int) {
        let (p, e) = scanner.content(start, end)
        guard p < e, !b.containsNUL(start..<end), let frame = scanner.frame(lineStart: start, p, e) else {
            endRun()
            pending.removeAll()
            previousText = p < e ? (line, p, e) : nil
            return
        }
        if let runFamily, runFamily == frame.family, !startsNewRun(frame) {
            add(frame, line: line)
            return
        }
        endRun()
        // A numbered line starts a run, unless its address cannot be read.
        if !frame.isStrong && (frame.family != .numbered || frame.unreadable) {
            pending.append((line, frame))
            return
        }
        pending.removeAll { $0.frame.family != frame.family }
        startRun(frame.family, header: pending.first.map { $0.line } ?? line)
        for (pendingLine, pendingFrame) in pending { add(pendingFrame, line: pendingLine) }
        pending.removeAll()
        add(frame, line: line)
    }

    /// A `#0` line starts a new backtrace, unless it repeats the `#0` line before it: the
    /// inlined frames of a log symbolicated by this tool keep their concrete frame's number.
    private func startsNewRun(_ frame: ParsedFrame) -> Bool {
        guard frame.family == .numbered, frame.number == 0 else { return false }
        guard let last = threads.last?.frames.last else { return true }
        return !(last.index == 0 && last.address == frame.address)
    }

    private mutating func startRun(_ family: Family, header firstLine: Int) {
        var name: String?
        var headerLine: Int?
        if let line = previousText, line.line == firstLine - 1 {
            // Held once per report when backtraces share it (a log of many alike reports).
            name = text[text.intern(b, line.p, line.e)]
            headerLine = line.line
        }
        previousText = nil
        text.charge(FrameText.backtraceCost)
        threads.append(Backtrace(kind: .thread(threads.count), name: name, crashed: threads.isEmpty,
                              headerLine: headerLine))
        runFamily = family
    }

    private mutating func add(_ parsed: ParsedFrame, line: Int) {
        var image: Int?
        var imageNameID: Int32 = -1
        if let module = parsed.module {
            imageNameID = text.intern(b, module.lowerBound, module.upperBound)
            if let existing = imageOfName[imageNameID] {
                image = existing
                if images[existing].uuid == nil, let id = parsed.buildID { images[existing].uuid = scanner.buildID(at: id) }
                if images[existing].loadAddress == 0, let base = parsed.moduleBase { images[existing].loadAddress = base }
            } else {
                // The image's path is the names table's string: one string for all the frames of a module.
                let path = text[imageNameID]
                image = images.count
                imageOfName[imageNameID] = images.count
                text.charge(FrameText.imageCost)
                images.append(BinaryImage(loadAddress: parsed.moduleBase ?? 0, endAddress: 0, name: String(basename(path)),
                                          uuid: parsed.buildID.map { scanner.buildID(at: $0) }, path: path, line: line,
                                          format: .elf))
                imageIsVDSO.append(Self.vdsoModules.contains(basename(path)))
            }
        }
        let t = threads.count - 1
        let position = threads[t].frames.count
        let address = parsed.unreadable ? 0 : parsed.address
        if position > 0, lastAddress == address { repeatsAddress = true }
        lastAddress = address
        if parsed.unreadable {
            trampolines.append(false)
            var frame = Frame.unreadable(index: parsed.number ?? position, imageName: nil, line: line, restStart: nil,
                                         text: text)
            if runIsSanitizer { frame.returnAddress = false }
            threads[t].frames.append(frame)
            return
        }
        var frame = Frame(index: parsed.number ?? position, imageNameID: imageNameID, address: parsed.address,
                          form: parsed.form, image: image, line: line, restStart: parsed.restStart,
                          imageOffset: parsed.imageOffset, text: text)
        // A sanitizer's, LLVM's or ThreadSanitizer's name without a location or offset (a glibc
        // `SYMBOL-0xOFF` names a function the address is not in).
        if parsed.family == .numbered, case .unknown = parsed.form { frame.loggedName = parsed.function }
        if parsed.sanitizer { runIsSanitizer = true }
        if runIsSanitizer {
            // Set now, not read back and changed at the end of the run.
            frame.returnAddress = false
            if sanitizerFrom == nil { sanitizerFrom = position }
        }
        trampolines.append(Self.isSignalTrampoline(function: parsed.function, vdso: image.map { imageIsVDSO[$0] } ?? false))
        threads[t].frames.append(frame)
    }

    /// Sets the return-address flags of the run just read. Sanitizer runs print addresses
    /// already moved to the call; glibc and LLVM runs print `backtrace()`'s return addresses,
    /// except after a signal trampoline.
    private mutating func endRun() {
        if runFamily != nil, !threads.isEmpty { threads[threads.count - 1].frames.shrinkToFit() }
        defer {
            runFamily = nil
            runIsSanitizer = false
            trampolines.removeAll()
            sanitizerFrom = nil
            repeatsAddress = false
        }
        guard runFamily != nil, let t = threads.indices.last else { return }
        if repeatsAddress { markInlinedFrames(of: t) }
        if runIsSanitizer {
            // Those added before a line showed the run was a sanitizer's.
            for f in 0..<(sanitizerFrom ?? threads[t].frames.count) { threads[t].frames[f].returnAddress = false }
            return
        }
        var afterTrampoline = false
        for f in threads[t].frames.indices {
            threads[t].frames[f].returnAddress = !afterTrampoline
            afterTrampoline = !afterTrampoline && trampolines[f]
        }
    }

    /// A symbolized sanitizer or LLVM log prints each inlined frame on a line of its own, with
    /// the address of the concrete frame that follows it. A frame is taken for inlined when the
    /// next one has its address and names another function (a recursive call from one call site
    /// repeats the address, but also the function).
    private mutating func markInlinedFrames(of t: Int) {
        let frames = threads[t].frames
        for f in frames.indices.dropLast() where frames[f].address == frames[f + 1].address {
            guard case .symbolicated(let name, _, _, _) = frames[f].form,
                  case .symbolicated(let next, _, _, _) = frames[f + 1].form, name != next
            else { continue }
            threads[t].frames[f].inlined = true
        }
    }

    private static let vdsoModules: Set<Substring> = [
        "linux-vdso.so.1", "linux-gate.so.1", "linux-vdso64.so.1", "linux-vdso32.so.1", "[vdso]",
    ]

    /// A frame in the kernel's signal return path: by its function name, or a vDSO frame that
    /// does not itself follow a trampoline (vDSO code calls nothing, so in a backtrace it is
    /// either the sigreturn trampoline or a PC interrupted by a signal).
    static func isSignalTrampoline(function: String?, vdso: Bool) -> Bool {
        if let function, SignalTrampoline.names.contains(function) { return true }
        return vdso
    }
}
