/// Reads a stackshot `.ips` report: bug_type 288 (`stacks-*.ips`, iOS 15+ / macOS 12+), or any
/// `.ips` whose JSON body carries the same `processByPid` / `binaryImages` shape (the stackshot
/// of a bug_type 210 panic, or one wrapped in a `stackshot` member).
///
/// After the one-line metadata, the body holds the images every process had loaded, with no
/// names, and the threads of each process with frames as `[imageIndex, offset]` pairs:
///
///     {"binaryImages":[["4C4C44C3-5555-3144-A19B-AF60D4F21F14",4372758528,"U"], ...],
///      "processByPid":{"1234":{"procname":"App","threadById":{"5678":{"name":"worker",
///          "userFrames":[[0,16900],[0,17220]],"kernelFrames":[[1,771644]]}}}}}
///
/// The body is read byte by byte (`JSONScanner`) and translated to text
/// (`StackshotTranslator`), each thread a thread of the report whose frames are tied to their
/// image by index, so that processes whose address spaces overlap stay apart. The result has
/// the source `.ips`, its document the original bytes with no frame objects: frames are
/// pairs with no room for symbols, so `IPSRenderer` writes the document back unchanged.
public enum StackshotParser {
    /// Whether the `.ips` file `bytes` names both `"processByPid"` and `"binaryImages"`; whether
    /// it holds a stackshot is `parse`'s business.
    public static func looksLikeStackshot(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            b.containsLiteral("\"processByPid\"") && b.containsLiteral("\"binaryImages\"")
        }
    }

    /// Parses the stackshot at `path`; nil when the body is valid JSON without a stackshot, or
    /// (unless `required`) is not valid JSON: the file is then some other kind of report.
    ///
    /// - Throws: `ReportError.invalidIPS` when `required` (bug_type 288) and the metadata line
    ///   or the body is not valid JSON — a file cut short, most often.
    public static func parse(_ bytes: [UInt8], path: String, required: Bool) throws -> CrashReport? {
        let start = bytes.withUnsafeBufferPointer { $0.byteOrderMarkLength }
        let metadata: JSONTree
        let body: JSONTree
        do {
            let (parsedMetadata, metadataEnd) = try JSONScanner.parse(bytes, from: start,
                                                                       maxNodes: JSONScanner.documentNodeLimit(bytes.count - start))
            var bodyStart = metadataEnd
            while bodyStart < bytes.count && JSONScanner.isSpace(bytes[bodyStart]) { bodyStart += 1 }
            guard bodyStart < bytes.count else {
                guard required else { return nil }
                throw ReportError.invalidIPS(path, reason: "a stackshot (bug_type 288) but nothing follows the metadata line: the file is cut short")
            }
            // A text body, as some tools write under any bug_type, is read as one.
            guard bytes[bodyStart] == 0x7B else { return nil }  // {
            metadata = parsedMetadata
            body = try JSONScanner.parse(bytes, from: bodyStart, maxNodes: JSONScanner.documentNodeLimit(bytes.count - bodyStart)).tree
        } catch let error as JSONError {
            if error.tooDense { throw ReportError.tooDense(path, reason: FrameText.tooDense("its JSON values", factor: JSONScanner.documentNodeFactor)) }
            guard required else { return nil }
            let reason = error.atEnd ? "\(error.message): the file is cut short" : error.message
            throw ReportError.invalidIPS(path, reason: "a stackshot (bug_type 288) that is not valid JSON: \(reason)")
        }
        guard let root = stackshot(in: body) ?? (required && body.nodes[body.root].kind == .object ? body.root : nil)
        else { return nil }
        try body.refuseWhenTooDense(path: path, inputSize: bytes.count)
        let translation = StackshotTranslator.translate(metadata: metadata, body: body, stackshot: root)
        var report = CrashReport(path: path, bytes: translation.text,
                                 lines: LineRanges(translation.text),
                                 header: translation.header, threads: translation.threads,
                                 images: translation.images, source: .ips(IPSDocument(bytes: bytes)))
        report.warnings += translation.warnings.map { "\(path): \($0)" }
        return report
    }

    /// The object holding `processByPid`: the body itself, or one of its members (a
    /// `stackshot` wrapper).
    static func stackshot(in body: JSONTree) -> Int? {
        let root = body.root
        guard body.nodes[root].kind == .object else { return nil }
        if isStackshot(body, root) { return root }
        for member in body.children(of: root) where isStackshot(body, member) { return member }
        return nil
    }

    private static func isStackshot(_ tree: JSONTree, _ node: Int) -> Bool {
        guard let processes = tree.member("processByPid", of: node) else { return false }
        return tree.nodes[processes].kind == .object
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// Whether the ASCII `literal` occurs anywhere.
    fileprivate func containsLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard count > 0, self.count >= count else { return false }
        let first = literal.utf8Start[0]
        var i = 0
        while i <= self.count - count {
            if self[i] == first && matches(literal, at: i, end: self.count) { return true }
            i += 1
        }
        return false
    }
}
