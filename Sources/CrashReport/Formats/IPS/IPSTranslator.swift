import Platform

/// Translates the JSON body of a bug_type 309 `.ips` report into the classic text report, the
/// way Xcode and Console show it, and remembers which JSON object each frame line came from.
///
/// The body
///
///     {"procName":"App","pid":1234,"cpuType":"ARM-64","faultingThread":0,
///      "exception":{"type":"EXC_CRASH","signal":"SIGABRT"},
///      "threads":[{"triggered":true,"queue":"com.apple.main-thread",
///                  "frames":[{"imageOffset":16900,"imageIndex":0},
///                            {"imageOffset":33550,"symbol":"__pthread_kill","symbolLocation":8,"imageIndex":1}]}],
///      "usedImages":[{"base":4372758528,"size":32768,"uuid":"4c4c44c3-5555-3144-a19b-af60d4f21f14",
///                     "name":"App","arch":"arm64","path":"/.../App"}, ...]}
///
/// becomes
///
///     Process:             App [1234]
///     Code Type:           ARM-64 (Native)
///     Report Version:      12
///
///     Exception Type:      EXC_CRASH (SIGABRT)
///     Triggered by Thread: 0
///
///     Thread 0 name:  Dispatch queue: com.apple.main-thread
///     Thread 0 Crashed:
///     0   App                                 0x0000000104a34204 0x104a30000 + 16900
///     1   libsystem_kernel.dylib              0x00000001c0a9a30e __pthread_kill + 8
///
///     Binary Images:
///            0x104a30000 -        0x104a37fff App arm64  <4c4c44c355553144a19baf60d4f21f14> /.../App
///
/// A frame's address is its image's `base` plus its `imageOffset`; when either is missing or
/// not a 64-bit number, or their sum does not fit in 64 bits, the address is written
/// `0x????????????????`, which the classic parser reads as a frame no image holds
/// (`Frame.addressUnknown`): no other number stands in for it. Frames the device already
/// symbolicated print `symbol + symbolLocation` and ` (sourceFile:sourceLine)`; inlined frames
/// (`"inline":true`) print as lines of their own ending ` [inlined]`, numbered like the concrete
/// frame that follows them. The strings of `asiBacktraces` are backtraces printed as text; they
/// become "Application Specific Backtrace N:" blocks, line for line. Missing keys leave their
/// lines out; control characters in names are written visibly (`OutputEscaping`) so that every
/// value stays on its line and none reaches a terminal.
struct IPSTranslator {
    /// One frame line written from a JSON frame object.
    ///
    /// A report has one per frame, all held until the frames are tied to their objects, so
    /// it is kept small: the form as a kind and two numbers, its names as indices into the
    /// translation's one table of names (``FrameText``, `Translation.form(of:)`), the line
    /// and the object's range in 32 bits (the scanner reads no input past 4 GiB, and every
    /// line of the text comes from a byte of it at least).
    struct FrameLine {
        private var formOffset: UInt64 = 0
        private var formValue: UInt64 = 0
        private var objectStart: UInt32
        private var objectEnd: UInt32
        private var storedLine: UInt32
        private var nameID: Int32 = -1
        private var fileID: Int32 = -1
        private var kind: Kind
        /// Whether the object says `"inline":true`.
        var inlined: Bool

        private enum Kind: UInt8 {
            case unsymbolicated, symbol, symbolicated, symbolicatedWithOffset, unknown
        }

        init(line: Int, object: Range<Int>, form: FrameForm, inlined: Bool, names: FrameText) {
            storedLine = UInt32(truncatingIfNeeded: line)
            objectStart = UInt32(truncatingIfNeeded: object.lowerBound)
            objectEnd = UInt32(truncatingIfNeeded: object.upperBound)
            self.inlined = inlined
            switch form {
            case .unsymbolicated(let loadAddress, let offset):
                kind = .unsymbolicated
                formValue = loadAddress
                formOffset = offset
            case .symbol(let name, let offset):
                kind = .symbol
                nameID = names.intern(name)
                formOffset = offset
            case .symbolicated(let name, let offset, let file, let line):
                kind = offset == nil ? .symbolicated : .symbolicatedWithOffset
                nameID = names.intern(name)
                fileID = names.intern(file)
                formOffset = offset ?? 0
                formValue = UInt64(bitPattern: Int64(line))
            default:
                kind = .unknown
            }
        }

