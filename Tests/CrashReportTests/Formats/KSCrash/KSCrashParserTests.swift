@testable import CrashReport
import Foundation
import TestSupport
import XCTest

/// KSCrash reports on small handwritten snippets shaped as KSCrash 3.x writes them.
final class KSCrashParserTests: XCTestCase {
    static let appUUID = "70B89F27-1634-3580-A695-57CDB41D7743"
    static let kernelUUID = "11111111-2222-3333-4444-555555555555"
    static let appBase: UInt64 = 0x1_0000_4000
    static let kernelBase: UInt64 = 0x1_C0A8_A000

    static func images(_ extra: [String] = []) -> String {
        let app = #"{"image_addr":\#(appBase),"image_vmaddr":4294967296,"image_size":32768,"name":"/var/containers/Bundle/Application/X/App.app/App","uuid":"\#(appUUID)","cpu_type":16777228,"cpu_subtype":0}"#
        let kernel = #"{"image_addr":\#(kernelBase),"image_vmaddr":0,"image_size":204800,"name":"/usr/lib/system/libsystem_kernel.dylib","uuid":"\#(kernelUUID)","cpu_type":16777228,"cpu_subtype":2}"#
        return "[" + ([app, kernel] + extra).joined(separator: ",") + "]"
    }

    static func report(frames: [String], images: String = images(), error: String = #"{"type":"mach","mach":{"exception_name":"EXC_BAD_ACCESS","code":1,"subcode":16},"signal":{"name":"SIGSEGV"},"address":16}"#,
                       more: String = "") -> String {
        #"""
        {"report":{"version":"3.3.0","id":"8C1B5D2E-0000-4000-8000-000000000001","process_name":"App","timestamp":1697558592532549},
         "system":{"system_name":"iOS","system_version":"17.2","os_version":"21C62","machine":"iPhone15,2","cpu_arch":"arm64e",
                   "CFBundleIdentifier":"com.example.App","CFBundleVersion":"7","CFBundleShortVersionString":"1.2",
                   "CFBundleExecutablePath":"/var/containers/Bundle/Application/X/App.app/App","process_id":1234},
         "binary_images":\#(images),
         "crash":{"error":\#(error),
                  "threads":[{"index":0,"crashed":true,"current_thread":true,"dispatch_queue":"com.apple.main-thread",
                              "backtrace":{"contents":[\#(frames.joined(separator: ","))],"skipped":0}},
                             {"index":1,"crashed":false,"name":"worker","backtrace":{"contents":[{"instruction_addr":\#(kernelBase + 8)}]}}]}\#(more)}
        """#
    }

    static func frame(_ address: String, object: String? = nil, symbol: String? = nil, symbolAddress: String? = nil) -> String {
        var members = [#""instruction_addr":\#(address)"#]
        if let object { members.append(#""object_addr":\#(object)"#) }
        if let symbol { members.append(#""symbol_name":"\#(symbol)""#) }
        if let symbolAddress { members.append(#""symbol_addr":\#(symbolAddress)"#) }
        return "{" + members.joined(separator: ",") + "}"
    }

    static func parse(_ text: String) throws -> CrashReport {
        try ReportParser.parse(Array(text.utf8), path: "report.json")
    }

    func testReportIsTranslatedWithItsHeaderThreadsAndImages() throws {
        let report = try Self.parse(Self.report(frames: [
            Self.frame("\(Self.appBase + 0x1204)", object: "\(Self.appBase)"),
            Self.frame("\(Self.kernelBase + 0x30e)", object: "\(Self.kernelBase)", symbol: "__pthread_kill",
                       symbolAddress: "\(Self.kernelBase + 0x306)"),
        ]))
        XCTAssertEqual(report.source.kind, .kscrash)
        let text = String(decoding: report.bytes, as: UTF8.self)
        for line in ["Incident Identifier: 8C1B5D2E-0000-4000-8000-000000000001", "Hardware Model:      iPhone15,2",
                     "Process:             App [1234]", "Version:             7 (1.2)", "Code Type:           ARM-64 (Native)",
                     "Date/Time:           2023-10-17 16:03:12.532549 +0000", "OS Version:          iOS 17.2 (21C62)",
                     "Exception Type:      EXC_BAD_ACCESS (SIGSEGV)",
                     "Exception Codes:     0x0000000000000001, 0x0000000000000010", "Crashed Thread:      0",
                     "Thread 0 name:  Dispatch queue: com.apple.main-thread", "Thread 0 Crashed:", "Thread 1 name:  worker",
                     "0   App                                 0x0000000100005204 0x100004000 + 4612",
                     "1   libsystem_kernel.dylib              0x00000001c0a8a30e __pthread_kill + 8",
                     "       0x100004000 -        0x10000bfff App arm64  <70b89f2716343580a69557cdb41d7743> /var/containers/Bundle/Application/X/App.app/App"] {
            XCTAssertTrue(text.contains(line + "\n"), "\(line)\n---\n\(text)")
        }
        XCTAssertEqual(report.codeType, "ARM-64 (Native)")
        XCTAssertEqual(report.crashedThread, 0)
        XCTAssertEqual(report.header.first { $0.key == "Exception Type" }?.value, "EXC_BAD_ACCESS (SIGSEGV)")
        XCTAssertEqual(report.threads.count, 2)
        let thread = report.threads[0]
        XCTAssertTrue(thread.crashed)
        XCTAssertEqual(thread.kind, .thread(0))
        XCTAssertEqual(thread.name, "Dispatch queue: com.apple.main-thread")
        XCTAssertEqual(thread.frames.map(\.image), [0, 1])
        XCTAssertEqual(thread.frames[0].form, .unsymbolicated(loadAddress: Self.appBase, offset: 0x1204))
        // The name the reporter gave is the frame's, as an .ips frame's `symbol` is.
        XCTAssertEqual(thread.frames[1].form, .symbol(name: "__pthread_kill", offset: 8))
        XCTAssertEqual(restText(report, thread.frames[1]), "__pthread_kill + 8")
        XCTAssertEqual(report.images.map(\.uuid), ["70b89f2716343580a69557cdb41d7743", "11111111222233334444555555555555"])
        XCTAssertEqual(report.images.map(\.arch), ["arm64", "arm64e"])
        XCTAssertEqual(report.images.map(\.isApp), [true, false])
        XCTAssertEqual(report.images[0].endAddress, Self.appBase + 32767)
        XCTAssertEqual(report.threads[1].frames[0].image, 1)
        XCTAssertTrue(report.warnings.isEmpty, "\(report.warnings)")
    }

    /// Addresses are read as the integers they are written as: 2^64 − 1 exactly, never through
    /// a Double; a number that is not an unsigned 64-bit integer is no address.
    func testAddressesAreExactAndHostileOnesAreUnknown() throws {
        let top = "18446744073709551615"
        let images = Self.images([#"{"image_addr":18446744073709518848,"image_size":32768,"name":"/top","uuid":"22222222-2222-3333-4444-555555555555"}"#])
        let report = try Self.parse(Self.report(frames: [
            Self.frame(top), Self.frame("-1"), Self.frame("4294983680.5"), Self.frame("18446744073709551616"),
            Self.frame(#""0x100005204""#), Self.frame("4294983681e0"),
        ], images: images))
        let frames = report.threads[0].frames
        XCTAssertEqual(frames[0].address, UInt64.max)
        XCTAssertEqual(frames[0].image, 2)
        for f in 1...3 {
            XCTAssertTrue(frames[f].addressUnknown, "frame \(f)")
            XCTAssertNil(frames[f].image, "frame \(f)")
            XCTAssertEqual(restText(report, frames[f]), "???")
        }
        XCTAssertEqual(frames[4].address, Self.appBase + 0x1204)
        XCTAssertEqual(frames[4].image, 0)
        XCTAssertTrue(frames[5].addressUnknown)
        let text = String(decoding: report.bytes, as: UTF8.self)
        XCTAssertTrue(text.contains("1   ???                                 0x???????????????? ???\n"), text)
    }

    /// A frame outside every image, one whose `object_addr` names another image's start, and
    /// images without a usable range: the frames are kept as they are, placed nowhere.
    func testMissingAndContradictoryImagesPlaceNothing() throws {
        let images = Self.images([#"{"image_addr":-4096,"image_size":4096,"name":"/negative"}"#,
                                  #"{"image_addr":8192,"image_size":-1,"name":"/negative-size"}"#,
                                  #"{"image_addr":18446744073709551615,"image_size":2,"name":"/overflow"}"#,
                                  #"{"image_size":4096,"name":"/no-address"}"#])
        let report = try Self.parse(Self.report(frames: [
            Self.frame("4096"), Self.frame("\(Self.appBase + 16)", object: "\(Self.kernelBase)"),
            Self.frame("\(Self.appBase + 16)", object: #""nonsense""#),
        ], images: images))
        XCTAssertEqual(report.images.count, 2)
        XCTAssertEqual(report.threads[0].frames.map(\.image), [nil, nil, nil])
        XCTAssertEqual(report.threads[0].frames.map(\.form), [.unknown, .unknown, .unknown])
        XCTAssertEqual(report.warnings, ["report.json: 4 binary images without an unsigned image_addr and a positive "
            + "image_size left out: they place no frame"])
    }

    func testExceptionReasonAndRecrashReport() throws {
        let error = #"{"type":"nsexception","reason":"index 4 beyond bounds","nsexception":{"name":"NSRangeException","reason":"index 4 beyond bounds"},"mach":{"exception_name":"EXC_CRASH","code":0,"subcode":0},"signal":{"name":"SIGABRT"}}"#
        let inner = Self.report(frames: [Self.frame("\(Self.appBase + 8)")])
        let report = try Self.parse(Self.report(frames: [Self.frame("\(Self.appBase + 4)")], error: error,
                                                more: #","recrash_report":\#(inner)"#))
        let text = String(decoding: report.bytes, as: UTF8.self)
        XCTAssertTrue(text.contains("Exception Type:      EXC_CRASH (SIGABRT)\n"), text)
        XCTAssertTrue(text.contains("Application Specific Information:\n*** Terminating app due to uncaught exception "
            + "'NSRangeException', reason: 'index 4 beyond bounds'\n"), text)
        XCTAssertEqual(report.threads.count, 2, "the outer report's threads only")
        XCTAssertEqual(report.warnings, ["report.json: the nested recrash_report (a crash in the crash handler) is not read"])
    }

    /// An array of reports: each one's frames are placed in its own images only.
    func testArrayOfReportsKeepsEachReportsImages() throws {
        let first = Self.report(frames: [Self.frame("\(Self.appBase + 4)")])
        let otherImages = #"[{"image_addr":\#(Self.appBase),"image_size":32768,"name":"/Other.app/Other","uuid":"33333333-2222-3333-4444-555555555555"}]"#
        let second = Self.report(frames: [Self.frame("\(Self.appBase + 4)")], images: otherImages)
        let report = try Self.parse("[" + first + "," + second + "]")
        XCTAssertEqual(report.threads.count, 4)
        XCTAssertEqual(report.images.count, 3)
        XCTAssertEqual(report.threads[0].frames[0].image, 0)
        XCTAssertEqual(report.threads[2].frames[0].image, 2)
        XCTAssertNil(report.threads[3].frames[0].image, "the second report has no kernel image")
        let text = String(decoding: report.bytes, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("KSCrash Report [0]\n"), text)
        XCTAssertTrue(text.contains("\nKSCrash Report [1]\n"), text)
    }

    func testRecognitionAndErrors() throws {
        XCTAssertFalse(KSCrashParser.looksLikeKSCrash(Array(#"{"crash":{}}"#.utf8)))
        XCTAssertTrue(KSCrashParser.looksLikeKSCrash(Array(#"  [{"binary_images":[],"crash":{}}]"#.utf8)))
        XCTAssertNotEqual(try Self.parse(#"{"binary_images":[],"crash":"no object"}"#).source.kind, .kscrash)
        let cut = String(Self.report(frames: [Self.frame("4")]).dropLast(30))
        XCTAssertThrowsError(try Self.parse(cut)) { error in
            let message = "\(error)"
            XCTAssertTrue(message.hasPrefix("report.json: not a valid KSCrash report: "), message)
            XCTAssertTrue(message.hasSuffix("the file is cut short"), message)
            XCTAssertFalse(message.contains("\n"), message)
        }
    }

    func testArchitecturesAndDates() {
        XCTAssertEqual(KSCrashTranslator.architecture(cpuType: 16_777_228, subtype: 0x8000_0002), "arm64e")
        XCTAssertEqual(KSCrashTranslator.architecture(cpuType: 16_777_223, subtype: 3), "x86_64")
        XCTAssertEqual(KSCrashTranslator.architecture(cpuType: 12, subtype: 9), "armv7")
        XCTAssertNil(KSCrashTranslator.architecture(cpuType: 99, subtype: 0))
        XCTAssertEqual(KSCrashTranslator.date(microseconds: 0), "1970-01-01 00:00:00.000000 +0000")
        XCTAssertEqual(KSCrashTranslator.date(microseconds: 951_782_400_000_001), "2000-02-29 00:00:00.000001 +0000")
        XCTAssertEqual(KSCrashTranslator.date(microseconds: UInt64.max).prefix(7), "586524-", "584,554 years on")
    }
}
