@testable import CrashReport
import Foundation

/// What the report fuzz targets (Fuzz/*.swift) check of one input, shared with the tests that
/// replay the inputs the fuzzers found (Tests/FuzzRegressions): each function reads the bytes as
/// its target does, renders the report every way, and returns the promises the result breaks
/// (empty when none). An input the parser refuses with an error is no finding.
///
/// The promises: a report rendered as text with nothing resolved is its input byte for byte
/// (for a JSON `.ips`, the `.ips` rendering is, and the text rendering is the translation); the
/// lines of a report cover its input exactly; JSON output parses; every frames line has eight
/// fields. Rendering with every frame resolved must keep the last two.
enum ReportFuzzChecks {
    /// The classic text parser.
    static func classicReport(_ bytes: [UInt8]) -> [String] {
        guard let report = try? ClassicReportParser.parse(bytes, path: "fuzz.crash") else { return [] }
        return check(report, input: bytes)
    }

    /// The `.ips` parser, its translator and the `.ips` renderer; the stackshot parser and its
    /// translator for a file that may be a stackshot.
    static func ipsReport(_ bytes: [UInt8]) -> [String] {
        guard IPSReportParser.looksLikeIPS(bytes) else { return [] }
        var broken: [String] = []
        if StackshotParser.looksLikeStackshot(bytes),
           let report = try? StackshotParser.parse(bytes, path: "fuzz.ips", required: true) {
            broken += check(report, input: bytes)
        }
        guard let report = try? IPSReportParser.parse(bytes, path: "fuzz.ips") else { return broken }
        return broken + check(report, input: bytes) + ipsUses(bytes, whole: report)
    }

    /// The `.ips` report read for its text, its input given back as it is translated, for its
    /// document and for its model: the same model, and the same text or the same document as
    /// read whole; read in pieces, the same text.
    private static func ipsUses(_ bytes: [UInt8], whole: CrashReport) -> [String] {
        var broken: [String] = []
        var taken = bytes
        taken.withUnsafeMutableBufferPointer { _ in }  // its own copy, whose pages are given back
        guard let text = try? IPSReportParser.parse(taken, path: "fuzz.ips", use: .text, releasingInput: true),
              let document = try? IPSReportParser.parse(bytes, path: "fuzz.ips", use: .document)
        else { return ["a report read whole is not read for its text or its document"] }
        if text.bytes != whole.bytes || text.threads != whole.threads || text.images != whole.images {
            broken.append("read for its text, the report differs from the report read whole")
        }
        if document.threads != whole.threads || document.images != whole.images
            || document.lines.count != whole.lines.count {
            broken.append("read for its document, the report's model differs from the report read whole")
        }
        if case .ips(let kept) = document.source, case .ips(let expected) = whole.source,
           kept.bytes != expected.bytes || kept.frameObjects != expected.frameObjects {
            broken.append("read for its document, the document differs from the one read whole")
        }
        var takenForModel = bytes
        takenForModel.withUnsafeMutableBufferPointer { _ in }
        if let model = try? IPSReportParser.parse(takenForModel, path: "fuzz.ips", use: .model, releasingInput: true),
           model.threads != whole.threads || model.images != whole.images || model.lines.count != whole.lines.count {
            broken.append("read for its model, the report's model differs from the report read whole")
        }
        return broken + ipsPieces(bytes, whole: text)
    }

    /// The `.ips` report read a piece at a time (threads each alone, then two thousand bytes
    /// of text at a time), its input given back as it goes: the pieces' texts one after another
    /// are the text read whole, and they hold as many frames; read for its document, with
    /// nothing resolved, the pieces write the input back.
    private static func ipsPieces(_ bytes: [UInt8], whole: CrashReport) -> [String] {
        var broken: [String] = []
        for size in [1, 2_000] {
            var taken = bytes
            taken.withUnsafeMutableBufferPointer { _ in }
            guard let pieces = try? IPSReportParser.pieces(taken, path: "fuzz.ips", pieceSize: size, releasingInput: true)
            else { continue }
            var text: [UInt8] = []
            var frames = 0
            while let piece = pieces.next() {
                text += piece.bytes
                frames += piece.threads.reduce(0) { $0 + $1.frames.count }
            }
            if text != whole.bytes { broken.append("read in pieces of \(size), the text differs from the text read whole") }
            if frames != whole.threads.reduce(0, { $0 + $1.frames.count }) {
                broken.append("read in pieces of \(size), the frames differ from those read whole")
            }
            // For its document: with nothing resolved, the windows written back are the input.
            var forDocument = bytes
            forDocument.withUnsafeMutableBufferPointer { _ in }
            guard let documentPieces = try? IPSReportParser.pieces(forDocument, path: "fuzz.ips", pieceSize: size,
                                                                   use: .document, releasingInput: true)
            else { continue }
            var written: [UInt8] = []
            while let piece = documentPieces.next() {
                guard case .ips(let document) = piece.source else { continue }
                IPSRenderer.render(SymbolicatedReport(report: piece), document: document, fullPath: false, into: &written)
            }
            if written != bytes { broken.append("read in pieces of \(size) for its document, it is not written back as it was") }
        }
        return broken
    }

