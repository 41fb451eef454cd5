/// Writes a symbolicated `.ips` report back as `.ips`: the original document, byte for byte,
/// with each resolved frame's JSON object rewritten.
///
/// A resolved frame object keeps its other members as they were and gets `symbol`,
/// `symbolLocation` (the offset into the function), `sourceFile` (the file name, or the full
/// path with `fullPath`) and `sourceLine`, replacing any it had. Each inlined source frame gets
/// an object of its own before it, with the same `imageOffset` and `imageIndex` and
/// `"inline":true`, in place of the inlined-frame objects the frame had:
///
///     {"imageOffset":16900,"imageIndex":0}
///
/// becomes
///
///     {"imageOffset":16900,"symbol":"load_word","symbolLocation":20,"sourceFile":"parser.c","sourceLine":12,"inline":true,"imageIndex":0},
///     {"imageOffset":16900,"imageIndex":0,"symbol":"parse_record","symbolLocation":20,"sourceFile":"parser.c","sourceLine":31}
///
/// New members and objects follow the spacing of the object they join, so a pretty-printed
/// document stays pretty-printed. The strings of `asiBacktraces` hold backtraces as text; their
/// resolved lines are rewritten as `TextRenderer` rewrites a report's. A document with nothing
/// resolved comes back unchanged. A piece of a report read in pieces writes back its window of
/// the document (``IPSDocument/window``).
public enum IPSRenderer {
    /// Appends `document`, the JSON `.ips` report `symbolicated` was read from
    /// (``ReportSource/ips(_:)``), with the resolved frames written in, to `out`. With `flush`,
    /// hands it on as it goes (``OutputFlush``).
    public static func render(_ symbolicated: SymbolicatedReport, document: IPSDocument, fullPath: Bool,
                              into out: inout [UInt8], flush: OutputFlush? = nil) {
        let report = symbolicated.report
        let inlined = Set(document.inlinedFrames.values.joined())
        /// Whether frame `key` is a frame of the report that no other frame's edit takes in.
        func editable(_ key: FrameKey) -> Bool {
            report.threads.indices.contains(key.thread) && report.threads[key.thread].frames.indices.contains(key.frame)
                && !inlined.contains(key)
        }
        /// The bytes the edit of frame `key` replaces, when it is an editable frame with an object.
        func editRange(_ key: FrameKey) -> Range<Int>? {
            guard editable(key), let object = document.frameObjects[key] else { return nil }
            return frameEditRange(document, key, object: object)
        }
        // The frames of the text backtraces, whose edits rewrite their strings; and whether
        // the frame objects' edits come in document order, as they do but for odd documents.
        var textFrames: [Int: [(frame: Frame, sourceFrames: [SourceFrame])]] = [:]
        var frameEdits = 0
        var ordered = true
        var last = 0
        for (key, sourceFrames) in symbolicated.frames where !sourceFrames.isEmpty && editable(key) {
            if let object = document.frameObjects[key] {
                guard let range = frameEditRange(document, key, object: object) else { continue }
                if range.lowerBound < last { ordered = false }
                last = range.lowerBound
                frameEdits += 1
            } else {
                let frame = report.threads[key.thread].frames[key.frame]
                if let b = document.textBacktraces.firstIndex(where: { $0.lines.contains(frame.line) }) {
                    textFrames[b, default: []].append((frame, sourceFrames))
                }
            }
        }
        var textEdits = textFrames.map { b, frames in
            textBacktraceEdit(document.textBacktraces[b], frames: frames, path: report.path, fullPath: fullPath)
        }
        textEdits.sort { $0.range.lowerBound < $1.range.lowerBound }
        // The frame objects' edits in document order: as the frames come, or sorted, 16 bytes
        // each. A frame object's new bytes are made when they are written, so that those of a
        // large report are never all held at once.
        var sorted: [FrameEdit] = []
        if !ordered {
            sorted.reserveCapacity(frameEdits)
            for (key, sourceFrames) in symbolicated.frames where !sourceFrames.isEmpty {
                if let range = editRange(key), let edit = FrameEdit(range, key) { sorted.append(edit) }
            }
            sorted.sort { $0.start < $1.start }
        }
        flush.reserve((document.window?.count ?? document.bytes.count) + (frameEdits + textEdits.count) * 256, in: &out)

        document.bytes.withUnsafeBufferPointer { b in
            var splice = ByteSplice(b, flush: flush, window: document.window)
            var t = 0
            func writeTextEdits(before position: Int) {
                while t < textEdits.count && textEdits[t].range.lowerBound < position {
                    splice.replace(textEdits[t].range, with: textEdits[t].bytes, in: &out)
                    t += 1
                }
            }
            // A frame's new objects are made only for an edit the splice will make; a frame
            // whose objects cannot be made is left as it is (its bytes are copied).
            func edit(_ range: Range<Int>, _ key: FrameKey) {
                writeTextEdits(before: range.lowerBound)
                guard splice.accepts(range), let object = document.frameObjects[key],
                      let made = frameEdit(document, key, object: object, sourceFrames: symbolicated.frames[key] ?? [],
                                           fullPath: fullPath)
                else { return }
                splice.replace(range, with: made, in: &out)
            }
            if ordered {
                for (key, sourceFrames) in symbolicated.frames where !sourceFrames.isEmpty {
                    if let range = editRange(key) { edit(range, key) }
                }
            } else {
                for e in sorted { edit(Int(e.start)..<Int(e.end), FrameKey(thread: Int(e.thread), frame: Int(e.frame))) }
            }
            writeTextEdits(before: (document.window?.upperBound ?? b.count) + 1)
            splice.finish(in: &out)
        }
    }

