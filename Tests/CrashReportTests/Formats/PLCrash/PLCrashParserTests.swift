@testable import CrashReport
import Foundation
import TestSupport
import XCTest

/// `.plcrash` reports built with the generated message types and serialized by swift-protobuf:
/// PLCrashReportTextFormatter's text, the classic model read from it, and hostile input. The
/// end-to-end tests (CLITests/PLCrashProtobufTests) encode theirs with another encoder.
final class PLCrashParserTests: XCTestCase {
    static let appBase: UInt64 = 0x1_0000_4000
    static let kernelBase: UInt64 = 0x1_C0A8_A000

    static func report(exception: Bool = false) -> Plcrash_CrashReport {
        var report = Plcrash_CrashReport()
        report.systemInfo.operatingSystem = .iphoneOs
        report.systemInfo.osVersion = Data("17.2".utf8)
        report.systemInfo.osBuild = Data("21C62".utf8)
        report.systemInfo.timestamp = 1_697_558_592
        report.applicationInfo.identifier = Data("com.example.App".utf8)
        report.applicationInfo.version = Data("7".utf8)
        report.processInfo.processName = Data("App".utf8)
        report.processInfo.processID = 1234
        report.processInfo.processPath = Data("/var/containers/Bundle/Application/X/App.app/App".utf8)
        report.processInfo.parentProcessName = Data("launchd".utf8)
        report.processInfo.parentProcessID = 1
        report.signal.name = Data("SIGSEGV".utf8)
        report.signal.code = Data("SEGV_MAPERR".utf8)
        report.signal.address = 0x10
        func image(_ base: UInt64, _ path: String, _ subtype: UInt64) -> Plcrash_BinaryImage {
            var image = Plcrash_BinaryImage()
            image.baseAddress = base
            image.size = 0x8000
            image.name = Data(path.utf8)
            image.uuid = Data((0..<16).map { UInt8($0) })
            image.codeType.encoding = .mach
            image.codeType.type = 0x0100_000C
            image.codeType.subtype = subtype
            return image
        }
        report.binaryImages = [image(kernelBase, "/usr/lib/system/libsystem_kernel.dylib", 2),
                               image(appBase, "/var/containers/Bundle/Application/X/App.app/App", 0)]
        func frame(_ pc: UInt64, symbol: String? = nil, start: UInt64 = 0) -> Plcrash_Thread.StackFrame {
            var frame = Plcrash_Thread.StackFrame()
            frame.pc = pc
            if let symbol {
                frame.symbol.name = Data(symbol.utf8)
                frame.symbol.startAddress = start
            }
            return frame
        }
        var crashed = Plcrash_Thread()
        crashed.threadNumber = 0
        crashed.crashed = true
        crashed.frames = [frame(appBase + 0x204), frame(kernelBase + 0x30e, symbol: "___pthread_kill", start: kernelBase + 0x306)]
        var register = Plcrash_Thread.RegisterValue()
        register.name = Data("pc".utf8)
        register.value = appBase + 0x204
        crashed.registers = [register]
        var other = Plcrash_Thread()
        other.threadNumber = 1
        other.frames = [frame(kernelBase + 8), frame(0x1234)]
        report.threads = [crashed, other]
        if exception {
            report.exception.name = Data("NSRangeException".utf8)
            report.exception.reason = Data("index 4 beyond bounds".utf8)
            report.exception.frames = [frame(appBase + 0x344)]
        }
        return report
    }

    static func file(_ report: Plcrash_CrashReport) throws -> [UInt8] {
        Array("plcrash".utf8) + [1] + (try report.serializedBytes() as [UInt8])
    }

