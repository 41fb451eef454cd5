import CrashReport
import TestSupport
import XCTest

/// Parses `text` as a classic report.
func parse(_ text: String, path: String = "test.crash") throws -> CrashReport {
    try ClassicReportParser.parse(Array(text.utf8), path: path)
}

/// The text after a frame's address, from its line and `restStart`.
func restText(_ report: CrashReport, _ frame: Frame) -> String? {
    guard let restStart = frame.restStart else { return nil }
    let range = report.lines[frame.line]
    return withoutTerminator(report.bytes[(range.lowerBound + restStart)..<range.upperBound])
}

/// Bytes as text, without a final "\n" or "\r\n".
private func withoutTerminator(_ bytes: ArraySlice<UInt8>) -> String {
    var bytes = bytes
    if bytes.last == 0x0A { bytes.removeLast() }
    if bytes.last == 0x0D { bytes.removeLast() }
    return String(decoding: bytes, as: UTF8.self)
}

/// The text output of `report` with nothing resolved.
func renderedUnchanged(_ report: CrashReport) -> [UInt8] {
    var out: [UInt8] = []
    TextRenderer().render(SymbolicatedReport(report: report), into: &out)
    return out
}

/// The shared corpus of real reports, `<package>/../shared/corpus/reports`.
enum Corpus {
    static let directory: URL = TestPaths.packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/corpus/reports")

    /// Every report file in the corpus; skips the test if the corpus is absent.
    static func files() throws -> [URL] {
        guard FileManager.default.fileExists(atPath: directory.path) else {
            throw XCTSkip("The shared corpus is absent (looked for \(directory.path)); skipping the corpus tests.")
        }
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// The bytes of one corpus report; skips the test if it is absent.
    static func bytes(_ name: String) throws -> [UInt8] {
        let url = directory.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw XCTSkip("The shared corpus report \(url.path) is absent; skipping.")
        }
        return [UInt8](data)
    }

    /// One corpus report, parsed.
    static func report(_ name: String) throws -> CrashReport {
        let url = directory.appendingPathComponent(name)
        return try ClassicReportParser.parse(bytes(name), path: url.path)
    }
}

/// A report source's case without its document, to compare in assertions.
enum SourceKind: Equatable {
    case classic, ips, linuxLog, tombstone, protobufTombstone, swiftBacktrace, metricKit, kscrash, plcrash, callTree,
         noBacktraces
}

extension ReportSource {
    /// The case, without its document.
    var kind: SourceKind {
        switch self {
        case .classic: return .classic
        case .ips: return .ips
        case .linuxLog: return .linuxLog
        case .tombstone: return .tombstone
        case .swiftBacktrace: return .swiftBacktrace
        case .metricKit: return .metricKit
        case .kscrash: return .kscrash
        case .protobufTombstone: return .protobufTombstone
        case .plcrash: return .plcrash
        case .callTree: return .callTree
        case .noBacktraces: return .noBacktraces
        }
    }

    /// The `.ips` document of an `.ips` report; nil for other sources.
    var ips: IPSDocument? {
        if case .ips(let document) = self { return document }
        return nil
    }

    /// The MetricKit document of a MetricKit payload; nil for other sources.
    var metricKit: MetricKitDocument? {
        if case .metricKit(let document) = self { return document }
        return nil
    }

    /// The call-tree document of a call-tree report; nil for other sources.
    var callTree: CallTreeDocument? {
        if case .callTree(let document) = self { return document }
        return nil
    }
}
