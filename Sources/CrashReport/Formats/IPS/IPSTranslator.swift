import Platform

/// Translates the JSON body of a bug_type 309 `.ips` report into the classic text report, the
/// way Xcode and Console show it, and makes the report's model as it writes (`IPSReportParts`):
/// each frame from the JSON object its line is written from, with the object's place.
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
    /// The translated report: its text and what the classic parser would read of it.
    struct Translation {
        var text: [UInt8]
        var lines: LineRanges
        var header: [(key: String, value: String)]
        var codeType: String?
        var crashedThread: Int?
        var threads: [Backtrace]
        var images: [BinaryImage]
        /// The JSON object of each frame that has one (threads, Last Exception Backtrace).
        var frameObjects: IPSDocument.FrameObjects
        /// The frames inlined into a frame, whose objects come right before its own.
        var inlinedFrames: [FrameKey: [FrameKey]]
        var textBacktraces: [IPSDocument.TextBacktrace]
        /// `sharedCache.uuid`, as 32 lowercase hex digits.
        var sharedCacheUUID: String?
    }

    struct Image {
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

    /// How deep the body's values get nodes when it is parsed: the body's members (1) and their
    /// elements and members (2), the containers among these kept collapsed (a thread, an
    /// image, a frame of the Last Exception Backtrace). Each is read when it is written: a
    /// thread with its members only, its frames then one object at a time. So the nodes of a
    /// report of millions of frames are one per thread, not a few per frame (28 bytes each,
    /// against a frame's 40 bytes of JSON).
    static let recordingDepth = 2

    /// The most nodes the body's parse may record: one for each 16 bytes, and 65,536 more. A
    /// real body records one for each thread, image and member of its objects, each of 60
    /// bytes or more; a body of empty objects would record one for each 3 bytes, 28 bytes each.
    static func maxNodes(bodySize: Int) -> Int {
        bodySize / 16 + 65_536
    }

    /// The nodes of the body's parse take at most this many times its size (28 bytes for each
    /// 16), for the message of a body refused (``maxNodes(bodySize:)``).
    static let nodeFactor = 2

    /// What translating a body would make, counted in its tree before any of it is.
    static func translationEstimate(of body: JSONTree) -> TranslationEstimate {
        var estimate = TranslationEstimate()
        if let backtrace = body.member("lastExceptionBacktrace", of: body.root) {
            estimate.frames += body.elementCountEstimate(of: backtrace)
        }
        if let list = body.member("threads", of: body.root), body.nodes[list].kind == .array {
            for thread in body.children(of: list) {
                estimate.threads += 1
                estimate.frames += body.nodes[thread].collapsedObjects
            }
        }
        if let list = body.member("usedImages", of: body.root), body.nodes[list].kind == .array {
            estimate.images = body.elementCountEstimate(of: list)
        }
        return estimate
    }

    /// The room made for the text of each frame object: a frame's line is 60 to 90 bytes (the
    /// room a guess leaves unused is never touched).
    static let textPerFrameObject = 100

    /// The text a thread's lines may take before they are let go, with ``ReportUse/document``
    /// and ``ReportUse/model``.
    static let droppedTextChunk = 1 << 16

    let metadata: JSONTree
    let body: JSONTree
    /// What the translation is read for: the text of the threads is let go for `.document`
    /// and `.model`, the frames' objects are noted for `.any` and `.document` alone.
    let use: ReportUse
    /// With `.document` or `.model`, once the threads are written: where their text starts.
    private var threadsTextStart: Int?
    /// With `.text` or `.model`, for an input the parser was handed to take: gives back each
    /// frame object once it is read and each thread's JSON once it is written, from the first frame on
    /// (before it, the report may turn out to have none, and be read whole again as one
    /// without backtraces); the crashed thread's state stays.
    var release: InputRelease?
    /// The frames written so far.
    private var frameCount = 0
    /// Whether the crashed thread, whose state is read once every thread is written, was met.
    private var crashedThreadMet = false
    /// The first thread written as crashed, and its members, for its state.
    private(set) var crashed: (number: Int, thread: JSONTree)?
    /// Where a frame object's members are found (``FrameMembers``), kept from one to the next.
    private var memberScratch: [Int?] = []
    private(set) var images: [Image] = []
    /// The text, its fields `Key:` padded to 21 columns and left out when they have no value.
    var writer = ClassicTextWriter(fieldStyle: .init(valueColumn: 21, skipsEmptyValues: true,
                                                             countsEscapedKey: false))
    /// The report's model, made as the text is written.
    var parts = IPSReportParts()
    /// The names of the report's frames, each held once.
    var names = FrameText()
    /// Each image's name as its frame lines hold it (`IPSReportParts.asWritten`); nil for none.
    private var frameImageNames: [String?] = []
    var textBacktraces: [IPSDocument.TextBacktrace] = []

    /// Translates `body` (the report's JSON body) with `metadata` (its first line), for `use`;
    /// the input's bytes `trailing` (what follows the body) end the text as they are.
    static func translate(metadata: JSONTree, body: JSONTree, use: ReportUse = .any, trailing: Range<Int>? = nil,
                          release: InputRelease? = nil) -> Translation {
        var translator = IPSTranslator(metadata: metadata, body: body, use: use)
        translator.release = release
        translator.run()
        if let trailing, !trailing.isEmpty, trailing.upperBound <= body.bytes.count {
            translator.writer.text += body.bytes[trailing]
        }
        return translator.translation(sharedCacheUUID: translator.sharedCacheUUID())
    }

    /// What was written so far, as a translation whose images are `images` (the ones the
    /// image list wrote when nil) and whose shared cache is `sharedCacheUUID`.
    mutating func translation(images: [BinaryImage]? = nil, sharedCacheUUID: String?) -> Translation {
        let text = writer.text
        let lines = writer.lineRanges()
        let made = parts.finish(text: text, lines: lines, names: names)
        return Translation(text: text, lines: lines, header: parts.header, codeType: parts.codeType,
                           crashedThread: made.crashedThread, threads: made.threads, images: images ?? parts.images,
                           frameObjects: made.objects, inlinedFrames: made.inlined,
                           textBacktraces: textBacktraces, sharedCacheUUID: sharedCacheUUID)
    }

    init(metadata: JSONTree, body: JSONTree, use: ReportUse) {
        self.metadata = metadata
        self.body = body
        self.use = use
    }

    /// `sharedCache.uuid` of the body, as 32 lowercase hex digits; nil unless it is a UUID.
    func sharedCacheUUID() -> String? {
        body.text(body.member("uuid", of: member("sharedCache"))).flatMap(ImageIdentity.compactUUID)
    }

    private func member(_ name: String) -> Int? {
        body.member(name, of: body.root)
    }

    private func meta(_ name: String) -> String? {
        metadata.text(metadata.member(name, of: metadata.root))
    }

    private mutating func run() {
        reserve()
        writeOpening()
        if let threads = member("threads"), body.nodes[threads].kind == .array {
            startThreadsText()
            var buffer: [JSONNode] = []
            let faulting = body.int(member("faultingThread"))
            for (number, thread) in body.children(of: threads).enumerated() {
                writeThread(element: thread, number: number, faulting: faulting, buffer: &buffer)
            }
            endThreadsText()
        }
        writeClosing()
    }

    /// Starts the threads' text: with ``ReportUse/document`` or ``ReportUse/model``, it is
    /// let go as it is written (``dropThreadsText(atLeast:)``).
    mutating func startThreadsText() {
        if use.dropsThreadsText { threadsTextStart = writer.text.count }
    }

    /// Ends the threads' text, letting go of what is left of it.
    mutating func endThreadsText() {
        dropThreadsText(atLeast: 0)
        threadsTextStart = nil
    }

    /// What comes before the threads: the header, the Last Exception Backtrace and the text
    /// backtraces (the images are read first: frames are written with their names).
    mutating func writeOpening() {
        readImages()
        writeHeader()
        if let backtrace = member("lastExceptionBacktrace"), body.nodes[backtrace].hasValues {
            startBacktrace(Backtrace(kind: .lastExceptionBacktrace, headerLine: writer.lineCount))
            writer.line("Last Exception Backtrace:")
            writeFrames(of: backtrace, in: body)
            writer.line("")
        }
        writeTextBacktraces()
    }

    /// Writes thread `number`, element `thread` of the body's `threads`, its members expanded
    /// with `buffer`. The first crashed thread is kept for its state (``writeClosing()``);
    /// the others' JSON is given back once written (``release``).
    mutating func writeThread(element thread: Int, number: Int, faulting: Int?, buffer: inout [JSONNode]) {
        // A thread's members, its frames left collapsed to be read one at a time.
        guard let tree = body.expanded(thread, recordingDepth: 1, reusing: &buffer) else { return }
        if writeThread(tree.root, of: tree, number: number, faulting: faulting), crashed == nil {
            // Its state is read once every thread is written.
            crashed = (number, tree)
            release?.keepFromHere()
        } else if frameCount > 0 {
            release?.release(body.nodes[thread].range)
        }
    }

    /// What comes after the threads: the crashed thread's state, then the images.
    mutating func writeClosing() {
        if let (number, thread) = crashed, let collapsed = thread.member("threadState", of: thread.root),
           let state = thread.expanded(collapsed) {
            writeThreadState(state, number: number)
        }
        writeImages()
    }

    /// Room for the text, so that it does not grow by copies of itself (each of which holds
    /// the old and the new buffer at once): about a hundred bytes for each frame object (the
    /// room a guess leaves unused is never touched).
    private mutating func reserve() {
        var count = 0
        if let backtrace = member("lastExceptionBacktrace") { count += body.elementCountEstimate(of: backtrace) }
        var threadCount = 0
        if let threads = member("threads"), body.nodes[threads].kind == .array {
            for thread in body.children(of: threads) {
                threadCount += 1
                count += body.nodes[thread].collapsedObjects  // its frames, and a few objects more
            }
        }
        parts.backtraces.reserveCapacity(threadCount + 1)
        parts.firstObject.reserveCapacity(threadCount + 1)
        if use.keepsDocument { parts.objects.reserveCapacity(count) }
        // A line per frame, and a thread's header, name and blank line.
        writer.expectedLineCount = count + 3 * threadCount + 1024
        // The threads' text is let go a chunk at a time for a document or a model.
        writer.text.reserveCapacity(use.dropsThreadsText ? 2 * Self.droppedTextChunk + body.bytes.count / 8 + 4096
                                                     : count * Self.textPerFrameObject + body.bytes.count / 8 + 4096)
    }

    /// A field of the header, written (``ClassicTextWriter/field(_:_:)``) and kept as the
    /// classic parser reads it.
    private mutating func field(_ key: String, _ value: String?) {
        guard let value, !value.isEmpty else { return }
        writer.field(key, value)
        let written = IPSReportParts.asWritten(value)
        parts.header.append((key: key, value: written))
        switch key {
        case "Code Type": parts.codeType = written
        case "Triggered by Thread": parts.crashedFromHeader = IPSReportParts.threadNumber(written)
        default: break
        }
    }

    // MARK: Header

    private mutating func writeHeader() {
        field("Incident Identifier", meta("incident_id") ?? body.text(member("incident")))
        field("CrashReporter Key", body.text(member("crashReporterKey")))
        field("Hardware Model", body.text(member("modelCode")))
        let name = body.text(member("procName")) ?? meta("name") ?? meta("app_name")
        field("Process", joined(name, bracketed: body.text(member("pid"))))
        field("Path", body.text(member("procPath")))
        let bundle = member("bundleInfo")
        field("Identifier", body.text(body.member("CFBundleIdentifier", of: bundle)) ?? meta("bundleID"))
        let short = body.text(body.member("CFBundleShortVersionString", of: bundle)) ?? meta("app_version")
        let build = body.text(body.member("CFBundleVersion", of: bundle)) ?? meta("build_version")
        field("Version", joined(short, parenthesized: build))
        if let cpu = body.text(member("cpuType")) {
            field("Code Type", cpu + (body.bool(member("translated")) == true ? " (Translated)" : " (Native)"))
        }
        field("Role", body.text(member("procRole")))
        field("Parent Process", joined(body.text(member("parentProc")), bracketed: body.text(member("parentPid"))))
        field("Coalition", joined(body.text(member("coalitionName")), bracketed: body.text(member("coalitionID"))))
        writer.line("")

        field("Date/Time", body.text(member("captureTime")) ?? meta("timestamp"))
        field("Launch Time", body.text(member("procLaunch")))
        let os = member("osVersion")
        let train = body.text(body.member("train", of: os))
        field("OS Version", train.map { joined($0, parenthesized: body.text(body.member("build", of: os))) ?? $0 }
              ?? meta("os_version"))
        field("Release Type", body.text(body.member("releaseType", of: os)))
        field("Report Version", "12")
        writer.line("")

        let exception = member("exception")
        let type = body.text(body.member("type", of: exception))
        let signal = body.text(body.member("signal", of: exception))
        field("Exception Type", type.map { joined($0, parenthesized: signal) ?? $0 } ?? signal)
        field("Exception Subtype", body.text(body.member("subtype", of: exception)))
        field("Exception Message", body.text(body.member("message", of: exception)))
        field("Exception Codes", body.text(body.member("codes", of: exception)) ?? rawCodes(exception))
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
            field("Termination Reason", value.isEmpty ? nil : value)
            field("Terminating Process", joined(body.text(body.member("byProc", of: termination)),
                                                bracketed: body.text(body.member("byPid", of: termination))))
        }
        writer.line("")
        if let faulting = body.text(member("faultingThread")) {
            field("Triggered by Thread", faulting)
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
                body.forEachElement(of: entry) { tree, node in
                    if let text = tree.text(node) { messages.append(text) }
                }
            } else if let message = body.text(entry) {
                messages.append(message)
            }
        }
        guard !messages.isEmpty else { return }
        writer.line("Application Specific Information:")
        // Its value is its first line (blank: none).
        let first = messages.lazy.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: true) }.first
        parts.header.append((key: "Application Specific Information", value: first.map { IPSReportParts.asWritten(String($0)) } ?? ""))
        for message in messages {
            for part in message.split(separator: "\n", omittingEmptySubsequences: true) {
                writer.line(String(part))
            }
        }
        writer.line("")
    }

    private func rawCodes(_ exception: Int?) -> String? {
        guard let codes = body.member("rawCodes", of: exception), body.nodes[codes].kind == .array else { return nil }
        var values: [UInt64] = []
        body.forEachElement(of: codes) { tree, node in
            if let value = tree.unsigned(node) { values.append(value) }
        }
        guard !values.isEmpty else { return nil }
        return values.map { value -> String in
            let digits = String(value, radix: 16)
            return "0x" + String(repeating: "0", count: max(0, 16 - digits.count)) + digits
        }.joined(separator: ", ")
    }

    // MARK: Backtraces

    /// Writes the header and frames of `thread` of `body`; returns whether it is the crashed one.
    private mutating func writeThread(_ thread: Int, of body: JSONTree, number: Int, faulting: Int?) -> Bool {
        let name = body.text(body.member("name", of: thread))
        let queue = body.text(body.member("queue", of: thread)).map { "Dispatch queue: " + $0 }
        let label: String?
        switch (name, queue) {
        case let (name?, queue?): label = "\(name)  \(queue)"
        case let (name?, nil): label = name
        case let (nil, queue?): label = queue
        case (nil, nil): label = nil
        }
        if let label { writer.line("Thread \(number) name:  \(label)") }
        let crashed = body.bool(body.member("triggered", of: thread)) == true || number == faulting
        let threadName = label.map(IPSReportParts.asWritten).flatMap { $0.isEmpty ? nil : $0 }
        startBacktrace(Backtrace(kind: .thread(number), name: threadName, crashed: crashed, headerLine: writer.lineCount))
        writer.line("Thread \(number)\(crashed ? " Crashed" : ""):")
        // The crashed thread's frames are given back one by one, the run of bytes given back
        // starting afresh at them, so that its state (which may come before them) stays.
        if crashed && !crashedThreadMet {
            crashedThreadMet = true
            release?.keepFromHere()
        }
        if let frames = body.member("frames", of: thread) { writeFrames(of: frames, in: body, releasing: true) }
        writer.line("")
        dropThreadsText(atLeast: Self.droppedTextChunk)
        return crashed
    }

    /// With ``ReportUse/document`` or ``ReportUse/model``, while the threads are written: lets go of their text once
    /// it takes `bytes` or more (their model is made, and only it is read).
    private mutating func dropThreadsText(atLeast bytes: Int) {
        guard let start = threadsTextStart, writer.text.count - start >= bytes else { return }
        writer.dropText(from: start)
    }

    /// Starts a backtrace whose frames the next `writeFrames` writes.
    private mutating func startBacktrace(_ backtrace: Backtrace) {
        parts.backtraces.append(backtrace)
        parts.firstObject.append(parts.objects.count)
    }

    /// Writes the frame lines of a `frames` array of `tree`, the frames of the last backtrace
    /// started. Inlined frames are numbered like the concrete frame that follows them and tied
    /// to it when image and offset agree. A collapsed array (a thread's frames, which the body
    /// is parsed without) is read a frame object at a time; with `releasing`, each is given
    /// back once read (``InputRelease``: a thread of a million frames is not held beside its
    /// text either).
    private mutating func writeFrames(of array: Int, in tree: JSONTree, releasing: Bool = false) {
        guard tree.nodes[array].kind == .array, let b = parts.backtraces.indices.last else { return }
        parts.backtraces[b].frames.reserveCapacity(tree.elementCountEstimate(of: array))
        var index = 0
        var pendingInlined: [(frame: Int, place: Place?)] = []  // into the frames, and the JSON object's place
        tree.forEachElement(of: array) { object, node in
            guard object.nodes[node].kind == .object else { return }
            let members = FrameMembers(node, in: object, scratch: &memberScratch)
            let inlined = object.bool(members.inline) == true
            let f = parts.backtraces[b].frames.count
            writeFrame(members, node, in: object, index: index, inlined: inlined, into: b)
            let place = Place(members, in: object)
            if releasing { release?.release(object.nodes[node].range) }
            if inlined {
                pendingInlined.append((f, place))
                return
            }
            // The run of inlined frames right before this one that share its image and offset.
            var tied: [FrameKey] = []
            for pending in pendingInlined.reversed() {
                guard place != nil, pending.place == place else { break }
                tied.append(FrameKey(thread: b, frame: pending.frame))
            }
            if !tied.isEmpty { parts.inlined.append((FrameKey(thread: b, frame: f), tied.reversed())) }
            pendingInlined.removeAll(keepingCapacity: true)
            index += 1
        }
    }

    /// The members of a frame object the translator reads, found in one pass over them.
    private struct FrameMembers {
        static let names: [StaticString] = ["imageIndex", "imageOffset", "symbol", "symbolLocation", "sourceFile",
                                            "sourceLine", "inline"]
        var imageIndex, imageOffset, symbol, symbolLocation, sourceFile, sourceLine, inline: Int?

        /// The members of frame object `node`, found with `scratch` (the translator's).
        init(_ node: Int, in tree: JSONTree, scratch found: inout [Int?]) {
            tree.members(Self.names, of: node, into: &found)
            (imageIndex, imageOffset, symbol, symbolLocation) = (found[0], found[1], found[2], found[3])
            (sourceFile, sourceLine, inline) = (found[4], found[5], found[6])
        }
    }

    /// `imageIndex` and `imageOffset` of a frame object, for matching inlined frames to theirs.
    private struct Place: Equatable {
        var imageIndex: UInt64
        var offset: UInt64

        /// Nil when the object has no `imageOffset`.
        init?(_ members: FrameMembers, in tree: JSONTree) {
            guard let offset = tree.unsigned(members.imageOffset) else { return nil }
            imageIndex = tree.unsigned(members.imageIndex) ?? UInt64.max
            self.offset = offset
        }
    }

    /// Writes one frame line, `N   IMAGE   0xADDRESS REST`, and its frame into backtrace `b`:
    /// the frame of object `node` of `tree`, whose members are `members`.
    private mutating func writeFrame(_ members: FrameMembers, _ node: Int, in body: JSONTree, index: Int, inlined: Bool,
                                     into b: Int) {
        let imageIndex = body.int(members.imageIndex).flatMap { images.indices.contains($0) ? $0 : nil }
        let image = imageIndex.map { images[$0] }
        let offset = body.unsigned(members.imageOffset)
        var address: UInt64?
        if let base = image?.base, let offset {
            let (sum, overflow) = base.addingReportingOverflow(offset)
            if !overflow { address = sum }
        }
        let symbol = body.text(members.symbol)
        let symbolLocation = body.unsigned(members.symbolLocation)
        let file = body.text(members.sourceFile)
        let sourceLine = body.int(members.sourceLine)

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
        // The rest starts after the blanks it may start with, as the classic parser finds it.
        var restStart = writer.text.count
        writer.line(rest)
        while restStart < writer.text.count - 1, isBlank(writer.text[restStart]) { restStart += 1 }

        let imageName = imageIndex.map { frameImageNames[$0] } ?? "???"
        var frame: Frame
        if let address {
            frame = Frame(index: index, imageName: imageName, address: address, form: form, line: lineIndex,
                          restStart: restStart - lineStart, inlined: inlined, text: names)
        } else {
            frame = Frame.unreadable(index: index, imageName: imageName, line: lineIndex, restStart: restStart - lineStart,
                                     text: names)
            frame.form = form
        }
        parts.backtraces[b].frames.append(frame)
        frameCount += 1
        if use.keepsDocument {
            // The scanner reads no input past 4 GiB (reports are read up to 1 GiB).
            let object = body.nodes[node].range
            parts.objects.append((UInt32(truncatingIfNeeded: object.lowerBound),
                                  UInt32(truncatingIfNeeded: object.upperBound)))
        }
        dropThreadsText(atLeast: Self.droppedTextChunk)
    }

    /// `asiBacktraces`: each string is a backtrace already printed as text.
    private mutating func writeTextBacktraces() {
        guard let strings = member("asiBacktraces"), body.nodes[strings].kind == .array else { return }
        parts.textBacktraceSlot = parts.backtraces.count
        var number = 1
        for node in body.children(of: strings) {
            guard let decoded = body.stringBytes(node) else { continue }
            let header = writer.lineCount
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
            parts.textBacktraceLines.append(header..<writer.lineCount)
            writer.line("")
        }
    }

    // MARK: Registers

    /// "Thread N crashed with ARM Thread State (64-bit):" and the registers of `body`, a thread's
    /// `threadState` object.
    private mutating func writeThreadState(_ body: JSONTree, number: Int) {
        let state = body.root
        guard body.nodes[state].kind == .object else { return }
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
        images.reserveCapacity(body.elementCountEstimate(of: list))
        body.forEachElement(of: list) { body, node in
            let uuid = body.text(body.member("uuid", of: node)).flatMap(ImageIdentity.compactUUID)
            images.append(Image(base: body.unsigned(body.member("base", of: node)),
                                size: body.unsigned(body.member("size", of: node)),
                                name: body.text(body.member("name", of: node)),
                                path: body.text(body.member("path", of: node)),
                                uuid: uuid,
                                arch: body.text(body.member("arch", of: node))))
        }
        frameImageNames = images.map { image in
            let name = IPSReportParts.asWritten(image.displayName)
            return name.isEmpty ? nil : name
        }
    }

    /// "Binary Images:" and one line per image with a base, by address:
    /// `0xSTART - 0xEND NAME ARCH  <UUID> PATH`, END = base + size - 1.
    private mutating func writeImages() {
        let listed = listedImages()
        guard !listed.isEmpty else { return }
        // Room for their lines and models, which would otherwise grow by copies of themselves.
        parts.images.reserveCapacity(parts.images.count + listed.count)
        let lineBytes = listed.reduce(0) { total, k in
            let image = images[Int(k)]
            return total + 80 + (image.name?.utf8.count ?? 3) + (image.path?.utf8.count ?? 3) + (image.arch?.utf8.count ?? 0)
        }
        writer.text.reserveCapacity(writer.text.count + lineBytes)
        writer.line("Binary Images:")
        for k in listed {
            let image = images[Int(k)]
            let base = image.base!
            let end = base &+ (image.size ?? 0) &- 1
            parts.images.append(reportImage(image, line: writer.lineCount))
            appendAddressColumn(base)
            writer.text.append(literal: " - ")
            appendAddressColumn(end)
            var entry = " " + image.displayName
            if let arch = image.arch, !arch.isEmpty { entry += " " + arch }
            entry += "  <" + (image.uuid ?? "???") + "> " + (image.path.flatMap { $0.isEmpty ? nil : $0 } ?? "???")
            writer.line(entry)
        }
    }

    /// The images the image list writes, by address: their places, not copies of them (a
    /// report can list a hundred thousand images).
    func listedImages() -> [UInt32] {
        var listed = images.indices.filter { images[$0].base != nil }.map { UInt32(truncatingIfNeeded: $0) }
        listed.sort { (images[Int($0)].base!, $0) < (images[Int($1)].base!, $1) }
        return listed
    }

    /// The report's image of `image`, whose line is `line`: its values as the line holds them.
    func reportImage(_ image: Image, line: Int) -> BinaryImage {
        let base = image.base!
        var name = IPSReportParts.asWritten(image.displayName)
        let path = image.path.map(IPSReportParts.asWritten).flatMap { $0.isEmpty || $0 == "???" ? nil : $0 }
        if name.isEmpty { name = path.map { String(basename($0)) } ?? "???" }
        let arch = image.arch.map(IPSReportParts.asWritten).flatMap { $0.isEmpty ? nil : $0 }
        return BinaryImage(loadAddress: base, endAddress: base &+ (image.size ?? 0) &- 1, name: name, arch: arch,
                           uuid: image.uuid, path: path, line: line)
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
