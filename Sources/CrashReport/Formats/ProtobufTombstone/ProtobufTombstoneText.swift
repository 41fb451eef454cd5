import Platform

/// Writes a protobuf tombstone as the text tombstone AOSP's `pbtombstone` prints for it
/// (`tombstone_proto_to_text.cpp`), and makes the report's threads, frames and images as it
/// writes their lines:
///
///     *** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***
///     Build fingerprint: 'google/redfin/redfin:13/TQ3A.230805.001/10316531:user/release-keys'
///     Revision: '0'
///     ABI: 'arm64'
///     Timestamp: 2023-11-20 10:00:00.123456789+0100
///     Process uptime: 12s
///     Cmdline: com.example.crashy
///     pid: 4242, tid: 4242, name: example  >>> com.example.crashy <<<
///     uid: 10123
///     signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0000000000000000
///     Cause: null pointer dereference
///         x0  0000000000000000  x1  0000007fd2c1a1b8  ...
///
///     5 total frames
///     backtrace:
///           #00 pc 000000000000433c  /data/app/.../lib/arm64/libcrashy.so (cart_total+36) (BuildId: 5f0e...)
///     ...                                      memory dumps, the memory map, the last 50 log lines
///     --- --- --- --- --- --- --- --- --- --- --- --- --- --- --- ---
///     Cmdline: com.example.crashy                                    each other thread, by tid
///     pid: 4242, tid: 4250, name: RenderThread  >>> com.example.crashy <<<
///     ...
///     open files:                                                    then the logs whole
///
/// The crashed thread is the one whose tid is the tombstone's; a memory error's allocation and
/// deallocation backtraces (`deallocated by thread N:`) follow it, each a backtrace of its own.
/// Text from the device goes through `OutputEscaping`, so that every value stays on its line.
/// Where pbtombstone prints fields an older tombstone leaves at zero as if they were set
/// (`Page size: 0 bytes`, `tagged_addr_ctrl`, a guest architecture), this writer leaves them out.
struct ProtobufTombstoneText {
    struct Translation {
        var text: [UInt8]
        var header: [(key: String, value: String)]
        var threads: [Backtrace]
        var images: [BinaryImage]
    }

    private let tombstone: AndroidTombstone_Tombstone
    private var writer = ClassicTextWriter(fieldStyle: .init(valueColumn: 0, skipsEmptyValues: true,
                                                             countsEscapedKey: false))
    private var header: [(key: String, value: String)] = []
    private var threads: [Backtrace] = []
    private var images: [BinaryImage] = []
    /// Images by mapped file and ELF offset, as the text parser keys them.
    private var imageIndex: [String: Int] = [:]
    private let names = FrameText()
    /// The width of a printed pointer, in hexadecimal digits.
    private let width: Int
    private let abi: String

    static func translate(_ tombstone: AndroidTombstone_Tombstone) -> Translation {
        var text = ProtobufTombstoneText(tombstone)
        text.write()
        return Translation(text: text.writer.text, header: text.header, threads: text.threads, images: text.images)
    }

    private init(_ tombstone: AndroidTombstone_Tombstone) {
        self.tombstone = tombstone
        switch tombstone.arch {
        case .arm32: (abi, width) = ("arm", 8)
        case .arm64: (abi, width) = ("arm64", 16)
        case .x86: (abi, width) = ("x86", 8)
        case .x8664: (abi, width) = ("x86_64", 16)
        case .riscv64: (abi, width) = ("riscv64", 16)
        default: (abi, width) = ("<unknown>", 16)
        }
    }