    /// The MetricKit parser, its translator and the MetricKit renderer.
    static func metricKitPayload(_ bytes: [UInt8]) -> [String] {
        guard MetricKitParser.looksLikeMetricKit(bytes), let report = try? MetricKitParser.parse(bytes, path: "fuzz.json")
        else { return [] }
        return check(report, input: bytes)
    }

    /// The KSCrash parser and its translator: the text output is the translation, every frame
    /// lies on a frame line of it and holds the address its line writes, or none; written back
    /// with nothing resolved, the document is the input, and with every frame resolved it
    /// parses, and is read again with the same frames.
    static func kscrashReport(_ bytes: [UInt8]) -> [String] {
        guard KSCrashParser.looksLikeKSCrash(bytes), let report = try? KSCrashParser.parse(bytes, path: "fuzz.json")
        else { return [] }
        var broken = check(report, input: bytes)
        for thread in report.threads {
            for frame in thread.frames {
                guard report.lines.indices.contains(frame.line), let rest = frame.restStart else {
                    broken.append("a frame is on no line of the translation")
                    continue
                }
                let line = report.bytes[report.lines[frame.line]]
                guard rest <= line.count, rest >= 19 else {
                    broken.append("a frame's text starts outside its line")
                    continue
                }
                let address = String(decoding: line.dropFirst(rest - 19).prefix(18), as: UTF8.self)
                let written = address.hasPrefix("0x") ? UInt64(address.dropFirst(2), radix: 16) : nil
                if frame.addressUnknown ? written != nil : written != frame.address {
                    broken.append("a frame's address is not the one its line writes: \(address)")
                }
                if let image = frame.image, !report.images[image].contains(frame.address) {
                    broken.append("a frame is placed in an image that does not hold its address")
                }
            }
        }
        return broken
    }

    /// The protobuf tombstone parser: whatever the sniffer takes is decoded, translated and
    /// rendered; every frame lies on a frame line of the translation, whose pc is the frame's.
    /// Input the sniffer refuses is decoded all the same, so that mutations reach the decoder
    /// and the translator; a message that cannot be decoded is refused with a ReportError.
    static func protobufTombstone(_ bytes: [UInt8]) -> [String] {
        _ = ProtobufTombstoneParser.looksLikeProtobufTombstone(bytes)
        guard let report = try? ProtobufTombstoneParser.parse(bytes, path: "fuzz.pb") else { return [] }
        var broken = check(report, input: bytes)
        for thread in report.threads {
            for frame in thread.frames {
                guard report.lines.indices.contains(frame.line) else {
                    broken.append("a frame is on no line of the translation")
                    continue
                }
                let line = String(decoding: report.bytes[report.lines[frame.line]], as: UTF8.self)
                let hex = String(frame.address, radix: 16)
                if !line.hasPrefix("      #") || !line.contains(" pc ") || !line.contains(hex) {
                    broken.append("a frame's line is not its frame line: \(line.debugDescription)")
                }
                if frame.restStart != line.utf8.count - (line.hasSuffix("\n") ? 1 : 0) {
                    broken.append("a frame's text does not end its line")
                }
            }
        }
        return broken
    }

    /// The `.plcrash` parser, on the input after the magic and version 1 (added when the input
    /// lacks them): the text is read as a classic report, its frames on its frame lines.
    static func plcrashReport(_ bytes: [UInt8]) -> [String] {
        let input = PLCrashParser.looksLikePLCrash(bytes) ? bytes : PLCrashParser.magic + [1] + bytes
        guard let report = try? PLCrashParser.parse(input, path: "fuzz.plcrash") else { return [] }
        return check(report, input: input)
    }

