/// Writes a symbolicated MetricKit payload back as MetricKit JSON: the original document, byte
/// for byte, with members added to each resolved frame object (``JSONFrameWriteBack``).
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
        JSONFrameWriteBack.render(symbolicated, bytes: document.bytes, tree: document.tree, replaced: memberNames,
                                  frameNode: document.frameNode, members: { _, sourceFrames in
            guard let concrete = sourceFrames.last else { return [] }
            var members = values(of: concrete, fullPath: fullPath)
            if sourceFrames.count > 1 {
                let inlined = sourceFrames.dropLast().map { JSONFrameWriteBack.object(values(of: $0, fullPath: fullPath)) }
                members.append(("inlinedFrames", JSONFrameWriteBack.array(inlined)))
            }
            return members
        }, into: &out, flush: flush)
    }

    /// The members a resolved frame sets, in order: `symbol`, then what is known of
    /// `symbolLocation`, `file` and `line`.
    private static func values(of frame: SourceFrame, fullPath: Bool) -> [(name: String, value: [UInt8])] {
        var values: [(name: String, value: [UInt8])] = [("symbol", JSONFrameWriteBack.string(frame.function))]
        if let offset = frame.offset { values.append(("symbolLocation", JSONFrameWriteBack.number(offset))) }
        if let file = frame.file {
            values.append(("file", JSONFrameWriteBack.string(fullPath ? file : String(basename(file)))))
            if let line = frame.line, line > 0 { values.append(("line", JSONFrameWriteBack.number(line))) }
        }
        return values
    }
}
