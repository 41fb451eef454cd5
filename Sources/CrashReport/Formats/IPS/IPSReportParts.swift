/// The model of an `.ips` report, gathered while `IPSTranslator` writes its text: the header
/// fields, the backtraces with their frames and each frame's JSON object, the images. The
/// report is made from these, not by parsing the text back: what the classic parser would read
/// of the text, each value taken from the JSON member it was written from.
///
/// Only the strings of `asiBacktraces`, which the JSON holds as text, are read as text: their
/// lines are read by the classic parser's rules once the whole text is written (`finish`).
struct IPSReportParts {
    /// The header's `Key: value` fields, each value as the text holds it (escaped, without the
    /// blanks around it).
    var header: [(key: String, value: String)] = []
    var codeType: String?
    /// The thread number `Triggered by Thread` gives.
    var crashedFromHeader: Int?
    /// The backtraces written from JSON frame objects (the Last Exception Backtrace, the
    /// threads), in the order of the text.
    var backtraces: [Backtrace] = []
    /// The JSON objects of the frames of `backtraces`, in turn: frame `f` of `backtraces[b]`
    /// has `objects[firstObject[b] + f]`, its first and last-plus-one offsets.
    var objects: [(UInt32, UInt32)] = []
    var firstObject: [Int] = []
    /// Where among `backtraces` the text backtraces go, and their lines: from the header line
    /// `Application Specific Backtrace N:` to the last line of the string.
    var textBacktraceSlot: Int?
    var textBacktraceLines: [Range<Int>] = []
    /// For a concrete frame (`backtraces` index, frame index): the frames inlined into it whose
    /// objects come right before its own, in document order.
    var inlined: [(concrete: FrameKey, inlined: [FrameKey])] = []
    var images: [BinaryImage] = []

    /// The report's backtraces, frame objects and inlined frames, with the text backtraces in
    /// their place, read from `text` (the whole translation, its lines `lines`).
    ///
    /// The backtraces and objects are moved out, not copied (a report can have hundreds of
    /// thousands of threads): `backtraces` and `objects` are empty after it.
    mutating func finish(text: [UInt8], lines: LineRanges, names: FrameText)
        -> (threads: [Backtrace], crashedThread: Int?, objects: IPSDocument.FrameObjects, inlined: [FrameKey: [FrameKey]]) {
        var read: [Backtrace] = []
        text.withUnsafeBufferPointer { b in
            for range in textBacktraceLines {
                read += ClassicReportParser.backtraces(in: b, lines: lines, range: range, text: names)
            }
        }
        let slot = textBacktraceSlot ?? backtraces.count
        var threads: [Backtrace] = []
        swap(&threads, &backtraces)
        if !read.isEmpty { threads.insert(contentsOf: read, at: slot) }
        func moved(_ key: FrameKey) -> FrameKey {
            key.thread < slot ? key : FrameKey(thread: key.thread + read.count, frame: key.frame)
        }
        // The text backtraces' frames have no objects: their threads hold none of `objects`.
        var firstFrame = Array(firstObject[..<slot])
        firstFrame.reserveCapacity(firstObject.count + read.count + 1)
        firstFrame += repeatElement(slot < firstObject.count ? firstObject[slot] : objects.count, count: read.count)
        firstFrame += firstObject[slot...]
        firstFrame.append(objects.count)
        var inlinedFrames: [FrameKey: [FrameKey]] = [:]
        for (concrete, keys) in inlined { inlinedFrames[moved(concrete)] = keys.map(moved) }

        // As the classic parser: the header's thread, else the first thread marked crashed.
        var crashed = crashedFromHeader
        if crashed == nil {
            for thread in threads where thread.crashed {
                if case .thread(let number) = thread.kind { crashed = number; break }
            }
        }
        if let crashed {
            for t in threads.indices where threads[t].kind == .thread(crashed) { threads[t].crashed = true }
        }
        var frames: [(UInt32, UInt32)] = []
        swap(&frames, &objects)
        return (threads, crashed, IPSDocument.FrameObjects(firstFrame: firstFrame, frames: frames), inlinedFrames)
    }

    /// `string` as the text holds it (``OutputEscaping``) and the classic parser reads it back:
    /// without the blanks around it.
    static func asWritten(_ string: String) -> String {
        var bytes: [UInt8] = []
        OutputEscaping.append(string, to: &bytes)
        return bytes.withUnsafeBufferPointer { b in
            let p = b.skipBlanks(from: 0, to: b.count)
            return b.string(p, b.trimEnd(p, b.count))
        }
    }

    /// The number a `Triggered by Thread` value starts with, as the classic parser reads it.
    static func threadNumber(_ value: String) -> Int? {
        var copy = value
        return copy.withUTF8 { b in
            guard let (number, _) = b.decimalNumber(at: 0, end: b.count), number <= Int.max else { return nil }
            return Int(number)
        }
    }
}
