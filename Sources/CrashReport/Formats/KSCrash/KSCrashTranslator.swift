import Platform

/// Translates KSCrash reports into a classic text report, and makes the report's threads,
/// frames and images as it writes their lines.
///
/// A report (see `KSCrashParser` for the JSON) becomes
///
///     Incident Identifier: 8C1B5D2E-...
///     Hardware Model:      iPhone15,2
///     Process:             App [1234]
///     Identifier:          com.example.App
///     Version:             1 (1.0)
///     Code Type:           ARM-64 (Native)
///     Date/Time:           2023-10-17 16:03:12.532549 +0000
///     OS Version:          iOS 17.2 (21C62)
///     Report Version:      3.3.0 (KSCrash)
///
///     Exception Type:      EXC_BAD_ACCESS (SIGSEGV)
///     Exception Codes:     0x0000000000000001, 0x0000000000000010
///     Crashed Thread:      0
///
///     Thread 0 name:  Dispatch queue: com.apple.main-thread
///     Thread 0 Crashed:
///     0   App                                 0x0000000104a34204 0x104a30000 + 16900
///     1   libsystem_kernel.dylib              0x00000001c0a9a30e __pthread_kill + 8
///
///     Binary Images:
///            0x104a30000 -        0x104a37fff App arm64e  <4c4c44c355553144a19baf60d4f21f14> /.../App
///
/// A frame's image is the smallest of the report's `binary_images` whose range (`image_addr`,
/// `image_size` bytes) holds its `instruction_addr`; a frame whose `object_addr` names another
/// image's start contradicts its report, and is left with none. A frame the reporter named
/// (`symbol_name`) prints `symbol_name + (instruction_addr − symbol_addr)`, the device's name,
/// as an `.ips` frame with a `symbol` does; the others print `0xBASE + OFFSET`, or `???` outside
/// every image. An address that is not an unsigned 64-bit integer (negative, fractional, too
/// large, a string) is written `0x????????????????`: the frame is kept, and nothing resolves it.
/// An image without an unsigned `image_addr` and a positive `image_size` that fit in 64 bits
/// places no frame, and the notes say how many were left out.
struct KSCrashTranslator {
    struct Translation {
        var text: [UInt8]
        var header: [(key: String, value: String)]
        var codeType: String?
        var crashedThread: Int?
        var threads: [Backtrace]
        var images: [BinaryImage]
        /// What the user should know, one line each, without the path.
        var notes: [String]
        /// `frameNodes[t][f]`: the JSON node of frame `f` of thread `t` (``KSCrashDocument``).
        var frameNodes: [[Int32]]
    }

    private let tree: JSONTree
    private var writer = ClassicTextWriter(fieldStyle: .init(valueColumn: 21, skipsEmptyValues: true,
                                                             countsEscapedKey: false))
    private var header: [(key: String, value: String)] = []
    private var codeType: String?
    private var crashedThread: Int?
    private var threads: [Backtrace] = []
    private var images: [BinaryImage] = []
    private var notes: [String] = []
    private var frameNodes: [[Int32]] = []
    private let names = FrameText()
    /// The indices into `images` of the report being written.
    private var reportImages: Range<Int> = 0..<0

    /// Translates the `reports` of `tree` (`KSCrashParser.find`).
    static func translate(_ tree: JSONTree, reports: [(node: Int, label: String)]) -> Translation {
        var translator = KSCrashTranslator(tree: tree)
        var unplaced = 0
        var recrashes = 0
        for (node, label) in reports {
            if !label.isEmpty { translator.writer.line("KSCrash Report " + label) }
            unplaced += translator.writeReport(node)
            if translator.tree.member("recrash_report", of: node) != nil { recrashes += 1 }
        }
        if unplaced > 0 {
            translator.notes.append("\(unplaced) binary image\(unplaced == 1 ? "" : "s") without an unsigned image_addr "
                + "and a positive image_size left out: \(unplaced == 1 ? "it places" : "they place") no frame")
        }
        if recrashes > 0 {
            translator.notes.append("the nested recrash_report (a crash in the crash handler) is not read")
        }
        return Translation(text: translator.writer.text, header: translator.header, codeType: translator.codeType,
                           crashedThread: translator.crashedThread, threads: translator.threads,
                           images: translator.images, notes: translator.notes, frameNodes: translator.frameNodes)
    }

