import Foundation
import TestSupport
import XCTest

// Android tombstones for the fixture library libcrashy.so (Fixtures/build/android/ABI), written
// the way Android writes them, from what llvm-nm, llvm-objdump and readelf say of the library —
// never from the tool under test.

/// One ABI's build of libcrashy.so, read with the LLVM and binutils tools.
struct AndroidLibrary {
    /// The NDK's name of the ABI (the fixture folder): arm64-v8a, armeabi-v7a, x86_64, riscv64.
    let abi: String
    let path: String
    let buildID: String
    let functions: [Function]
    let instructions: [Instruction]

    struct Function {
        /// The demangled name, as a tombstone prints it.
        var name: String
        var start: UInt64
        var size: UInt64
    }

    struct Instruction {
        var address: UInt64
        var size: UInt64
        var mnemonic: String
        /// The function named in llvm-objdump's disassembly (`bl 0x4318 <cart_total>`) for calls.
        var target: String?
    }

    /// Every ABI built by Fixtures/build.sh.
    static let abis = ["arm64-v8a", "armeabi-v7a", "x86_64", "riscv64"]

    /// The library of `abi` in the fixtures; skips when the fixtures are not built.
    static func load(_ abi: String) throws -> AndroidLibrary {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        let path = fixtures.appendingPathComponent("android/\(abi)/libcrashy.so").path
        guard FileManager.default.fileExists(atPath: path) else {
            throw FixtureError("\(path) is missing: run Fixtures/build.sh --force")
        }
        let readelf = try LinuxToolchain.tool("readelf", ["/usr/bin/readelf"])
        let notes = try runProcess(readelf, ["-n", path]).stdoutText
        guard let idLine = notes.split(separator: "\n").first(where: { $0.contains("Build ID:") }),
              let buildID = idLine.split(separator: " ").last.map(String.init)
        else { throw FixtureError("no build-id in \(path):\n\(notes)") }
        let nm = try LinuxToolchain.tool("llvm-nm", ["/opt/swift/usr/bin/llvm-nm", "/usr/bin/llvm-nm"])
        let symbols = try runProcess(nm, ["-C", "-S", "--defined-only", path]).stdoutText
        var functions: [Function] = []
        for line in symbols.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 3)
            guard fields.count == 4, fields[2] == "t" || fields[2] == "T",
                  let start = parseHex(String(fields[0])), let size = parseHex(String(fields[1])), size > 0
            else { continue }
            // On 32-bit ARM bit 0 of a Thumb function's value is the Thumb bit.
            functions.append(Function(name: String(fields[3]), start: abi == "armeabi-v7a" ? start & ~1 : start, size: size))
        }
        let objdump = try LinuxToolchain.tool("llvm-objdump", ["/opt/swift/usr/bin/llvm-objdump", "/usr/bin/llvm-objdump"])
        let disassembly = try runProcess(objdump, ["-d", path]).stdoutText
        var instructions: [Instruction] = []
        for line in disassembly.split(separator: "\n") {
            // "    4318: b9406009     \tldr\tw9, [x0, #0x60]", "    12bc: f000 f808    \tbl\t0x12d0 <checkout>"
            let parts = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard parts.count >= 2, let colon = parts[0].firstIndex(of: ":"),
                  let address = parseHex(parts[0][..<colon].trimmingCharacters(in: .whitespaces))
            else { continue }
            let raw = parts[0][parts[0].index(after: colon)...].filter { !$0.isWhitespace }
            guard !raw.isEmpty, raw.allSatisfy(\.isHexDigit) else { continue }
            var target: String?
            if parts.count >= 3, let open = parts[2].firstIndex(of: "<"), let close = parts[2].firstIndex(of: ">") {
                target = String(parts[2][parts[2].index(after: open)..<close])
            }
            instructions.append(Instruction(address: address, size: UInt64(raw.count / 2), mnemonic: String(parts[1]),
                                            target: target))
        }
        return AndroidLibrary(abi: abi, path: path, buildID: buildID, functions: functions, instructions: instructions)
    }

    /// What the tombstone's `ABI:` line says.
    var abiName: String {
        switch abi {
        case "arm64-v8a": return "arm64"
        case "armeabi-v7a": return "arm"
        default: return abi
        }
    }

    /// The folder under an app's `lib/` and the width of a printed pc.
    var libFolder: String { abiName }
    var is64Bit: Bool { abi != "armeabi-v7a" }

    /// The function whose symbol holds `address`, and the offset into it.
    func function(containing address: UInt64) -> (name: String, offset: UInt64)? {
        functions.first { $0.start <= address && address < $0.start + $0.size }.map { ($0.name, address - $0.start) }
    }

    func function(named name: String) throws -> Function {
        guard let found = functions.first(where: { $0.name == name || $0.name.hasPrefix(name + "(") }) else {
            throw FixtureError("no function \(name) in \(path)")
        }
        return found
    }

    /// The instructions of a function, within its symbol's extent.
    func instructions(of function: Function) -> [Instruction] {
        instructions.filter { $0.address >= function.start && $0.address < function.start + function.size }
    }

    /// The call instructions of the library.
    var calls: [Instruction] {
        instructions.filter { ["bl", "blx", "blr", "call", "callq", "jal", "jalr"].contains($0.mnemonic) }
    }

    /// The call in `caller` to `callee`.
    func call(in caller: String, to callee: String) throws -> Instruction {
        let function = try self.function(named: caller)
        guard let call = instructions(of: function).first(where: {
            calls.map(\.address).contains($0.address) && ($0.target == callee || $0.target?.hasPrefix(callee) == true)
        }) else { throw FixtureError("no call to \(callee) in \(caller) of \(path)") }
        return call
    }

    /// The pc Android prints for a frame that returns to after `call`: libunwindstack takes the
    /// return address (with the Thumb bit on 32-bit ARM, where these functions are Thumb
    /// code) and moves it back by `RegsXXX::GetPcAdjustment`: 4 on arm64 and riscv64, 1 on
    /// x86-64, the call's size on Thumb (2 or 4, which its look at the instruction tells).
    func printedPC(returningFrom call: Instruction) -> UInt64 {
        let returnAddress = call.address + call.size
        switch abi {
        case "armeabi-v7a": return (returnAddress | 1) - call.size
        case "x86_64": return returnAddress - 1
        default: return returnAddress - 4
        }
    }
}

