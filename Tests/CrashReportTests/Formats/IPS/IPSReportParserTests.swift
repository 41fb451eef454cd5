import CrashReport
import TestSupport
import XCTest

/// `.ips` reports on small handwritten snippets laid out like real iOS 15 files: a one-line
/// metadata object, a body pretty-printed at the top level, compact threads.
final class IPSReportParserTests: XCTestCase {
    static let appBase: UInt64 = 0x1_04A3_0000
    static let kernelBase: UInt64 = 0x1_C0A8_A000
    static let foundationBase: UInt64 = 0x1_A6FD_F000
    static let killOffset: UInt64 = 0x2BC4

    static let metadata = #"{"app_name":"Sample","timestamp":"2022-03-01 10:00:00.00 +0100","app_version":"2.1","slice_uuid":"6b0a6a3f-1bde-3c4a-9e2d-5f0a1b2c3d4e","build_version":"7","platform":2,"bundleID":"com.example.Sample","share_with_app_devs":0,"is_first_party":0,"bug_type":"309","os_version":"iPhone OS 15.3 (19D50)","incident_id":"0D3E5A8C-2D6B-4E0A-9E39-71B0C3F4A2D1","name":"Sample"}"#

    static let lastExceptionBacktrace = #"""
          "lastExceptionBacktrace" : [{"imageOffset":1090232,"symbol":"__exceptionPreprocess","symbolLocation":220,"imageIndex":2},{"imageOffset":50700,"imageIndex":0}],

        """#

    /// One string of `asiBacktraces`: the same two frames as text.
    static let asiBacktraces = #"""
          "asiBacktraces" : ["0   CoreFoundation                      0x00000001a70e92b8 __exceptionPreprocess + 220\n1   Sample                              0x0000000104a3c60c 0x104a30000 + 50700"],

