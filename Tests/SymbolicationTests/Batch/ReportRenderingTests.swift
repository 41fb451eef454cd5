import CrashReport
@testable import Symbolication
import XCTest

/// The table of output (`ReportRendering`): what writes a report of each source in each output
/// format, on the stream and in a file of its own.
final class ReportRenderingTests: XCTestCase {
    /// One small report of each source, as `ReportParser` reads it.
    static let reports: [(name: String, text: String)] = [
        ("classic", """
            Thread 0 Crashed:
            0   App                           \t0x0000000104a3c5e0 0x104a30000 + 50656

            Binary Images:
            0x104a30000 - 0x104a3ffff App arm64  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /App

            """),
        ("ips", #"""
            {"bug_type":"309","app_name":"App"}
            {"threads":[{"triggered":true,"frames":[{"imageOffset":50656,"imageIndex":0}]}],
             "usedImages":[{"base":4372758528,"size":65536,"uuid":"6b0a6a3f-1bde-3c4a-9e2d-5f0a1b2c3d4e","name":"App","arch":"arm64","path":"/App"}]}

            """#),
        ("metricKit", #"{"callStacks":[{"callStackRootFrames":[{"binaryUUID":"6B0A6A3F-1BDE-3C4A-9E2D-5F0A1B2C3D4E","offsetIntoBinaryTextSegment":50656,"binaryName":"App","address":4372809184}]}]}"#),
        ("kscrash", #"""
            {"report":{"version":"3.3.0"},"binary_images":[{"image_addr":4372758528,"image_size":65536,"name":"/App","uuid":"6B0A6A3F-1BDE-3C4A-9E2D-5F0A1B2C3D4E","cpu_type":16777228,"cpu_subtype":0}],
             "crash":{"threads":[{"index":0,"crashed":true,"backtrace":{"contents":[{"instruction_addr":4372809184}]}}]}}

            """#),
        ("callTree", """
            Heaviest stack for the main thread of the target process:
              49  ??? (App + 16900) [0x104a34204] 1-49

            Binary Images:
                   0x104a30000 -        0x104a37fff  App <4c4c44c355553144a19baf60d4f21f14>  /Applications/App.app/App

            """),
        ("swiftBacktrace JSON", """
            { "kind": "crashReport", "threads": [ { "name": "app", "crashed": true, "frames": [ { "kind": "programCounter", "address": "0x00005555555557e0" } ] } ], "images": [ { "name": "app", "buildId": "fdeb5b5d", "path": "/tmp/app", "baseAddress": "0x0000555555554000", "endOfText": "0x0000555555555e90" } ] }

            """),
        ("swiftBacktrace text", """
            *** Program crashed: Illegal instruction at 0x00005555555557e0 ***

            Thread 0 crashed:

            0      0x00005555555557e0

            """),
        ("linuxLog", "backtrace:\n./prog(+0x1388)[0x55fd7aec4388]\n"),
        ("tombstone", """
            *** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***
            pid: 4242, tid: 4242, name: example  >>> com.example <<<
            backtrace:
                  #00 pc 000000000000433c  /data/app/lib/arm64/libcrashy.so (cart_total+36)

            """),
        ("noBacktraces", "{\"bug_type\":\"298\"}\n{\"crashReporterKey\":\"x\"}\n"),
    ]

    /// What writes `source` in `format`, to the stream and to a file: "stream / file".
    private func rendering(_ source: ReportSource, _ format: OutputFormat) -> String {
        ReportRendering(source: source, format: format, toFile: false).caseName + " / "
            + ReportRendering(source: source, format: format, toFile: true).caseName
    }

    func testEachSourceInEachFormat() throws {
        let expected: [String: [OutputFormat: String]] = [
            "classic": [.text: "text / text", .ips: "text / text", .metricKit: "text / text", .kscrash: "text / text"],
            "ips": [.text: "text / ips", .ips: "ips / ips", .metricKit: "text / text", .kscrash: "text / text"],
            "metricKit": [.text: "text / MetricKit", .ips: "text / text", .metricKit: "MetricKit / MetricKit",
                          .kscrash: "text / text"],
            "kscrash": [.text: "text / KSCrash", .ips: "text / text", .metricKit: "text / text", .kscrash: "KSCrash / KSCrash"],
            "callTree": [.text: "call tree / call tree", .ips: "call tree / call tree",
                         .metricKit: "call tree / call tree", .kscrash: "call tree / call tree"],
            "swiftBacktrace JSON": [.text: "Swift JSON / Swift JSON", .ips: "Swift JSON / Swift JSON",
                                    .metricKit: "Swift JSON / Swift JSON", .kscrash: "Swift JSON / Swift JSON"],
            "swiftBacktrace text": [.text: "text / text", .ips: "text / text", .metricKit: "text / text", .kscrash: "text / text"],
            "linuxLog": [.text: "text / text", .ips: "text / text", .metricKit: "text / text", .kscrash: "text / text"],
            "tombstone": [.text: "text / text", .ips: "text / text", .metricKit: "text / text", .kscrash: "text / text"],
            "noBacktraces": [.text: "text / text", .ips: "text / text", .metricKit: "text / text", .kscrash: "text / text"],
        ]
        for (name, text) in Self.reports {
            let report = try ReportParser.parse(Array(text.utf8), path: name)
            let source = report.source
            XCTAssertEqual(Self.caseName(source), name.split(separator: " ").first.map(String.init), name)
            for format in OutputFormat.allCases {
                let want = expected[name]?[format] ?? (format == .json ? "JSON entry / JSON document" : "frames / frames")
                XCTAssertEqual(rendering(source, format), want, "\(name) in \(format.rawValue)")
            }
        }
    }

    /// An `.ips` report is read for its document exactly when it is written back as `.ips`, and
    /// read that way, it is written as it is when read whole; read for its model, as JSON; read
    /// for its text, it is written in every other format as it is when read whole.
    func testAReportIsReadForWhatItsRenderingUses() throws {
        let text = Array(Self.reports.first { $0.name == "ips" }!.text.utf8)
        let whole = try ReportParser.parse(text, path: "ips")
        for format in OutputFormat.allCases {
            for toFile in [false, true] {
                let use = ReportRendering.use(format: format, toFile: toFile)
                let rendering = ReportRendering(source: whole.source, format: format, toFile: toFile)
                if case .ips = rendering {
                    XCTAssertEqual(use, .document, "\(format.rawValue), to a file: \(toFile)")
                } else if format == .json {
                    XCTAssertEqual(use, .model, "\(format.rawValue), to a file: \(toFile)")
                } else {
                    XCTAssertEqual(use, .text, "\(format.rawValue), to a file: \(toFile)")
                }
                let read = try ReportParser.parse(text, path: "ips", use: use)
                XCTAssertEqual(ReportRendering(source: read.source, format: format, toFile: toFile).caseName,
                               rendering.caseName, "\(format.rawValue), to a file: \(toFile)")
            }
        }
    }

    /// The name of the source's case, to check that each report above is read as it is named.
    private static func caseName(_ source: ReportSource) -> String {
        switch source {
        case .classic: return "classic"
        case .ips: return "ips"
        case .linuxLog: return "linuxLog"
        case .tombstone: return "tombstone"
        case .swiftBacktrace: return "swiftBacktrace"
        case .metricKit: return "metricKit"
        case .kscrash: return "kscrash"
        case .protobufTombstone: return "protobufTombstone"
        case .plcrash: return "plcrash"
        case .callTree: return "callTree"
        case .noBacktraces: return "noBacktraces"
        }
    }
}

extension ReportRendering {
    /// What the rendering is, in a word or two.
    var caseName: String {
        switch self {
        case .text: return "text"
        case .callTree: return "call tree"
        case .swiftBacktraceJSON: return "Swift JSON"
        case .ips: return "ips"
        case .metricKit: return "MetricKit"
        case .kscrash: return "KSCrash"
        case .jsonEntry: return "JSON entry"
        case .jsonDocument: return "JSON document"
        case .frames: return "frames"
        }
    }
}
