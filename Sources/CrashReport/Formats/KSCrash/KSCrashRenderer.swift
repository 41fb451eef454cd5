/// Writes a symbolicated KSCrash (or SentryCrash) report back as its JSON: the original
/// document, byte for byte, with members added to each resolved frame object
/// (``JSONFrameWriteBack``).
///
/// A resolved frame object of `backtrace.contents` gets, before its own members, the members
/// KSCrash itself writes for a frame it could name, `symbol_name` (the out-of-line function the
/// address is in) and `symbol_addr` (where that function starts, a run-time address like
/// `instruction_addr`), then `file` (the file name, or the full path with `fullPath`) and `line`
/// of the address in that function, and, when code was inlined there, `inlined_frames`: the
/// inlined functions as objects of `symbol_name`, `file` and `line`, innermost first. Members
/// of those names it already had (the device's own names, or a report symbolicated before) are
/// replaced:
///
///     {"instruction_addr":4372775428,"object_addr":4372758528,"object_name":"App"}
///
/// becomes
///
///     {"symbol_name":"process_records","symbol_addr":4372775336,"file":"parser.c","line":53,
///      "inlined_frames":[{"symbol_name":"process_one","file":"parser.c","line":43}],
///      "instruction_addr":4372775428,"object_addr":4372758528,"object_name":"App"}
///
/// Every other member stays as it was, so a report with nothing resolved comes back unchanged.
public enum KSCrashRenderer {
    /// The members a resolved frame object is given (and loses, when it is resolved anew).
    static let memberNames = ["symbol_name", "symbol_addr", "file", "line", "inlined_frames"]

    /// Appends `document`, the KSCrash report `symbolicated` was read from
    /// (``ReportSource/kscrash(_:)``), with the resolved frames written in, to `out`. With
    /// `flush`, hands it on as it goes (``OutputFlush``).
    public static func render(_ symbolicated: SymbolicatedReport, document: KSCrashDocument, fullPath: Bool,
                              into out: inout [UInt8], flush: OutputFlush? = nil) {
        let report = symbolicated.report
        JSONFrameWriteBack.render(symbolicated, bytes: document.bytes, tree: document.tree, replaced: memberNames,
                                  frameNode: document.frameNode, members: { key, sourceFrames in
            guard let concrete = sourceFrames.last, report.threads.indices.contains(key.thread),
                  report.threads[key.thread].frames.indices.contains(key.frame)
            else { return [] }
            let frame = report.threads[key.thread].frames[key.frame]
            var members: [(name: String, value: [UInt8])] = [("symbol_name", JSONFrameWriteBack.string(concrete.function))]
            if !frame.addressUnknown, let offset = concrete.offset, offset <= frame.address {
                members.append(("symbol_addr", JSONFrameWriteBack.number(frame.address - offset)))
            }
            members += place(of: concrete, fullPath: fullPath)
            if sourceFrames.count > 1 {
                let inlined = sourceFrames.dropLast().map { inlined in
                    JSONFrameWriteBack.object([("symbol_name", JSONFrameWriteBack.string(inlined.function))]
                                              + place(of: inlined, fullPath: fullPath))
                }
                members.append(("inlined_frames", JSONFrameWriteBack.array(inlined)))
            }
            return members
        }, into: &out, flush: flush)
    }

    /// `file` and `line` of a resolved frame, as far as they are known.
    private static func place(of frame: SourceFrame, fullPath: Bool) -> [(name: String, value: [UInt8])] {
        guard let file = frame.file else { return [] }
        var members: [(name: String, value: [UInt8])] = [("file", JSONFrameWriteBack.string(fullPath ? file : String(basename(file))))]
        if let line = frame.line, line > 0 { members.append(("line", JSONFrameWriteBack.number(line))) }
        return members
    }
}