        /// The line's index in the translated text.
        var line: Int { Int(storedLine) }

        /// The JSON object's byte range in the file.
        var object: Range<Int> { Int(objectStart)..<Int(objectEnd) }

        /// What the object says after the address, its names read from `names`.
        func form(_ names: FrameText) -> FrameForm {
            switch kind {
            case .unsymbolicated: return .unsymbolicated(loadAddress: formValue, offset: formOffset)
            case .symbol: return .symbol(name: names[nameID], offset: formOffset)
            case .symbolicated, .symbolicatedWithOffset:
                return .symbolicated(name: names[nameID], offset: kind == .symbolicated ? nil : formOffset,
                                     file: names[fileID], line: Int(Int64(bitPattern: formValue)))
            case .unknown: return .unknown
            }
        }
    }

    /// The translated report, its frame lines and its text backtraces.
    struct Translation {
        var text: [UInt8]
        var frames: [FrameLine]
        var textBacktraces: [IPSDocument.TextBacktrace]
        /// The names of the frame lines' forms.
        var names: FrameText
        /// For an inlined frame line (by index into `frames`): the line of the concrete frame
        /// it belongs to, when it is followed by one with the same image and offset.
        var concreteLines: [Int: Int]

        /// What the object of `frameLine` says after the address.
        func form(of frameLine: FrameLine) -> FrameForm { frameLine.form(names) }
    }

    private struct Image {
        var base: UInt64?
        var size: UInt64?
        var name: String?
        var path: String?
        var uuid: String?
        var arch: String?

        var displayName: String {
            if let name, !name.isEmpty { return name }
            if let path, !path.isEmpty { return String(basename(path)) }
            return "???"
        }
    }

    private let metadata: JSONTree
    private let body: JSONTree
    private var images: [Image] = []
    /// The text, its fields `Key:` padded to 21 columns and left out when they have no value.
    private var writer = ClassicTextWriter(fieldStyle: .init(valueColumn: 21, skipsEmptyValues: true,
                                                             countsEscapedKey: false))
    private var frames: [FrameLine] = []
    /// The names of the frames' forms, each held once.
    private let names = FrameText()
    /// The concrete frame's line of each inlined frame line that has one (by index into `frames`).
    private var concreteLines: [Int: Int] = [:]
    private var textBacktraces: [IPSDocument.TextBacktrace] = []

    /// Translates `body` (the report's JSON body) with `metadata` (its first line).
    static func translate(metadata: JSONTree, body: JSONTree) -> Translation {
        var translator = IPSTranslator(metadata: metadata, body: body)
        translator.run()
        return Translation(text: translator.writer.text, frames: translator.frames,
                           textBacktraces: translator.textBacktraces, names: translator.names,
                           concreteLines: translator.concreteLines)
    }

    private init(metadata: JSONTree, body: JSONTree) {
        self.metadata = metadata
        self.body = body
    }

    private func member(_ name: String) -> Int? {
        body.member(name, of: body.root)
    }

    private func meta(_ name: String) -> String? {
        metadata.text(metadata.member(name, of: metadata.root))
    }

    private mutating func run() {
        reserve()
        readImages()
        writeHeader()
        let threads = member("threads")
        let faulting = body.int(member("faultingThread"))
        if let backtrace = member("lastExceptionBacktrace"), body.nodes[backtrace].firstChild >= 0 {
            writer.line("Last Exception Backtrace:")
            writeFrames(of: backtrace)
            writer.line("")
        }
        writeTextBacktraces()
        var crashed: (number: Int, node: Int)?
        if let threads, body.nodes[threads].kind == .array {
            for (number, thread) in body.children(of: threads).enumerated() {
                if writeThread(thread, number: number, faulting: faulting), crashed == nil {
                    crashed = (number, thread)
                }
            }
        }
        if let crashed { writeThreadState(crashed.node, number: crashed.number) }
        writeImages()
    }