    /// The Linux log parser and its text rendering.
    static func linuxLog(_ bytes: [UInt8]) -> [String] {
        guard let report = try? LinuxLogParser.parse(bytes, path: "fuzz.log") else { return [] }
        return check(report, input: bytes)
    }

    /// The Android tombstone parser and its text rendering; with every frame resolved (frames
    /// at one pc alike, as a debug file resolves them), the output read again gives the same
    /// frames (the text the renderer adds is read back as an earlier resolution, never as more
    /// frames or another pc).
    static func tombstone(_ bytes: [UInt8]) -> [String] {
        guard let report = try? TombstoneParser.parse(bytes, path: "fuzz.txt") else { return [] }
        var broken = check(report, input: bytes)
        // As `Symbolicator` resolves them: frames at one pc alike, and only concrete frames (the
        // inlined lines an earlier resolution wrote are replaced with their concrete frame's).
        var frames: [FrameKey: [SourceFrame]] = [:]
        for (t, thread) in report.threads.enumerated() {
            for f in thread.frames.indices where !thread.frames[f].addressUnknown && !thread.frames[f].inlined {
                let line = Int(thread.frames[f].address % 997) + 1
                frames[FrameKey(thread: t, frame: f)] = [SourceFrame(function: "outer", file: "/src/main.c", line: line)]
            }
        }
        var out: [UInt8] = []
        TextRenderer().render(SymbolicatedReport(report: report, frames: frames), into: &out)
        if let again = try? TombstoneParser.parse(out, path: "fuzz.txt") {
            let pcs = { (report: CrashReport) in report.threads.flatMap { $0.frames.filter { !$0.inlined }.map(\.address) } }
            if pcs(again) != pcs(report) {
                broken.append("every frame resolved: read again, the output has other frames (\(pcs(report).count) before, \(pcs(again).count) after)")
            }
        }
        return broken
    }

    /// The Swift runtime backtrace parser (text and JSON) and its renderings.
    static func swiftBacktrace(_ bytes: [UInt8]) -> [String] {
        guard let report = try? SwiftBacktraceParser.parse(bytes, path: "fuzz.log") else { return [] }
        return check(report, input: bytes)
    }

    /// The call-tree parser (spindump, sample, microstackshot) and its renderings.
    static func callTreeReport(_ bytes: [UInt8]) -> [String] {
        guard let report = try? CallTreeReportParser.parse(bytes, path: "fuzz.diag") else { return [] }
        return check(report, input: bytes)
    }

    /// Any bytes, read as the tool reads a file of unknown kind.
    ///
    /// Bytes read as UTF-16 are written as UTF-8 of the same characters, so the promises hold
    /// for that text instead; they must be text a report is made of, mostly ASCII (three
    /// quarters of the code units of the first 64 KiB, at most one in 100 NUL) — anything else
    /// comes back as its own bytes — and, where no code unit had to be replaced, the text in
    /// UTF-16 is the input again.
    static func reportAny(_ bytes: [UInt8]) -> [String] {
        reportParts(bytes) + reportWhole(bytes)
    }

    /// The reports of a file of several (`ReportParts`): they hold every byte of the file, one
    /// after another, and each reads as a report alone does.
    private static func reportParts(_ bytes: [UInt8]) -> [String] {
        let ranges = ReportParts.ranges(in: bytes)
        guard ranges.first?.lowerBound == 0, ranges.last?.upperBound == bytes.count, ranges.count <= ReportParts.maxParts(size: bytes.count),
              zip(ranges, ranges.dropFirst()).allSatisfy({ !$0.isEmpty && $0.upperBound == $1.lowerBound }) else {
            return ["the parts \(ranges.prefix(8)) do not hold the \(bytes.count) bytes one after another"]
        }
        guard ranges.count > 1 else { return [] }
        return ranges.flatMap { range in reportWhole(Array(bytes[range])).map { "the part \(range): " + $0 } }
    }

