/// Writes a JSON document back byte for byte but for its resolved frame objects, which are
/// given members of symbols: what the MetricKit and KSCrash write-backs share
/// (``MetricKitRenderer``, ``KSCrashRenderer``).
///
/// A resolved frame object gets its new members before its first member, and loses its members
/// of the names the format writes (a document symbolicated before), with the separators that go
/// with them. New members follow the spacing of the object they join (`" : "` and `",\n    "`
/// in a pretty-printed document); a document with nothing resolved comes back unchanged.
enum JSONFrameWriteBack {
    /// One change of the document: `range` replaced by `bytes`.
    typealias Edit = (range: Range<Int>, bytes: [UInt8])

    /// Appends `bytes` (the document `tree` is of) to `out`, each resolved frame of
    /// `symbolicated` whose `frameNode` is an object of `tree` given the members `members`
    /// makes for it (name and JSON value, in order; none leaves the object as it is), its
    /// members named in `replaced` taken out. With `flush`, hands the output on as it goes.
    static func render(_ symbolicated: SymbolicatedReport, bytes: [UInt8], tree: JSONTree, replaced: [String],
                       frameNode: (FrameKey) -> Int?,
                       members: (FrameKey, [SourceFrame]) -> [(name: String, value: [UInt8])],
                       into out: inout [UInt8], flush: OutputFlush?) {
        var edits: [Edit] = []
        var done: Set<Int> = []
        for (key, sourceFrames) in symbolicated.frames where !sourceFrames.isEmpty {
            guard let node = frameNode(key), tree.nodes.indices.contains(node), tree.nodes[node].kind == .object,
                  done.insert(node).inserted
            else { continue }
            let added = members(key, sourceFrames)
            guard !added.isEmpty else { continue }
            edits += memberEdits(tree, node: node, adding: added, replacing: replaced)
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

    /// The edits of one object: the members `added` inserted before its first member, and its
    /// members named in `replaced` removed with the separators that go with them.
    static func memberEdits(_ tree: JSONTree, node: Int, adding added: [(name: String, value: [UInt8])],
                            replacing replaced: [String]) -> [Edit] {
        let bytes = tree.bytes
        let members = Array(tree.children(of: node))
        let removed = members.map { member in replaced.contains { tree.keyEquals(member, $0) } }
        func key(_ k: Int) -> Range<Int> { tree.nodes[members[k]].keyRange ?? tree.nodes[members[k]].range }
        func value(_ k: Int) -> Range<Int> { tree.nodes[members[k]].range }

        var nameSeparator: [UInt8] = [ASCII.colon]
        var memberSeparator: [UInt8] = [ASCII.comma]
        if !members.isEmpty { nameSeparator = Array(bytes[key(0).upperBound..<value(0).lowerBound]) }
        if members.count >= 2 { memberSeparator = Array(bytes[value(0).upperBound..<key(1).lowerBound]) }

        let lastKept = removed.lastIndex(of: false)
        var insertion: [UInt8] = []
        for (k, member) in added.enumerated() {
            if k > 0 { insertion += memberSeparator }
            insertion += quoted(member.name) + nameSeparator + member.value
        }
        if lastKept != nil { insertion += memberSeparator }
        let insertAt = members.isEmpty ? tree.nodes[node].start + 1 : key(0).lowerBound
        var edits: [Edit] = [(insertAt..<insertAt, insertion)]

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

    /// A compact JSON object of `members` (`{"a":1,"b":"x"}`).
    static func object(_ members: [(name: String, value: [UInt8])]) -> [UInt8] {
        var text: [UInt8] = [0x7B]  // {
        for (m, member) in members.enumerated() {
            if m > 0 { text.append(ASCII.comma) }
            text += quoted(member.name) + [ASCII.colon] + member.value
        }
        text.append(0x7D)  // }
        return text
    }

    /// A compact JSON array of `elements`, each a JSON value.
    static func array(_ elements: [[UInt8]]) -> [UInt8] {
        var text: [UInt8] = [0x5B]  // [
        for (k, element) in elements.enumerated() {
            if k > 0 { text.append(ASCII.comma) }
            text += element
        }
        text.append(0x5D)  // ]
        return text
    }

    /// `string` as a JSON string.
    static func string(_ string: String) -> [UInt8] {
        var text: [UInt8] = []
        JSONRenderer.appendString(string, to: &text)
        return text
    }

    /// `value` as a JSON number.
    static func number(_ value: some BinaryInteger) -> [UInt8] {
        var text: [UInt8] = []
        text.append(decimal: UInt64(value))
        return text
    }

    private static func quoted(_ name: String) -> [UInt8] {
        [ASCII.quote] + Array(name.utf8) + [ASCII.quote]
    }
}