/// How a tombstone is written: the forms Android versions and logcat give it.
enum TombstoneLayout: String, CaseIterable {
    /// Android 12 and later: six blanks before `#NN`, `+0` printed, build-ids.
    case plain
    /// Android 10 and 11: four blanks, no `+0`.
    case legacy
    /// Behind `adb logcat -v brief` prefixes, with other programs' lines between.
    case logcatBrief
    /// Behind `adb logcat -v threadtime` prefixes (`F DEBUG`, and `A DEBUG` for some lines).
    case logcatThreadtime
    /// CRLF line ends.
    case crlf
    /// The library loaded from inside its APK: `base.apk!libcrashy.so (offset 0x...)`.
    case apk
    /// The same as Android 8 and 9 print it: `base.apk (offset 0x...)`, no library name.
    case apkOffset
    /// No build-ids (Android 9 and before): matched through `-d` naming the file.
    case noBuildID
    /// No function names (a stripped library on the device).
    case noSymbols
}

/// A tombstone written for a library, and which of its lines are frames of the library.
struct WrittenTombstone {
    var text: String
    /// Every frame line, without its terminator, with its pc and whether it is in the library.
    var frames: [(line: String, pc: UInt64, inLibrary: Bool)]
}

enum TombstoneWriter {
    /// The threads of the crash: the crashed one (a fault in cart_total, inlined two deep,
    /// called from checkout, called from the JNI entry point), a waiting thread, a thread in
    /// the C++ ledger, and a thread of every call site of the library; each after its own
    /// frames with system libraries' frames, which no debug file resolves.
    static func threads(_ library: AndroidLibrary, faultPC: UInt64) throws -> [[UInt64?]] {
        func returning(_ caller: String, _ callee: String) throws -> UInt64 {
            library.printedPC(returningFrom: try library.call(in: caller, to: callee))
        }
        let wait = library.instructions(of: try library.function(named: "worker_wait"))
        let balance = library.instructions(of: try library.function(named: "shop::Ledger::balance"))
        // nil: a frame of a system library.
        return [
            [faultPC, try returning("checkout", "cart_total"),
             try returning("Java_com_example_crashy_MainActivity_crash", "checkout"), nil, nil],
            [wait[wait.count / 2].address, try returning("worker_main", "worker_wait"), nil, nil],
            [balance[balance.count / 2].address, try returning("ledger_balance", "_ZNK4shop6Ledger7balanceEi"),
             try returning("checkout", "ledger_balance"), try returning("Java_com_example_crashy_MainActivity_crash", "checkout")],
            library.calls.map { library.printedPC(returningFrom: $0) },
        ]
    }

