/// Reads MetricKit diagnostics in the JSON their `jsonRepresentation()` writes.
///
/// Three shapes are read, recognized by content:
///
/// - an `MXDiagnosticPayload`: an object with arrays of diagnostics, one per kind
///   (`crashDiagnostics`, `hangDiagnostics`, `cpuExceptionDiagnostics`,
///   `diskWriteExceptionDiagnostics`, `appLaunchDiagnostics`, and any other `…Diagnostics`
///   array), and `timeStampBegin` / `timeStampEnd`;
/// - one diagnostic (`MXCrashDiagnostic.jsonRepresentation()`, ...): an object with a
///   `callStackTree` and its `diagnosticMetaData`; or a call-stack tree alone (`callStacks`);
/// - an array of those, as apps often upload them, or any of them inside a wrapper object
///   (`{"payload": {...}}`), a few levels deep.
///
/// A diagnostic's `callStackTree` holds `callStacks`, each a thread's (or, when
/// `callStackPerThread` is false, the process's sampled) stack: `threadAttributed` marks the one
/// the diagnostic is about, and `callStackRootFrames` holds frame objects, each with its
/// `subFrames`:
///
///     {"binaryUUID":"70B89F27-1634-3580-A695-57CDB41D7743","offsetIntoBinaryTextSegment":165304,
///      "sampleCount":1,"binaryName":"App","address":7170766264,"subFrames":[...]}
///
/// The payload is read byte by byte (`JSONScanner`, which keeps every value's place) and
/// translated to text (`MetricKitTranslator`): each call stack becomes a thread of the report,
/// its frames in tree order. The result's `source` is `.metricKit`, with the document
/// `MetricKitRenderer` writes back and the frames' sample counts.
public enum MetricKitParser {
    /// Whether `bytes` may be MetricKit JSON: the first byte past a byte-order mark and
    /// whitespace opens an object or array, and the text names a call stack (`"callStack`) or a
    /// diagnostic array (`Diagnostics"`). Whether it is one is `parse`'s business.
    public static func looksLikeMetricKit(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            var i = b.byteOrderMarkLength
            while i < b.count && JSONScanner.isSpace(b[i]) { i += 1 }
            guard i < b.count, b[i] == 0x7B || b[i] == 0x5B else { return false }  // { [
            return b.firstIndex(of: "\"callStack", in: i..<b.count) != nil
                || b.firstIndex(of: "Diagnostics\"", in: i..<b.count) != nil
        }
    }

    /// Parses the MetricKit JSON at `path`; nil when `bytes` are JSON holding no MetricKit
    /// diagnostic, which are then some other kind of file.
    ///
    /// - Throws: `ReportError.invalidMetricKit` when the bytes are not one JSON value but name
    ///   a call-stack tree (a payload cut short, most often).
    public static func parse(_ bytes: [UInt8], path: String) throws -> CrashReport? {
        let start = bytes.withUnsafeBufferPointer { $0.byteOrderMarkLength }
        let tree: JSONTree
        do {
            tree = try JSONScanner.parseDocument(bytes, from: start)
        } catch let error as JSONError {
            if error.tooDense { throw ReportError.tooDense(path, reason: FrameText.tooDense("its JSON values", factor: JSONScanner.documentNodeFactor)) }
            let namesTree = bytes.withUnsafeBufferPointer {
                $0.firstIndex(of: "\"callStackTree\"", in: start..<$0.count) != nil
                    || $0.firstIndex(of: "\"callStackRootFrames\"", in: start..<$0.count) != nil
            }
            guard namesTree else { return nil }
            throw ReportError.invalidMetricKit(path, reason: error.reason(in: bytes))
        }
        let parts = find(in: tree)
        guard parts.contains(where: { if case .diagnostic = $0 { return true } else { return false } }) else { return nil }
        try tree.refuseWhenTooDense(path: path, inputSize: bytes.count)
        let translation = MetricKitTranslator.translate(tree, parts: parts)
        let document = MetricKitDocument(bytes: bytes, tree: tree, frameNodes: translation.frameNodes,
                                         sampleCounts: translation.sampleCounts)
        return CrashReport(path: path, bytes: translation.text, lines: LineRanges(translation.text),
                           header: translation.header, codeType: translation.codeType, crashedThread: nil,
                           threads: translation.threads, images: translation.images, source: .metricKit(document))
    }

    /// What the translator writes, in document order.
    enum Part {
        /// An `MXDiagnosticPayload` object (its scalar members are printed); `label` is its path
        /// in the document, empty for the root.
        case payload(node: Int, label: String)
        /// A diagnostic of `kind` (the array it is in: `crashDiagnostics`, ...; empty when
        /// alone), and its call-stack tree, if any.
        case diagnostic(node: Int, kind: String, label: String, tree: Int?)
    }

    /// How deep wrappers and arrays are searched for payloads and diagnostics.
    private static let searchDepth = 6

    /// The payloads and diagnostics of the document, in document order.
    static func find(in tree: JSONTree) -> [Part] {
        var parts: [Part] = []
        // A stack of values to look at, the next on top; `kind` is set for members of a
        // diagnostic array, which are diagnostics whatever they hold.
        var pending: [(node: Int, label: String, depth: Int, kind: String?)] = [(tree.root, "", 0, nil)]
        while let (node, label, depth, kind) = pending.popLast() {
            var children: [(node: Int, label: String, depth: Int, kind: String?)] = []
            switch tree.nodes[node].kind {
            case .array:
                guard depth < searchDepth else { continue }
                for (i, element) in tree.children(of: node).enumerated() where isContainer(tree, element) {
                    children.append((element, "\(label)[\(i)]", depth + 1, kind))
                }
            case .object:
                if let kind {
                    parts.append(.diagnostic(node: node, kind: kind, label: label, tree: callStackTree(of: node, in: tree)))
                    continue
                }
                if let stackTree = callStackTree(of: node, in: tree) {
                    parts.append(.diagnostic(node: node, kind: "", label: label, tree: stackTree))
                    continue
                }
                var isPayload = false
                for member in tree.children(of: node) {
                    let key = rawKey(of: member, in: tree)
                    let memberLabel = label.isEmpty ? key : label + "." + key
                    if key.hasSuffix("Diagnostics"), tree.nodes[member].kind == .array {
                        isPayload = true
                        for (i, element) in tree.children(of: member).enumerated() where tree.nodes[element].kind == .object {
                            children.append((element, "\(memberLabel)[\(i)]", depth + 1, key))
                        }
                    } else if depth < searchDepth, isContainer(tree, member) {
                        children.append((member, memberLabel, depth + 1, nil))
                    }
                }
                if isPayload {
                    parts.append(.payload(node: node, label: label))
                    // Wrapped values of a payload are its own members, not more payloads.
                    children.removeAll { $0.kind == nil }
                }
            case .string, .number, .bool, .null:
                continue
            }
            pending += children.reversed()
        }
        return parts
    }

    /// The call-stack tree of a diagnostic object: its `callStackTree` (unwrapping the
    /// `{"callStackTree":{...}}` that `MXCallStackTree.jsonRepresentation()` writes), or the
    /// object itself when it is a tree (`callStacks`).
    static func callStackTree(of node: Int, in tree: JSONTree) -> Int? {
        if let stacks = tree.member("callStacks", of: node), tree.nodes[stacks].kind == .array { return node }
        guard let value = tree.member("callStackTree", of: node), tree.nodes[value].kind == .object else { return nil }
        if tree.member("callStacks", of: value) == nil, let inner = tree.member("callStackTree", of: value),
           tree.nodes[inner].kind == .object {
            return inner
        }
        return value
    }

    private static func isContainer(_ tree: JSONTree, _ node: Int) -> Bool {
        tree.nodes[node].kind == .object || tree.nodes[node].kind == .array
    }

    /// The key of member `node` as spelled between its quotes: MetricKit's keys are plain ASCII,
    /// and a key spelled with escapes is only ever printed (escaped), never matched.
    static func rawKey(of node: Int, in tree: JSONTree) -> String {
        guard let key = tree.nodes[node].keyRange, key.count >= 2 else { return "" }
        return String(decoding: tree.bytes[(key.lowerBound + 1)..<(key.upperBound - 1)], as: UTF8.self)
    }
}