    /// Room for the frame lines and the text, so that neither grows by copies of itself (each
    /// of which holds the old and the new buffer at once): a frame line per frame object, and
    /// about a hundred bytes of text for each (the room a guess leaves unused is never touched).
    private mutating func reserve() {
        var count = 0
        if let backtrace = member("lastExceptionBacktrace") { count += body.children(of: backtrace).reduce(0) { n, _ in n + 1 } }
        if let threads = member("threads"), body.nodes[threads].kind == .array {
            for thread in body.children(of: threads) {
                if let frames = body.member("frames", of: thread) { count += body.children(of: frames).reduce(0) { n, _ in n + 1 } }
            }
        }
        frames.reserveCapacity(count)
        writer.text.reserveCapacity(count * 100 + body.bytes.count / 8 + 4096)
    }

    // MARK: Header

    private mutating func writeHeader() {
        writer.field("Incident Identifier", meta("incident_id") ?? body.text(member("incident")))
        writer.field("CrashReporter Key", body.text(member("crashReporterKey")))
        writer.field("Hardware Model", body.text(member("modelCode")))
        let name = body.text(member("procName")) ?? meta("name") ?? meta("app_name")
        writer.field("Process", joined(name, bracketed: body.text(member("pid"))))
        writer.field("Path", body.text(member("procPath")))
        let bundle = member("bundleInfo")
        writer.field("Identifier", body.text(body.member("CFBundleIdentifier", of: bundle)) ?? meta("bundleID"))
        let short = body.text(body.member("CFBundleShortVersionString", of: bundle)) ?? meta("app_version")
        let build = body.text(body.member("CFBundleVersion", of: bundle)) ?? meta("build_version")
        writer.field("Version", joined(short, parenthesized: build))
        if let cpu = body.text(member("cpuType")) {
            writer.field("Code Type", cpu + (body.bool(member("translated")) == true ? " (Translated)" : " (Native)"))
        }
        writer.field("Role", body.text(member("procRole")))
        writer.field("Parent Process", joined(body.text(member("parentProc")), bracketed: body.text(member("parentPid"))))
        writer.field("Coalition", joined(body.text(member("coalitionName")), bracketed: body.text(member("coalitionID"))))
        writer.line("")

        writer.field("Date/Time", body.text(member("captureTime")) ?? meta("timestamp"))
        writer.field("Launch Time", body.text(member("procLaunch")))
        let os = member("osVersion")
        let train = body.text(body.member("train", of: os))
        writer.field("OS Version", train.map { joined($0, parenthesized: body.text(body.member("build", of: os))) ?? $0 }
              ?? meta("os_version"))
        writer.field("Release Type", body.text(body.member("releaseType", of: os)))
        writer.field("Report Version", "12")
        writer.line("")

        let exception = member("exception")
        let type = body.text(body.member("type", of: exception))
        let signal = body.text(body.member("signal", of: exception))
        writer.field("Exception Type", type.map { joined($0, parenthesized: signal) ?? $0 } ?? signal)
        writer.field("Exception Subtype", body.text(body.member("subtype", of: exception)))
        writer.field("Exception Message", body.text(body.member("message", of: exception)))
        writer.field("Exception Codes", body.text(body.member("codes", of: exception)) ?? rawCodes(exception))
        let termination = member("termination")
        if termination != nil {
            var reason: [String] = []
            if let namespace = body.text(body.member("namespace", of: termination)) {
                reason.append("Namespace " + namespace)
            }
            if let code = body.text(body.member("code", of: termination)) { reason.append("Code " + code) }
            var value = reason.joined(separator: ", ")
            if let indicator = body.text(body.member("indicator", of: termination)) {
                value += (value.isEmpty ? "" : " ") + indicator
            }
            writer.field("Termination Reason", value.isEmpty ? nil : value)
            writer.field("Terminating Process", joined(body.text(body.member("byProc", of: termination)),
                                                bracketed: body.text(body.member("byPid", of: termination))))
        }
        writer.line("")
        if let faulting = body.text(member("faultingThread")) {
            writer.field("Triggered by Thread", faulting)
            writer.line("")
        }
        writeApplicationSpecificInformation()
    }

