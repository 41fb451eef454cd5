@testable import CrashReport
import XCTest

/// The text PLCrashReporter's `PLCrashReportTextFormatter` writes (iOS, the Apple format), which
/// the classic parser reads as it is: `Code Type: ARM-64` without `(Native)`, `Report Version:
/// 104`, signals as the exception type, a Last Exception Backtrace of numbered lines, the
/// `ARM-64 Thread State` block, `+` before the main executable's name in Binary Images and a
/// blank before the others', UUIDs in lower case without dashes, and `+[Class(Category) sel]`
/// names with spaces.
final class PLCrashReporterTextTests: XCTestCase {
    static let report = """
        Incident Identifier: 7C1E6A52-93B4-4E0F-8D2A-5F6B1C9D3E47
        CrashReporter Key:   TODO
        Hardware Model:      iPhone12,1
        Process:         App [1234]
        Path:            /private/var/containers/Bundle/Application/2B1F7E0D/App.app/App
        Identifier:      com.example.App
        Version:         1 (1.0)
        Code Type:       ARM-64
        Parent Process:  launchd [1]

        Date/Time:       2021-03-14 08:26:53 +0000
        OS Version:      iPhone OS 14.4 (18D52)
        Report Version:  104

        Exception Type:  SIGABRT
        Exception Codes: #0 at 0x1c0a9a30e
        Crashed Thread:  0

        Application Specific Information:
        *** Terminating app due to uncaught exception 'NSInvalidArgumentException', reason: '-[NSNull length]: unrecognized selector'

        Last Exception Backtrace:
        0   CoreFoundation                      0x00000001a7080f7c 0x1a6fdf000 + 663420
        1   libobjc.A.dylib                     0x00000001a6d8e9f8 objc_exception_throw + 56
        2   CoreFoundation                      0x00000001a7080e7c +[NSObject(NSObject) instanceMethodSignatureForSelector:] + 0
        3   App                                 0x0000000104a34344 0x104a30000 + 17220

        Thread 0 Crashed:
        0   libsystem_kernel.dylib              0x00000001c0a9a30e __pthread_kill + 8
        1   App                                 0x0000000104a34204 0x104a30000 + 16900

        Thread 1:
        0   libsystem_kernel.dylib              0x00000001c0a8cbc4 swtch_pri + 8

        Thread 0 crashed with ARM-64 Thread State:
            pc: 0x00000001c0a9a30e     fp: 0x000000016d5a3a70     sp: 0x000000016d5a3a40     x0: 0x0000000000000000 
            lr: 0x0000000104a34208   cpsr: 0x0000000060000000 

        Binary Images:
               0x104a30000 -        0x104a37fff +App arm64  <4c4c442355553144a1727960875acc1c> /private/var/containers/Bundle/Application/2B1F7E0D/App.app/App
               0x1a6d88000 -        0x1a6dbffff  libobjc.A.dylib arm64e  <3ee5f7a1d4643b67bc3e8b1db3e1c4a2> /usr/lib/libobjc.A.dylib
               0x1a6fdf000 -        0x1a73a6fff  CoreFoundation arm64e  <2dc742546f7a60835cd197a8d2c9b903> /System/Library/Frameworks/CoreFoundation.framework/CoreFoundation
               0x1c0a8a000 -        0x1c0abbfff  libsystem_kernel.dylib arm64e  <df519c78c4e8052e5eb9c0e8bd6e80b4> /usr/lib/system/libsystem_kernel.dylib

        """

    func testEveryFrameAndImageIsRead() throws {
        let report = try ReportParser.parse(Array(Self.report.utf8), path: "plcrash.crash")
        XCTAssertEqual(report.source.kind, .classic)
        XCTAssertEqual(report.codeType, "ARM-64")
        XCTAssertEqual(report.crashedThread, 0)
        XCTAssertEqual(report.header.first { $0.key == "Exception Type" }?.value, "SIGABRT")
        XCTAssertEqual(report.threads.map(\.kind), [.lastExceptionBacktrace, .thread(0), .thread(1)])
        XCTAssertEqual(report.threads.map(\.frames.count), [4, 2, 1], "the register block holds no frames")
        XCTAssertEqual(report.images.map(\.name), ["App", "libobjc.A.dylib", "CoreFoundation", "libsystem_kernel.dylib"])
        XCTAssertEqual(report.images.map(\.isApp), [true, false, false, false])
        XCTAssertEqual(report.images[0].uuid, "4c4c442355553144a1727960875acc1c")
        XCTAssertEqual(report.images.map(\.arch), ["arm64", "arm64e", "arm64e", "arm64e"])
        let exception = report.threads[0].frames
        XCTAssertEqual(exception.map(\.image), [2, 1, 2, 0])
        XCTAssertEqual(exception[2].form, .symbol(name: "+[NSObject(NSObject) instanceMethodSignatureForSelector:]", offset: 0))
        XCTAssertEqual(exception[3].form, .unsymbolicated(loadAddress: 0x1_04A3_0000, offset: 17220))
        let crashed = report.threads[1]
        XCTAssertTrue(crashed.crashed)
        XCTAssertEqual(crashed.frames.map(\.image), [3, 0])
        XCTAssertEqual(crashed.frames[0].form, .symbol(name: "__pthread_kill", offset: 8))
        // With nothing resolved, the text comes back byte for byte.
        var out: [UInt8] = []
        TextRenderer().render(SymbolicatedReport(report: report), into: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), Self.report)
    }
}
