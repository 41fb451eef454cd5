/// Reads the JSON crash log of the Swift runtime's backtracer (`SWIFT_BACKTRACE=format=json`):
/// one JSON object on one line of the log, after whatever the program printed (and before
/// whatever it prints after).
///
///     { "timestamp": "...", "kind": "crashReport", "description": "Illegal instruction",
///       "faultAddress": "0x00007ffff796df7f", "architecture": "x86_64",
///       "threads": [ { "name": "c", "crashed": true, "registers": { ... },
///                      "frames": [ { "kind": "programCounter", "address": "0x00007ffff796df7f" },
///                                  { "kind": "returnAddress", "address": "0x00005555555557e4" },
///                                  { "kind": "asyncResumePoint", "address": "0x..." },
///                                  { "kind": "truncated" } ] } ],
///       "images": [ { "name": "c", "buildId": "fdeb5b5d...", "path": "/tmp/sbt/c",
///                     "baseAddress": "0x0000555555554000", "endOfText": "0x0000555555555e90" } ] }
///
/// With `symbolicate=full` a frame also has `symbol` (mangled), `offset`, `description`,
/// `image`, `sourceLocation` (`file`, `line`, `column`) and, for inlined calls, `"inlined": true`.
///
/// Threads are numbered in order; frames with an address (`programCounter`, `returnAddress`,
/// `asyncResumePoint`) are the thread's frames, `omittedFrames` and `truncated` are not. The
/// frames have no `restStart`: the report keeps the document's tree (`SwiftBacktraceDocument`),
/// in which `SwiftBacktraceJSONRenderer` finds their objects again with `frameObjects`, the
/// same walk, and writes the document back with names filled in.
enum SwiftBacktraceJSON {
    /// A crash log read: its threads and images, and the tree they were read from.
    struct Log {
        var threads: [Backtrace]
        var images: [BinaryImage]
        var tree: JSONTree
    }

    /// Whether the line `p..<e`, which starts with `{`, looks like the start of a crash log: its
    /// first kilobyte has `"crashReport"`.
    static func isCrashLog(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ e: Int) -> Bool {
        let end = min(e, p + 1024)
        var i = p
        while i + 13 <= end {
            if b[i] == ASCII.quote, b.matches("\"crashReport\"", at: i, end: end) { return true }
            i += 1
        }
        return false
    }

    /// The document that starts at `p` and ends on its line (`p..<e`), line `line` of the log,
    /// when it is a crash log: its threads, images and tree. The runtime writes it on one line;
    /// a document read only within its line keeps a log of many `{` lines linear to read.
    static func parse(_ bytes: [UInt8], line: Int, _ p: Int, _ e: Int, text: FrameText) -> Log? {
        let window = bytes.withUnsafeBufferPointer { isCrashLog($0, p, e) }
        guard window, let tree = try? JSONScanner.parse(bytes, from: p, to: e, maxNodes: JSONScanner.documentNodeLimit(e - p)).tree,
              tree.nodes[tree.root].kind == .object,
              tree.string(tree.member("kind", of: tree.root)) == "crashReport" else { return nil }
        var threads: [Backtrace] = []
        for (number, entry) in threadObjects(tree).enumerated() {
            var thread = Backtrace(kind: .thread(number), name: tree.string(tree.member("name", of: entry)),
                                crashed: tree.bool(tree.member("crashed", of: entry)) ?? false, headerLine: line)
            for (position, object) in frameObjects(tree, thread: entry).enumerated() {
                guard let (address, kind) = frame(tree, object) else { continue }
                thread.frames.append(Frame(index: position, imageName: tree.string(tree.member("image", of: object)),
                                           address: address, form: form(tree, object), line: line, restStart: nil,
                                           returnAddress: kind == .returnAddress,
                                           inlined: tree.bool(tree.member("inlined", of: object)) ?? false, text: text))
            }
            thread.frames.shrinkToFit()
            threads.append(thread)
        }
        var images: [BinaryImage] = []
        if let list = tree.member("images", of: tree.root), tree.nodes[list].kind == .array {
            for entry in tree.children(of: list) {
                guard let base = address(tree, tree.member("baseAddress", of: entry)),
                      let end = address(tree, tree.member("endOfText", of: entry)), end > base else { continue }
                let buildID = tree.string(tree.member("buildId", of: entry)).flatMap { id in
                    id.utf8.allSatisfy { hexDigitValue($0) != nil || $0 == ASCII.colon } && !id.isEmpty ? id.lowercased() : nil
                }
                let path = tree.string(tree.member("path", of: entry))
                let name = tree.string(tree.member("name", of: entry)) ?? path.map { String(basename($0)) } ?? "???"
                images.append(BinaryImage(loadAddress: base, endAddress: end - 1, name: name, uuid: buildID, path: path,
                                          line: line, format: .elf))
            }
        }
        return Log(threads: threads, images: images, tree: tree)
    }