    private mutating func write() {
        writer.line("*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***")
        let fingerprint = String(protobufText: tombstone.buildFingerprint)
        field("Build fingerprint", "'\(fingerprint)'", value: fingerprint)
        addHeader("OS Version", fingerprint)
        writer.line("Revision: '\(String(protobufText: tombstone.revision))'")
        field("ABI", "'\(abi)'", value: abi)
        if !tombstone.guestThreads.isEmpty, tombstone.guestArch != .none {
            writer.line("Guest architecture: '\(Self.abiName(tombstone.guestArch))'")
        }
        let timestamp = String(protobufText: tombstone.timestamp)
        field("Timestamp", timestamp, value: timestamp)
        writer.line("Process uptime: \(tombstone.processUptime)s")
        if tombstone.pageSize != 0 && tombstone.pageSize != 4096 {
            writer.line("Page size: \(tombstone.pageSize) bytes")
        } else if tombstone.hasBeen16KbMode_p {
            writer.line("Has been in 16kb mode: yes")
        }
        let process = tombstone.commandLine.first.map { String(protobufText: $0) }
        if let process, !process.isEmpty {
            addHeader("Process", process)
            if process.hasPrefix("/") { addHeader("Path", process) }
        }
        guard let main = tombstone.threads[tombstone.tid] else { return }
        writeMainThread(main)
        writeLogs(tail: 50)
        for tid in tombstone.threads.keys.sorted() where tid != tombstone.tid {
            writer.line("--- --- --- --- --- --- --- --- --- --- --- --- --- --- --- ---")
            writeThreadHeader(tombstone.threads[tid]!, crashed: false)
            writeRegisters(tombstone.threads[tid]!)
            writeBacktrace(tombstone.threads[tid]!)
            writeMemoryDumps(tombstone.threads[tid]!)
        }
        if !tombstone.openFds.isEmpty {
            writer.line("")
            writer.line("open files:")
            for fd in tombstone.openFds {
                let owner = fd.owner.isEmpty ? "unowned"
                    : "owned by \(String(protobufText: fd.owner)) 0x\(String(fd.tag, radix: 16))"
                writer.line("    fd \(fd.fd): \(String(protobufText: fd.path)) (\(owner))")
            }
        }
        writeLogs(tail: 0)
    }

    // MARK: Threads

    /// `Cmdline:`, `pid: ..., tid: ...` (the backtrace's name and header line), `uid:`.
    private mutating func writeThreadHeader(_ thread: AndroidTombstone_Thread, crashed: Bool) {
        let commandLine = tombstone.commandLine.map { String(protobufText: $0) }
        writer.line("Cmdline: " + (commandLine.isEmpty ? "<unknown>" : commandLine.joined(separator: " ")))
        if crashed, !commandLine.isEmpty { addHeader("Cmdline", commandLine.joined(separator: " ")) }
        let name = "pid: \(tombstone.pid), tid: \(thread.id), name: \(String(protobufText: thread.name))  "
            + ">>> \(commandLine.first ?? "<unknown>") <<<"
        let headerLine = writer.lineCount
        writer.line(name)
        threads.append(Backtrace(kind: .thread(threads.count), name: OutputEscaping.escaped(name), crashed: crashed,
                                 headerLine: headerLine))
        writer.line("uid: \(tombstone.uid)")
        if thread.taggedAddrCtrl != 0 && thread.taggedAddrCtrl != -1 {
            writer.line("tagged_addr_ctrl: \(paddedHex(UInt64(bitPattern: thread.taggedAddrCtrl), 16))"
                        + Self.describeTaggedAddressControl(thread.taggedAddrCtrl))
        }
        if thread.pacEnabledKeys != 0 && thread.pacEnabledKeys != -1 {
            writer.line("pac_enabled_keys: \(paddedHex(UInt64(bitPattern: thread.pacEnabledKeys), 16))"
                        + Self.describePACKeys(thread.pacEnabledKeys))
        }
    }