    /// The tombstone of `threads` (each a list of pcs in the library, nil for a system
    /// library's frame) in `layout`.
    static func write(_ library: AndroidLibrary, threads: [[UInt64?]], layout: TombstoneLayout) -> WrittenTombstone {
        let width = library.is64Bit ? 16 : 8
        let lib = library.is64Bit ? "lib64" : "lib"
        let app = "/data/app/~~k3T2Zq0vbC7bA==/com.example.crashy-Xc1dgZtBq3c7yA=="
        var lines: [String] = []
        var frames: [(line: String, pc: UInt64, inLibrary: Bool)] = []
        let indent = layout == .plain || layout == .crlf || layout == .apk || layout == .noSymbols ? "      " : "    "
        func pc(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        func frame(_ number: Int, _ value: UInt64?) -> String {
            guard let value else {
                let system = [("libc.so", "abort", 164), ("libart.so", "art_quick_generic_jni_trampoline", 148),
                              ("libc.so", "__start_thread", 64)][number % 3]
                let folder = system.0 == "libart.so" ? "/apex/com.android.art/\(lib)" : "/apex/com.android.runtime/\(lib)/bionic"
                let address = UInt64(0x51234 + number * 0x1110)
                let text = "\(indent)#\(number < 10 ? "0" : "")\(number) pc \(pc(address))  \(folder)/\(system.0) "
                    + "(\(system.1)+\(system.2)) (BuildId: 4d7c1e2ea6d0cbdc1ab1e6f3d4c2b1a0)"
                frames.append((text, address, false))
                return text
            }
            var text = "\(indent)#\(number < 10 ? "0" : "")\(number) pc \(pc(value))  "
            switch layout {
            case .apk: text += "\(app)/base.apk!libcrashy.so (offset 0x2a4000)"
            case .apkOffset: text += "/data/app/com.example.crashy-1/base.apk (offset 0x2a4000)"
            default: text += "\(app)/lib/\(library.libFolder)/libcrashy.so"
            }
            if layout != .noSymbols, let (name, offset) = library.function(containing: value) {
                text += offset == 0 && layout != .plain && layout != .crlf ? " (\(name))" : " (\(name)+\(offset))"
            }
            if layout != .noBuildID { text += " (BuildId: \(library.buildID))" }
            frames.append((text, value, true))
            return text
        }
        let tids = [4242, 4250, 4251, 4263]
        let names = ["example", "RenderThread", "ledger", "callsites"]
        lines += [
            "*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***",
            "Build fingerprint: 'google/redfin/redfin:13/TQ3A.230805.001/10316531:user/release-keys'",
            "Revision: '0'",
            "ABI: '\(library.abiName)'",
            "Timestamp: 2023-11-20 10:00:00.123456789+0100",
            "Process uptime: 12s",
            "Cmdline: com.example.crashy",
        ]
        for (t, pcs) in threads.enumerated() {
            if t > 0 { lines.append("--- --- --- --- --- --- --- --- --- --- --- --- --- --- --- ---") }
            lines.append("pid: 4242, tid: \(tids[t % tids.count]), name: \(names[t % names.count])  >>> com.example.crashy <<<")
            if t == 0 {
                lines += [
                    "uid: 10123",
                    "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x\(pc(0))",
                    "Cause: null pointer dereference",
                ]
            }
            lines.append("    x0  \(pc(0))  x1  \(pc(0x7fd2c1a1b8))  x2  \(pc(pcs.first.flatMap { $0 } ?? 0))")
            lines.append("    lr  \(pc(pcs.dropFirst().first.flatMap { $0 } ?? 0))  sp  \(pc(0x7fd2c1a0b0))  pc  \(pc(0x74fa74433c))")
            lines.append("")
            lines.append("backtrace:")
            for (number, value) in pcs.enumerated() { lines.append(frame(number, value)) }
            if t == 0 {
                // Sections whose hexadecimal numbers are addresses, and whose lines name the library.
                let crashPC = pcs.first.flatMap { $0 } ?? 0
                let map = "\(app)/lib/\(library.libFolder)/libcrashy.so"
                lines += [
                    "",
                    "stack:",
                    "         \(pc(0x7fd2c1a0b0))  \(pc(0))",
                    "    #00  \(pc(0x7fd2c1a0f0))  \(pc(crashPC))  \(map) (cart_total+4)",
                    "         \(pc(0x7fd2c1a0f8))  \(pc(crashPC + 8))  \(map)",
                    "    #01  \(pc(0x7fd2c1a110))  \(pc(crashPC))",
                    "",
                    "memory near x1 ([stack]):",
                    "    \(pc(0x7fd2c1a1b0)) \(pc(crashPC)) \(pc(0))  ................",
                    "",
                    "code around pc:",
                    "    \(pc(crashPC)) f9400000 b9400000 d65f03c0 d503201f  ................",
                ]
            }
        }
        lines += [
            "",
            "memory map (3 entries):",
            "    00000074'fa700000-00000074'fa703fff r--         0      4000  \(app)/lib/\(library.libFolder)/libcrashy.so (BuildId: \(library.buildID))",
            "--->00000074'fa704000-00000074'fa705fff r-x      4000      2000  \(app)/lib/\(library.libFolder)/libcrashy.so",
            "    #00 pc \(pc(threads[0].first.flatMap { $0 } ?? 0))  \(app)/lib/\(library.libFolder)/libcrashy.so",
            "",
            "open files:",
            "    fd 0: /dev/null (unowned)",
        ]
        let prefixed = layout == .logcatBrief || layout == .logcatThreadtime
        if !prefixed {
            lines += [
                "",
                "--------- log main",
                "11-20 10:00:00.100  4242  4242 F DEBUG   :       #00 pc \(pc(threads[0].first.flatMap { $0 } ?? 0))  "
                    + "\(app)/lib/\(library.libFolder)/libcrashy.so (BuildId: \(library.buildID))",
                "11-20 10:00:00.101  4242  4242 I example : done",
            ]
        }
        var text = ""
        let end = layout == .crlf ? "\r\n" : "\n"
        var written: [(line: String, pc: UInt64, inLibrary: Bool)] = []
        var nextFrame = 0
        func emit(_ line: String) { text += line + end }
        emit(prefixed ? "--------- beginning of crash" : "Tombstone written to: /data/tombstones/tombstone_03")
        for (k, line) in lines.enumerated() {
            let isFrame = nextFrame < frames.count && frames[nextFrame].line == line
            var full = line
            switch layout {
            case .logcatBrief:
                full = "I/DEBUG   (  135): " + line
                if k % 7 == 3 { emit("W/ActivityManager(  500):   Force finishing activity com.example.crashy/.MainActivity") }
            case .logcatThreadtime:
                full = "11-20 10:00:00.456  4242  4242 \(k < 3 ? "A" : "F") DEBUG   : " + line
                if k % 7 == 3 { emit("11-20 10:00:00.457   500   520 I ActivityManager: Process com.example.crashy has died") }
            default:
                break
            }
            if isFrame {
                written.append((full, frames[nextFrame].pc, frames[nextFrame].inLibrary))
                nextFrame += 1
            }
            emit(full)
        }
        emit(prefixed ? "11-20 10:00:01.000   500   520 I ActivityManager: Start proc 4300:com.example.crashy" : "unrelated text after")
        return WrittenTombstone(text: text, frames: written)
    }
}