    private init(tree: JSONTree) {
        self.tree = tree
    }

    /// What translating `reports` would make, counted in the tree before any of it is.
    static func translationEstimate(_ tree: JSONTree, reports: [(node: Int, label: String)]) -> TranslationEstimate {
        var estimate = TranslationEstimate()
        func count(_ node: Int?) -> Int {
            guard let node, tree.nodes[node].kind == .array else { return 0 }
            return tree.children(of: node).reduce(0) { n, _ in n + 1 }
        }
        for (node, _) in reports {
            estimate.images += count(tree.member("binary_images", of: node))
            guard let crash = tree.member("crash", of: node), let list = tree.member("threads", of: crash),
                  tree.nodes[list].kind == .array else { continue }
            for thread in tree.children(of: list) {
                estimate.threads += 1
                estimate.frames += count(tree.member("backtrace", of: thread).flatMap { tree.member("contents", of: $0) })
            }
        }
        return estimate
    }

    // MARK: A report

    /// Writes one report; returns how many of its images were left out.
    private mutating func writeReport(_ node: Int) -> Int {
        let info = object("report", of: node)
        let system = object("system", of: node)
        let crash = object("crash", of: node)
        let unplaced = makeImages(tree.member("binary_images", of: node), system: system)
        writeHeader(info: info, system: system)
        if let crash {
            writeError(object("error", of: crash), crashedThread: crashedNumber(crash))
            if let list = tree.member("threads", of: crash), tree.nodes[list].kind == .array {
                for (position, thread) in tree.children(of: list).enumerated() where tree.nodes[thread].kind == .object {
                    writeThread(thread, position: position)
                }
            }
        }
        writeImages()
        return unplaced
    }

    private mutating func writeHeader(info: Int?, system: Int?) {
        field("Incident Identifier", text("id", of: info))
        field("Hardware Model", text("machine", of: system))
        let process = text("process_name", of: system) ?? text("process_name", of: info)
        let pid = text("process_id", of: system)
        field("Process", process.map { name in pid.map { "\(name) [\($0)]" } ?? name })
        field("Path", text("CFBundleExecutablePath", of: system))
        field("Identifier", text("CFBundleIdentifier", of: system))
        let build = text("CFBundleVersion", of: system)
        let short = text("CFBundleShortVersionString", of: system)
        field("Version", build.map { build in short.map { "\(build) (\($0))" } ?? build } ?? short)
        let arch = text("cpu_arch", of: system) ?? images[reportImages].first(where: \.isApp)?.arch
        field("Code Type", arch.map(Self.codeType(ofArchitecture:)), keepingCodeType: true)
        if let timestamp = info.flatMap({ tree.member("timestamp", of: $0) }) {
            field("Date/Time", tree.unsigned(timestamp).map(Self.date(microseconds:)) ?? tree.text(timestamp))
        }
        let os = [text("system_name", of: system), text("system_version", of: system)].compactMap { $0 }
        let osBuild = text("os_version", of: system)
        field("OS Version", os.isEmpty ? osBuild : os.joined(separator: " ") + (osBuild.map { " (\($0))" } ?? ""))
        field("Report Version", text("version", of: info).map { "\($0) (KSCrash)" })
        writer.line("")
    }

