import Platform

/// Reads a report in any of the formats this tool knows, choosing by content, not by name.
public enum ReportParser {
    /// Parses `bytes`, the contents of the file at `path` ("<stdin>" for standard input).
    ///
    /// - Binary reports come first, by their bytes: a PLCrashReporter `.plcrash` report (the
    ///   magic `plcrash` and version 1, `PLCrashParser`) and an Android protobuf tombstone
    ///   (`tombstone_NN.pb`, `ProtobufTombstoneParser`), each translated to the text its
    ///   producer's formatter prints.
    /// - A first line that is a JSON object with a `bug_type` is an `.ips` report, and its body
    ///   is read as what it holds, whatever the bug_type: a stackshot (bug_type 288, or any
    ///   body with `processByPid`) by `StackshotParser`; a text body of sampled call trees
    ///   (microstackshots) as the text form is; a JSON crash body (bug_type 309, or any JSON
    ///   body with `threads`) or a classic text body (109, resource reports, ...) by
    ///   `IPSReportParser`. A report of a type that often holds no backtraces — jetsam events,
    ///   panics — whose body has no frame at all is passed through with a warning
    ///   (`NoBacktraceReport`).
    /// - A JSON object or array holding MetricKit diagnostics is a MetricKit payload
    ///   (`MetricKitParser`).
    /// - A JSON object or array holding KSCrash (or SentryCrash) reports, each with `crash` and
    ///   `binary_images` (`KSCrashParser`).
    /// - An Android tombstone, also behind logcat's prefixes (`TombstoneParser`): before the
    ///   text formats below, whose lines its logcat section may hold (and which are read too:
    ///   `MixedProducers`).
    /// - The crash log of the Swift runtime's backtracer, text or JSON (`SwiftBacktraceParser`);
    ///   in the text form, the Linux log's frame lines of other producers too (`MixedProducers`).
    /// - A line that opens a call tree (`Call graph:`, `Heaviest stack for ...`, `Data Source:
    ///   Stackshots`) makes a spindump, `sample` or microstackshot report (`CallTreeReportParser`).
    /// - Lines of glibc `backtrace_symbols` or sanitizer frames make a Linux log
    ///   (`LinuxLogParser`).
    /// - Anything else is read as a classic text report (`ClassicReportParser`).
    ///
    /// UTF-16 text (`UTF16Text`) is turned into UTF-8 first, and the report's `warnings` say so:
    /// it is written out as UTF-8.
    ///
    /// `use` says what the report is read for (``ReportUse``): an `.ips` report read for its
    /// text or for its document alone holds only that.
    public static func parse(_ bytes: [UInt8], path: String, use: ReportUse = .any) throws -> CrashReport {
        try parse(bytes, path: path, use: use, releasingInput: false)
    }

    private static func parse(_ bytes: [UInt8], path: String, use: ReportUse, releasingInput: Bool) throws -> CrashReport {
        var report: CrashReport
        if PLCrashParser.looksLikePLCrash(bytes) {
            return try PLCrashParser.parse(bytes, path: path)
        }
        if ProtobufTombstoneParser.looksLikeProtobufTombstone(bytes) {
            return try ProtobufTombstoneParser.parse(bytes, path: path)
        }
        if let encoding = UTF16Text.encoding(of: bytes) {
            let decoded = UTF16Text.decode(bytes, encoding)
            report = try parseUTF8(decoded.utf8, path: path, use: use, releasingInput: releasingInput)
            report.warnings.append(UTF16Text.note(path: path, encoding: encoding, replaced: decoded.replaced))
        } else {
            report = try parseUTF8(bytes, path: path, use: use, releasingInput: releasingInput)
        }
        // The room that growing one thread at a time left, given back (a report of many short
        // backtraces holds many threads): its pages, not a copy of the threads, which would
        // hold them twice at once at the run's peak.
        report.threads.releaseRoomPastCount()
        return report
    }

    /// Parses `bytes` as ``parse(_:path:use:)`` does, taking them: once the report is made,
    /// `bytes` is left empty, and a JSON `.ips` report read for its text (``ReportUse/text``)
    /// gives the pages of its JSON back to the system as it translates them, so that its JSON
    /// and its text are never held whole at once. When the parse throws, `bytes` are left as
    /// they were: the input can be written out unchanged.
    public static func parse(taking bytes: inout [UInt8], path: String, use: ReportUse) throws -> CrashReport {
        // Bytes shared with another array are copied first: the pages given back are theirs alone.
        bytes.withUnsafeMutableBufferPointer { _ in }
        let report = try parse(bytes, path: path, use: use, releasingInput: true)
        bytes = []
        return report
    }

