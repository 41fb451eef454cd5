import CrashReport
import DebugInfo
import Foundation

/// How symbolicated reports are written.
public enum OutputFormat: String, CaseIterable, Sendable {
    /// The report line for line, frames resolved in place.
    case text
    /// One JSON document for all reports.
    case json
    /// `.ips` reports written back as `.ips` with symbols filled in; other reports as text.
    case ips
}

/// Reads reports, symbolicates them and writes them out: the work of one `symbolicate` run.
public final class ReportRunner {
    /// How to write the reports.
    public struct Options: Sendable {
        /// Text or JSON.
        public var format: OutputFormat
        /// Full source paths instead of file names.
        public var fullPath: Bool
        public init(format: OutputFormat = .text, fullPath: Bool = false) {
            self.format = format
            self.fullPath = fullPath
        }
    }

    /// How a run ended, as the process exit status.
    public enum Status: Int32, Sendable {
        /// Every report was read and written.
        case success = 0
        /// Some report could not be read or parsed; the others were written.
        case reportFailed = 1
    }

    private let symbolicator: Symbolicator
    private let options: Options
    private let diagnostics: Diagnostics

    /// A runner that symbolicates with `symbolicator` and reports problems to `diagnostics`.
    public init(symbolicator: Symbolicator, options: Options, diagnostics: Diagnostics) {
        self.symbolicator = symbolicator
        self.options = options
        self.diagnostics = diagnostics
    }

    /// Symbolicates the reports at `inputs` (files, directories of `*.crash` / `*.ips`
    /// files, or `-` for standard input) and writes them to `output`.
    public func run(inputs: [String], output: OutputWriter) -> Status {
        var status = Status.success
        let paths = expand(inputs, status: &status)
        var collected: [SymbolicatedReport] = []
        var written = 0
        for path in paths {
            guard let report = read(path) else {
                status = .reportFailed
                continue
            }
            let symbolicated = symbolicator.symbolicate(report)
            switch options.format {
            case .text, .ips:
                var bytes: [UInt8] = []
                if paths.count > 1 {
                    if written > 0 { bytes.append(0x0a) }
                    bytes += Array("==> \(path) <==\n".utf8)
                }
                if options.format == .ips {
                    IPSRenderer.render(symbolicated, fullPath: options.fullPath, into: &bytes)
                } else {
                    TextRenderer(fullPath: options.fullPath).render(symbolicated, into: &bytes)
                }
                output.write(bytes)
                written += 1
            case .json:
                collected.append(symbolicated)
            }
            if output.closed { return status }
        }
        if options.format == .json {
            var bytes: [UInt8] = []
            JSONRenderer.render(collected, into: &bytes)
            output.write(bytes)
        }
        output.flush()
        return status
    }

    private func expand(_ inputs: [String], status: inout Status) -> [String] {
        var paths: [String] = []
        for input in inputs {
            var isDirectory: ObjCBool = false
            if input != "-", FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory), isDirectory.boolValue {
                let reports = DebugFileLocator.regularFiles(under: input).filter { $0.hasSuffix(".crash") || $0.hasSuffix(".ips") }
                if reports.isEmpty { diagnostics.warn("\(input): no *.crash or *.ips reports in this directory") }
                paths += reports
            } else {
                paths.append(input)
            }
        }
        return paths
    }

    private func read(_ path: String) -> CrashReport? {
        let bytes: [UInt8]
        if path == "-" {
            bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
        } else {
            do {
                let mapped = try MappedFile(path: path)
                bytes = withExtendedLifetime(mapped) { Array(mapped.bytes) }
            } catch {
                diagnostics.warn("\(error)")
                return nil
            }
        }
        do {
            return try ReportParser.parse(bytes, path: path == "-" ? "<stdin>" : path)
        } catch {
            diagnostics.warn("\(error)")
            return nil
        }
    }
}