    /// The `Exception` lines, and the exception's reason as Application Specific Information.
    private mutating func writeError(_ error: Int?, crashedThread: Int?) {
        let mach = error.flatMap { object("mach", of: $0) }
        let signal = error.flatMap { object("signal", of: $0) }
        let exception = text("exception_name", of: mach)
        let signalName = text("name", of: signal)
        let type = exception.map { name in signalName.map { "\(name) (\($0))" } ?? name } ?? signalName
            ?? text("type", of: error)
        field("Exception Type", type)
        if let mach, let code = tree.unsigned(tree.member("code", of: mach)) {
            var codes = Self.hex16(code)
            if let subcode = tree.unsigned(tree.member("subcode", of: mach)) { codes += ", " + Self.hex16(subcode) }
            field("Exception Codes", codes)
        }
        if let error, let address = tree.unsigned(tree.member("address", of: error)), address != 0 {
            field("Exception Address", Self.hex16(address))
        }
        field("Crashed Thread", crashedThread.map(String.init))
        writer.line("")
        let nsexception = error.flatMap { object("nsexception", of: $0) }
        var information: String?
        if let nsexception {
            let name = text("name", of: nsexception) ?? "NSException"
            information = "*** Terminating app due to uncaught exception '\(name)'"
                + (text("reason", of: nsexception).map { ", reason: '\($0)'" } ?? "")
        } else if let reason = text("reason", of: error) {
            information = reason
        }
        if let information {
            writer.line("Application Specific Information:")
            header.append((key: "Application Specific Information", value: information))
            writer.line(information)
            writer.line("")
        }
    }

    /// The number of the crashed thread: its `index`, or its place in `threads`.
    private func crashedNumber(_ crash: Int) -> Int? {
        guard let list = tree.member("threads", of: crash), tree.nodes[list].kind == .array else { return nil }
        for (position, thread) in tree.children(of: list).enumerated() where tree.bool(tree.member("crashed", of: thread)) == true {
            return number(of: thread, position: position)
        }
        return nil
    }

    private func number(of thread: Int, position: Int) -> Int {
        tree.unsigned(tree.member("index", of: thread)).flatMap { Int(exactly: $0) } ?? position
    }

    // MARK: Threads

    private mutating func writeThread(_ node: Int, position: Int) {
        let number = number(of: node, position: position)
        let crashed = tree.bool(tree.member("crashed", of: node)) == true
        var name: String?
        if let queue = text("dispatch_queue", of: node) { name = "Dispatch queue: " + queue }
        if let threadName = text("name", of: node) { name = threadName }
        if let name { writer.line("Thread \(number) name:  " + name) }
        let headerLine = writer.lineCount
        writer.line("Thread \(number)" + (crashed ? " Crashed:" : ":"))
        if crashed && crashedThread == nil { crashedThread = number }
        var thread = Backtrace(kind: .thread(number), name: name, crashed: crashed, headerLine: headerLine)
        let backtrace = object("backtrace", of: node)
        var nodes: [Int32] = []
        if let contents = backtrace.flatMap({ tree.member("contents", of: $0) }), tree.nodes[contents].kind == .array {
            var index = 0
            for frame in tree.children(of: contents) where tree.nodes[frame].kind == .object {
                thread.frames.append(writeFrame(frame, index: index))
                nodes.append(Int32(truncatingIfNeeded: frame))
                index += 1
            }
        }
        thread.frames.shrinkToFit()
        threads.append(thread)
        frameNodes.append(nodes)
        writer.line("")
    }

