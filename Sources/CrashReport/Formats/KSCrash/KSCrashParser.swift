/// Reads the JSON crash reports KSCrash writes (report version 3.x), and SentryCrash, which
/// writes the same shape: one report object, or an array of them.
///
/// A report holds
///
///     {"report":{"version":"3.3.0","id":"8C1B...","process_name":"App","timestamp":1697558592532549},
///      "system":{"system_name":"iOS","system_version":"17.2","os_version":"21C62","machine":"iPhone15,2",
///                "cpu_arch":"arm64e","CFBundleIdentifier":"com.example.App",...},
///      "binary_images":[{"image_addr":4372758528,"image_vmaddr":4294967296,"image_size":32768,
///                        "name":"/private/var/.../App.app/App","uuid":"4C4C44C3-5555-3144-A19B-AF60D4F21F14",
///                        "cpu_type":16777228,"cpu_subtype":2}, ...],
///      "crash":{"error":{"type":"mach","mach":{"exception_name":"EXC_BAD_ACCESS","code":1,"subcode":16},
///                        "signal":{"name":"SIGSEGV"},"address":16},
///               "threads":[{"index":0,"crashed":true,"dispatch_queue":"com.apple.main-thread",
///                           "backtrace":{"contents":[{"instruction_addr":4372775428,"object_addr":4372758528,
///                                                     "object_name":"App"}, ...],"skipped":0}}]}}
///
/// The document is read byte by byte (`JSONScanner`: addresses are read as the unsigned 64-bit
/// integers they are written as, never through a `Double`) and translated to the classic text
/// form (`KSCrashTranslator`), whose frames, threads and images the translator makes as it
/// writes their lines. The result's `source` is `.kscrash`, with its document: its text, JSON and
/// frame-line output are those of a classic report, and `KSCrashRenderer` writes the document
/// back with symbols (`--format kscrash`). A `recrash_report` (the
/// report of a crash in the crash handler, nested in the report) is not read, and the
/// report's `warnings` say so.
public enum KSCrashParser {
    /// Whether `bytes` may be a KSCrash report: the first byte past a byte-order mark and
    /// whitespace opens an object or array, and the text names the list of images
    /// (`"binary_images"`) and a crash (`"crash"`). Whether it is one is `parse`'s business.
    public static func looksLikeKSCrash(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            var i = b.byteOrderMarkLength
            while i < b.count && JSONScanner.isSpace(b[i]) { i += 1 }
            guard i < b.count, b[i] == 0x7B || b[i] == 0x5B else { return false }  // { [
            return b.firstIndex(of: "\"binary_images\"", in: i..<b.count) != nil
                && b.firstIndex(of: "\"crash\"", in: i..<b.count) != nil
        }
    }

    /// Parses the KSCrash report at `path`; nil when `bytes` are JSON holding no KSCrash
    /// report (an object with a `crash` object, and `binary_images` or a `report` object), which
    /// are then some other kind of file.
    ///
    /// - Throws: `ReportError.invalidKSCrash` when the bytes are not one JSON value (a report cut
    ///   short, most often).
    public static func parse(_ bytes: [UInt8], path: String) throws -> CrashReport? {
        let start = bytes.withUnsafeBufferPointer { $0.byteOrderMarkLength }
        let tree: JSONTree
        do {
            tree = try JSONScanner.parseDocument(bytes, from: start)
        } catch let error as JSONError {
            if error.tooDense { throw ReportError.tooDense(path, reason: FrameText.tooDense("its JSON values", factor: JSONScanner.documentNodeFactor)) }
            throw ReportError.invalidKSCrash(path, reason: error.reason(in: bytes))
        }
        let reports = find(in: tree)
        guard !reports.isEmpty else { return nil }
        // Refused before it is translated, when what the translation would make could not be held.
        try KSCrashTranslator.translationEstimate(tree, reports: reports).refuseWhenTooDense(path: path, inputSize: bytes.count)
        let translation = KSCrashTranslator.translate(tree, reports: reports)
        var report = CrashReport(path: path, bytes: translation.text, lines: LineRanges(translation.text),
                                 header: translation.header, codeType: translation.codeType,
                                 crashedThread: translation.crashedThread, threads: translation.threads,
                                 images: translation.images,
                                 source: .kscrash(KSCrashDocument(bytes: bytes, tree: tree, frameNodes: translation.frameNodes)))
        report.warnings = translation.notes.map { "\(path): \($0)" }
        return report
    }

    /// The report objects of the document: the root, or the elements of a root array, that
    /// are reports (`isReport`), labelled by their place (`[2]`; empty for the root).
    static func find(in tree: JSONTree) -> [(node: Int, label: String)] {
        switch tree.nodes[tree.root].kind {
        case .object:
            return isReport(tree.root, in: tree) ? [(tree.root, "")] : []
        case .array:
            return tree.children(of: tree.root).enumerated().compactMap { i, element in
                isReport(element, in: tree) ? (element, "[\(i)]") : nil
            }
        case .string, .number, .bool, .null:
            return []
        }
    }

    /// Whether `node` is a KSCrash report: an object with a `crash` object, and a
    /// `binary_images` array or a `report` object.
    static func isReport(_ node: Int, in tree: JSONTree) -> Bool {
        guard tree.nodes[node].kind == .object, let crash = tree.member("crash", of: node),
              tree.nodes[crash].kind == .object else { return false }
        if let images = tree.member("binary_images", of: node), tree.nodes[images].kind == .array { return true }
        if let info = tree.member("report", of: node), tree.nodes[info].kind == .object { return true }
        return false
    }
}