    /// A resolved frame's edit: the bytes its objects take (``frameEditRange(_:_:object:)``)
    /// and its key, in 16 bytes (a document is read only up to 1 GiB).
    private struct FrameEdit {
        var start: UInt32
        var end: UInt32
        var thread: UInt32
        var frame: UInt32

        init?(_ range: Range<Int>, _ key: FrameKey) {
            guard let start = UInt32(exactly: range.lowerBound), let end = UInt32(exactly: range.upperBound),
                  let thread = UInt32(exactly: key.thread), let frame = UInt32(exactly: key.frame) else { return nil }
            (self.start, self.end, self.thread, self.frame) = (start, end, thread, frame)
        }
    }

    // MARK: Frame objects

    /// The bytes a frame object (`object`, of frame `key`) and the inlined-frame objects
    /// before it take, which its edit replaces; nil when they do not lie in the document in order.
    private static func frameEditRange(_ document: IPSDocument, _ key: FrameKey, object: Range<Int>) -> Range<Int>? {
        let inlinedObjects = (document.inlinedFrames[key] ?? []).compactMap { document.frameObjects[$0] }
        guard object.lowerBound >= 0, object.upperBound <= document.bytes.count,
              inlinedObjects.allSatisfy({ $0.lowerBound >= 0 && $0.upperBound <= object.lowerBound })
        else { return nil }
        return (inlinedObjects.map(\.lowerBound).min() ?? object.lowerBound)..<object.upperBound
    }

    /// The replacement of a frame object and the inlined-frame objects before it: the bytes
    /// of ``frameEditRange(_:_:object:)``, for a frame it gives them for.
    private static func frameEdit(_ document: IPSDocument, _ key: FrameKey, object: Range<Int>,
                                  sourceFrames: [SourceFrame], fullPath: Bool) -> [UInt8]? {
        let bytes = document.bytes
        let inlinedObjects = (document.inlinedFrames[key] ?? []).compactMap { document.frameObjects[$0] }
        guard let layout = ObjectLayout(bytes, object), let concrete = sourceFrames.last else { return nil }
        let separator = elementSeparator(bytes, object: object, previous: inlinedObjects.last)
        var replacement: [UInt8] = []
        for sourceFrame in sourceFrames.dropLast() {
            replacement += layout.inlinedObject(values(of: sourceFrame, fullPath: fullPath))
            replacement += separator
        }
        replacement += layout.rewritten(values(of: concrete, fullPath: fullPath))
        return replacement
    }