    private mutating func writeMainThread(_ thread: AndroidTombstone_Thread) {
        writeThreadHeader(thread, crashed: true)
        if tombstone.hasSignalInfo {
            let signal = tombstone.signalInfo
            let name = String(protobufText: signal.name), code = String(protobufText: signal.codeName)
            let sender = signal.hasSender_p ? " from pid \(signal.senderPid), uid \(signal.senderUid)" : ""
            let fault = signal.hasFaultAddress_p ? "0x" + paddedHex(signal.faultAddress, width) : "--------"
            let line = "signal \(signal.number) (\(name)), code \(signal.code) (\(code)\(sender)), fault addr \(fault)"
            writer.line(line)
            addHeader("Signal", OutputEscaping.escaped(line))
            if !name.isEmpty { addHeader("Exception Type", code.isEmpty ? name : "\(name) (\(code))") }
        } else {
            writer.line("signal information missing")
        }
        if tombstone.causes.count == 1 {
            let cause = String(protobufText: tombstone.causes[0].humanReadable)
            field("Cause", cause, value: cause)
        }
        if !tombstone.abortMessage.isEmpty {
            let message = String(protobufText: tombstone.abortMessage)
            field("Abort message", "'\(message)'", value: message)
        }
        for detail in tombstone.crashDetails {
            writer.line("Extra crash detail: \(String(protobufText: detail.name)): '\(String(protobufText: detail.data))'")
        }
        writeRegisters(thread)
        writeBacktrace(thread)
        if tombstone.causes.count > 1 {
            writer.line("")
            writer.line("Note: multiple potential causes for this crash were detected, listing them in decreasing "
                        + "order of likelihood.")
        }
        for cause in tombstone.causes {
            if tombstone.causes.count > 1 {
                writer.line("")
                writer.line("Cause: " + String(protobufText: cause.humanReadable))
            }
            guard case .heap(let heap)? = cause.memoryError.location else { continue }
            if !heap.deallocationBacktrace.isEmpty {
                writer.line("")
                writeOtherBacktrace("deallocated by thread \(heap.deallocationTid):", heap.deallocationBacktrace)
            }
            if !heap.allocationBacktrace.isEmpty {
                writer.line("")
                writeOtherBacktrace("allocated by thread \(heap.allocationTid):", heap.allocationBacktrace)
            }
        }
        writeMemoryDumps(thread)
        writer.line("")
        if tombstone.memoryMappings.isEmpty {
            writer.line("No memory maps found")
        } else {
            ProtobufTombstoneMaps.write(tombstone, width: width, to: &writer)
        }
    }

    /// A memory error's allocation or deallocation backtrace, named by its `header` line.
    private mutating func writeOtherBacktrace(_ header: String, _ frames: [AndroidTombstone_BacktraceFrame]) {
        threads.append(Backtrace(kind: .thread(threads.count), name: header, crashed: false, headerLine: writer.lineCount))
        writer.line(header)
        writeFrames(frames)
    }

    private mutating func writeBacktrace(_ thread: AndroidTombstone_Thread) {
        writer.line("")
        writer.line("\(thread.currentBacktrace.count) total frames")
        writer.line("backtrace:")
        for note in thread.backtraceNote { writer.line("  NOTE: " + String(protobufText: note)) }
        writeFrames(thread.currentBacktrace)
    }

