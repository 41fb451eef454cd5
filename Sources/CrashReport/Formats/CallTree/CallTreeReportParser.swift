/// Parses the text reports that hold call trees of sampled stacks rather than one backtrace per
/// thread: spindump and hang reports, microstackshot reports (`.cpu_resource.diag`,
/// `.wakeups_resource.diag`, `.diskwrites_resource.diag`, the bug_type 145/202 `.ips` files that
/// carry them) and the output of macOS `sample`.
///
///     Heaviest stack for the target process:                     <- a flat list, caller first
///       16  ??? (App + 16900) [0x104a34204]
///     Powerstats for:   App [1234]                               <- names the tree that follows
///       16  ??? (libdyld.dylib + 5512) [0x1a6d7a588]             <- a tree: deeper is callee
///         16  ??? (App + 16900) [0x104a34204] 1-16
///        *16  ??? (kernel + 1234) [0xfffffff007a1c5e0]           <- `*`: a kernel frame
///          *16  ??? [0xffffff80002c1206]                         <- a frame in no known image
///       Binary Images:
///              0x104a30000 -        ???  com.example.App 1.0 (1) <4C4C44C3-...> /.../App
///
///     Call graph:                                                <- sample
///         2757 Thread_1166804   DispatchQueue_1: com.apple.main-thread  (serial)
///         + 2757 ???  (in App)  load address 0x104a30000 + 0x4204  [0x104a34204]
///
/// Every frame line becomes a `Frame` of a `Thread` (one per thread header, heaviest stack or
/// process tree), with the node's sample count and the places of its parts in
/// `CrashReport.callTree`. A frame's image is found the way the report means it: the image and
/// offset it names (`App + 16900`, `<UUID> + 16900`, sample's `load address 0x... + 0x...`) put
/// its base at address − offset, and the image listed at that base — or with that UUID, or that
/// name, in the Binary Images block of the frame's process — is its image; the debug file is
/// asked about the offset (`Frame.imageOffset`). A node with children holds a return address; a
/// leaf, and the last line of a heaviest stack, the sampled PC.
///
/// Every other line — headers, `<on behalf of ...>` state lines, the sample's sorted summaries —
/// is kept for the renderer to print as it is.
public enum CallTreeReportParser {
    /// Whether the text has a line (blanks aside) that opens a call tree: `Call graph:`,
    /// `Heaviest stack for ...`, or `Data Source: Stackshots` / `Microstackshots`.
    public static func looksLikeCallTree(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            var found = false
            b.forEachLine { line in
                let end = line.upperBound - (b[line.upperBound - 1] == ASCII.newline ? 1 : 0)
                let p = b.skipBlanks(from: line.lowerBound, to: end)
                found = p < end && CallTreeLine.opensCallTree(b, p, end)
                return !found
            }
            return found
        }
    }

    /// Parses the call-tree report `bytes`, read from `path`.
    ///
    /// - Throws: the errors of `ClassicReportParser.checkText` (empty or binary input).
    public static func parse(_ bytes: [UInt8], path: String) throws -> CrashReport {
        try bytes.withUnsafeBufferPointer { buffer in
            try ClassicReportParser.checkText(buffer, path: path)
            var parser = CallTreeLineParser(buffer)
            parser.run()
            if parser.text.isOverBudget { throw FrameText.tooDense(path: path, threads: parser.threads, images: parser.images) }
            var report = CrashReport(
                path: path, bytes: bytes, lines: parser.lines, header: parser.header, codeType: parser.codeType,
                threads: parser.threads, images: BinaryImageLine.closingOpenEnds(parser.images),
                source: .callTree(CallTreeDocument(style: parser.style ?? .spindump, nodes: parser.nodes)))
            CallTreeImages.place(&report, parser.placements, imageBlocks: parser.imageBlocks,
                                 blockStarts: parser.blockStarts)
            if report.threads.allSatisfy({ $0.frames.isEmpty }) {
                report.warnings.append("\(path): a sampled call-tree report (spindump, sample or microstackshot) "
                                       + "with no frame lines it can read; written as it is")
            }
            return report
        }
    }
}

/// What a frame line says about its image, for `CallTreeImages` once every image is known.
struct CallTreePlacement {
    /// The image name as the line prints it.
    var imageName: String?
    /// The UUID of a `<UUID> + OFFSET` image.
    var uuid: String?
    /// The frame's offset from its image's base, when the line gives one.
    var imageOffset: UInt64?
    /// Whether the line gives the frame's absolute address.
    var hasAddress: Bool
}

/// The state of one pass over a call-tree report's lines.
private struct CallTreeLineParser {
    let b: UnsafeBufferPointer<UInt8>
    var lines: LineRanges
    var header: [(key: String, value: String)] = []
    var codeType: String?
    var threads: [Backtrace] = []
    var nodes: [[CallTreeDocument.Node]] = []
    var placements: [[CallTreePlacement]] = []
    var images: [BinaryImage] = []
    /// For each image, the index of its "Binary Images:" block.
    var imageBlocks: [Int] = []
    /// The line of each "Binary Images:" header.
    var blockStarts: [Int] = []
    var style: CallTreeDocument.Style?
    let text: FrameText