    /// The members a resolved frame sets, in the order they are added; nil removes the member.
    private static func values(of frame: SourceFrame, fullPath: Bool) -> [(name: String, value: [UInt8]?)] {
        func string(_ text: String) -> [UInt8] {
            var out: [UInt8] = []
            JSONRenderer.appendString(text, to: &out)
            return out
        }
        func number(_ value: UInt64) -> [UInt8] {
            var out: [UInt8] = []
            out.append(decimal: value)
            return out
        }
        let file = frame.file.map { fullPath ? $0 : String(basename($0)) }
        let line = frame.line.flatMap { $0 > 0 && file != nil ? UInt64($0) : nil }
        return [
            ("symbol", string(frame.function)),
            ("symbolLocation", frame.offset.map(number)),
            ("sourceFile", file.map(string)),
            ("sourceLine", line.map(number)),
        ]
    }

    /// The bytes between two elements of the array that holds `object`: between the previous
    /// element and it, else between it and the next, else a comma.
    private static func elementSeparator(_ bytes: [UInt8], object: Range<Int>, previous: Range<Int>?) -> [UInt8] {
        if let previous, previous.upperBound <= object.lowerBound {
            return Array(bytes[previous.upperBound..<object.lowerBound])
        }
        var i = object.lowerBound - 1
        while i >= 0 && JSONScanner.isSpace(bytes[i]) { i -= 1 }
        if i >= 0 && bytes[i] == ASCII.comma { return Array(bytes[i..<object.lowerBound]) }
        var j = object.upperBound
        while j < bytes.count && JSONScanner.isSpace(bytes[j]) { j += 1 }
        if j < bytes.count && bytes[j] == ASCII.comma {
            var k = j + 1
            while k < bytes.count && JSONScanner.isSpace(bytes[k]) { k += 1 }
            return Array(bytes[j..<k])
        }
        return [ASCII.comma]
    }

    // MARK: Text backtraces

    /// The string of an `asiBacktraces` entry with its resolved lines rewritten.
    private static func textBacktraceEdit(_ backtrace: IPSDocument.TextBacktrace,
                                          frames: [(frame: Frame, sourceFrames: [SourceFrame])],
                                          path: String, fullPath: Bool) -> (range: Range<Int>, bytes: [UInt8]) {
        var thread = Backtrace(kind: .applicationSpecificBacktrace(0))
        var resolved: [FrameKey: [SourceFrame]] = [:]
        for (frame, sourceFrames) in frames.sorted(by: { $0.frame.line < $1.frame.line }) {
            var local = frame
            local.line -= backtrace.lines.lowerBound
            resolved[FrameKey(thread: 0, frame: thread.frames.count)] = sourceFrames
            thread.frames.append(local)
        }
        let text = CrashReport(path: path, bytes: backtrace.text, lines: LineRanges(backtrace.text),
                               threads: [thread])
        var rendered: [UInt8] = []
        TextRenderer(fullPath: fullPath).render(SymbolicatedReport(report: text, frames: resolved), into: &rendered)
        var string: [UInt8] = []
        JSONRenderer.appendString(String(decoding: rendered, as: UTF8.self), to: &string)
        return (backtrace.range, string)
    }
}

/// Where the members of one JSON object sit, and the spacing it uses, for writing it back with
/// some members changed.
private struct ObjectLayout {
    struct Member {
        var key: Range<Int>
        var value: Range<Int>
    }

