/// Writes a symbolicated MetricKit payload back as MetricKit JSON: the original document, byte
/// for byte, with members added to each resolved frame object.
///
/// A resolved frame object gets, before its own members, `symbol` (the function the address is
/// in), `symbolLocation` (the offset into it), `file` (the file name, or the full path with
/// `fullPath`) and `line` of the out-of-line function, and, when code was inlined there,
/// `inlinedFrames`: the inlined functions as objects with the same members, innermost first.
/// Members of those names it already had (a payload symbolicated before) are replaced:
///
///     {"binaryUUID":"4C4C44A0-...","offsetIntoBinaryTextSegment":17220,"address":4372775748}
///
/// becomes
///
///     {"symbol":"process_records","symbolLocation":92,"file":"parser.c","line":53,
///      "inlinedFrames":[{"symbol":"process_one","symbolLocation":8,"file":"parser.c","line":43}],
///      "binaryUUID":"4C4C44A0-...","offsetIntoBinaryTextSegment":17220,"address":4372775748}
///
/// New members follow the spacing of the object they join (`" : "` and `",\n    "` in a
/// pretty-printed payload); `inlinedFrames` objects are compact. `subFrames` and every other
/// member stay as they were, so a payload with nothing resolved comes back unchanged.
public enum MetricKitRenderer {
    /// The members a resolved frame object is given (and loses, when it is resolved anew).
    static let memberNames = ["symbol", "symbolLocation", "file", "line", "inlinedFrames"]

    /// Appends `document`, the MetricKit payload `symbolicated` was read from
    /// (``ReportSource/metricKit(_:)``), with the resolved frames written in, to `out`. With
    /// `flush`, hands it on as it goes (``OutputFlush``).
    public static func render(_ symbolicated: SymbolicatedReport, document: MetricKitDocument, fullPath: Bool,
                              into out: inout [UInt8], flush: OutputFlush? = nil) {
        let bytes = document.bytes
        var edits: [(range: Range<Int>, bytes: [UInt8])] = []
        var done: Set<Int> = []
        for (key, sourceFrames) in symbolicated.frames where !sourceFrames.isEmpty {
            guard let node = document.frameNode(key), document.tree.nodes.indices.contains(node),
                  document.tree.nodes[node].kind == .object, done.insert(node).inserted
            else { continue }
            edits += frameEdits(document.tree, node: node, sourceFrames: sourceFrames, fullPath: fullPath)
        }
        // Zero-width insertions go before a removal that starts where they are.
        edits.sort { ($0.range.lowerBound, $0.range.count) < ($1.range.lowerBound, $1.range.count) }
        flush.reserve(edits.reduce(bytes.count) { $0 + $1.bytes.count }, in: &out)
        bytes.withUnsafeBufferPointer { b in
            var splice = ByteSplice(b, flush: flush)
            for edit in edits { splice.replace(edit.range, with: edit.bytes, in: &out) }
            splice.finish(in: &out)
        }
    }

    /// The edits of one frame object: the new members inserted before its first member, and its
    /// members of the same names removed with the separators that go with them.
    private static func frameEdits(_ tree: JSONTree, node: Int, sourceFrames: [SourceFrame], fullPath: Bool)
        -> [(range: Range<Int>, bytes: [UInt8])] {
        guard let concrete = sourceFrames.last else { return [] }
        let bytes = tree.bytes
        let members = Array(tree.children(of: node))
        let removed = members.map { member in memberNames.contains { tree.keyEquals(member, $0) } }
        func key(_ k: Int) -> Range<Int> { tree.nodes[members[k]].keyRange ?? tree.nodes[members[k]].range }
        func value(_ k: Int) -> Range<Int> { tree.nodes[members[k]].range }

        var nameSeparator: [UInt8] = [ASCII.colon]
        var memberSeparator: [UInt8] = [ASCII.comma]
        if !members.isEmpty { nameSeparator = Array(bytes[key(0).upperBound..<value(0).lowerBound]) }
        if members.count >= 2 { memberSeparator = Array(bytes[value(0).upperBound..<key(1).lowerBound]) }

        var added: [[UInt8]] = []
        for (name, text) in values(of: concrete, fullPath: fullPath) {
            added.append(quoted(name) + nameSeparator + text)
        }
        if sourceFrames.count > 1 {
            var list: [UInt8] = [0x5B]  // [
            for (k, inlined) in sourceFrames.dropLast().enumerated() {
                if k > 0 { list.append(ASCII.comma) }
                list.append(0x7B)  // {
                for (m, (name, text)) in values(of: inlined, fullPath: fullPath).enumerated() {
                    if m > 0 { list.append(ASCII.comma) }
                    list += quoted(name) + [ASCII.colon] + text
                }
                list.append(0x7D)  // }
            }
            list.append(0x5D)  // ]
            added.append(quoted("inlinedFrames") + nameSeparator + list)
        }

        let lastKept = removed.lastIndex(of: false)
        var insertion: [UInt8] = []
        for (k, member) in added.enumerated() {
            if k > 0 { insertion += memberSeparator }
            insertion += member
        }
        if lastKept != nil { insertion += memberSeparator }
        let insertAt = members.isEmpty ? tree.nodes[node].start + 1 : key(0).lowerBound
        var edits: [(range: Range<Int>, bytes: [UInt8])] = [(insertAt..<insertAt, insertion)]

        // Removed members followed by a kept one go with the separator after them; a removed run
        // at the end goes with the separator before it.
        let trailing = lastKept.map { $0 + 1 } ?? 0
        for k in members.indices where removed[k] && k < trailing {
            edits.append((key(k).lowerBound..<key(k + 1).lowerBound, []))
        }
        if trailing < members.count {
            let start = trailing == 0 ? key(0).lowerBound : value(trailing - 1).upperBound
            edits.append((start..<value(members.count - 1).upperBound, []))
        }
        return edits
    }

    /// The members a resolved frame sets, in order: `symbol`, then what is known of
    /// `symbolLocation`, `file` and `line`.
    private static func values(of frame: SourceFrame, fullPath: Bool) -> [(name: String, text: [UInt8])] {
        var values: [(name: String, text: [UInt8])] = []
        var symbol: [UInt8] = []
        JSONRenderer.appendString(frame.function, to: &symbol)
        values.append(("symbol", symbol))
        if let offset = frame.offset {
            var text: [UInt8] = []
            text.append(decimal: offset)
            values.append(("symbolLocation", text))
        }
        if let file = frame.file {
            var text: [UInt8] = []
            JSONRenderer.appendString(fullPath ? file : String(basename(file)), to: &text)
            values.append(("file", text))
            if let line = frame.line, line > 0 {
                var number: [UInt8] = []
                number.append(decimal: line)
                values.append(("line", number))
            }
        }
        return values
    }

    private static func quoted(_ name: String) -> [UInt8] {
        [ASCII.quote] + Array(name.utf8) + [ASCII.quote]
    }
}
