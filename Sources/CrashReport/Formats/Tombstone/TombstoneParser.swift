/// Parses Android tombstones in their text form: the crash dump `debuggerd` / `crash_dump`
/// writes to `/data/tombstones/tombstone_NN` and to logcat, as `adb bugreport` and the Play
/// Console give it.
///
/// ## The text
///
///     *** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***
///     Build fingerprint: 'google/redfin/redfin:13/TQ3A.230805.001/10316531:user/release-keys'
///     ABI: 'arm64'
///     Timestamp: 2023-11-20 10:00:00.123456789+0100
///     pid: 4242, tid: 4242, name: example  >>> com.example <<<
///     signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0000000000000000
///     Cause: null pointer dereference
///         x0  0000000000000000  x1  0000007fd2c1a1b8  ...                      registers
///     backtrace:
///           #00 pc 000000000000433c  /data/app/~~x==/com.example-y==/lib/arm64/libcrashy.so (cart_total+36) (BuildId: 5f0e...)
///           #01 pc 00000000000043d8  /data/app/~~x==/com.example-y==/base.apk!libcrashy.so (offset 0x4000) (BuildId: 5f0e...)
///     stack:                                                                     no frames from here
///              0000007fd2c1a0b0  0000000000000000
///         #00  0000007fd2c1a0f0  0000007fd2c1a110
///     memory near x1 ([stack]):
///     --- --- --- --- --- --- --- --- --- --- --- --- --- --- --- ---
///     pid: 4242, tid: 4250, name: RenderThread  >>> com.example <<<              the next thread
///     backtrace:
///           #00 pc ...
///     memory map (321 entries):
///     open files:
///     --------- log main                                                         logcat, to the end
///
/// Frame lines are read as `TombstoneLine` says, anywhere but in the sections that hold
/// memory, maps, files or logcat (`stack:`, `memory near`, `code around`, `memory map`,
/// `open files:`, the `---------` log); those end at the next thread's header, `backtrace:`,
/// `--- --- ---` or tombstone, and the log at the next tombstone or `--- --- ---` (Android 12
/// and later print the tail end of the log between the crashed thread and the others). Android before 4.1 printed
/// frames right after the registers, without `backtrace:`. The same text behind logcat's
/// prefixes (`TombstoneLine`), with CRLF line ends, among other lines, is read the same way.
///
/// ## Addresses
///
/// The pc is the frame's address relative to the ELF's load bias: for a library whose first
/// `PT_LOAD` is at 0, its virtual address, which its DWARF uses. For every frame after `#00`,
/// libunwindstack has already moved the return address back onto the call (by 4 bytes on
/// arm64 and ARM, 2 or 4 in Thumb code keeping the Thumb bit, 1 on x86 and x86-64;
/// `Unwinder::Unwind`, which also names the function at that moved pc), so every frame is
/// looked up as printed (`returnAddress` false), with no further step back.
///
/// Older Android differs: before Android 8 (debuggerd's own unwinder, then libbacktrace)
/// the pcs of frames after `#00` were return addresses, and ndk-stack then looked them up
/// one instruction back; android/ndk#1366 discusses how ndk-stack treats them. A tombstone
/// does not say which unwinder wrote it, so this parser keeps the one rule: a frame after
/// `#00` of an old tombstone resolves at the instruction after its call, which is the same
/// line unless the call ends a line or an inlined call.
///
/// ## The model
///
/// Each backtrace is one `Thread` (`.thread(0)`, `.thread(1)`, ... in order), named by its
/// thread's `pid: ..., tid: ...` line (or its `allocated by thread N:` line), which is its
/// header line; a `#00` line starts a new one. The first backtrace of each tombstone is the
/// crashed thread. Each mapped file, with the offset where its ELF starts, is one ELF
/// `BinaryImage`: named by its file name, or for a library loaded from inside its APK
/// (`base.apk!libfoo.so`) by the library's (`libfoo.so`, the path kept as printed); its
/// `uuid` the build-id a frame gives; its `arch` the `ABI:` line's (arm64, armv7 for `arm`,
/// i386 for `x86`, x86_64, riscv64); no address range. A frame's `imageOffset` is its pc, its
/// form `FUNCTION + OFFSET` when the device named it (the report's own evidence about the
/// file that crashed: ``ReportSource/tombstone``), and `restStart` the end of its line's
/// text, so that the renderer adds to the line and replaces nothing of it
/// (`TextRenderer+Tombstone.swift`). A frame whose pc cannot be read, whose number does not
/// fit in 32 bits or whose groups are cut short is kept with no image: left as it is.
///
/// The header's `Build fingerprint`, `ABI`, `Timestamp`, `Cmdline`, `Abort message` and
/// `Cause` of the first tombstone are kept, with what grouping reads: `Exception Type`
/// (`SIGSEGV (SEGV_MAPERR)`), `OS Version` (the fingerprint), `Process`, and `Path` when the
/// process is a path.
///
/// Protobuf tombstones (`tombstone_NN.pb`, Android 12+) are not read: they are binary, and
/// the tool refuses them as it refuses any input that is not text.
public enum TombstoneParser {
    /// Whether `bytes` hold a tombstone: its `*** *** ***` opening line with a thread header
    /// (`pid: N, tid: N`) or a frame line (`#00 pc 0000...`), or a thread header and a frame
    /// line, behind logcat's prefixes or not.
    public static func looksLikeTombstone(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            // Each of the pairs below needs a thread header or the opening line: a report
            // with neither is no tombstone, known without reading its lines.
            guard b.contains("pid: ") || b.contains("*** *** *** ***") else { return false }
            let reader = TombstoneLineReader(b)
            var start = false, thread = false, frame = false
            b.forEachLine { range in
                guard let line = reader.read(range) else { return true }
                switch line.kind {
                case .start: start = true
                case .thread: thread = true
                case .frame(let parsed): if parsed.pc != nil { frame = true }
                default: break
                }
                return !((start && (thread || frame)) || (thread && frame))
            }
            return (start && (thread || frame)) || (thread && frame)
        }
    }

    /// Parses `bytes`, the contents of the file at `path`.
    ///
    /// Never throws on odd content: lines that are not frames are kept as text.
    /// - Throws: `ReportError.empty(path)` or `ReportError.notAReport(path)` as
    ///   `ClassicReportParser.checkText` decides. Lines with a NUL byte are kept but never read.
    public static func parse(_ bytes: [UInt8], path: String) throws -> CrashReport {
        try bytes.withUnsafeBufferPointer { b in
            try ClassicReportParser.checkText(b, path: path)
            var builder = TombstoneBuilder(b)
            builder.run()
            if builder.text.isOverBudget { throw FrameText.tooDense(path: path, threads: builder.threads, images: builder.images) }
            return CrashReport(path: path, bytes: bytes, lines: builder.lines, header: builder.header,
                               crashedThread: builder.threads.firstIndex(where: \.crashed),
                               threads: builder.threads, images: builder.images, source: .tombstone)
        }
    }

    /// The architecture name an `ABI:` line's value stands for (`Architecture`'s names).
    static func architecture(abi: String) -> String? {
        switch abi {
        case "arm64", "arm64-v8a": return "arm64"
        case "arm", "armeabi", "armeabi-v7a": return "armv7"
        case "x86": return "i386"
        case "x86_64": return "x86_64"
        case "riscv64": return "riscv64"
        default: return nil
        }
    }
}