    private static func reportWhole(_ bytes: [UInt8]) -> [String] {
        guard let report = try? ReportParser.parse(bytes, path: "fuzz.txt") else { return [] }
        guard let encoding = UTF16Text.encoding(of: bytes) else { return check(report, input: bytes) }
        let decoded = UTF16Text.decode(bytes, encoding)
        var broken = check(report, input: decoded.utf8)
        let mark = bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF])
        let units = Array(String(decoding: decoded.utf8, as: UTF8.self).utf16
            .prefix((min(bytes.count, 65536) - (mark ? 2 : 0)) / 2))
        let ascii = units.count { $0 < 0x80 }
        if ascii * 4 < units.count * 3 || units.count(where: { $0 == 0 }) * 100 > units.count {
            broken.append("read as \(encoding.rawValue), though \(units.count - ascii) of its first \(units.count) "
                          + "code units are not ASCII: not a report's text, and written back as other bytes")
        }
        if decoded.replaced == 0 {
            let again = utf16(decoded.utf8, bigEndian: encoding == .bigEndian, mark: mark)
            if again != bytes {
                broken.append("read as \(encoding.rawValue), the text is not the input's characters: \(difference(bytes, again))")
            }
        }
        return broken
    }

    /// `utf8` (valid UTF-8) in UTF-16 of the byte order given, after a byte-order mark if `mark`.
    private static func utf16(_ utf8: [UInt8], bigEndian: Bool, mark: Bool) -> [UInt8] {
        var bytes: [UInt8] = mark ? (bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]) : []
        for unit in String(decoding: utf8, as: UTF8.self).utf16 {
            bytes += bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        return bytes
    }

    /// The JSON scanner: every value it accepts makes a tree whose nodes nest inside each other
    /// and the input, and whose strings, numbers and members can all be read.
    static func jsonScanner(_ bytes: [UInt8]) -> [String] {
        let whole = Result { try JSONScanner.parse(bytes) }
        var broken = jsonCollapsing(bytes, whole: whole)
        guard case .success(let (tree, end)) = whole else { return broken }
        let nodes = tree.nodes
        guard !nodes.isEmpty, end <= bytes.count, nodes[0].end == end else {
            return ["the root value does not end where the scanner stopped (\(end))"]
        }
        let opening: [JSONKind: Set<UInt8>] = [
            .object: [0x7B], .array: [0x5B], .string: [0x22], .bool: [0x74, 0x66], .null: [0x6E],
            .number: Set(Array("-0123456789".utf8)),
        ]
        for (n, node) in nodes.enumerated() {
            guard 0 <= node.start, node.start < node.end, node.end <= end else {
                broken.append("node \(n) has range \(node.start)..<\(node.end) outside 0..<\(end)")
                continue
            }
            if !(opening[node.kind]?.contains(bytes[node.start]) ?? false) {
                broken.append("node \(n), a \(node.kind), starts with byte \(bytes[node.start])")
            }
            var previousEnd = node.kind == .object || node.kind == .array ? node.start + 1 : node.end
            for child in tree.children(of: n) {
                guard child > n, child < nodes.count else {
                    broken.append("node \(n) has child \(child)")
                    break
                }
                let c = nodes[child]
                if c.start < previousEnd || c.end > node.end - 1 {
                    broken.append("child \(child) of node \(n) is out of place")
                }
                if (node.kind == .object) != (c.keyRange != nil) {
                    broken.append("child \(child) of node \(n) has a key only objects give")
                }
                if let key = c.keyRange {
                    _ = tree.keyEquals(child, "bug_type")
                    if key.lowerBound < previousEnd || key.upperBound > c.start { broken.append("key of \(child) out of place") }
                }
                previousEnd = c.end
            }
            _ = tree.text(n)
            _ = tree.stringBytes(n)
            _ = tree.unsigned(n)
            _ = tree.int(n)
            _ = tree.bool(n)
            _ = tree.member("bug_type", of: n)
        }
        return broken
    }

    /// The JSON scanner with values collapsed (`recordingDepth` 0 to 4) reads as without:
    /// the same verdict and error, the same end, and the same values once the collapsed ones
    /// are read (`forEachElement` for arrays, `expanded` for objects); a collapsed container
    /// counts the objects in it.
    /// `whole` is the whole parse, when the caller has it.
    static func jsonCollapsing(_ bytes: [UInt8], whole: Result<(tree: JSONTree, end: Int), Error>? = nil) -> [String] {
        let whole = whole ?? Result { try JSONScanner.parse(bytes) }
        var broken: [String] = []
        for depth in 0...4 {
            let collapsed = Result { try JSONScanner.parse(bytes, recordingDepth: depth) }
            switch (whole, collapsed) {
            case let (.success(w), .success(c)):
                if c.end != w.end { broken.append("depth \(depth): ends at \(c.end), not \(w.end)") }
                if JSONShape.read(c.tree, c.tree.root) != JSONShape.all(w.tree, w.tree.root) {
                    broken.append("depth \(depth): the collapsed values read back otherwise")
                }
                var byStart: [Int: Int] = [:]
                for (k, node) in w.tree.nodes.enumerated() { byStart[node.start] = k }
                for node in c.tree.nodes where node.isCollapsed {
                    if let k = byStart[node.start], node.collapsedObjects != JSONShape.objects(w.tree, k) {
                        broken.append("depth \(depth): a collapsed container counts \(node.collapsedObjects) objects")
                    }
                }
            case let (.failure(w as JSONError), .failure(c as JSONError)):
                if (c.offset, c.message, c.atEnd) != (w.offset, w.message, w.atEnd) {
                    broken.append("depth \(depth): fails with \(c), not \(w)")
                }
            default:
                broken.append("depth \(depth): \(collapsed) where the whole parse gave \(whole)")
            }
        }
        return broken
    }

    /// One node as a comparable value: kind, value range and key range.
    struct JSONShape: Equatable {
        var kind: JSONKind
        var range: Range<Int>
        var key: Range<Int>?

        init(_ node: JSONNode) {
            (kind, range, key) = (node.kind, node.range, node.keyRange)
        }

        /// The nodes of value `node` of `tree` and of all its descendants, in document order.
        static func all(_ tree: JSONTree, _ node: Int) -> [JSONShape] {
            var out = [JSONShape(tree.nodes[node])]
            for child in tree.children(of: node) { out += all(tree, child) }
            return out
        }

        /// The same, of a tree with collapsed values, read as a reader of them reads them.
        static func read(_ tree: JSONTree, _ node: Int) -> [JSONShape] {
            let n = tree.nodes[node]
            if n.kind == .array {
                var out = [JSONShape(n)]
                tree.forEachElement(of: node) { element, k in out += read(element, k) }
                return out
            }
            guard n.isCollapsed else {
                var out = [JSONShape(n)]
                for child in tree.children(of: node) { out += read(tree, child) }
                return out
            }
            guard let whole = tree.expanded(node) else { return [] }
            var out = all(whole, whole.root)
            out[0].key = n.keyRange  // the expanded value is a root: no key of its own
            return out
        }

        /// How many objects value `node` of `tree` holds, at any depth below it.
        static func objects(_ tree: JSONTree, _ node: Int) -> Int {
            tree.children(of: node).reduce(0) { $0 + objects(tree, $1) + (tree.nodes[$1].kind == .object ? 1 : 0) }
        }
    }

    // MARK: Renderings

    /// The promises of every rendering of `report`, read from `input`.
    static func check(_ report: CrashReport, input: [UInt8]) -> [String] {
        var broken: [String] = []
        let concatenated = report.lines.flatMap { report.bytes[$0] }
        if concatenated != report.bytes {
            broken.append("the lines do not cover the report's bytes exactly")
        }
        let unresolved = SymbolicatedReport(report: report)
        let text = renderText(unresolved, fullPath: false)
        if case .ips(let document) = report.source {
            var ips: [UInt8] = []
            IPSRenderer.render(unresolved, document: document, fullPath: false, into: &ips)
            if ips != input { broken.append("the .ips output with nothing resolved is not the input: \(difference(input, ips))") }
            if document.bytes != input { broken.append("the .ips document is not the input") }
            if text != report.bytes { broken.append("the text output with nothing resolved is not the translation") }
        } else if case .metricKit(let document) = report.source {
            var json: [UInt8] = []
            MetricKitRenderer.render(unresolved, document: document, fullPath: false, into: &json)
            if json != document.bytes {
                broken.append("the MetricKit output with nothing resolved is not the input: \(difference(document.bytes, json))")
            }
            if report.warnings.isEmpty && document.bytes != input { broken.append("the MetricKit document is not the input") }
            if text != report.bytes { broken.append("the text output with nothing resolved is not the translation") }
        } else if case .kscrash(let document) = report.source {
            var json: [UInt8] = []
            KSCrashRenderer.render(unresolved, document: document, fullPath: false, into: &json)
            if json != input { broken.append("the KSCrash output with nothing resolved is not the input: \(difference(input, json))") }
            if text != report.bytes { broken.append("the text output with nothing resolved is not the translation") }
        } else if report.source.protobufKind != nil {
            if text != report.bytes { broken.append("the text output with nothing resolved is not the translation") }
        } else if text != input {
            broken.append("the text output with nothing resolved is not the input: \(difference(input, text))")
        }
        broken += checkStructuredOutput(unresolved, "nothing resolved")

        // Every frame resolved, with an inlined frame: the rewriting paths of every renderer.
        var frames: [FrameKey: [SourceFrame]] = [:]
        for (t, thread) in report.threads.enumerated() {
            for f in thread.frames.indices {
                frames[FrameKey(thread: t, frame: f)] = [
                    SourceFrame(function: "inner\t\"x\"\n", offset: 4, file: "/src/a b.c", line: 3, column: 2, inlined: true),
                    SourceFrame(function: "outer", offset: UInt64(f), file: "/src/main.c", line: f),
                ]
            }
        }
        let resolved = SymbolicatedReport(report: report, frames: frames)
        // The text and .ips writers go through their rewriting paths (checked for crashes only).
        _ = renderText(resolved, fullPath: true)
        if case .ips(let document) = report.source {
            var ips: [UInt8] = []
            IPSRenderer.render(resolved, document: document, fullPath: true, into: &ips)
        }
        // A JSON write-back keeps the input's bytes: it must be JSON wherever the input is (the
        // scanner lets strings hold bytes that are not UTF-8, which strict readers refuse).
        func writtenBack(_ document: [UInt8], _ format: String, _ render: (inout [UInt8]) -> Void) -> [UInt8]? {
            guard (try? JSONSerialization.jsonObject(with: Data(document), options: [.fragmentsAllowed])) != nil
            else { return nil }
            var json: [UInt8] = []
            render(&json)
            guard (try? JSONSerialization.jsonObject(with: Data(json), options: [.fragmentsAllowed])) != nil else {
                broken.append("every frame resolved: the \(format) output does not parse")
                return nil
            }
            return json
        }
        if case .metricKit(let document) = report.source {
            _ = writtenBack(document.bytes, "MetricKit") {
                MetricKitRenderer.render(resolved, document: document, fullPath: true, into: &$0)
            }
        }
        if case .kscrash(let document) = report.source,
           let json = writtenBack(document.bytes, "KSCrash", {
               KSCrashRenderer.render(resolved, document: document, fullPath: true, into: &$0)
           }),
           let again = try? KSCrashParser.parse(json, path: "fuzz.json"),
           again.threads.map(\.frames.count) != report.threads.map(\.frames.count) {
            broken.append("every frame resolved: the KSCrash output read again has other frames")
        }
        broken += checkStructuredOutput(resolved, "every frame resolved")
        return broken
    }

    /// The text output of `symbolicated` from the renderer of its source's text: a call tree's,
    /// a Swift runtime JSON log's, or the line-for-line text of every other report.
    private static func renderText(_ symbolicated: SymbolicatedReport, fullPath: Bool) -> [UInt8] {
        var out: [UInt8] = []
        switch symbolicated.report.source {
        case .callTree(let tree):
            CallTreeRenderer(fullPath: fullPath).render(symbolicated, tree: tree, into: &out)
        case .swiftBacktrace(let document?):
            SwiftBacktraceJSONRenderer.render(symbolicated, document: document, into: &out)
        default:
            TextRenderer(fullPath: fullPath).render(symbolicated, into: &out)
        }
        return out
    }

    /// JSON output parses; every frames line has eight tab-separated fields.
    private static func checkStructuredOutput(_ symbolicated: SymbolicatedReport, _ label: String) -> [String] {
        var broken: [String] = []
        var json: [UInt8] = []
        JSONRenderer.render([symbolicated], into: &json)
        if (try? JSONSerialization.jsonObject(with: Data(json))) == nil {
            broken.append("\(label): the JSON output does not parse: \(String(decoding: json.prefix(300), as: UTF8.self).debugDescription)")
        }
        var frames: [UInt8] = []
        FramesRenderer().render(symbolicated, into: &frames)
        if !frames.isEmpty && frames.last != 0x0A { broken.append("\(label): the frames output does not end a line") }
        for line in frames.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
        where line.count(where: { $0 == 0x09 }) != 7 {
            broken.append("\(label): a frames line has \(line.count(where: { $0 == 0x09 }) + 1) fields: \(String(decoding: line, as: UTF8.self).debugDescription)")
            break
        }
        return broken
    }

    /// Where two byte strings first differ, for messages.
    private static func difference(_ expected: [UInt8], _ found: [UInt8]) -> String {
        let common = zip(expected, found).prefix(while: { $0 == $1 }).count
        func around(_ bytes: [UInt8]) -> String {
            String(decoding: bytes[max(0, common - 30)..<min(bytes.count, common + 30)], as: UTF8.self).debugDescription
        }
        return "first difference at byte \(common) of \(expected.count) vs \(found.count): expected \(around(expected)), found \(around(found))"
    }
}