    /// `asi`: `{"libsystem_c.dylib":["abort() called"]}`, one line per message.
    private mutating func writeApplicationSpecificInformation() {
        guard let asi = member("asi"), body.nodes[asi].kind == .object else { return }
        var messages: [String] = []
        for entry in body.children(of: asi) {
            if body.nodes[entry].kind == .array {
                messages += body.children(of: entry).compactMap { body.text($0) }
            } else if let message = body.text(entry) {
                messages.append(message)
            }
        }
        guard !messages.isEmpty else { return }
        writer.line("Application Specific Information:")
        for message in messages {
            for part in message.split(separator: "\n", omittingEmptySubsequences: true) {
                writer.line(String(part))
            }
        }
        writer.line("")
    }

    private func rawCodes(_ exception: Int?) -> String? {
        guard let codes = body.member("rawCodes", of: exception), body.nodes[codes].kind == .array else { return nil }
        let values = body.children(of: codes).compactMap { body.unsigned($0) }
        guard !values.isEmpty else { return nil }
        return values.map { value -> String in
            let digits = String(value, radix: 16)
            return "0x" + String(repeating: "0", count: max(0, 16 - digits.count)) + digits
        }.joined(separator: ", ")
    }

    // MARK: Backtraces

    /// Writes a thread's header and frames; returns whether it is the crashed one.
    private mutating func writeThread(_ thread: Int, number: Int, faulting: Int?) -> Bool {
        let name = body.text(body.member("name", of: thread))
        let queue = body.text(body.member("queue", of: thread)).map { "Dispatch queue: " + $0 }
        switch (name, queue) {
        case let (name?, queue?): writer.line("Thread \(number) name:  \(name)  \(queue)")
        case let (name?, nil): writer.line("Thread \(number) name:  \(name)")
        case let (nil, queue?): writer.line("Thread \(number) name:  \(queue)")
        case (nil, nil): break
        }
        let crashed = body.bool(body.member("triggered", of: thread)) == true || number == faulting
        writer.line("Thread \(number)\(crashed ? " Crashed" : ""):")
        if let frames = body.member("frames", of: thread) { writeFrames(of: frames) }
        writer.line("")
        return crashed
    }

    /// Writes the frame lines of a `frames` array. Inlined frames are numbered like the
    /// concrete frame that follows them and tied to it when image and offset agree.
    private mutating func writeFrames(of array: Int) {
        guard body.nodes[array].kind == .array else { return }
        var index = 0
        var pendingInlined: [(frame: Int, node: Int)] = []  // into `frames`, and the JSON node
        for node in body.children(of: array) where body.nodes[node].kind == .object {
            let inlined = body.bool(body.member("inline", of: node)) == true
            let frameLine = writeFrame(node, index: index, inlined: inlined)
            if inlined {
                pendingInlined.append((frames.count, node))
                frames.append(frameLine)
                continue
            }
            frames.append(frameLine)
            // The run of inlined frames right before this one that share its image and offset.
            let place = placeKey(node)
            for pending in pendingInlined.reversed() {
                guard place != nil, placeKey(pending.node) == place else { break }
                concreteLines[pending.frame] = frameLine.line
            }
            pendingInlined = []
            index += 1
        }
    }

    /// `imageIndex` and `imageOffset` of a frame object, for matching inlined frames to theirs.
    private func placeKey(_ node: Int) -> [UInt64]? {
        guard let offset = body.unsigned(body.member("imageOffset", of: node)) else { return nil }
        return [body.unsigned(body.member("imageIndex", of: node)) ?? UInt64.max, offset]
    }