/// One pass over a tombstone's lines.
private struct TombstoneBuilder {
    let b: UnsafeBufferPointer<UInt8>
    let reader: TombstoneLineReader
    var lines = LineRanges()
    var threads: [Backtrace] = []
    var images: [BinaryImage] = []
    var header: [(key: String, value: String)] = []

    /// Images by map and ELF offset.
    private var imageIndex: [String: Int] = [:]
    let text: FrameText
    /// The thread frames are added to; nil between backtraces.
    private var current: Int?
    /// Per frame of the current thread: the earlier resolution its line carries.
    private var resolvedLines: [TombstoneFrameLine.Resolution?] = []
    /// In a section that holds no frames; `log` is whether it is the logcat section, and
    /// `prefixed` whether the line that opened it had a logcat prefix.
    private var excluded: (log: Bool, prefixed: Bool)?
    /// The header line and name of the next backtrace, and whether it is a thread's.
    private var nextHeader: (line: Int, name: String, thread: Bool)?
    /// The last `pid: ..., tid: ...` line: the thread `backtrace:` names.
    private var threadHeader: (line: Int, name: String)?
    /// The next backtrace is the first of its tombstone: the crashed thread's.
    private var crashedNext = true
    /// The current tombstone's architecture (from `ABI:`).
    private var architecture: String?
    /// Tombstones started so far: the header is the first one's.
    private var tombstones = 0

    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        b = buffer
        reader = TombstoneLineReader(buffer)
        text = FrameText(budgetFor: buffer.count)
    }

    mutating func run() {
        lines = LineRanges(b)
        for (index, range) in lines.enumerated() where !b.containsNUL(range) {
            guard let line = reader.read(range) else { continue }
            handle(line, index: index, range: range)
            // A file too dense to read is refused as soon as its model passes its bound.
            if text.isOverBudget { return }
        }
        endThread()
    }

    private mutating func handle(_ line: TombstoneLine, index: Int, range: Range<Int>) {
        if let section = excluded, section.log {
            // The logcat section ends at the next tombstone: one written as its opening line
            // was (a tombstone's log holds other crashes' DEBUG lines, behind logcat's prefix).
            // Android 12 and later print the tail end of the log right after the crashed
            // thread: a `--- --- ---` written as the opening line was ends it, and the other
            // threads follow.
            switch line.kind {
            case .start: guard !line.prefixed || section.prefixed else { return }
            case .separator: guard line.prefixed == section.prefixed else { return }
            default: return
            }
        }
        switch line.kind {
        case .start:
            endThread()
            excluded = nil
            tombstones += 1
            crashedNext = true
            threadHeader = nil
            nextHeader = nil
            architecture = nil
        case .thread(let process):
            endThread()
            excluded = nil
            let name = lineText(range, line)
            threadHeader = (index, name)
            nextHeader = (index, name, true)
            if tombstones <= 1, let process, !header.contains(where: { $0.key == "Process" }) {
                header.append((key: "Process", value: process))
                if process.hasPrefix("/") { header.append((key: "Path", value: process)) }
            }
        case .backtrace:
            endThread()
            excluded = nil
            nextHeader = threadHeader.map { ($0.line, $0.name, true) }
        case .otherBacktrace:
            endThread()
            excluded = nil
            nextHeader = (index, lineText(range, line), false)
        case .separator:
            endThread()
            excluded = nil
            threadHeader = nil
            nextHeader = nil
        case .section, .log:
            endThread()
            if excluded == nil { excluded = (line.kind == .log, line.prefixed) }
        case .field(let key, let value):
            if key == "ABI" { architecture = TombstoneParser.architecture(abi: value) }
            addHeader(key, value)
            if key == "Build fingerprint" { addHeader("OS Version", value) }
        case .signal(let name, let code):
            addHeader("Signal", lineText(range, line))
            if let name { addHeader("Exception Type", code.map { "\(name) (\($0))" } ?? name) }
        case .frame(let frame):
            guard excluded == nil else { return }
            add(frame, line: index)
        case .text:
            break
        }
    }

    /// The text of a line after its logcat prefix, without surrounding blanks.
    private func lineText(_ range: Range<Int>, _ line: TombstoneLine) -> String {
        let end = b.contentEnd(range)
        let p = b.skipBlanks(from: range.lowerBound + line.textStart, to: end)
        return b.string(p, b.trimEnd(p, end))
    }

    /// Keeps the first tombstone's `key`, once.
    private mutating func addHeader(_ key: String, _ value: String) {
        guard tombstones <= 1, !header.contains(where: { $0.key == key }) else { return }
        header.append((key: key, value: value))
    }

    private mutating func add(_ parsed: TombstoneFrameLine, line: Int) {
        if let t = current, parsed.number == 0, let last = threads[t].frames.last,
           !(last.index == 0 && last.address == parsed.pc
             && Self.isInlinedLine(resolvedLines.last ?? nil, before: parsed.resolved)) {
            endThread()
        }
        if current == nil { startThread() }
        let t = current!
        let position = threads[t].frames.count
        resolvedLines.append(parsed.resolved)
        guard let pc = parsed.pc, let number = parsed.number else {
            threads[t].frames.append(Frame.unreadable(index: parsed.number ?? position, imageName: nil, line: line,
                                                      restStart: nil, text: text))
            return
        }
        let image = parsed.damaged ? nil : self.image(of: parsed, line: line)
        let form: FrameForm
        if let resolved = parsed.resolved, let file = resolved.file {
            form = .symbolicated(name: resolved.function, offset: nil, file: file, line: resolved.line)
        } else if let function = parsed.function, !function.isEmpty {
            form = .symbol(name: function, offset: parsed.functionOffset ?? 0)
        } else {
            form = .unknown
        }
        threads[t].frames.append(Frame(index: number, imageName: image.flatMap { images[$0].path } ?? parsed.map,
                                       address: pc, form: form, image: image, line: line, restStart: parsed.restStart,
                                       imageOffset: image == nil ? nil : pc, returnAddress: false, text: text))
    }

    /// The image of a frame's map: one per map and ELF offset.
    private mutating func image(of parsed: TombstoneFrameLine, line: Int) -> Int? {
        guard let map = parsed.map else { return nil }
        let key = parsed.elfOffset.map { "\(map)\u{0}\($0)" } ?? map
        if let known = imageIndex[key] {
            if images[known].uuid == nil, let id = parsed.buildID { images[known].uuid = id }
            return known
        }
        let file = String(basename(map))
        var name = file
        if let bang = file.lastIndex(of: "!"), file.index(after: bang) < file.endIndex {
            name = String(file[file.index(after: bang)...])
        } else if let offset = parsed.elfOffset {
            name = "\(file) (offset 0x\(String(offset, radix: 16)))"
        }
        imageIndex[key] = images.count
        text.charge(FrameText.imageCost)
        images.append(BinaryImage(loadAddress: 0, endAddress: 0, name: name, arch: architecture, uuid: parsed.buildID,
                                  path: map, line: line, format: .elf))
        return images.count - 1
    }

    private mutating func startThread() {
        let header = nextHeader
        nextHeader = nil
        let crashed = crashedNext && header?.thread != false
        if header?.thread != false { crashedNext = false }
        text.charge(FrameText.backtraceCost)
        threads.append(Backtrace(kind: .thread(threads.count), name: header?.name, crashed: crashed,
                              headerLine: header?.line))
        current = threads.count - 1
    }

    /// Whether a line this tool resolved as `line` is an inlined frame of the next line,
    /// resolved as `next`, given that both have one number and pc: they say two things (a
    /// tombstone never repeats a line, and one that does anyway resolves alike both times).
    private static func isInlinedLine(_ line: TombstoneFrameLine.Resolution?,
                                      before next: TombstoneFrameLine.Resolution?) -> Bool {
        guard let line, let next else { return false }
        return line != next
    }

    /// Closes the current thread: its frames kept tight, and the lines an earlier resolution
    /// wrote for inlined frames (the same number, pc and map as the next line's: an earlier
    /// resolution repeats the whole line before its text) marked inlined.
    private mutating func endThread() {
        defer {
            current = nil
            resolvedLines.removeAll()
        }
        guard let t = current else { return }
        let frames = threads[t].frames
        for f in frames.indices.dropLast() where Self.isInlinedLine(resolvedLines[f], before: resolvedLines[f + 1]) {
            let (this, next) = (frames[f], frames[f + 1])
            if !this.addressUnknown, this.index == next.index, this.address == next.address, next.line == this.line + 1,
               this.imageName == next.imageName {
                threads[t].frames[f].inlined = true
            }
        }
        threads[t].frames.shrinkToFit()
    }
}
