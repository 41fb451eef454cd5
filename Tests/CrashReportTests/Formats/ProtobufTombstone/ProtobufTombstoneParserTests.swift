@testable import CrashReport
import Foundation
import TestSupport
import XCTest

/// Protobuf tombstones built with the generated message types and serialized by swift-protobuf:
/// the model (as the text parser's), the text's layout, the sniffing, and hostile input. The
/// end-to-end tests (CLITests/ProtobufTombstoneTests) encode theirs with another encoder.
final class ProtobufTombstoneParserTests: XCTestCase {
    static let buildID = "5f0e3b1c9d2a4e6f8091a2b3c4d5e6f708192a3b"

    static func frame(_ pc: UInt64, file: String = "/data/app/x/lib/arm64/libcrashy.so", function: String = "",
                      offset: UInt64 = 0, mapOffset: UInt64 = 0, buildID: String = buildID) -> AndroidTombstone_BacktraceFrame {
        var frame = AndroidTombstone_BacktraceFrame()
        frame.relPc = pc
        frame.pc = 0x74fa700000 + pc
        frame.fileName = Data(file.utf8)
        frame.functionName = Data(function.utf8)
        frame.functionOffset = offset
        frame.fileMapOffset = mapOffset
        frame.buildID = Data(buildID.utf8)
        return frame
    }

    static func tombstone(threads: [UInt32: [AndroidTombstone_BacktraceFrame]], tid: UInt32 = 4242) -> AndroidTombstone_Tombstone {
        var tombstone = AndroidTombstone_Tombstone()
        tombstone.arch = .arm64
        tombstone.buildFingerprint = Data("google/redfin/redfin:13/TQ3A/1:user/release-keys".utf8)
        tombstone.timestamp = Data("2023-11-20 10:00:00.123456789+0100".utf8)
        tombstone.pid = 4242
        tombstone.tid = tid
        tombstone.commandLine = [Data("com.example.crashy".utf8)]
        tombstone.signalInfo.number = 11
        tombstone.signalInfo.name = Data("SIGSEGV".utf8)
        tombstone.signalInfo.code = 1
        tombstone.signalInfo.codeName = Data("SEGV_MAPERR".utf8)
        tombstone.signalInfo.hasFaultAddress_p = true
        var cause = AndroidTombstone_Cause()
        cause.humanReadable = Data("null pointer dereference".utf8)
        tombstone.causes = [cause]
        for (tid, frames) in threads {
            var thread = AndroidTombstone_Thread()
            thread.id = Int32(tid)
            thread.name = Data("t\(tid)".utf8)
            thread.currentBacktrace = frames
            tombstone.threads[tid] = thread
        }
        return tombstone
    }

    static func bytes(_ tombstone: AndroidTombstone_Tombstone) throws -> [UInt8] {
        try tombstone.serializedBytes()
    }