    /// The thread objects of `threads`, in order.
    static func threadObjects(_ tree: JSONTree) -> [Int] {
        guard let list = tree.member("threads", of: tree.root), tree.nodes[list].kind == .array else { return [] }
        return tree.children(of: list).filter { tree.nodes[$0].kind == .object }
    }

    /// The frame objects of thread object `thread` that are frames of the model (see `frame`),
    /// in order.
    static func frameObjects(_ tree: JSONTree, thread: Int) -> [Int] {
        guard let list = tree.member("frames", of: thread), tree.nodes[list].kind == .array else { return [] }
        return tree.children(of: list).filter { frame(tree, $0) != nil }
    }

    enum Kind { case programCounter, returnAddress, asyncResumePoint }

    /// The address and kind of frame object `object`; nil for `omittedFrames`, `truncated` and
    /// anything that is not a frame with an address.
    static func frame(_ tree: JSONTree, _ object: Int) -> (UInt64, Kind)? {
        guard tree.nodes[object].kind == .object, let address = address(tree, tree.member("address", of: object))
        else { return nil }
        switch tree.string(tree.member("kind", of: object)) {
        case "programCounter": return (address, .programCounter)
        case "returnAddress": return (address, .returnAddress)
        case "asyncResumePoint": return (address, .asyncResumePoint)
        default: return nil
        }
    }

    /// What a `symbolicate=full` frame already says: `symbolicated` with a source location,
    /// `symbol` with a name only, else `unknown`.
    private static func form(_ tree: JSONTree, _ object: Int) -> FrameForm {
        let description = tree.string(tree.member("description", of: object))
        let offset = tree.unsigned(tree.member("offset", of: object))
        guard let name = description.map({ text in
            let suffix = " + \(offset ?? 0)"
            guard offset ?? 0 > 0, text.hasSuffix(suffix) else { return text }
            return String(text.dropLast(suffix.count))
        }) ?? tree.string(tree.member("symbol", of: object)) else { return .unknown }
        let location = tree.member("sourceLocation", of: object)
        guard let file = tree.string(tree.member("file", of: location)) else {
            return .symbol(name: name, offset: offset ?? 0)
        }
        let line = tree.int(tree.member("line", of: location)).flatMap { $0 <= Int(Int32.max) ? $0 : nil } ?? 0
        return .symbolicated(name: name, offset: offset == 0 ? nil : offset, file: file, line: line)
    }

    /// A `"0x..."` string's value.
    private static func address(_ tree: JSONTree, _ node: Int?) -> UInt64? {
        guard let node, tree.nodes[node].kind == .string else { return nil }
        let range = tree.nodes[node].range
        return tree.bytes.withUnsafeBufferPointer { b in
            guard let (value, next) = b.hexNumber(at: range.lowerBound + 1, end: range.upperBound - 1),
                  next == range.upperBound - 1 else { return nil }
            return value
        }
    }
}

/// The JSON crash log a Swift runtime backtrace's frames were read from (`SwiftBacktraceJSON`),
/// kept so that `SwiftBacktraceJSONRenderer` writes it back with names filled in without
/// reading it again.
public struct SwiftBacktraceDocument: Sendable {
    /// The JSON tree of the log's document, over the report's bytes (its line of them).
    let tree: JSONTree
}