    /// The report in `bytes` read for `use` (``ReportUse/text`` or ``ReportUse/document``) a
    /// piece at a time (``IPSPieces``), taking them, when it is a JSON `.ips` crash report (a
    /// body with `threads`, of a bug_type that is not a stackshot's, a call tree's or one that
    /// often holds no frames); nil otherwise, `bytes` left as they were, to be read whole
    /// (``parse(taking:path:use:)``). The pages of its JSON are given back as it goes.
    ///
    /// - Throws: what ``parse(taking:path:use:)`` throws for these bytes, `bytes` left as they
    ///   were.
    public static func pieces(taking bytes: inout [UInt8], path: String, pieceSize: Int,
                              use: ReportUse = .text) throws -> IPSPieces? {
        guard use == .text || use == .document, !PLCrashParser.looksLikePLCrash(bytes), !ProtobufTombstoneParser.looksLikeProtobufTombstone(bytes),
              UTF16Text.encoding(of: bytes) == nil, IPSReportParser.looksLikeIPS(bytes),
              let bugType = self.bugType(bytes), bugType != "288", NoBacktraceReport.kinds[bugType] == nil,
              !StackshotParser.looksLikeStackshot(bytes), bugType == "309" || !CallTreeReportParser.looksLikeCallTree(bytes)
        else { return nil }
        // Bytes shared with another array are copied first: the pages given back are theirs alone.
        bytes.withUnsafeMutableBufferPointer { _ in }
        guard let pieces = try IPSReportParser.pieces(bytes, path: path, pieceSize: pieceSize, use: use,
                                                      releasingInput: true) else {
            return nil
        }
        bytes = []
        return pieces
    }

    private static func parseUTF8(_ bytes: [UInt8], path: String, use: ReportUse, releasingInput: Bool) throws -> CrashReport {
        if IPSReportParser.looksLikeIPS(bytes) {
            let bugType = self.bugType(bytes)
            if bugType == "288" || StackshotParser.looksLikeStackshot(bytes),
               let report = try StackshotParser.parse(bytes, path: path, required: bugType == "288") {
                return report
            }
            let report = bugType != "309" && CallTreeReportParser.looksLikeCallTree(bytes)
                ? try CallTreeReportParser.parse(bytes, path: path)
                : try IPSReportParser.parse(bytes, path: path, use: use, releasingInput: releasingInput)
            if let bugType, let kind = NoBacktraceReport.kinds[bugType], NoBacktraceReport.hasNoFrames(report) {
                return try NoBacktraceReport.report(bytes, path: path, kind: kind)
            }
            return report
        }
        if MetricKitParser.looksLikeMetricKit(bytes), let report = try MetricKitParser.parse(bytes, path: path) {
            return report
        }
        if KSCrashParser.looksLikeKSCrash(bytes), let report = try KSCrashParser.parse(bytes, path: path) {
            return report
        }
        if TombstoneParser.looksLikeTombstone(bytes) {
            return MixedProducers.addingLinuxBacktraces(to: try TombstoneParser.parse(bytes, path: path), bytes: bytes)
        }
        if SwiftBacktraceParser.looksLikeSwiftBacktrace(bytes) {
            let report = try SwiftBacktraceParser.parse(bytes, path: path)
            guard case .swiftBacktrace(nil) = report.source else { return report }
            return MixedProducers.addingLinuxBacktraces(to: report, bytes: bytes)
        }
        if CallTreeReportParser.looksLikeCallTree(bytes) {
            return try CallTreeReportParser.parse(bytes, path: path)
        }
        if LinuxLogParser.looksLikeLinuxLog(bytes) {
            return try LinuxLogParser.parse(bytes, path: path)
        }
        return try ClassicReportParser.parse(bytes, path: path)
    }

    /// The `bug_type` of an `.ips` metadata line; nil when the line is not valid JSON (which
    /// `IPSReportParser` reports).
    private static func bugType(_ bytes: [UInt8]) -> String? {
        let start = bytes.withUnsafeBufferPointer { $0.byteOrderMarkLength }
        guard let (metadata, _) = try? JSONScanner.parse(bytes, from: start, maxNodes: JSONScanner.documentNodeLimit(bytes.count - start))
        else { return nil }
        return metadata.text(metadata.member("bug_type", of: metadata.root))
    }
}

private extension Array {
    /// Gives back the whole pages of the room past the last element (``System/releasePages(_:)``):
    /// the room that growing by copies left, without a copy of the elements to let it go.
    /// Nothing reads that room before it is written again.
    mutating func releaseRoomPastCount() {
        let (count, capacity) = (self.count, self.capacity)
        guard (capacity - count) * MemoryLayout<Element>.stride >= System.pageSize else { return }
        withUnsafeMutableBufferPointer { elements in
            guard let base = elements.baseAddress else { return }
            let room = UnsafeRawPointer(base + count)
            System.releasePages(UnsafeRawBufferPointer(start: room, count: (capacity - count) * MemoryLayout<Element>.stride))
        }
    }
}