    /// The thread frame lines go to.
    private var current: Int?
    /// Whether the current thread is a heaviest stack: one flat list, caller first.
    private var flat = false
    /// The columns of the current thread's open nodes, outermost first.
    private var columns: [Int] = []
    /// The column of each frame of the current thread.
    private var frameColumns: [Int] = []
    private var inImages = false
    private var inHeader = true
    /// The process named by the last `Powerstats for:` / `Process:` line.
    private var processName: String?

    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        b = buffer
        lines = LineRanges(buffer)
        text = FrameText(budgetFor: buffer.count)
    }

    mutating func run() {
        for lineIndex in lines.indices {
            let range = lines[lineIndex]
            var start = range.lowerBound
            if lineIndex == 0 { start += b.byteOrderMarkLength }
            let p = b.skipBlanks(from: start, to: range.upperBound)
            let e = b.trimEnd(p, b.contentEnd(range))
            if p == e {
                endThread()
                inImages = false
                continue
            }
            if b.containsNUL(range) { continue }
            handle(line: lineIndex, start: range.lowerBound, p: p, e: e)
            // A file too dense to read is refused as soon as its model passes its bound.
            if text.isOverBudget { return }
        }
        endThread()
    }

    private mutating func handle(line: Int, start: Int, p: Int, e: Int) {
        if inImages {
            if let image = BinaryImageLine.parse(b, p, e, line: line) {
                images.append(image)
                imageBlocks.append(blockStarts.count - 1)
                text.charge(FrameText.imageCost)
                return
            }
            inImages = false
        }
        if b.matches("Binary Images:", at: p, end: e) {
            endThread()
            inImages = true
            inHeader = false
            blockStarts.append(line)
            return
        }
        if b.matches("Heaviest stack for", at: p, end: e) {
            var end = e
            if b[end - 1] == ASCII.colon { end -= 1 }
            startThread(name: b.string(p, end), flat: true, line: line)
            return
        }
        if b.matches("Thread 0x", at: p, end: e) {
            startThread(name: b.string(p, e), flat: false, line: line)
            return
        }
        if let name = CallTreeLine.sampleThreadHeader(b, p, e) {
            startThread(name: name, flat: false, line: line)
            return
        }
        if let parsed = CallTreeLine.frame(b, lineStart: start, p, e) {
            if current == nil { startThread(name: processName, flat: false, line: nil) }
            add(parsed, line: line)
            return
        }
        if p == start, let (key, value) = CallTreeLine.headerEntry(b, p, e) {
            if key == "Powerstats for" || key == "Process" { processName = value }
            guard inHeader else { return }
            header.append((key: key, value: value))
            if key == "Code Type" || (key == "Architecture" && codeType == nil) { codeType = value }
        }
    }

    private mutating func startThread(name: String?, flat: Bool, line: Int?) {
        endThread()
        threads.append(Backtrace(kind: .thread(threads.count), name: name, headerLine: line))
        nodes.append([])
        placements.append([])
        text.charge(FrameText.backtraceCost + 2 * 64)
        current = threads.count - 1
        self.flat = flat
        inHeader = false
    }

    private mutating func add(_ parsed: CallTreeLine.Parsed, line: Int) {
        guard let t = current else { return }
        // A line naming no image has the spindump shape in either layout: it does not tell.
        if style == nil, !parsed.node.image.isEmpty { style = parsed.style }
        let index: Int
        if flat {
            index = threads[t].frames.count
        } else {
            while let last = columns.last, last >= parsed.column { columns.removeLast() }
            columns.append(parsed.column)
            index = columns.count - 1
        }
        frameColumns.append(parsed.column)
        let imageName = parsed.imageName.map { text[text.intern(b, $0.lowerBound, $0.upperBound)] }
        var frame = Frame(index: index, imageName: imageName, address: parsed.address ?? 0, form: parsed.form, line: line,
                          restStart: parsed.restStart, text: text)
        frame.addressUnknown = parsed.addressUnknown
        threads[t].frames.append(frame)
        nodes[t].append(parsed.node)
        text.charge(MemoryLayout<CallTreeDocument.Node>.stride + MemoryLayout<CallTreePlacement>.stride + MemoryLayout<Int>.stride)
        placements[t].append(CallTreePlacement(
            imageName: imageName, uuid: parsed.uuid, imageOffset: parsed.imageOffset,
            hasAddress: parsed.address != nil))
    }

    /// Ends the current thread: a node with a deeper node right after it is a caller, so its
    /// address is a return address; a leaf (and the last line of a heaviest stack) is the
    /// sampled PC.
    private mutating func endThread() {
        guard let t = current else { return }
        let count = threads[t].frames.count
        for f in 0..<count {
            let leaf = f == count - 1 || (!flat && frameColumns[f + 1] <= frameColumns[f])
            threads[t].frames[f].returnAddress = !leaf
        }
        threads[t].frames.shrinkToFit()
        current = nil
        columns.removeAll(keepingCapacity: true)
        frameColumns.removeAll(keepingCapacity: true)
    }
}
