/// Writes a Swift runtime JSON crash log (`SwiftBacktraceJSON`) back with its frames resolved,
/// as the runtime writes it with `symbolicate=full`: each resolved frame object gets `offset`,
/// `description` (`NAME + OFFSET`), `image` and `sourceLocation` (`file`, `line`, `column`),
/// and its inlined calls are inserted before it as frame objects of their own with
/// `"inlined": true`, innermost first:
///
///     { "kind": "returnAddress", "address": "0x00005555555557e4" }
///
/// becomes
///
///     { "kind": "returnAddress", "address": "0x00005555555557e4", "offset": 67,
///       "description": "crash(_:) + 67", "image": "c",
///       "sourceLocation": { "file": "/tmp/c.swift", "line": 1, "column": 56 } }
///
/// The runtime's `symbol` (the mangled name) is not written: the index keeps names demangled.
/// What a frame object already said about its symbol is replaced; its other members, and every
/// byte outside the resolved frame objects, are kept as they were.
public enum SwiftBacktraceJSONRenderer {
    /// Keys of what symbolication says about a frame, replaced when the frame is resolved anew.
    private static let replacedKeys = ["inlined", "runtimeFailure", "thunk", "system", "symbol", "offset",
                                       "description", "image", "sourceLocation"]

    /// Appends the log, whose frames were read from `document`
    /// (``ReportSource/swiftBacktrace(_:)``), with its resolved frames written in. With `flush`,
    /// hands it on as it goes (``OutputFlush``).
    public static func render(_ symbolicated: SymbolicatedReport, document: SwiftBacktraceDocument,
                              into out: inout [UInt8], flush: OutputFlush? = nil) {
        let report = symbolicated.report
        guard !symbolicated.frames.isEmpty else {
            report.bytes.withUnsafeBufferPointer { flush.append($0, to: &out) }
            return
        }
        let tree = document.tree
        flush.reserve(symbolicated.estimatedTextSize, in: &out)
        report.bytes.withUnsafeBufferPointer { b in
            // The frame objects come in document order, one after another.
            var splice = ByteSplice(b, flush: flush)
            for (t, thread) in SwiftBacktraceJSON.threadObjects(tree).enumerated() where t < report.threads.count {
                for (f, object) in SwiftBacktraceJSON.frameObjects(tree, thread: thread).enumerated() {
                    guard let sourceFrames = symbolicated.frames[FrameKey(thread: t, frame: f)], !sourceFrames.isEmpty,
                          let imageIndex = report.threads[t].frames.indices.contains(f) ? report.threads[t].frames[f].image : nil
                    else { continue }
                    splice.replace(tree.nodes[object].range, in: &out) { out in
                        for (k, sourceFrame) in sourceFrames.enumerated() {
                            if k > 0 { out.append(literal: ", ") }
                            appendObject(tree, object, sourceFrame, image: report.images[imageIndex].name, to: &out)
                        }
                    }
                }
            }
            splice.finish(in: &out)
        }
    }

    /// `{ KEPT MEMBERS[, "inlined": true], "offset": N, "description": "...", "image": "...",
    /// "sourceLocation": { ... } }`.
    private static func appendObject(_ tree: JSONTree, _ object: Int, _ frame: SourceFrame, image: String,
                                     to out: inout [UInt8]) {
        out.append(literal: "{ ")
        var first = true
        for member in tree.children(of: object) where !replacedKeys.contains(where: { tree.keyEquals(member, $0) }) {
            if !first { out.append(literal: ", ") }
            first = false
            let node = tree.nodes[member]
            out.append(contentsOf: tree.bytes[node.keyStart..<node.end])
        }
        func key(_ name: StaticString) {
            if !first { out.append(literal: ", ") }
            first = false
            out.append(ASCII.quote)
            out.append(literal: name)
            out.append(literal: "\": ")
        }
        if frame.inlined {
            key("inlined")
            out.append(literal: "true")
        }
        let offset = frame.inlined ? 0 : frame.offset ?? 0
        key("offset")
        out.append(decimal: offset)
        key("description")
        JSONRenderer.appendString(offset > 0 ? "\(frame.function) + \(offset)" : frame.function, to: &out)
        key("image")
        JSONRenderer.appendString(image, to: &out)
        if let file = frame.file, !file.isEmpty {
            key("sourceLocation")
            out.append(literal: "{ \"file\": ")
            JSONRenderer.appendString(file, to: &out)
            out.append(literal: ", \"line\": ")
            out.append(decimal: frame.line ?? 0)
            out.append(literal: ", \"column\": ")
            out.append(decimal: frame.column ?? 0)
            out.append(literal: " }")
        }
        out.append(literal: " }")
    }
}