    /// `      #NN pc PC  FILE[ (offset 0x..)][ (FUNCTION+OFFSET)][ (BuildId: ..)]`, each a frame
    /// of the last backtrace made.
    private mutating func writeFrames(_ frames: [AndroidTombstone_BacktraceFrame]) {
        for (number, frame) in frames.enumerated() {
            let lineStart = writer.text.count
            writer.text.append(literal: "      #")
            writer.text.append(utf8: number < 10 ? "0\(number)" : "\(number)")
            writer.text.append(literal: " pc ")
            writer.text.append(utf8: paddedHex(frame.relPc, width))
            writer.text.append(literal: "  ")
            let file = String(protobufText: frame.fileName)
            writer.appendEscaped(file)
            if frame.fileMapOffset != 0 { writer.text.append(utf8: " (offset 0x\(String(frame.fileMapOffset, radix: 16)))") }
            let function = String(protobufText: frame.functionName)
            if !function.isEmpty {
                writer.text.append(literal: " (")
                writer.appendEscaped(function)
                writer.text.append(utf8: "+\(Int64(bitPattern: frame.functionOffset)))")
            }
            let buildID = String(protobufText: frame.buildID)
            if !buildID.isEmpty {
                writer.text.append(literal: " (BuildId: ")
                writer.appendEscaped(buildID)
                writer.text.append(ASCII.closeParen)
            }
            let restStart = writer.text.count - lineStart
            let line = writer.lineCount
            writer.endLine()
            let image = self.image(file: file, offset: frame.fileMapOffset, buildID: buildID, line: line)
            let form: FrameForm = function.isEmpty ? .unknown : .symbol(name: function, offset: frame.functionOffset)
            threads[threads.count - 1].frames.append(
                Frame(index: number, imageName: image.map { images[$0].path ?? file } ?? (file.isEmpty ? nil : file),
                      address: frame.relPc, form: form, image: image, line: line, restStart: restStart,
                      imageOffset: image == nil ? nil : frame.relPc, returnAddress: false, text: names))
        }
        threads[threads.count - 1].frames.shrinkToFit()
    }

    /// The image of a frame's mapped file: one per file and ELF offset, named as the text parser
    /// names it; nil for a frame that names no file or an anonymous mapping.
    private mutating func image(file: String, offset: UInt64, buildID: String, line: Int) -> Int? {
        guard !file.isEmpty, !file.hasPrefix("<") else { return nil }
        let key = offset == 0 ? file : "\(file)\u{0}\(offset)"
        let uuid = buildID.isEmpty || !buildID.allSatisfy(\.isHexDigit) ? nil : buildID.lowercased()
        if let known = imageIndex[key] {
            if images[known].uuid == nil, let uuid { images[known].uuid = uuid }
            return known
        }
        let base = Path.lastComponent(file)
        var name = base
        if let bang = base.lastIndex(of: "!"), base.index(after: bang) < base.endIndex {
            name = String(base[base.index(after: bang)...])
        } else if offset != 0 {
            name = "\(base) (offset 0x\(String(offset, radix: 16)))"
        }
        imageIndex[key] = images.count
        images.append(BinaryImage(loadAddress: 0, endAddress: 0, name: name, arch: TombstoneParser.architecture(abi: abi),
                                  uuid: uuid, path: file, line: line, format: .elf))
        return images.count - 1
    }

    // MARK: Registers, memory, logs

    private mutating func writeRegisters(_ thread: AndroidTombstone_Thread) {
        let special: Set<String>
        switch tombstone.arch {
        case .arm32, .arm64: special = ["ip", "lr", "sp", "pc", "pst"]
        case .riscv64: special = ["ra", "sp", "pc"]
        case .x86: special = ["ebp", "esp", "eip"]
        case .x8664: special = ["rbp", "rsp", "rip"]
        default:
            writer.line("Unknown architecture \(tombstone.arch.rawValue) printing thread registers")
            return
        }
        var row: [(String, UInt64)] = [], specialRow: [(String, UInt64)] = []
        for register in thread.registers {
            let name = String(protobufText: register.name)
            if special.contains(name) { specialRow.append((name, register.u64)) } else { row.append((name, register.u64)) }
            if row.count == 4 {
                writeRegisterRow(row)
                row.removeAll()
            }
        }
        if !row.isEmpty { writeRegisterRow(row) }
        writeRegisterRow(specialRow)
    }

    private mutating func writeRegisterRow(_ row: [(String, UInt64)]) {
        var line = "  "
        for (name, value) in row {
            line += "  " + name + String(repeating: " ", count: max(0, 3 - name.count)) + " " + paddedHex(value, width)
        }
        writer.line(line)
    }