    let bytes: [UInt8]
    let tree: JSONTree
    let members: [Member]
    let memberNodes: [Int]
    /// `{` and the blanks before the first member.
    let opening: Range<Int>
    /// The blanks after the last member, and `}`.
    let closing: Range<Int>
    /// What separates two members (`,` or `,\n    `), as between the first two.
    let memberSeparator: [UInt8]
    /// What separates a key from its value (`:` or ` : `), as after the first key.
    let nameSeparator: [UInt8]

    init?(_ bytes: [UInt8], _ object: Range<Int>) {
        guard let (tree, _) = try? JSONScanner.parse(bytes, from: object.lowerBound, to: object.upperBound),
              tree.nodes[tree.root].kind == .object
        else { return nil }
        self.bytes = bytes
        self.tree = tree
        memberNodes = Array(tree.children(of: tree.root))
        members = memberNodes.map { node in
            // Every member of an object has a key; the value's own range stands in otherwise.
            Member(key: tree.nodes[node].keyRange ?? tree.nodes[node].range, value: tree.nodes[node].range)
        }
        let end = tree.nodes[tree.root].end
        if let first = members.first, let last = members.last {
            opening = object.lowerBound..<first.key.lowerBound
            closing = last.value.upperBound..<end
            nameSeparator = Array(bytes[first.key.upperBound..<first.value.lowerBound])
        } else {
            opening = object.lowerBound..<(object.lowerBound + 1)
            closing = (end - 1)..<end
            nameSeparator = [ASCII.colon]
        }
        memberSeparator = members.count >= 2
            ? Array(bytes[members[0].value.upperBound..<members[1].key.lowerBound]) : [ASCII.comma]
    }

    /// The object with the members in `values` set to their values (or removed, for nil):
    /// existing ones changed in place, new ones added at the end.
    func rewritten(_ values: [(name: String, value: [UInt8]?)]) -> [UInt8] {
        var out = Array(bytes[opening])
        var written = false
        var handled: Set<String> = []
        for (k, member) in members.enumerated() {
            var value = Array(bytes[member.value])
            if let managed = values.first(where: { tree.keyEquals(memberNodes[k], $0.name) }) {
                guard handled.insert(managed.name).inserted, let new = managed.value else { continue }
                value = new
            }
            if written {
                out += k > 0 ? Array(bytes[members[k - 1].value.upperBound..<member.key.lowerBound]) : memberSeparator
            }
            written = true
            out += bytes[member.key.lowerBound..<member.value.lowerBound]
            out += value
        }
        for (name, value) in values where !handled.contains(name) {
            guard let value else { continue }
            if written { out += memberSeparator }
            written = true
            out += Self.key(name) + nameSeparator + value
        }
        return out + bytes[closing]
    }

    /// A new object for an inlined frame: this object's `imageOffset`, the given members,
    /// `"inline":true` and this object's `imageIndex`, spaced like this object.
    func inlinedObject(_ values: [(name: String, value: [UInt8]?)]) -> [UInt8] {
        var parts: [[UInt8]] = []
        func copied(_ name: String) -> [UInt8]? {
            guard let k = memberNodes.indices.first(where: { tree.keyEquals(memberNodes[$0], name) }) else { return nil }
            return Array(bytes[members[k].key.lowerBound..<members[k].value.upperBound])
        }
        if let offset = copied("imageOffset") { parts.append(offset) }
        for (name, value) in values {
            if let value { parts.append(Self.key(name) + nameSeparator + value) }
        }
        parts.append(Self.key("inline") + nameSeparator + Array("true".utf8))
        if let image = copied("imageIndex") { parts.append(image) }
        var out = Array(bytes[opening])
        for (k, part) in parts.enumerated() {
            if k > 0 { out += memberSeparator }
            out += part
        }
        return out + bytes[closing]
    }

    private static func key(_ name: String) -> [UInt8] {
        [ASCII.quote] + Array(name.utf8) + [ASCII.quote]
    }
}
