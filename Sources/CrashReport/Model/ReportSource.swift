/// What a report was read from, with the document the renderers write back for it.
///
/// `CrashReport.bytes` always holds text, line for line: the input itself for the text formats,
/// a translation into the classic form for `.ips` and MetricKit JSON. A source whose output is
/// more than that text holds what that output needs: the document the report was translated
/// from, or what the parser found about each frame beyond the `Frame` model.
public enum ReportSource: Sendable {
    /// The classic text report (`.crash`), also the text body of an `.ips` file (bug_type 109,
    /// resource reports, ...).
    case classic
    /// A JSON `.ips` report (bug_type 309, or a stackshot): the original document and where each
    /// frame sits in it; `bytes` holds its translation into the classic form. A report read for
    /// one of the two alone (``ReportUse``) holds a document without bytes, or a translation
    /// whose threads' lines are empty.
    case ips(IPSDocument)
    /// A Linux crash-style log: glibc `backtrace_symbols` or sanitizer / LLVM frame lines.
    case linuxLog
    /// An Android tombstone in its text form, also behind logcat's prefixes
    /// (`TombstoneParser`). The function a frame line names is the device's own, and stays in
    /// the line: a resolved frame's function and source location are added after it.
    case tombstone
    /// An Android protobuf tombstone (`tombstone_NN.pb`); `bytes` holds its translation into the
    /// text tombstone (`ProtobufTombstoneText`), whose output it has. The message is not
    /// written back.
    case protobufTombstone
    /// The crash log of the Swift runtime's backtracer (`SWIFT_BACKTRACE`), text or JSON: the
    /// JSON document its frames came from, nil for the text form.
    case swiftBacktrace(SwiftBacktraceDocument?)
    /// A MetricKit diagnostic payload (`MXDiagnosticPayload`, one diagnostic, or an array of
    /// payloads) in the JSON its `jsonRepresentation()` writes: the original document and the
    /// frame object of each frame; `bytes` holds its translation (`MetricKitTranslator`).
    case metricKit(MetricKitDocument)
    /// A KSCrash (or SentryCrash) JSON report, or an array of them: the original document and
    /// the frame object of each frame; `bytes` holds its translation (`KSCrashTranslator`),
    /// whose output is a classic report's (text, JSON, frame lines).
    case kscrash(KSCrashDocument)
    /// A PLCrashReporter `.plcrash` report; `bytes` holds its translation into the text
    /// PLCrashReporter's formatter writes (`PLCrashText`), whose output is a classic report's.
    /// The message is not written back.
    case plcrash
    /// Sampled call trees (spindump, hang and microstackshot reports, macOS `sample` output):
    /// each frame's sample count and the parts of its line.
    case callTree(CallTreeDocument)
    /// A report without backtraces to symbolicate (a jetsam event, a kernel panic, ...), kept
    /// as it is; its `warnings` say so.
    case noBacktraces

    /// What a report of a protobuf source is called in messages ("a protobuf tombstone"); nil
    /// for the sources read from text.
    public var protobufKind: String? {
        switch self {
        case .protobufTombstone: return "a protobuf tombstone"
        case .plcrash: return "a .plcrash report"
        default: return nil
        }
    }

    /// How the program that wrote the report names a frame, which a resolved frame follows.
    public var frameNaming: FrameNaming {
        switch self {
        case .swiftBacktrace: return .swiftRuntime
        case .classic, .ips, .linuxLog, .tombstone, .protobufTombstone, .metricKit, .kscrash, .plcrash, .callTree,
             .noBacktraces: return .standard
        }
    }

    /// How the report's frame lines are written, which a resolved frame line follows.
    public var frameLines: FrameLineForm {
        switch self {
        case .linuxLog: return .linux
        case .tombstone, .protobufTombstone: return .tombstone
        case .swiftBacktrace: return .swiftRuntime
        case .classic, .ips, .metricKit, .kscrash, .plcrash, .callTree, .noBacktraces: return .apple
        }
    }
}

/// How a report's producer names a frame: its function, and the offset into it.
public enum FrameNaming: Sendable, Equatable {
    /// As Apple's reports and the usual tools name it: the demangled name in full, and the
    /// offset of the address from the function's start.
    case standard
    /// As the Swift runtime's backtracer names it: Swift names in their simplified form
    /// (`load(_:)`), a return address's offset counted from the byte before it (the call), no
    /// offset for an inlined call, and no `+ 0`.
    case swiftRuntime
}

/// How a report writes a frame line, and so how a resolved one is written in its place.
public enum FrameLineForm: Sendable, Equatable {
    /// Apple's: `function + offset (File.m:42)` after the address.
    case apple
    /// A sanitizer's or glibc's (`TextRenderer+Linux.swift`).
    case linux
    /// The Swift runtime's `symbolicate=full` form (`TextRenderer+Swift.swift`).
    case swiftRuntime
    /// An Android tombstone's: the line kept whole, `in FUNCTION FILE:LINE:COLUMN` after it
    /// (`TextRenderer+Tombstone.swift`).
    case tombstone
}
