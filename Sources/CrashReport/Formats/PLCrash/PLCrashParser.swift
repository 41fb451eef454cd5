internal import SwiftProtobuf

/// Reads PLCrashReporter's binary reports (`.plcrash`, what `PLCrashReporter`'s
/// `loadPendingCrashReportData` gives an app, and what crash services receive from it).
///
/// A file is the 7 bytes `plcrash`, a version byte (1), and a `CrashReport` protobuf message
/// (`Protos/plcrash.proto`, PLCrashReporter's fields and numbers), decoded by swift-protobuf's
/// generated code (`plcrash.pb.swift`). The report is written out as the Apple-style text that
/// PLCrashReporter's own `PLCrashReportTextFormatter` makes of it (`PLCrashText`), and that
/// text is read as any classic report is (`ClassicReportParser`): frames are tied to images by
/// address range, every frame after a thread's first is a return address, and the exception's
/// backtrace is a `Last Exception Backtrace`. The result's source is `.plcrash`: its text, JSON
/// and frame-line output are those of a classic report, the message is not written back.
public enum PLCrashParser {
    /// The bytes a `.plcrash` file starts with, before its version byte.
    static let magic: [UInt8] = Array("plcrash".utf8)

    /// Whether `bytes` start with the `plcrash` magic and a version byte: a control character,
    /// not text (a line that starts with the word goes on with a blank or a letter).
    public static func looksLikePLCrash(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count > magic.count, bytes.starts(with: magic) else { return false }
        let version = bytes[magic.count]
        return version < 0x20 && version != 0x09 && version != 0x0A && version != 0x0D
    }

    /// ``looksLikePLCrash(_:)`` of an array.
    public static func looksLikePLCrash(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { looksLikePLCrash($0) }
    }

    /// Parses the `.plcrash` report at `path`.
    ///
    /// - Throws: `ReportError.invalidProtobuf` for a version other than 1, or a message
    ///   swift-protobuf cannot decode (cut short, damaged).
    public static func parse(_ bytes: [UInt8], path: String) throws -> CrashReport {
        let format = "PLCrashReporter report"
        guard bytes.count > magic.count, bytes[magic.count] == 1 else {
            throw ReportError.invalidProtobuf(path, format: format,
                                              reason: bytes.count > magic.count
                                                  ? "version \(bytes[magic.count]) is not known (1 is)"
                                                  : "the file ends after its magic number")
        }
        if let reason = bytes.withUnsafeBufferPointer({ ProtobufFields.tooDense(UnsafeBufferPointer(rebasing: $0[(magic.count + 1)...])) }) {
            throw ReportError.invalidProtobuf(path, format: format, reason: reason)
        }
        let message: Plcrash_CrashReport
        do {
            message = try bytes.withUnsafeBufferPointer { b in
                try Plcrash_CrashReport(serializedBytes: Array(b[(magic.count + 1)...]))
            }
        } catch {
            throw ReportError.invalidProtobuf(path, format: format, reason: ProtobufDecoding.reason(error))
        }
        let text = PLCrashText.write(message)
        var report = try ClassicReportParser.parse(text, path: path)
        report.source = .plcrash
        return report
    }
}
