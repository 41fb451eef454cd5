import Foundation
import TestSupport
import XCTest

/// Android protobuf tombstones (`tombstone_NN.pb`) end to end: for each ABI's libcrashy.so of
/// the fixtures, a tombstone is encoded with Python's protobuf encoder
/// (`ProtobufReportEncoder`) at the pcs Android would record (`TombstoneWriter.threads`: a
/// faulting pc inlined two deep, call sites moved back as libunwindstack moves return
/// addresses), with system libraries' frames, registers, a memory dump, maps, logs and open
/// files; once with the library's own path, once loaded from inside its APK
/// (`base.apk!libcrashy.so`, a file offset) with a use-after-free's allocation and
/// deallocation backtraces. `symbolicate -d` must print it in pbtombstone's layout with every
/// frame line of the library followed by llvm-symbolizer-19's inline chain at the recorded
/// rel_pc (no adjustment), as the text tombstone's lines are; system frames left as they are.
final class ProtobufTombstoneTests: XCTestCase {
    /// The tombstone message for `threads` (pcs in the library, nil for a system library's frame).
    static func message(_ library: AndroidLibrary, threads: [[UInt64?]], apk: Bool) -> [String: Any] {
        let arch = ["arm64-v8a": "ARM64", "armeabi-v7a": "ARM32", "x86_64": "X86_64", "riscv64": "RISCV64"][library.abi]!
        let app = "/data/app/~~k3T2Zq0vbC7bA==/com.example.crashy-Xc1dgZtBq3c7yA=="
        let lib = library.is64Bit ? "lib64" : "lib"
        func frame(_ number: Int, _ pc: UInt64?) -> [String: Any] {
            guard let pc else {
                return ["rel_pc": 0x51234 + number * 0x1110, "pc": 0x7f00051234 + number * 0x1110,
                        "file_name": "/apex/com.android.runtime/\(lib)/bionic/libc.so", "function_name": "abort",
                        "function_offset": 164, "build_id": "4d7c1e2ea6d0cbdc1ab1e6f3d4c2b1a0"]
            }
            var entry: [String: Any] = ["rel_pc": pc, "pc": 0x74fa700000 + pc, "sp": 0x7fd2c1a0b0, "build_id": library.buildID]
            if apk {
                entry["file_name"] = "\(app)/base.apk!libcrashy.so"
                entry["file_map_offset"] = 0x2a4000
            } else {
                entry["file_name"] = "\(app)/lib/\(library.libFolder)/libcrashy.so"
            }
            if let (name, offset) = library.function(containing: pc) {
                entry["function_name"] = name
                entry["function_offset"] = offset
            }
            return entry
        }
        let tids = [4242, 4250, 4251, 4263]
        var threadMap: [String: Any] = [:]
        for (t, pcs) in threads.enumerated() {
            threadMap[String(tids[t % tids.count] + t / tids.count * 100)] = [
                "id": tids[t % tids.count] + t / tids.count * 100, "name": ["example", "RenderThread", "ledger", "callsites"][t % 4],
                "registers": [["name": "x0", "u64": 0], ["name": "x1", "u64": 0x7fd2c1a1b8], ["name": "lr", "u64": 0x74fa7043d8],
                              ["name": "sp", "u64": 0x7fd2c1a0b0], ["name": "pc", "u64": 0x74fa70433c]],
                "current_backtrace": pcs.enumerated().map { frame($0.offset, $0.element) },
                "memory_dump": t == 0 ? [["register_name": "x1", "mapping_name": "[stack]", "begin_address": 0x7fd2c1a1b0,
                                          "memory": ["hex": String(repeating: "3c43740000000000", count: 6)]]] : [],
                "tagged_addr_ctrl": -1, "pac_enabled_keys": -1,
            ]
        }
        var causes: [[String: Any]] = [["human_readable": "null pointer dereference"]]
        if apk, let first = threads.first {
            causes.append(["human_readable": "[GWP-ASan]: Use After Free, 0 bytes into a 32-byte allocation",
                           "memory_error": ["tool": "GWP_ASAN", "type": "USE_AFTER_FREE",
                                            "heap": ["address": 0x7a00001000, "size": 32,
                                                     "allocation_tid": 4250,
                                                     "allocation_backtrace": first.reversed().enumerated().map { frame($0.offset, $0.element) },
                                                     "deallocation_tid": 4251,
                                                     "deallocation_backtrace": first.enumerated().map { frame($0.offset, $0.element) }]]])
        }
        let map = apk ? "\(app)/base.apk" : "\(app)/lib/\(library.libFolder)/libcrashy.so"
        return [
            "arch": arch, "build_fingerprint": "google/redfin/redfin:13/TQ3A.230805.001/10316531:user/release-keys",
            "revision": "0", "timestamp": "2023-11-20 10:00:00.123456789+0100", "pid": 4242, "tid": 4242, "uid": 10123,
            "selinux_label": "u:r:untrusted_app:s0", "command_line": ["com.example.crashy"], "process_uptime": 12,
            "signal_info": ["number": 11, "name": "SIGSEGV", "code": 1, "code_name": "SEGV_MAPERR",
                            "has_fault_address": true, "fault_address": 0],
            "causes": causes, "threads": threadMap,
            "memory_mappings": [
                ["begin_address": 0x74fa700000, "end_address": 0x74fa704000, "offset": 0, "read": true,
                 "mapping_name": map, "build_id": library.buildID],
                ["begin_address": 0x74fa704000, "end_address": 0x74fa706000, "offset": 0x4000, "read": true, "execute": true,
                 "mapping_name": map, "load_bias": 0x1000],
            ],
            "log_buffers": [["name": "main", "logs": [
                ["timestamp": "11-20 10:00:00.100", "pid": 4242, "tid": 4242, "priority": 7, "tag": "DEBUG",
                 "message": "      #00 pc 0000000000001234  \(map) (BuildId: \(library.buildID))"],
                ["timestamp": "11-20 10:00:00.101", "pid": 4242, "tid": 4242, "priority": 4, "tag": "example", "message": "done"],
            ]]],
            "open_fds": [["fd": 0, "path": "/dev/null"], ["fd": 42, "path": "socket:[1234]", "owner": "ParcelFileDescriptor", "tag": 0xabc]],
        ]
    }