    /// Writes one frame line, `N   IMAGE   0xADDRESS REST`, and returns its frame.
    private mutating func writeFrame(_ node: Int, index: Int) -> Frame {
        let address = Self.address(tree, tree.member("instruction_addr", of: node))
        var imageIndex = address.flatMap(image(containing:))
        // `object_addr` is the start of the frame's image: another start, or one that is not an
        // address, contradicts the report, which then places the frame nowhere.
        if let found = imageIndex, let objectNode = tree.member("object_addr", of: node),
           Self.address(tree, objectNode) != images[found].loadAddress {
            imageIndex = nil
        }
        let image = imageIndex.map { images[$0] }
        let imageName = image?.name ?? text("object_name", of: node) ?? "???"
        let symbol = text("symbol_name", of: node)
        let symbolAddress = tree.member("symbol_addr", of: node).flatMap { Self.address(tree, $0) }

        let lineStart = writer.text.count
        writer.text.append(decimal: index)
        writer.pad(from: lineStart, to: 4)
        let nameStart = writer.text.count
        writer.appendEscaped(imageName)
        writer.pad(from: nameStart, to: 36)
        let hex = address.map { String($0, radix: 16) } ?? "????????????????"
        writer.text.append(literal: "0x")
        writer.text.append(contentsOf: repeatElement(ASCII.zero, count: max(0, 16 - hex.utf8.count)))
        writer.text.append(utf8: hex)
        writer.text.append(ASCII.space)
        let restStart = writer.text.count - lineStart
        let form: FrameForm
        if let symbol, address != nil {
            writer.appendEscaped(symbol)
            var offset: UInt64 = 0
            if let address, let symbolAddress, symbolAddress <= address {
                offset = address - symbolAddress
                writer.text.append(literal: " + ")
                writer.text.append(decimal: offset)
            }
            form = .symbol(name: symbol, offset: offset)
        } else if let address, let image {
            form = .unsymbolicated(loadAddress: image.loadAddress, offset: address - image.loadAddress)
            writer.text.append(hex: image.loadAddress)
            writer.text.append(literal: " + ")
            writer.text.append(decimal: address - image.loadAddress)
        } else {
            if let symbol { writer.appendEscaped(symbol) } else { writer.text.append(literal: "???") }
            form = .unknown
        }
        writer.endLine()
        guard let address else {
            return Frame.unreadable(index: index, imageName: imageName, line: writer.lineCount - 1,
                                    restStart: restStart, text: names)
        }
        return Frame(index: index, imageName: imageName, address: address, form: form, image: imageIndex,
                     line: writer.lineCount - 1, restStart: restStart, text: names)
    }

    // MARK: Images

    /// Makes the images of `list` (`binary_images`); returns how many were left out.
    private mutating func makeImages(_ list: Int?, system: Int?) -> Int {
        let first = images.count
        defer { reportImages = first..<images.count }
        guard let list, tree.nodes[list].kind == .array else { return 0 }
        let executable = text("CFBundleExecutablePath", of: system)
        let bundle = executable.map(Path.deletingLastComponent)
        var unplaced = 0
        for node in tree.children(of: list) where tree.nodes[node].kind == .object {
            guard let start = tree.unsigned(tree.member("image_addr", of: node)),
                  let size = tree.unsigned(tree.member("image_size", of: node)), size > 0,
                  case (let end, false) = start.addingReportingOverflow(size - 1)
            else {
                unplaced += 1
                continue
            }
            let path = text("name", of: node)
            let name = path.map(Path.lastComponent) ?? "???"
            let uuid = text("uuid", of: node).flatMap(ImageIdentity.compactUUID)
            let arch = Self.architecture(cpuType: tree.unsigned(tree.member("cpu_type", of: node)),
                                         subtype: tree.unsigned(tree.member("cpu_subtype", of: node)))
            let isApp = path != nil && (path == executable
                || bundle.map { $0.hasSuffix(".app") && path!.hasPrefix($0 + "/") } ?? false)
            images.append(BinaryImage(loadAddress: start, endAddress: end, name: name, arch: arch, uuid: uuid,
                                      path: path, isApp: isApp))
        }
        return unplaced
    }

    /// The smallest image of the report being written whose range holds `address`.
    private func image(containing address: UInt64) -> Int? {
        var best: Int?
        for i in reportImages where images[i].contains(address) {
            if let known = best, images[known].endAddress - images[known].loadAddress
                <= images[i].endAddress - images[i].loadAddress { continue }
            best = i
        }
        return best
    }

    /// "Binary Images:" and a line per image of the report being written, by load address.
    private mutating func writeImages() {
        guard !reportImages.isEmpty else { return }
        writer.line("Binary Images:")
        for i in reportImages.sorted(by: { images[$0].loadAddress < images[$1].loadAddress }) {
            images[i].line = writer.lineCount
            var start = writer.text.count
            writer.text.append(hex: images[i].loadAddress)
            writer.rightAlign(from: start, to: 18)
            writer.text.append(literal: " - ")
            start = writer.text.count
            writer.text.append(hex: images[i].endAddress)
            writer.rightAlign(from: start, to: 18)
            writer.text.append(ASCII.space)
            writer.appendEscaped(images[i].name)
            writer.text.append(ASCII.space)
            writer.appendEscaped(images[i].arch ?? "???")
            writer.text.append(literal: "  <")
            writer.appendEscaped(images[i].uuid ?? "???")
            writer.text.append(literal: "> ")
            writer.appendEscaped(images[i].path ?? "???")
            writer.endLine()
        }
        writer.line("")
    }