    /// Writes one frame line: `N   IMAGE   0xADDRESS REST`.
    private mutating func writeFrame(_ node: Int, index: Int, inlined: Bool) -> FrameLine {
        let imageIndex = body.int(body.member("imageIndex", of: node))
        let image = imageIndex.flatMap { images.indices.contains($0) ? images[$0] : nil }
        let offset = body.unsigned(body.member("imageOffset", of: node))
        var address: UInt64?
        if let base = image?.base, let offset {
            let (sum, overflow) = base.addingReportingOverflow(offset)
            if !overflow { address = sum }
        }
        let symbol = body.text(body.member("symbol", of: node))
        let symbolLocation = body.unsigned(body.member("symbolLocation", of: node))
        let file = body.text(body.member("sourceFile", of: node))
        let sourceLine = body.int(body.member("sourceLine", of: node))

        var rest: String
        let form: FrameForm
        if let symbol {
            rest = symbol
            if let symbolLocation { rest += " + \(symbolLocation)" }
            if let file {
                rest += " (" + file + (sourceLine.map { $0 > 0 ? ":\($0)" : "" } ?? "") + ")"
                form = .symbolicated(name: symbol, offset: symbolLocation, file: file, line: sourceLine ?? 0)
            } else {
                form = .symbol(name: symbol, offset: symbolLocation ?? 0)
            }
        } else if address != nil, let offset, let imageBase = image?.base {
            rest = "0x" + String(imageBase, radix: 16) + " + \(offset)"
            form = .unsymbolicated(loadAddress: imageBase, offset: offset)
        } else {
            rest = "???"
            form = .unknown
        }
        if inlined { rest += " [inlined]" }

        let lineIndex = writer.lineCount
        let lineStart = writer.text.count
        writer.text.append(decimal: index)
        writer.pad(from: lineStart, to: 4)
        let nameStart = writer.text.count
        writer.appendEscaped(image?.displayName ?? "???")
        writer.pad(from: nameStart, to: 36)
        let hexAddress = address.map { String($0, radix: 16) } ?? "????????????????"
        writer.text.append(literal: "0x")
        writer.text.append(contentsOf: repeatElement(ASCII.zero, count: max(0, 16 - hexAddress.utf8.count)))
        writer.text.append(utf8: hexAddress)
        writer.text.append(ASCII.space)
        writer.line(rest)
        return FrameLine(line: lineIndex, object: body.nodes[node].range, form: form, inlined: inlined, names: names)
    }

    /// `asiBacktraces`: each string is a backtrace already printed as text.
    private mutating func writeTextBacktraces() {
        guard let strings = member("asiBacktraces"), body.nodes[strings].kind == .array else { return }
        var number = 1
        for node in body.children(of: strings) {
            guard let decoded = body.stringBytes(node) else { continue }
            writer.line("Application Specific Backtrace \(number):")
            number += 1
            let first = writer.lineCount
            // The classic parser's split, so line `k` of the text is line `first + k` of the report.
            for range in decoded.withUnsafeBufferPointer({ $0.lineRanges() }) {
                var bytes = decoded[range]
                if bytes.last == ASCII.newline { bytes.removeLast() }
                let start = writer.text.count
                writer.text += bytes
                for k in start..<writer.text.count
                where Self.isControl(writer.text[k]) && writer.text[k] != ASCII.carriageReturn {
                    writer.text[k] = 0x3F  // "?": one byte for one, so offsets within the line stay put
                }
                writer.endLine()
            }
            textBacktraces.append(IPSDocument.TextBacktrace(range: body.nodes[node].range, text: decoded,
                                                            lines: first..<writer.lineCount))
            writer.line("")
        }
    }

    // MARK: Registers