    /// The frame lines of the library in `output`, each with the lines that repeat it (its
    /// inlined frames before the concrete one): the line's text before ` in `, and the lines.
    static func libraryFrames(_ output: String) -> [(line: String, lines: [String])] {
        var groups: [(line: String, lines: [String])] = []
        var previousWasFrame = false
        for line in output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            guard line.hasPrefix("      #") && line.contains("libcrashy.so") else {
                previousWasFrame = false
                continue
            }
            let base = line.range(of: ") in ").map { String(line[..<line.index(after: $0.lowerBound)]) } ?? line
            if previousWasFrame, let last = groups.last, last.line == base {
                groups[groups.count - 1].lines.append(line)
            } else {
                groups.append((base, [line]))
            }
            previousWasFrame = true
        }
        return groups
    }

    func testEveryFrameAgreesWithLLVMSymbolizer() throws {
        let dir = try makeTemporaryDirectory("pb-tombstones")
        defer { try? FileManager.default.removeItem(at: dir) }
        var compared = 0, inlined = 0, system = 0
        for abi in AndroidLibrary.abis {
            let library = try AndroidLibrary.load(abi)
            let threads = try TombstoneWriter.threads(library, faultPC: try TombstoneTests.faultPC(library))
            let chains = try TombstoneTests.symbolize(library, threads.joined().compactMap { $0 })
            for apk in [false, true] {
                let label = "\(abi)\(apk ? " apk" : "")"
                let path = dir.appendingPathComponent("tombstone_0\(apk ? 1 : 0)-\(abi).pb").path
                try ProtobufReportEncoder.encode("tombstone", Self.message(library, threads: threads, apk: apk), to: path)
                let arguments = ["-d", URL(fileURLWithPath: library.path).deletingLastPathComponent().path, path]
                let result = try CLI.run(arguments)
                XCTAssertEqual(result.status, .success, result.summary(arguments))
                let output = result.stdoutText
                // The frames in order: every thread's, then (apk) the deallocation and allocation backtraces.
                var pcs: [UInt64] = threads[0].compactMap { $0 }
                if apk { pcs += threads[0].compactMap { $0 } + threads[0].reversed().compactMap { $0 } }
                pcs += threads.dropFirst().joined().compactMap { $0 }
                let groups = Self.libraryFrames(output)
                XCTAssertEqual(groups.count, pcs.count, "\(label): one group of lines per frame of the library\n\(output)")
                for (group, pc) in zip(groups, pcs) {
                    XCTAssertTrue(group.line.contains(" pc \(String(repeating: "0", count: max(0, (library.is64Bit ? 16 : 8) - String(pc, radix: 16).count)))\(String(pc, radix: 16))  "),
                                  "\(label): frame order: \(group.line) for \(hex(pc))")
                    let expected = (chains[pc] ?? []).map { group.line + " " + $0.sanitizerText }
                    XCTAssertEqual(group.lines, expected.isEmpty ? [group.line] : expected, "\(label) at \(hex(pc))")
                    compared += 1
                    inlined += max(0, expected.count - 1)
                }
                for line in output.split(separator: "\n") where line.contains("/bionic/libc.so (abort+164)") {
                    XCTAssertFalse(line.contains(" in "), "\(label): a system frame changed: \(line)")
                    system += 1
                }
                for expected in ["*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***\n",
                                 "Build fingerprint: 'google/redfin/redfin:13/TQ3A.230805.001/10316531:user/release-keys'\n",
                                 "ABI: '\(library.abiName)'\n", "pid: 4242, tid: 4242, name: example  >>> com.example.crashy <<<\n",
                                 "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x", "backtrace:\n",
                                 "--- --- --- --- --- --- --- --- --- --- --- --- --- --- --- ---\n",
                                 "memory map (2 entries):", "--------- tail end of log main\n", "--------- log main\n",
                                 "    fd 42: socket:[1234] (owned by ParcelFileDescriptor 0xabc)\n"] {
                    XCTAssertTrue(output.contains(expected), "\(label): missing \(expected.debugDescription)")
                }
                if apk {
                    XCTAssertTrue(output.contains("\ndeallocated by thread 4251:\n"), label)
                    XCTAssertTrue(output.contains("base.apk!libcrashy.so (offset 0x2a4000) ("), label)
                }
                // Symbolicated again, as the text tombstone it now is, nothing changes.
                let again = dir.appendingPathComponent("again.txt")
                try Data(output.utf8).write(to: again)
                XCTAssertEqual(try CLI.run(arguments.dropLast() + [again.path]).stdoutText, output, "\(label): read back")
            }
        }
        print("ProtobufTombstoneTests: \(compared) frames of libcrashy.so in protobuf tombstones agree with llvm-symbolizer "
              + "at the recorded rel_pc (\(inlined) inlined frames among their lines); \(system) system frames left as they are")
        XCTAssertGreaterThan(compared, 100)
        XCTAssertGreaterThan(inlined, 0)
    }

    /// JSON and frame lines have every frame; without debug files the output is the translation,
    /// the library named once as unresolved; a folder reads `tombstone_NN.pb`.
    func testFormatsFoldersAndNoDebugFiles() throws {
        let dir = try makeTemporaryDirectory("pb-tombstone-formats")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = try AndroidLibrary.load("arm64-v8a")
        let threads = try TombstoneWriter.threads(library, faultPC: try TombstoneTests.faultPC(library))
        let path = dir.appendingPathComponent("tombstone_07.pb").path
        try ProtobufReportEncoder.encode("tombstone", Self.message(library, threads: threads, apk: false), to: path)
        let all = threads.joined().count
        let json = try CLI.run(["--format", "json", path])
        let reports = try JSONOutputTests.parse(json, ["--format", "json", path])
        let frames = (reports.first?["threads"] as? [[String: Any]] ?? []).flatMap { $0["frames"] as? [[String: Any]] ?? [] }
        XCTAssertEqual(frames.count, all)
        let lines = try CLI.run(["--format", "frames", "-d", library.path, path]).stdoutText.split(separator: "\n")
        XCTAssertGreaterThanOrEqual(lines.count, all)
        XCTAssertTrue(lines.allSatisfy { $0.split(separator: "\t", omittingEmptySubsequences: false).count == 8 })
        let plain = try CLI.run([path])
        XCTAssertEqual(plain.status, .success)
        XCTAssertTrue(plain.stderrText.contains("no debug file for libcrashy.so (build-id \(library.buildID)"), plain.stderrText)
        XCTAssertFalse(plain.stdoutText.contains(" in "))
        let folder = try CLI.run(["-d", library.path, dir.path])
        XCTAssertEqual(folder.status, .success, folder.stderrText)
        XCTAssertTrue(folder.stdoutText.contains("(cart_total+"), folder.stdoutText)
        XCTAssertTrue(folder.stdoutText.contains(" in unit_price "), folder.stdoutText)
    }
    /// Hostile input: a message cut short, random bytes and garbage after the `.plcrash` magic
    /// each give one line naming the file, nothing on stdout and the status of any report that
    /// cannot be read; a text tombstone named `.pb` is read as the text it is.
    func testHostileInput() throws {
        let dir = try makeTemporaryDirectory("pb-hostile")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = try AndroidLibrary.load("arm64-v8a")
        let whole = dir.appendingPathComponent("whole.pb").path
        try ProtobufReportEncoder.encode("tombstone", Self.message(library, threads: [[0x433c, nil]], apk: false), to: whole)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        var random = SplitMix64(seed: 12)
        let cases: [(String, Data, String)] = [
            ("tombstone_01.pb", bytes.prefix(bytes.count - 7), "not a valid Android protobuf tombstone: the protobuf message is cut short"),
            ("tombstone_02.pb", Data((0..<4096).map { _ in UInt8(truncatingIfNeeded: random.next() as UInt64) }),
             "binary data, not a text report"),
            ("cut.plcrash", Data("plcrash".utf8) + Data([1]) + bytes.prefix(40), "not a valid PLCrashReporter report: "),
            ("old.plcrash", Data("plcrash".utf8) + Data([3]) + bytes, "not a valid PLCrashReporter report: version 3 is not known (1 is)"),
        ]
        for (name, data, message) in cases {
            let path = dir.appendingPathComponent(name).path
            try data.write(to: URL(fileURLWithPath: path))
            let result = try CLI.run([path])
            XCTAssertEqual(result.status, .reportFailed, "\(name): \(result.stderrText)")
            XCTAssertEqual(result.stdout.count, 0, name)
            let lines = result.stderrText.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(name): \(result.stderrText)")
            XCTAssertTrue(lines.first?.contains(path) == true && lines.first?.contains(message) == true,
                          "\(name): \(result.stderrText)")
        }
        let fault = String(try TombstoneTests.faultPC(library), radix: 16)
        let text = "*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***\nABI: 'arm64'\n"
            + "pid: 1, tid: 1, name: x  >>> x <<<\nbacktrace:\n      #00 pc "
            + String(repeating: "0", count: 16 - fault.count) + fault + "  /data/app/lib/arm64/libcrashy.so "
            + "(BuildId: \(library.buildID))\n"
        let textPath = dir.appendingPathComponent("tombstone_03.pb").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: textPath))
        let result = try CLI.run(["-d", library.path, textPath])
        XCTAssertEqual(result.status, .success, result.stderrText)
        XCTAssertTrue(result.stdoutText.hasPrefix(text.components(separatedBy: "      #00")[0]), result.stdoutText)
        XCTAssertTrue(result.stdoutText.contains(" in unit_price "), result.stdoutText)
    }
}