    // MARK: Values

    private func object(_ name: String, of node: Int?) -> Int? {
        guard let member = tree.member(name, of: node), tree.nodes[member].kind == .object else { return nil }
        return member
    }

    /// A string or number member's text.
    private func text(_ name: String, of node: Int?) -> String? {
        tree.text(tree.member(name, of: node))
    }

    /// `Key:   value`, noted in the header; the `Code Type` also as the report's.
    private mutating func field(_ key: String, _ value: String?, keepingCodeType: Bool = false) {
        guard let value, !value.isEmpty else { return }
        writer.field(key, value)
        if keepingCodeType, codeType == nil { codeType = value }
        if !header.contains(where: { $0.key == key }) { header.append((key: key, value: value)) }
    }

    /// An address: an unsigned 64-bit JSON integer, or a string of `0x` hexadecimal digits (as
    /// some converters write them); nil for anything else.
    static func address(_ tree: JSONTree, _ node: Int?) -> UInt64? {
        if let value = tree.unsigned(node) { return value }
        guard let node, tree.nodes[node].kind == .string, let text = tree.string(node),
              text.hasPrefix("0x") || text.hasPrefix("0X"), text.utf8.count > 2 else { return nil }
        return UInt64(text.dropFirst(2), radix: 16)
    }

    static func hex16(_ value: UInt64) -> String {
        let hex = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 16 - hex.utf8.count)) + hex
    }

    /// The classic report's Code Type of a `cpu_arch`.
    static func codeType(ofArchitecture arch: String) -> String {
        switch arch.lowercased() {
        case "arm64", "arm64e": return "ARM-64 (Native)"
        case "arm64_32": return "ARM64_32 (Native)"
        case "x86_64", "x86_64h": return "X86-64 (Native)"
        case "i386", "x86": return "X86 (Native)"
        case let other where other.hasPrefix("arm"): return "ARM (Native)"
        default: return arch
        }
    }

    /// The architecture of a Mach-O `cpu_type` and `cpu_subtype` (its capability bits aside).
    static func architecture(cpuType: UInt64?, subtype: UInt64?) -> String? {
        guard let cpuType else { return nil }
        let sub = (subtype ?? 0) & 0x00FF_FFFF
        switch cpuType {
        case 0x0100_000C: return sub == 2 ? "arm64e" : "arm64"
        case 0x0200_000C: return "arm64_32"
        case 0x0100_0007: return sub == 8 ? "x86_64h" : "x86_64"
        case 7: return "i386"
        case 12:
            switch sub {
            case 6: return "armv6"
            case 9: return "armv7"
            case 11: return "armv7s"
            case 12: return "armv7k"
            default: return "arm"
            }
        default: return nil
        }
    }

    /// A `timestamp` of microseconds since 1970 (as KSCrash 2 and later write it) as
    /// `2023-10-17 16:03:12.532549 +0000`.
    static func date(microseconds: UInt64) -> String {
        let seconds = microseconds / 1_000_000
        let fraction = microseconds % 1_000_000
        // Days to a civil date (Howard Hinnant's algorithm), for days since 1970-01-01.
        let z = Int64(seconds / 86_400) + 719_468
        let era = z / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let secondOfDay = seconds % 86_400
        func two(_ n: some BinaryInteger) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let micro = String(fraction)
        return "\(year)-\(two(month))-\(two(day)) \(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):"
            + "\(two(secondOfDay % 60)).\(String(repeating: "0", count: 6 - micro.utf8.count))\(micro) +0000"
    }
}