    /// "Thread N crashed with ARM Thread State (64-bit):" and the registers of `threadState`.
    private mutating func writeThreadState(_ thread: Int, number: Int) {
        guard let state = body.member("threadState", of: thread), body.nodes[state].kind == .object else { return }
        let flavor = body.text(body.member("flavor", of: state)) ?? ""
        var registers: [(String, UInt64)] = []
        func value(_ node: Int?) -> UInt64? { body.unsigned(body.member("value", of: node)) }
        let width: Int
        let title: String
        if flavor.lowercased().hasPrefix("x86") {
            title = "X86 Thread State (64-bit)"
            width = 5
            for name in ["rax", "rbx", "rcx", "rdx", "rdi", "rsi", "rbp", "rsp", "r8", "r9", "r10", "r11",
                         "r12", "r13", "r14", "r15", "rip", "rflags", "cr2"] {
                if let v = value(body.member(name, of: state)) { registers.append((name == "rflags" ? "rfl" : name, v)) }
            }
        } else {
            let is64 = body.member("x", of: state) != nil
            title = is64 ? "ARM Thread State (64-bit)" : "ARM Thread State (32-bit)"
            width = 6
            let prefix = is64 ? "x" : "r"
            if let list = body.member(prefix, of: state), body.nodes[list].kind == .array {
                for (k, node) in body.children(of: list).enumerated() {
                    if let v = value(node) { registers.append(("\(prefix)\(k)", v)) }
                }
            }
            for name in ["fp", "lr", "sp", "pc", "cpsr", "far"] {
                if let v = value(body.member(name, of: state)) { registers.append((name, v)) }
            }
        }
        guard !registers.isEmpty else { return }
        writer.line("Thread \(number) crashed with \(title):")
        // Four registers a line, each name right-aligned in `width` columns.
        for (k, (name, value)) in registers.enumerated() {
            let start = writer.text.count
            writer.text.append(utf8: name)
            writer.rightAlign(from: start, to: width)
            let digits = String(value, radix: 16)
            writer.text.append(literal: ": 0x")
            writer.text.append(contentsOf: repeatElement(ASCII.zero, count: max(0, 16 - digits.utf8.count)))
            writer.text.append(utf8: digits)
            if k % 4 == 3 { writer.endLine() }
        }
        if registers.count % 4 != 0 { writer.endLine() }
        if let esr = body.member("esr", of: state), let v = value(esr) {
            let description = body.text(body.member("description", of: esr)).map { " " + $0 } ?? ""
            writer.line("   esr: 0x" + String(v, radix: 16) + description)
        }
        writer.line("")
    }

    // MARK: Images

    private mutating func readImages() {
        guard let list = member("usedImages"), body.nodes[list].kind == .array else { return }
        for node in body.children(of: list) {
            let uuid = body.text(body.member("uuid", of: node)).flatMap(ImageIdentity.compactUUID)
            images.append(Image(base: body.unsigned(body.member("base", of: node)),
                                size: body.unsigned(body.member("size", of: node)),
                                name: body.text(body.member("name", of: node)),
                                path: body.text(body.member("path", of: node)),
                                uuid: uuid,
                                arch: body.text(body.member("arch", of: node))))
        }
    }

    /// "Binary Images:" and one line per image with a base, by address:
    /// `0xSTART - 0xEND NAME ARCH  <UUID> PATH`, END = base + size - 1.
    private mutating func writeImages() {
        let listed = images.enumerated().filter { $0.element.base != nil }
            .sorted { ($0.element.base!, $0.offset) < ($1.element.base!, $1.offset) }
        guard !listed.isEmpty else { return }
        writer.line("Binary Images:")
        for (_, image) in listed {
            let base = image.base!
            let end = base &+ (image.size ?? 0) &- 1
            appendAddressColumn(base)
            writer.text.append(literal: " - ")
            appendAddressColumn(end)
            var entry = " " + image.displayName
            if let arch = image.arch, !arch.isEmpty { entry += " " + arch }
            entry += "  <" + (image.uuid ?? "???") + "> " + (image.path.flatMap { $0.isEmpty ? nil : $0 } ?? "???")
            writer.line(entry)
        }
    }

    /// `0xADDRESS` right-aligned in 18 columns, as the images' addresses are written.
    private mutating func appendAddressColumn(_ address: UInt64) {
        let start = writer.text.count
        writer.text.append(hex: address)
        writer.rightAlign(from: start, to: 18)
    }

    // MARK: Text

    private static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != ASCII.tab && byte != ASCII.newline) || byte == 0x7F
    }

    /// `name [number]`, or whichever of the two there is.
    private func joined(_ name: String?, bracketed number: String?) -> String? {
        switch (name, number) {
        case let (name?, number?): return "\(name) [\(number)]"
        case let (name?, nil): return name
        case let (nil, number?): return "??? [\(number)]"
        case (nil, nil): return nil
        }
    }

    /// `first (second)`, or whichever of the two there is.
    private func joined(_ first: String?, parenthesized second: String?) -> String? {
        switch (first, second) {
        case let (first?, second?) where !second.isEmpty: return "\(first) (\(second))"
        case let (first?, _): return first
        case let (nil, second?): return second
        case (nil, nil): return nil
        }
    }
}