        """#

    static let threeFrames = #"[{"imageOffset":\#(killOffset),"symbol":"__pthread_kill","symbolLocation":8,"imageIndex":1},{"imageOffset":50656,"imageIndex":0},{"imageOffset":50688,"imageIndex":0}]"#

    static let images = #"""
          "usedImages" : [
          {
            "source" : "P",
            "arch" : "arm64",
            "base" : \#(appBase),
            "size" : 65536,
            "uuid" : "6b0a6a3f-1bde-3c4a-9e2d-5f0a1b2c3d4e",
            "path" : "\/private\/var\/containers\/Bundle\/Application\/X\/Sample.app\/Sample",
            "name" : "Sample"
          },
          {
            "source" : "P",
            "arch" : "arm64e",
            "base" : \#(kernelBase),
            "size" : 204800,
            "uuid" : "F59C7D2C-A6A2-59C7-371B-920A2E9BC204",
            "path" : "\/usr\/lib\/system\/libsystem_kernel.dylib",
            "name" : "libsystem_kernel.dylib"
          },
          {"source":"P","arch":"arm64e","base":\#(foundationBase),"size":3964928,"uuid":"2dc74254-6f7a-6083-5cd1-97a8d2c9b903","path":"\/System\/Library\/Frameworks\/CoreFoundation.framework\/CoreFoundation","name":"CoreFoundation"}
        ]
        """#

    /// A bug_type 309 report: metadata, then the body with the given parts.
    static func report(lastException: Bool = false, asi: Bool = false, frames: String = threeFrames,
                       images: String = images) -> String {
        metadata + "\n" + #"""
            {
              "procName" : "Sample",
              "pid" : 4242,
              "procPath" : "\/private\/var\/containers\/Bundle\/Application\/X\/Sample.app\/Sample",
              "cpuType" : "ARM-64",
              "parentProc" : "launchd",
              "parentPid" : 1,
              "modelCode" : "iPhone14,2",
              "osVersion" : {
                "train" : "iPhone OS 15.3",
                "build" : "19D50",
                "releaseType" : "User"
              },
              "captureTime" : "2022-03-01 10:00:00.1234 +0100",
              "exception" : {"codes":"0x0000000000000000, 0x0000000000000000","rawCodes":[0,0],"type":"EXC_CRASH","signal":"SIGABRT"},
              "termination" : {"flags":0,"code":6,"namespace":"SIGNAL","indicator":"Abort trap: 6","byProc":"Sample","byPid":4242},
              "asi" : {"libsystem_c.dylib":["abort() called"]},

            """# + (asi ? asiBacktraces : "") + (lastException ? lastExceptionBacktrace : "") + #"""
              "faultingThread" : 0,
              "threads" : [{"triggered":true,"id":1001,"queue":"com.apple.main-thread","frames":\#(frames)},{"id":1002,"name":"worker","frames":[{"imageOffset":4096,"imageIndex":1}]}],

            """# + images + #"""
            ,
              "legacyInfo" : {
              "threadTriggered" : {
                "queue" : "com.apple.main-thread"
              }
            }
            }

            """#
    }

    static func parse(_ text: String, path: String = "test.ips") throws -> CrashReport {
        try IPSReportParser.parse(Array(text.utf8), path: path)
    }

    /// The text of the JSON object `key` came from.
    static func object(_ report: CrashReport, _ key: FrameKey) -> String? {
        guard let document = report.source.ips, let range = document.frameObjects[key] else { return nil }
        return String(decoding: document.bytes[range], as: UTF8.self)
    }

    private func header(_ report: CrashReport, _ key: String) -> String? {
        report.header.first { $0.key == key }?.value
    }

    // MARK: Recognizing

    func testMetadataLineWithBugTypeLooksLikeIPS() {
        XCTAssertTrue(IPSReportParser.looksLikeIPS(Array(Self.report().utf8)))
        XCTAssertTrue(IPSReportParser.looksLikeIPS(Array(("\u{FEFF}" + Self.report()).utf8)), "after a byte order mark")
        XCTAssertTrue(IPSReportParser.looksLikeIPS(Array(#"{"bug_type":"109"}"#.utf8)), "a first line without a newline")
        XCTAssertFalse(IPSReportParser.looksLikeIPS(Array("Incident Identifier: X\nProcess: A [1]\n".utf8)))
        XCTAssertFalse(IPSReportParser.looksLikeIPS(Array((#"{"app_name":"Sample"}"# + "\n{\"bug_type\":\"309\"}").utf8)),
                       "bug_type on the second line only")
        XCTAssertFalse(IPSReportParser.looksLikeIPS([]))
        XCTAssertEqual(try ReportParser.parse(Array(Self.report().utf8), path: "a.ips").source.kind, .ips,
                       "the entry point sends .ips reports here")
    }

    // MARK: bug_type 309

    func testHeaderThreadsFramesAndImages() throws {
        let report = try Self.parse(Self.report())
        XCTAssertEqual(report.source.kind, .ips)
        XCTAssertEqual(report.path, "test.ips")
        XCTAssertEqual(report.source.ips?.bytes, Array(Self.report().utf8), "the document keeps the file's bytes")
        XCTAssertEqual(header(report, "Incident Identifier"), "0D3E5A8C-2D6B-4E0A-9E39-71B0C3F4A2D1")
        XCTAssertEqual(header(report, "Hardware Model"), "iPhone14,2")
        XCTAssertEqual(header(report, "Process"), "Sample [4242]")
        XCTAssertEqual(header(report, "Path"), "/private/var/containers/Bundle/Application/X/Sample.app/Sample")
        XCTAssertEqual(header(report, "Identifier"), "com.example.Sample")
        XCTAssertEqual(header(report, "Version"), "2.1 (7)")
        XCTAssertEqual(header(report, "Parent Process"), "launchd [1]")
        XCTAssertEqual(header(report, "Date/Time"), "2022-03-01 10:00:00.1234 +0100")
        XCTAssertEqual(header(report, "OS Version"), "iPhone OS 15.3 (19D50)")
        XCTAssertEqual(header(report, "Exception Type"), "EXC_CRASH (SIGABRT)")
        XCTAssertEqual(header(report, "Exception Codes"), "0x0000000000000000, 0x0000000000000000")
        XCTAssertEqual(header(report, "Termination Reason"), "Namespace SIGNAL, Code 6 Abort trap: 6")
        XCTAssertEqual(header(report, "Application Specific Information"), "abort() called")
        XCTAssertEqual(report.codeType, "ARM-64 (Native)")
        XCTAssertEqual(report.crashedThread, 0)

        XCTAssertEqual(report.threads.map(\.kind), [.thread(0), .thread(1)])
        XCTAssertEqual(report.threads.map(\.crashed), [true, false])
        XCTAssertEqual(report.threads.map(\.name), ["Dispatch queue: com.apple.main-thread", "worker"])

        let frames = report.threads[0].frames
        XCTAssertEqual(frames.map(\.index), [0, 1, 2])
        XCTAssertEqual(frames.map(\.address), [Self.kernelBase + Self.killOffset, Self.appBase + 50656, Self.appBase + 50688],
                       "address = the image's base + imageOffset")
        XCTAssertEqual(frames.map(\.form), [.symbol(name: "__pthread_kill", offset: 8),
                                            .unsymbolicated(loadAddress: Self.appBase, offset: 50656),
                                            .unsymbolicated(loadAddress: Self.appBase, offset: 50688)])
        XCTAssertEqual(frames.map { $0.image.map { report.images[$0].name } },
                       ["libsystem_kernel.dylib", "Sample", "Sample"])
        XCTAssertEqual(frames.map(\.imageName), ["libsystem_kernel.dylib", "Sample", "Sample"])
        XCTAssertEqual(frames.map(\.returnAddress), [nil, nil, nil], "the position rule holds without inlined frames")

        // Images by address, END = base + size - 1, UUIDs as 32 lowercase digits.
        XCTAssertEqual(report.images.map(\.name), ["Sample", "CoreFoundation", "libsystem_kernel.dylib"])
        let app = report.images[0]
        XCTAssertEqual(app.loadAddress, Self.appBase)
        XCTAssertEqual(app.endAddress, Self.appBase + 65536 - 1)
        XCTAssertEqual(app.uuid, "6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e")
        XCTAssertEqual(app.arch, "arm64")
        XCTAssertEqual(app.path, "/private/var/containers/Bundle/Application/X/Sample.app/Sample")
        XCTAssertEqual(report.images[2].uuid, "f59c7d2ca6a259c7371b920a2e9bc204", "uppercase UUIDs too")
        XCTAssertEqual(report.images[2].arch, "arm64e")

        // Each frame knows the object it came from.
        XCTAssertEqual(Self.object(report, FrameKey(thread: 0, frame: 0)),
                       #"{"imageOffset":\#(Self.killOffset),"symbol":"__pthread_kill","symbolLocation":8,"imageIndex":1}"#)
        XCTAssertEqual(Self.object(report, FrameKey(thread: 0, frame: 1)), #"{"imageOffset":50656,"imageIndex":0}"#)
        XCTAssertEqual(Self.object(report, FrameKey(thread: 0, frame: 2)), #"{"imageOffset":50688,"imageIndex":0}"#)
        XCTAssertEqual(Self.object(report, FrameKey(thread: 1, frame: 0)), #"{"imageOffset":4096,"imageIndex":1}"#)
        XCTAssertEqual(report.source.ips?.frameObjects.count, 4)
        XCTAssertEqual(report.source.ips?.inlinedFrames.isEmpty, true)
        XCTAssertEqual(report.source.ips?.textBacktraces.isEmpty, true)
    }

    func testTheTranslationReadsLikeAClassicReport() throws {
        let report = try Self.parse(Self.report())
        let text = String(decoding: report.bytes, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssert(lines.contains("Thread 0 name:  Dispatch queue: com.apple.main-thread"), text)
        XCTAssert(lines.contains("Thread 0 Crashed:"), text)
        XCTAssert(lines.contains("Thread 1:"), text)
        XCTAssert(lines.contains("Report Version:      12"), text)
        XCTAssert(lines.contains("0   libsystem_kernel.dylib              0x00000001c0a8cbc4 __pthread_kill + 8"), text)
        XCTAssert(lines.contains("1   Sample                              0x0000000104a3c5e0 0x104a30000 + 50656"), text)
        XCTAssert(lines.contains("       0x104a30000 -        0x104a3ffff Sample arm64  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /private/var/containers/Bundle/Application/X/Sample.app/Sample"), text)
        // The text renderer prints the translation as it is when nothing is resolved.
        XCTAssertEqual(renderedUnchanged(report), report.bytes)
    }

    /// Text after the JSON body (what a tool added, or the rest of a file of more reports than
    /// are read each alone) ends the translation as it is, for every use: it was dropped.
    func testTextAfterTheBodyEndsTheTranslation() throws {
        let trailing = "-- exported --\n" + Self.report()
        for use in [ReportUse.any, .text] {
            var bytes = Array((Self.report() + "\n\n" + trailing).utf8)
            let report = try ReportParser.parse(taking: &bytes, path: "trailing.ips", use: use)
            let alone = try Self.parse(Self.report())
            XCTAssertEqual(String(decoding: renderedUnchanged(report), as: UTF8.self),
                           String(decoding: renderedUnchanged(alone), as: UTF8.self) + trailing, "\(use)")
            XCTAssertEqual(report.threads.map(\.frames.count), alone.threads.map(\.frames.count))
        }
    }

    func testLastExceptionBacktraceIsTheFirstBacktraceWhenPresent() throws {
        let without = try Self.parse(Self.report(lastException: false))
        XCTAssertFalse(without.threads.contains { $0.kind == .lastExceptionBacktrace })

        let report = try Self.parse(Self.report(lastException: true))
        XCTAssertEqual(report.threads.map(\.kind), [.lastExceptionBacktrace, .thread(0), .thread(1)])
        let frames = report.threads[0].frames
        XCTAssertEqual(frames.map(\.address), [Self.foundationBase + 1090232, Self.appBase + 50700])
        XCTAssertEqual(frames.map(\.form), [.symbol(name: "__exceptionPreprocess", offset: 220),
                                            .unsymbolicated(loadAddress: Self.appBase, offset: 50700)])
        XCTAssertEqual(frames.map { $0.image.map { report.images[$0].name } }, ["CoreFoundation", "Sample"])
        XCTAssertEqual(Self.object(report, FrameKey(thread: 0, frame: 1)), #"{"imageOffset":50700,"imageIndex":0}"#)
        XCTAssertEqual(report.crashedThread, 0)
        XCTAssertEqual(report.threads.map(\.crashed), [false, true, false])
    }

    func testASIBacktracesBecomeApplicationSpecificBacktraces() throws {
        let text = Self.report(lastException: true, asi: true)
        let report = try Self.parse(text)
        XCTAssertEqual(report.threads.map(\.kind),
                       [.lastExceptionBacktrace, .applicationSpecificBacktrace(1), .thread(0), .thread(1)])
        let frames = report.threads[1].frames
        XCTAssertEqual(frames.map(\.address), [Self.foundationBase + 1090232, Self.appBase + 50700])
        XCTAssertEqual(frames.map(\.form), [.symbol(name: "__exceptionPreprocess", offset: 220),
                                            .unsymbolicated(loadAddress: Self.appBase, offset: 50700)])
        XCTAssertNil(report.source.ips?.frameObjects[FrameKey(thread: 1, frame: 0)], "text frames have no JSON object")

        let backtraces = try XCTUnwrap(report.source.ips?.textBacktraces)
        XCTAssertEqual(backtraces.count, 1)
        let token = String(decoding: Array(text.utf8)[backtraces[0].range], as: UTF8.self)
        XCTAssert(token.hasPrefix("\"0   CoreFoundation") && token.hasSuffix("+ 50700\""), token)
        XCTAssertEqual(String(decoding: backtraces[0].text, as: UTF8.self),
                       "0   CoreFoundation                      0x00000001a70e92b8 __exceptionPreprocess + 220\n"
                       + "1   Sample                              0x0000000104a3c60c 0x104a30000 + 50700")
        XCTAssertEqual(backtraces[0].lines.count, 2)
        XCTAssertEqual(frames.map(\.line), Array(backtraces[0].lines), "the text's lines are the report's lines")
    }

    func testInlinedFramesAreTiedToTheFrameAfterThem() throws {
        let frames = #"[{"imageOffset":50656,"symbol":"clamp","symbolLocation":8,"sourceFile":"Math.h","sourceLine":12,"inline":true,"imageIndex":0},"#
            + #"{"imageOffset":50656,"symbol":"compute","symbolLocation":40,"sourceFile":"main.c","sourceLine":42,"imageIndex":0},"#
            + #"{"imageOffset":50688,"symbol":"orphan","symbolLocation":4,"inline":true,"imageIndex":0},"#
            + #"{"imageOffset":50700,"imageIndex":0}]"#
        let report = try Self.parse(Self.report(frames: frames))
        let thread = report.threads[0]
        XCTAssertEqual(thread.frames.count, 4, "an inlined frame is a frame line of its own")
        XCTAssertEqual(thread.frames.map(\.index), [0, 0, 1, 1], "inlined frames take the number of the frame after them")
        XCTAssertEqual(thread.frames.map(\.address), [Self.appBase + 50656, Self.appBase + 50656,
                                                      Self.appBase + 50688, Self.appBase + 50700])
        XCTAssertEqual(thread.frames.map(\.form), [
            .symbolicated(name: "clamp", offset: 8, file: "Math.h", line: 12),
            .symbolicated(name: "compute", offset: 40, file: "main.c", line: 42),
            .symbol(name: "orphan", offset: 4),
            .unsymbolicated(loadAddress: Self.appBase, offset: 50700),
        ])
        XCTAssertEqual(thread.frames.map(\.inlined), [true, false, true, false])
        XCTAssertEqual(thread.frames.map(\.returnAddress), [nil, nil, nil, nil],
                       "left to the position rule, which counts only frames that are not inlined: "
                       + "frame 0 is the faulting PC even when an inlined frame comes before it")
        XCTAssertEqual(restText(report, thread.frames[0]), "clamp + 8 (Math.h:12) [inlined]")
        XCTAssertEqual(restText(report, thread.frames[2]), "orphan + 4 [inlined]")
        XCTAssertEqual(report.source.ips?.inlinedFrames, [FrameKey(thread: 0, frame: 1): [FrameKey(thread: 0, frame: 0)]],
                       "an inlined frame whose offset differs from the next frame's belongs to none")
    }

    func testMissingNamesPathsAndImages() throws {
        let images = #"""
              "usedImages" : [{"base":4372758528,"size":4096,"uuid":"6b0a6a3f-1bde-3c4a-9e2d-5f0a1b2c3d4e","path":"\/usr\/lib\/libfoo.dylib"},{"base":4372762624,"size":4096},{"size":0,"source":"A","base":0,"uuid":"00000000-0000-0000-0000-000000000000"}]
            """#
        let frames = #"[{"imageOffset":16,"imageIndex":0},{"imageOffset":32,"imageIndex":1},{"imageOffset":48,"imageIndex":7},{"imageOffset":64},{"imageIndex":0}]"#
        let report = try Self.parse(Self.report(frames: frames, images: images))
        XCTAssertEqual(report.images.map(\.name), ["???", "libfoo.dylib", "???"], "a path names an image without a name")
        XCTAssertEqual(report.images.map(\.uuid), ["00000000000000000000000000000000", "6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e", nil])
        XCTAssertEqual(report.images[0].endAddress, UInt64.max, "a size 0 image at 0 spans everything, as Apple prints it")
        XCTAssertEqual(report.images[2].path, nil)
        let thread = report.threads[0]
        XCTAssertEqual(thread.frames.map(\.imageName), ["libfoo.dylib", "???", "???", "???", "libfoo.dylib"])
        // Without an image's base or an offset there is no address: none of the other number
        // stands in for it (the offset alone would fall in the all-spanning image 0).
        XCTAssertEqual(thread.frames.map(\.address), [4372758528 + 16, 4372762624 + 32, 0, 0, 0])
        XCTAssertEqual(thread.frames.map(\.addressUnknown), [false, false, true, true, true])
        XCTAssertEqual(thread.frames.map(\.image), [1, 2, nil, nil, nil])
        XCTAssertEqual(thread.frames[2].form, .unknown, "an imageIndex past usedImages")
        XCTAssertEqual(thread.frames[3].form, .unknown, "no imageIndex")
        XCTAssertEqual(thread.frames[4].form, .unknown, "no imageOffset")

        // A body with hardly anything in it.
        let bare = try Self.parse(Self.metadata + "\n" + #"{"threads":[{"frames":[]}]}"#)
        XCTAssertEqual(bare.threads.map(\.kind), [.thread(0)])
        XCTAssertTrue(bare.images.isEmpty)
        XCTAssertEqual(bare.source.kind, .ips)
        let empty = try Self.parse(Self.metadata + "\n{}")
        XCTAssertTrue(empty.threads.isEmpty)
    }

    func testEscapesUnicodeAndCRLF() throws {
        let frames = #"[{"imageOffset":50656,"symbol":"caf\u00e9 \ud83d\ude00 \ud800x \"q\" \\ \/","symbolLocation":1,"imageIndex":0}]"#
        let text = Self.report(frames: frames).replacingOccurrences(of: "\n", with: "\r\n")
        let report = try Self.parse(text)
        XCTAssertEqual(report.threads[0].frames.map(\.form),
                       [.symbol(name: "café 😀 \u{FFFD}x \"q\" \\ /", offset: 1)])
        XCTAssertEqual(report.images.first?.path, "/private/var/containers/Bundle/Application/X/Sample.app/Sample")
        XCTAssertEqual(report.threads.map(\.kind), [.thread(0), .thread(1)])
    }

    func testControlCharactersInNamesKeepEveryFrameOnItsLine() throws {
        let frames = #"[{"imageOffset":50656,"symbol":"two\nlines\u0000","symbolLocation":1,"imageIndex":0},{"imageOffset":50688,"imageIndex":0}]"#
        let report = try Self.parse(Self.report(frames: frames))
        XCTAssertEqual(report.threads[0].frames.count, 2)
        XCTAssertEqual(report.threads[0].frames[0].form, .symbol(name: "two\nlines\u{0}", offset: 1),
                       "the form says what the JSON says")
        XCTAssertEqual(restText(report, report.threads[0].frames[0]), "two\\x0alines\\x00 + 1")
        XCTAssertFalse(report.bytes.contains(0), "the translation holds no NUL")
    }

    func testAnInvalidBodyIsAOneLineError() throws {
        let text = Self.report().replacingOccurrences(of: #""pid" : 4242,"#, with: #""pid" : 4242"#)
        XCTAssertThrowsError(try Self.parse(text, path: "/tmp/bad.ips")) { error in
            guard case ReportError.invalidIPS(let path, let reason) = error else {
                return XCTFail("expected invalidIPS, got \(error)")
            }
            XCTAssertEqual(path, "/tmp/bad.ips")
            XCTAssertEqual(reason, "the JSON body is not valid JSON: expected ',' or '}' at line 5, column 3")
            XCTAssertEqual("\(error)", "/tmp/bad.ips: not a valid .ips report: \(reason)")
        }
        for (broken, why) in [(#""pid" : 42x,"#, "a bad number"), (#""pid" : [1,],"#, "a trailing comma"),
                              (#""pid" : "a\qb","#, "a bad escape"), (#""pid" : tru,"#, "a bad literal")] {
            let text = Self.report().replacingOccurrences(of: #""pid" : 4242,"#, with: broken)
            XCTAssertThrowsError(try Self.parse(text), why) { error in
                XCTAssert("\(error)".contains("not a valid .ips report: the JSON body is not valid JSON"), "\(why): \(error)")
                XCTAssertFalse("\(error)".contains("\n"), "one line")
            }
        }
        XCTAssertThrowsError(try Self.parse(Self.metadata + "\n[1, 2]")) { error in
            XCTAssertEqual(error as? ReportError,
                           .invalidIPS("test.ips", reason: "the body after the metadata line is not a JSON object"))
        }
        XCTAssertThrowsError(try Self.parse(#"{"bug_type":"309","name":}"# + "\n{}")) { error in
            XCTAssert("\(error)".contains("the metadata line is not valid JSON: expected a value at line 1, column 26"), "\(error)")
        }
    }

    func testEveryTruncationIsReportedAsCutShort() throws {
        let bytes = Array(Self.report(lastException: true, asi: true).utf8)
        let end = bytes.lastIndex(of: 0x7D)!  // the body's closing brace
        for length in 0...end {
            XCTAssertThrowsError(try IPSReportParser.parse(Array(bytes[..<length]), path: "cut.ips"), "\(length) bytes") { error in
                guard case ReportError.invalidIPS(let path, let reason) = error else {
                    return XCTFail("\(length) bytes: expected invalidIPS, got \(error)")
                }
                XCTAssertEqual(path, "cut.ips")
                XCTAssert(reason.hasSuffix("the file is cut short"), "\(length) bytes: \(reason)")
            }
        }
        XCTAssertNoThrow(try IPSReportParser.parse(Array(bytes[...end]), path: "whole.ips"), "without the final newline")
    }

    func testDeepNestingNeitherCrashesNorOverflows() throws {
        let depth = 200_000
        let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let deep = Self.metadata + "\n{\"extra\":" + nested + ",\"threads\":[{\"frames\":[]}]}"
        XCTAssertEqual(try Self.parse(deep).threads.count, 1)
        let open = Self.metadata + "\n{\"extra\":" + String(repeating: "[{\"a\":", count: depth)
        XCTAssertThrowsError(try Self.parse(open)) { error in
            XCTAssert("\(error)".hasSuffix("the file is cut short"), "\(error)")
        }
        XCTAssertThrowsError(try Self.parse(Self.metadata + "\n{\"frames\":" + String(repeating: "[", count: depth)
                                            + String(repeating: "}", count: depth)))
    }

    func testRandomDamageNeverCrashesAndAnythingReadComesBackUnchanged() throws {
        let original = Array(Self.report(lastException: true, asi: true).utf8)
        var random = SplitMix64(seed: 0x1D5)
        var parsed = 0
        for _ in 0..<400 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let i = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[i] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.remove(at: i)
                default: bytes.insert(Array("{}[],:\"\\0 \n".utf8).randomElement(using: &random)!, at: i)
                }
            }
            guard let report = try? ReportParser.parse(bytes, path: "fuzz.ips") else { continue }
            parsed += 1
            var out: [UInt8] = []
            if let document = report.source.ips {
                IPSRenderer.render(SymbolicatedReport(report: report), document: document, fullPath: false, into: &out)
                XCTAssertEqual(out, document.bytes, "nothing resolved: the input comes back")
            } else {
                TextRenderer().render(SymbolicatedReport(report: report), into: &out)
                XCTAssertEqual(out, report.bytes, "nothing resolved: the input comes back")
            }
        }
        XCTAssertGreaterThan(parsed, 50, "some damage (inside strings, say) leaves a readable report")
    }

    // MARK: Other bug types

    func testBugType109IsAClassicReportAfterTheMetadataLine() throws {
        let classic = "Incident Identifier: 0D3E5A8C-2D6B-4E0A-9E39-71B0C3F4A2D1\n"
            + "Process:             Sample [4242]\n"
            + "Code Type:           X86-64 (Native)\n"
            + "Crashed Thread:        0  Dispatch queue: com.apple.main-thread\n"
            + "\n"
            + "Thread 0 Crashed:: Dispatch queue: com.apple.main-thread\n"
            + "0   Sample                        \t0x000000010a2f18ec 0x10a2f1000 + 2284\n"
            + "\n"
            + "Binary Images:\n"
            + "       0x10a2f1000 -        0x10a2f4fff +com.example.Sample (1.0 - 1) <4C4C4416-5555-3144-A1F6-BBE2DF1C0A77> /Applications/Sample.app/Contents/MacOS/Sample\n"
        let metadata = Self.metadata.replacingOccurrences(of: #""bug_type":"309""#, with: #""bug_type":"109""#)
        let bytes = Array((metadata + "\r\n" + classic).utf8)
        XCTAssertTrue(IPSReportParser.looksLikeIPS(bytes))
        let report = try ReportParser.parse(bytes, path: "old.ips")
        XCTAssertEqual(report.source.kind, .classic)
        XCTAssertNil(report.source.ips)
        XCTAssertEqual(report.bytes, bytes)
        XCTAssertEqual(report.header.first?.key, "Incident Identifier", "the metadata line is no header entry")
        XCTAssertEqual(report.threads.map(\.kind), [.thread(0)])
        XCTAssertEqual(report.threads[0].frames.map(\.address), [0x10A2F18EC])
        XCTAssertEqual(report.images.map(\.uuid), ["4c4c441655553144a1f6bbe2df1c0a77"])
        XCTAssertEqual(renderedUnchanged(report), bytes)

        // A bug_type given as a number is read the same way.
        let numeric = Array((#"{"bug_type":109}"# + "\n" + classic).utf8)
        XCTAssertEqual(try IPSReportParser.parse(numeric, path: "n.ips").threads.count, 1)
    }

    func testBugType309WithNothingAfterTheMetadata() {
        XCTAssertThrowsError(try Self.parse(Self.metadata + "\n  \n")) { error in
            XCTAssertEqual(error as? ReportError, .invalidIPS(
                "test.ips", reason: "bug_type 309 but nothing follows the metadata line: the file is cut short"))
        }
    }
}

/// `.ips` files whose metadata line is followed by a classic text body, whatever the bug_type.
final class IPSTextBodyTests: XCTestCase {
    func testBugType309WithATextBodyIsAClassicReport() throws {
        let text = #"{"app_name":"Sample","bug_type":"309","os_version":"iPhone OS 14.4 (18D52)"}"# + "\n"
            + ReportEraTests.watchdog
        let report = try ReportParser.parse(Array(text.utf8), path: "text.ips")
        XCTAssertEqual(report.source.kind, .classic)
        XCTAssertNil(report.source.ips)
        XCTAssertEqual(report.threads.map(\.frames.count), [3, 1])
        XCTAssertEqual(report.crashedThread, 0)
        XCTAssertEqual(renderedUnchanged(report), Array(text.utf8))
    }
}