    func testTextAndModel() throws {
        let bytes = try Self.file(Self.report(exception: true))
        let report = try ReportParser.parse(bytes, path: "a.plcrash")
        XCTAssertEqual(report.source.kind, .plcrash)
        let text = String(decoding: report.bytes, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("Incident Identifier: ???\nCrashReporter Key:   TODO\nHardware Model:      ???\n"
            + "Process:         App [1234]\nPath:            /var/containers/Bundle/Application/X/App.app/App\n"
            + "Identifier:      com.example.App\nVersion:         7\nCode Type:       ARM-64\nParent Process:  launchd [1]\n\n"
            + "Date/Time:       2023-10-17 16:03:12 +0000\nOS Version:      iPhone OS 17.2 (21C62)\nReport Version:  104\n\n"
            + "Exception Type:  SIGSEGV\nException Codes: SEGV_MAPERR at 0x10\nCrashed Thread:  0\n\n"
            + "Application Specific Information:\n"), text)
        XCTAssertTrue(text.contains("\nThread 0 Crashed:\n"
            + "0   App                                 0x0000000100004204 0x100004000 + 516\n"
            + "1   libsystem_kernel.dylib              0x00000001c0a8a30e __pthread_kill + 8\n"), text)
        XCTAssertTrue(text.contains("\nThread 1:\n1   ???                                 0x0000000000001234 0x0 + 4660\n")
                      || text.contains("\n1   ???                                 0x0000000000001234 0x0 + 4660\n"), text)
        XCTAssertTrue(text.contains("\nThread 0 crashed with ARM-64 Thread State:\n    pc: 0x0000000100004204 \n"), text)
        XCTAssertTrue(text.contains("\nBinary Images:\n"
            + "       0x100004000 -        0x10000bfff +App arm64  <000102030405060708090a0b0c0d0e0f> /var/containers/Bundle/Application/X/App.app/App\n"
            + "       0x1c0a8a000 -        0x1c0a91fff  libsystem_kernel.dylib arm64e  <000102030405060708090a0b0c0d0e0f> /usr/lib/system/libsystem_kernel.dylib\n"),
                      text)
        let thread = try XCTUnwrap(report.threads.first { $0.crashed })
        XCTAssertEqual(Array(thread.frames).map(\.address), [Self.appBase + 0x204, Self.kernelBase + 0x30e])
        XCTAssertEqual(thread.frames.first.flatMap(\.image).map { report.images[$0].uuid }, "000102030405060708090a0b0c0d0e0f")
        XCTAssertEqual(report.threads.count, 3)  // the exception's backtrace, and the two threads
    }

    func testHostileInput() throws {
        let good = try Self.file(Self.report())
        XCTAssertThrowsError(try ReportParser.parse(Array("plcrash".utf8) + [2] + good.dropFirst(8), path: "v.plcrash")) {
            XCTAssertEqual("\($0)", "v.plcrash: not a valid PLCrashReporter report: version 2 is not known (1 is)")
        }
        XCTAssertThrowsError(try ReportParser.parse(Array(good.dropLast(5)), path: "c.plcrash")) {
            XCTAssertTrue("\($0)".hasPrefix("c.plcrash: not a valid PLCrashReporter report: "), "\($0)")
        }
        var generator = SplitMix64(seed: 7)
        let garbage = Array("plcrash".utf8) + [1] + (0..<4096).map { _ in UInt8(truncatingIfNeeded: (generator.next() as UInt64)) }
        XCTAssertThrowsError(try ReportParser.parse(garbage, path: "g.plcrash"))
        for length in 1..<good.count {
            do {
                _ = try ReportParser.parse(Array(good[..<length]), path: "cut.plcrash")
            } catch let error as ReportError {
                XCTAssertTrue(error.description.hasPrefix("cut.plcrash: "), error.description)
            }
        }
        good.withUnsafeBufferPointer { XCTAssertNil(BinaryInput.problem(UnsafeRawBufferPointer($0), whole: true)) }
        // Text that starts with the word is text.
        XCTAssertNoThrow(try ReportParser.parse(Array("plcrash reports are binary\nThread 0:\n".utf8), path: "t.txt"))
    }

    /// Many images and many frames: the time grows with the size, not with their product.
    func testManyImagesAndFramesTakeTimeInProportion() throws {
        var report = Self.report()
        let template = report.binaryImages[1]
        report.binaryImages = (0..<20_000).map { i in
            var image = template
            image.baseAddress = 0x1_0000_0000 + UInt64(i) * 0x10000
            image.size = 0x8000
            return image
        }
        report.threads[0].frames = (0..<20_000).map { i in
            var frame = Plcrash_Thread.StackFrame()
            frame.pc = 0x1_0000_0000 + UInt64(19_999 - i) * 0x10000 + 4
            return frame
        }
        let bytes = try Self.file(report)
        let start = DispatchTime.now().uptimeNanoseconds
        let parsed = try ReportParser.parse(bytes, path: "many.plcrash")
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        XCTAssertEqual(parsed.threads.first { $0.crashed }?.frames.count, 20_000)
        XCTAssertLessThan(seconds, 10, "20,000 frames in 20,000 images took \(seconds) s")
    }
}
