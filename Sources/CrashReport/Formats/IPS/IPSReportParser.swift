/// Parses a JSON `.ips` report (iOS 15+ / macOS 12+).
///
/// An `.ips` file opens with one line of JSON metadata, whose `bug_type` says what follows:
///
///     {"app_name":"App","bug_type":"309","os_version":"iPhone OS 15.0 (19A346)",...}
///     {
///       "procName" : "App",
///       "threads" : [{"triggered":true,"frames":[{"imageOffset":16900,"imageIndex":0}]}],
///       "usedImages" : [{"base":4372758528,"size":32768,"uuid":"4c4c44c3-...","name":"App"}],
///       ...
///     }
///
/// - bug_type 309: the rest is one JSON object. It is read byte by byte (`JSONScanner`, which
///   keeps every value's place) and translated to the classic text report (`IPSTranslator`),
///   which the text renderer prints; the translator makes the report's model as it writes,
///   each frame from its JSON object, as the classic parser would read the text (only the
///   `asiBacktraces` strings, text in the JSON, are read as text). Frames, images and their
///   matching then work as for any report. The result's `source` is `.ips`, with its
///   document: the original bytes and, for each frame, the JSON object it came from, for
///   `IPSRenderer`.
/// - Any other bug_type whose body is a JSON object with `threads` (a resource or hang report
///   in the crash report's JSON shape): read as bug_type 309 is.
/// - Any other bug_type (109, ...), or a body that does not open a JSON value or one without
///   threads: the rest is a classic text report, and the whole file is parsed as one (the
///   metadata line is an unknown line, printed as it is).
public enum IPSReportParser {
    /// Whether `bytes` start with an `.ips` metadata line: a first line that opens a JSON object
    /// and names a `bug_type`. Whether that object is valid is `parse`'s business.
    public static func looksLikeIPS(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            var i = b.byteOrderMarkLength
            while i < b.count && isBlank(b[i]) { i += 1 }
            guard i < b.count, b[i] == 0x7B else { return false }  // {
            var end = i
            while end < b.count && b[end] != ASCII.newline { end += 1 }
            return b.firstIndex(of: "\"bug_type\"", in: i..<end) != nil
        }
    }

    /// Parses the `.ips` file at `path`, keeping what `use` reads (``ReportUse``): for `.text`,
    /// a document without bytes; for `.document`, a text without the threads' lines; for
    /// `.model`, neither. With `releasingInput` (``ReportParser/parse(taking:path:use:)``) and
    /// `.text` or `.model`, the pages of the threads' JSON are given back to the system as they
    /// are translated (``InputRelease``).
    ///
    /// - Throws: `ReportError.invalidIPS` when the metadata line or a bug_type 309 body is not
    ///   valid JSON (a truncated file, most often), or the body is not an object; the errors of
    ///   `ClassicReportParser.parse` for other bug_types.
    public static func parse(_ bytes: [UInt8], path: String, use: ReportUse = .any,
                             releasingInput: Bool = false) throws -> CrashReport {
        guard let (metadata, crashType, bodyStart) = try opening(bytes, path: path) else {
            return try ClassicReportParser.parse(bytes, path: path)
        }
        // The tree of the body is let go once translated: the text is parsed without it.
        guard let translation = try translate(bytes, from: bodyStart, metadata: metadata, crashType: crashType,
                                              use: use, releasingInput: releasingInput, path: path) else {
            return try ClassicReportParser.parse(bytes, path: path)
        }
        return report(translation, path: path, input: bytes, use: use)
    }

    /// The report at `path` that `translation` of `input` makes, read as the classic parser
    /// reads its text; its document holds `input` when `use` keeps it, and writes back
    /// `window` of it (a piece's, ``IPSPieces``) or all of it (nil).
    static func report(_ translation: IPSTranslator.Translation, path: String, input: [UInt8], use: ReportUse,
                       window: Range<Int>? = nil) -> CrashReport {
        var document = IPSDocument(bytes: use.keepsDocument ? input : [], frameObjects: translation.frameObjects,
                                   inlinedFrames: translation.inlinedFrames, textBacktraces: translation.textBacktraces,
                                   sharedCacheUUID: translation.sharedCacheUUID)
        if use.keepsDocument { document.window = window }
        var report = CrashReport(path: path, bytes: translation.text, lines: translation.lines, header: translation.header,
                                 codeType: translation.codeType, crashedThread: translation.crashedThread,
                                 threads: translation.threads, images: translation.images, source: .ips(document))
        report.matchFramesToImages()
        report.placeFramesByImageOffset()
        return report
    }

    /// The report in `bytes` read for `use` (`.text` or `.document`) a piece of about
    /// `pieceSize` bytes of text at a time (``IPSPieces``), when its body is a JSON object with a
    /// `threads` array; nil when it is read otherwise (``parse(_:path:use:releasingInput:)``).
    /// With `releasingInput`, the pages of its JSON are given back as it goes.
    ///
    /// - Throws: what ``parse(_:path:use:releasingInput:)`` throws for these bytes.
    static func pieces(_ bytes: [UInt8], path: String, pieceSize: Int, use: ReportUse = .text,
                       releasingInput: Bool) throws -> IPSPieces? {
        guard let (metadata, crashType, bodyStart) = try opening(bytes, path: path),
              let (body, trailing) = try body(bytes, from: bodyStart, crashType: crashType, path: path),
              let threads = body.member("threads", of: body.root), body.nodes[threads].kind == .array
        else { return nil }
        return IPSPieces(path: path, metadata: metadata, body: body, threads: threads, trailing: trailing..<bytes.count,
                         pieceSize: pieceSize, use: use, releasingInput: releasingInput)
    }

    /// The metadata line of `bytes`, whether it says a crash report (bug_type 309), and where
    /// the JSON body after it starts; nil when there is no JSON body (the file is read as a
    /// classic text report).
    private static func opening(_ bytes: [UInt8], path: String) throws -> (JSONTree, crashType: Bool, bodyStart: Int)? {
        let start = bytes.withUnsafeBufferPointer { $0.byteOrderMarkLength }
        let metadata: JSONTree
        let metadataEnd: Int
        do {
            (metadata, metadataEnd) = try JSONScanner.parse(bytes, from: start, maxNodes: JSONScanner.documentNodeLimit(bytes.count - start))
        } catch let error as JSONError {
            if error.tooDense {
                throw ReportError.tooDense(path, reason: FrameText.tooDense("the JSON values of its first line",
                                                                            factor: JSONScanner.documentNodeFactor))
            }
            throw ReportError.invalidIPS(path, reason: error.reason(in: bytes, part: "the metadata line"))
        }
        guard metadata.nodes[metadata.root].kind == .object else {
            throw ReportError.invalidIPS(path, reason: "the metadata line is not a JSON object")
        }
        let crashType = metadata.text(metadata.member("bug_type", of: metadata.root)) == "309"

        var bodyStart = metadataEnd
        while bodyStart < bytes.count && JSONScanner.isSpace(bytes[bodyStart]) { bodyStart += 1 }
        guard bodyStart < bytes.count else {
            guard crashType else { return nil }
            throw ReportError.invalidIPS(
                path, reason: "bug_type 309 but nothing follows the metadata line: the file is cut short")
        }
        // Some tools and OS versions write a classic text body under any bug_type, 309 too.
        guard bytes[bodyStart] == 0x7B || bytes[bodyStart] == 0x5B else { return nil }  // { [
        return (metadata, crashType, bodyStart)
    }

    /// The JSON body at `bodyStart` read and translated to text, its tree not kept; nil when
    /// the file is read as a classic text report instead (a body of another bug_type than a
    /// crash's that is not JSON or holds no threads).
    private static func translate(_ bytes: [UInt8], from bodyStart: Int, metadata: JSONTree, crashType: Bool,
                                  use: ReportUse, releasingInput: Bool, path: String) throws -> IPSTranslator.Translation? {
        guard let (body, trailing) = try body(bytes, from: bodyStart, crashType: crashType, path: path) else { return nil }
        guard releasingInput && !use.keepsDocument else {
            return IPSTranslator.translate(metadata: metadata, body: body, use: use, trailing: trailing..<bytes.count)
        }
        return bytes.withUnsafeBytes { input in
            IPSTranslator.translate(metadata: metadata, body: body, use: use, trailing: trailing..<bytes.count,
                                    release: InputRelease(input))
        }
    }

    /// The JSON body at `bodyStart`, parsed (its threads, images and frames left collapsed)
    /// and found not too dense to translate, and where the text after it starts; nil when the
    /// file is read as a classic text report instead (a body of another bug_type than a
    /// crash's that is not JSON or holds no threads).
    private static func body(_ bytes: [UInt8], from bodyStart: Int, crashType: Bool,
                             path: String) throws -> (JSONTree, trailing: Int)? {
        let body: JSONTree
        let bodyEnd: Int
        do {
            (body, bodyEnd) = try JSONScanner.parse(bytes, from: bodyStart, recordingDepth: IPSTranslator.recordingDepth,
                                                    maxNodes: IPSTranslator.maxNodes(bodySize: bytes.count - bodyStart))
        } catch let error as JSONError {
            if error.tooDense {
                throw ReportError.tooDense(path, reason: FrameText.tooDense("the JSON values of its body",
                                                                            factor: IPSTranslator.nodeFactor))
            }
            guard crashType else { return nil }
            throw ReportError.invalidIPS(path, reason: error.reason(in: bytes, part: "the JSON body"))
        }
        // Another bug_type's JSON body is a crash report when it holds threads, as bug_type
        // 309's does; otherwise (a jetsam event, a panic) it has no frames to read.
        guard crashType || holdsThreads(body) else { return nil }
        guard body.nodes[body.root].kind == .object else {
            throw ReportError.invalidIPS(path, reason: "the body after the metadata line is not a JSON object")
        }
        // Refused before any of it is translated (and its pages given back), when what the
        // translation would make could not be held.
        try IPSTranslator.translationEstimate(of: body).refuseWhenTooDense(path: path, inputSize: bytes.count)
        // Text after the body (a file of several reports cut where they are too many to read
        // each alone, or words a tool added) ends the translation as it is: never dropped.
        var trailing = bodyEnd
        while trailing < bytes.count && JSONScanner.isSpace(bytes[trailing]) { trailing += 1 }
        return (body, trailing)
    }

    /// Whether the JSON `body` is an object with a `threads` array: the shape of a crash report.
    private static func holdsThreads(_ body: JSONTree) -> Bool {
        guard body.nodes[body.root].kind == .object, let threads = body.member("threads", of: body.root) else {
            return false
        }
        return body.nodes[threads].kind == .array
    }
}