    private mutating func writeMemoryDumps(_ thread: AndroidTombstone_Thread) {
        for dump in thread.memoryDump {
            ProtobufTombstoneMaps.writeMemory(dump, width: width, to: &writer)
        }
    }

    /// The log buffers, each whole or its last `tail` messages.
    private mutating func writeLogs(tail: Int) {
        let priorities = Array("!.VDIWEFS")
        for buffer in tombstone.logBuffers {
            let name = String(protobufText: buffer.name)
            writer.line(tail > 0 ? "--------- tail end of log \(name)" : "--------- log \(name)")
            let begin = tail > 0 ? max(0, buffer.logs.count - tail) : 0
            for message in buffer.logs[begin...] {
                let priority = message.priority < priorities.count ? priorities[Int(message.priority)] : "?"
                let tag = String(protobufText: message.tag)
                writer.line("\(String(protobufText: message.timestamp)) \(pad(message.pid)) \(pad(message.tid)) \(priority) "
                            + tag + String(repeating: " ", count: max(0, 8 - tag.count)) + ": "
                            + String(protobufText: message.message))
            }
        }
    }

    // MARK: Values

    /// A header line `KEY: TEXT`, with `VALUE` kept in the report's header.
    private mutating func field(_ key: String, _ text: String, value: String) {
        writer.line("\(key): \(text)")
        if !value.isEmpty { addHeader(key, value) }
    }

    private mutating func addHeader(_ key: String, _ value: String) {
        guard !header.contains(where: { $0.key == key }) else { return }
        header.append((key: key, value: value))
    }

    private func pad(_ value: UInt32) -> String {
        let text = String(value)
        return String(repeating: " ", count: max(0, 5 - text.count)) + text
    }

    static func abiName(_ arch: AndroidTombstone_Architecture) -> String {
        switch arch {
        case .arm32: return "arm"
        case .arm64: return "arm64"
        case .x86: return "x86"
        case .x8664: return "x86_64"
        case .riscv64: return "riscv64"
        default: return "<unknown>"
        }
    }

    /// ` (PR_TAGGED_ADDR_ENABLE, PR_MTE_TCF_SYNC, mask 0xfffe)` as prctl's flags name the value.
    static func describeTaggedAddressControl(_ value: Int64) -> String {
        var rest = UInt64(bitPattern: value), parts: [String] = []
        for (bit, name) in [(UInt64(1), "PR_TAGGED_ADDR_ENABLE"), (2, "PR_MTE_TCF_SYNC"), (4, "PR_MTE_TCF_ASYNC")]
        where rest & bit != 0 {
            parts.append(name)
            rest &= ~bit
        }
        let mask: UInt64 = 0xFFFF << 3
        if rest & mask != 0 {
            parts.append("mask 0x" + paddedHex((rest & mask) >> 3, 4))
            rest &= ~mask
        }
        return describe(parts, rest: rest)
    }

    /// ` (PR_PAC_APIAKEY, PR_PAC_APIBKEY, ...)`.
    static func describePACKeys(_ value: Int64) -> String {
        var rest = UInt64(bitPattern: value), parts: [String] = []
        for (bit, name) in [(UInt64(1), "PR_PAC_APIAKEY"), (2, "PR_PAC_APIBKEY"), (4, "PR_PAC_APDAKEY"),
                            (8, "PR_PAC_APDBKEY"), (16, "PR_PAC_APGAKEY")] where rest & bit != 0 {
            parts.append(name)
            rest &= ~bit
        }
        return describe(parts, rest: rest)
    }

    private static func describe(_ parts: [String], rest: UInt64) -> String {
        let all = parts + (rest != 0 ? ["unknown 0x" + String(rest, radix: 16)] : [])
        return all.isEmpty ? "" : " (" + all.joined(separator: ", ") + ")"
    }
}

/// `value` in lowercase hexadecimal, zero-padded to `width` digits.
func paddedHex(_ value: UInt64, _ width: Int) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, width - digits.utf8.count)) + digits
}