    func testModelIsTheTextParsers() throws {
        let bytes = try Self.bytes(Self.tombstone(threads: [
            4242: [Self.frame(0x433c, function: "cart_total", offset: 36), Self.frame(0x43d8),
                   Self.frame(0x51234, file: "/apex/com.android.runtime/lib64/bionic/libc.so", function: "abort", offset: 164,
                              buildID: "4d7c1e2ea6d0cbdc1ab1e6f3d4c2b1a0")],
            4250: [Self.frame(0x44c0, file: "/data/app/x/base.apk!libcrashy.so", mapOffset: 0x2a4000)],
        ]))
        XCTAssertTrue(ProtobufTombstoneParser.looksLikeProtobufTombstone(bytes))
        let report = try ReportParser.parse(bytes, path: "tombstone_00.pb")
        XCTAssertEqual(report.source.kind, .protobufTombstone)
        XCTAssertEqual(report.threads.count, 2)
        XCTAssertEqual(report.crashedThread, 0)
        XCTAssertEqual(report.threads[0].name, "pid: 4242, tid: 4242, name: t4242  >>> com.example.crashy <<<")
        let frames = Array(report.threads[0].frames)
        XCTAssertEqual(frames.map(\.address), [0x433c, 0x43d8, 0x51234])
        XCTAssertEqual(frames.map(\.imageOffset), [0x433c, 0x43d8, 0x51234])
        XCTAssertTrue(frames.allSatisfy { $0.returnAddress == false })
        let library = try XCTUnwrap(frames[0].image)
        XCTAssertEqual(report.images[library].uuid, Self.buildID)
        XCTAssertEqual(report.images[library].name, "libcrashy.so")
        XCTAssertEqual(report.images[library].arch, "arm64")
        XCTAssertEqual(frames[1].image, library)
        let apk = try XCTUnwrap(report.threads[1].frames.first?.image)
        XCTAssertEqual(report.images[apk].name, "libcrashy.so")
        XCTAssertEqual(report.images[apk].path, "/data/app/x/base.apk!libcrashy.so")
        XCTAssertEqual(report.header.first { $0.key == "Exception Type" }?.value, "SIGSEGV (SEGV_MAPERR)")
        XCTAssertEqual(report.header.first { $0.key == "Process" }?.value, "com.example.crashy")
        // Each frame's line is its frame line, whose text ends where the renderer adds.
        let text = String(decoding: report.bytes, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(String(lines[frames[0].line]),
                       "      #00 pc 000000000000433c  /data/app/x/lib/arm64/libcrashy.so (cart_total+36) (BuildId: \(Self.buildID))")
        XCTAssertEqual(frames[0].restStart, lines[frames[0].line].utf8.count)
        XCTAssertTrue(text.contains("\n      #00 pc 00000000000044c0  /data/app/x/base.apk!libcrashy.so (offset 0x2a4000) (BuildId: "))
        XCTAssertTrue(text.hasPrefix("*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***\n"
            + "Build fingerprint: 'google/redfin/redfin:13/TQ3A/1:user/release-keys'\nRevision: ''\nABI: 'arm64'\n"))
        XCTAssertTrue(text.contains("\nsignal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0000000000000000\n"
            + "Cause: null pointer dereference\n"))
        XCTAssertTrue(text.contains("\n3 total frames\nbacktrace:\n"))
        XCTAssertTrue(text.contains("\n--- --- --- --- --- --- --- --- --- --- --- --- --- --- --- ---\nCmdline: com.example.crashy\n"
            + "pid: 4242, tid: 4250, name: t4250  >>> com.example.crashy <<<\n"))
    }

    /// Text from the device stays on its line: a newline in a function name is escaped.
    func testNamesStayOnTheirLines() throws {
        let bytes = try Self.bytes(Self.tombstone(threads: [4242: [Self.frame(0x10, function: "evil\n      #01 pc 0000000000000020  x")]]))
        let report = try ReportParser.parse(bytes, path: "t.pb")
        XCTAssertEqual(report.threads[0].frames.count, 1)
        XCTAssertFalse(String(decoding: report.bytes, as: UTF8.self).contains("\n      #01"))
    }

    func testHostileInput() throws {
        let good = try Self.bytes(Self.tombstone(threads: [4242: [Self.frame(0x433c, function: "f")]]))
        // No thread with the tombstone's tid.
        let orphan = try Self.bytes(Self.tombstone(threads: [7: [Self.frame(0x433c)]]))
        XCTAssertThrowsError(try ReportParser.parse(orphan, path: "tombstone_01.pb")) { error in
            XCTAssertTrue("\(error)".hasPrefix("tombstone_01.pb: not a valid Android protobuf tombstone: no thread has"), "\(error)")
        }
        // Every cut of a tombstone: parsed or refused with a ReportError, never a crash.
        for length in 1..<good.count {
            let cut = Array(good[..<length])
            do {
                _ = try ReportParser.parse(cut, path: "cut.pb")
            } catch let error as ReportError {
                XCTAssertTrue(error.description.hasPrefix("cut.pb: "), error.description)
            }
        }
        XCTAssertThrowsError(try ProtobufTombstoneParser.parse(Array(good.dropLast(3)), path: "c.pb")) { error in
            XCTAssertEqual("\(error)", "c.pb: not a valid Android protobuf tombstone: the protobuf message is cut short")
        }
        // Its first block is not refused as binary input, cut anywhere.
        good.withUnsafeBufferPointer { b in
            for length in 8..<b.count {
                XCTAssertNil(BinaryInput.problem(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: b[..<length])), whole: false), "cut at \(length)")
            }
            XCTAssertNil(BinaryInput.problem(UnsafeRawBufferPointer(b), whole: true))
        }
    }

    /// Text never looks like a protobuf tombstone, nor does random binary input.
    func testTextAndRandomBytesAreNotProtobufTombstones() throws {
        for text in ["*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***\npid: 1, tid: 1, name: x\n",
                     "Build fingerprint: 'a'\n", "backtrace:\n      #00 pc 0000000000001234  /x.so\n", "\u{12}\u{02}ab",
                     "Incident Identifier: 1\n"] {
            XCTAssertFalse(ProtobufTombstoneParser.looksLikeProtobufTombstone(Array(text.utf8)), text)
        }
        var generator = SplitMix64(seed: 22)
        var accepted = 0
        for _ in 0..<20_000 {
            let bytes = (0..<Int((generator.next() as UInt64) % 512 + 1)).map { _ in UInt8(truncatingIfNeeded: (generator.next() as UInt64)) }
            if ProtobufTombstoneParser.looksLikeProtobufTombstone(bytes) { accepted += 1 }
        }
        XCTAssertEqual(accepted, 0)
    }

    func testProtobufFieldWalk() {
        func walk(_ bytes: [UInt8], whole: Bool = true) -> (Bool, [UInt64]) {
            var numbers: [UInt64] = []
            let ok = bytes.withUnsafeBufferPointer { ProtobufFields.walk($0, whole: whole) { numbers.append($0.number); return true } }
            return (ok, numbers)
        }
        XCTAssertEqual(walk([0x08, 0x01, 0x12, 0x02, 0x61, 0x62]).1, [1, 2])
        XCTAssertTrue(walk([0x08, 0x01, 0x12, 0x02, 0x61, 0x62]).0)
        XCTAssertFalse(walk([0x12, 0x05, 0x61]).0)  // a length past the end
        XCTAssertTrue(walk([0x12, 0x05, 0x61], whole: false).0)  // unless the block is cut there
        XCTAssertFalse(walk([0x0B]).0)  // wire type 3 (a group)
        XCTAssertFalse(walk([0x00, 0x01]).0)  // field 0
        XCTAssertFalse(walk([0x08] + Array(repeating: 0xFF, count: 11)).0)  // a varint past 10 bytes
        XCTAssertFalse(walk([0x12, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]).0)  // a length past any size
    }
}
