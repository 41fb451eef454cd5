import Platform

/// Translates MetricKit diagnostics into a text report, and makes the report's threads, frames
/// and images as it writes their lines.
///
/// A crash diagnostic
///
///     {"callStackTree":{"callStackPerThread":true,"callStacks":[{"threadAttributed":true,
///        "callStackRootFrames":[{"binaryUUID":"4C4C44A0-5555-3144-A110-BF82F2201B63",
///          "offsetIntoBinaryTextSegment":16900,"sampleCount":1,"binaryName":"App",
///          "address":4372775428,"subFrames":[{...,"offsetIntoBinaryTextSegment":17220,...}]}]}]},
///      "diagnosticMetaData":{"appVersion":"1.0","exceptionType":1,"signal":11,...}}
///
/// becomes
///
///     Crash Diagnostic: crashDiagnostics[0]
///     appVersion:                   1.0
///     exceptionType:                1 (EXC_BAD_ACCESS)
///     signal:                       11 (SIGSEGV)
///     callStackPerThread:           true
///
///     Call Stack 0 (thread attributed):
///     0   [1]    App                            0x0000000104a34204 0x104a30000 + 16900
///     1   [1]    App                            0x0000000104a34344 0x104a30000 + 17220
///
///     Binary Images:
///            0x104a30000 App <4c4c44a055553144a110bf82f2201b63>
///
/// Each frame line is its depth in the tree (0 for a root frame, as frame numbers go in a crash
/// report), its `sampleCount` in brackets, its binary and address, then what the payload says
/// of it: `0xBASE + OFFSET` where the image base is `address − offsetIntoBinaryTextSegment`,
/// `NAME + OFFSET` without an address, `???` without an offset. The text after the address is
/// what a resolved frame replaces. A frame's sub-frames follow it; where a frame has more than
/// one (a sampled tree), they and their sub-frames are indented two more spaces, up to
/// `maxIndent` levels, so that a crash stack stays flat and a sampled tree shows its branches.
/// Metadata members are printed as `key: value` in document order, a nested object's members as
/// `key.member: value`, exception types and signals with their names. Control characters in
/// names and values are written visibly (`OutputEscaping`).
struct MetricKitTranslator {
    struct Translation {
        var text: [UInt8]
        var header: [(key: String, value: String)]
        var codeType: String?
        var threads: [Backtrace]
        var images: [BinaryImage]
        var frameNodes: [[Int32]]
        var sampleCounts: [[Int64]]
    }

    /// The deepest indentation, in levels of two spaces: a tree that branches at every frame
    /// would otherwise print output quadratic in its size.
    static let maxIndent = 16

    private let tree: JSONTree
    /// The text, its fields `Key:` padded to 30 columns (by the key as written, escaped).
    private var writer = ClassicTextWriter(fieldStyle: .init(valueColumn: 30, skipsEmptyValues: false,
                                                             countsEscapedKey: true))
    private var header: [(key: String, value: String)] = []
    private var codeType: String?
    private var threads: [Backtrace] = []
    private var images: [BinaryImage] = []
    private var frameNodes: [[Int32]] = []
    private var sampleCounts: [[Int64]] = []
    private let names = FrameText()
    /// The images of the diagnostic being written, by binary, and their bases once known.
    private var imageByKey: [ImageKey: Int] = [:]
    /// `baseKnown[i]`: whether `images[i].loadAddress` was given by a frame (else it is 0).
    private var baseKnown: [Bool] = []
    private var scratch: [Int] = []

    private struct ImageKey: Hashable {
        var uuid: Int32
        var name: Int32
    }

    /// What one frame object says.
    private struct FrameFields {
        var uuid: Int32 = -1
        var name: Int32 = -1
        var offset: UInt64?
        var address: UInt64?
        var samples: UInt64?
        var subFrames: Int?
    }

    /// Translates the `parts` of `tree` (`MetricKitParser.find`).
    static func translate(_ tree: JSONTree, parts: [MetricKitParser.Part]) -> Translation {
        var translator = MetricKitTranslator(tree: tree)
        for part in parts {
            switch part {
            case .payload(let node, let label): translator.writePayload(node, label: label)
            case .diagnostic(let node, let kind, let label, let stackTree):
                translator.writeDiagnostic(node, kind: kind, label: label, stackTree: stackTree)
            }
        }
        return Translation(text: translator.writer.text, header: translator.header, codeType: translator.codeType,
                           threads: translator.threads, images: translator.images,
                           frameNodes: translator.frameNodes, sampleCounts: translator.sampleCounts)
    }

    private init(tree: JSONTree) {
        self.tree = tree
    }

    // MARK: Payloads and diagnostics

    private mutating func writePayload(_ node: Int, label: String) {
        writer.line("MetricKit Payload" + (label.isEmpty ? "" : ": " + label))
        for member in tree.children(of: node) where !MetricKitTranslator.isContainer(tree, member) {
            field(member, prefix: "")
        }
        writer.line("")
    }

    private mutating func writeDiagnostic(_ node: Int, kind: String, label: String, stackTree: Int?) {
        let title = MetricKitNames.title(ofKind: kind)
        writer.line(title + (label.isEmpty ? "" : ": " + label))
        let metadata = tree.member("diagnosticMetaData", of: node)
        for member in tree.children(of: node) where member != metadata
            && !tree.keyEquals(member, "callStackTree") && !tree.keyEquals(member, "callStacks") {
            field(member, prefix: "")
        }
        if let metadata {
            for member in tree.children(of: metadata) { field(member, prefix: "") }
            noteMetadata(metadata)
        }
        guard let stackTree else {
            writer.line("")
            return
        }
        if let perThread = tree.member("callStackPerThread", of: stackTree) { field(perThread, prefix: "") }
        writer.line("")
        imageByKey = [:]
        let firstImage = images.count
        findImages(in: stackTree)
        if let stacks = tree.member("callStacks", of: stackTree), tree.nodes[stacks].kind == .array {
            for (number, stack) in tree.children(of: stacks).enumerated() where tree.nodes[stack].kind == .object {
                writeCallStack(stack, number: number, label: label)
            }
        }
        guard images.count > firstImage else { return }
        writer.line("Binary Images:")
        for i in firstImage..<images.count {
            images[i].line = writer.lineCount
            let start = writer.text.count
            if baseKnown[i] {
                writer.text.append(hex: images[i].loadAddress)
            } else {
                writer.text.append(literal: "???")
            }
            writer.rightAlign(from: start, to: 18)
            writer.text.append(ASCII.space)
            writer.appendEscaped(images[i].name)
            if let uuid = images[i].uuid {
                writer.text.append(literal: " <")
                writer.text.append(utf8: uuid)
                writer.text.append(ASCII.greater)
            }
            writer.endLine()
        }
        writer.line("")
    }

    /// The report's Code Type and OS Version, from the first diagnostic that says them.
    private mutating func noteMetadata(_ metadata: Int) {
        if codeType == nil, let arch = tree.string(tree.member("platformArchitecture", of: metadata)) {
            codeType = MetricKitNames.codeType(ofArchitecture: arch)
        }
        if !header.contains(where: { $0.key == "OS Version" }), let os = tree.string(tree.member("osVersion", of: metadata)) {
            header.append((key: "OS Version", value: os))
        }
        // What a crash report's header says, for the tools that read it (`symbolicate group`).
        let exception = tree.int(tree.member("exceptionType", of: metadata)).flatMap {
            MetricKitNames.valueName(key: "exceptionType", value: $0)
        }
        let signal = tree.int(tree.member("signal", of: metadata)).flatMap { MetricKitNames.valueName(key: "signal", value: $0) }
        if !header.contains(where: { $0.key == "Exception Type" }), let type = exception ?? signal {
            header.append((key: "Exception Type", value: exception != nil && signal != nil ? "\(type) (\(signal!))" : type))
        }
        if !header.contains(where: { $0.key == "Termination Reason" }),
           let reason = tree.string(tree.member("terminationReason", of: metadata)) {
            header.append((key: "Termination Reason", value: reason))
        }
        if !header.contains(where: { $0.key == "Version" }), let version = tree.string(tree.member("appVersion", of: metadata)) {
            let build = tree.string(tree.member("appBuildVersion", of: metadata))
            header.append((key: "Version", value: build.map { "\(version) (\($0))" } ?? version))
        }
    }

    // MARK: Call stacks

    private mutating func writeCallStack(_ stack: Int, number: Int, label: String) {
        let attributed = tree.bool(tree.member("threadAttributed", of: stack)) == true
        writer.line("Call Stack \(number)" + (attributed ? " (thread attributed):" : ":"))
        var thread = Backtrace(kind: .thread(number), name: (label.isEmpty ? "" : label + " ") + "call stack \(number)",
                               crashed: attributed, headerLine: writer.lineCount - 1)
        var nodes: [Int32] = []
        var samples: [Int64] = []
        // Frames to write, the next on top: node, depth in the tree, indentation level.
        var pending: [(node: Int, depth: Int, level: Int)] = []
        if let roots = tree.member("callStackRootFrames", of: stack) { push(children: roots, depth: 0, level: 0, onto: &pending) }
        while let (node, depth, level) = pending.popLast() {
            let fields = frameFields(node)
            thread.frames.append(writeFrame(fields, depth: depth, level: level))
            nodes.append(Int32(truncatingIfNeeded: node))
            samples.append(fields.samples.map { Int64(clamping: $0) } ?? -1)
            if let sub = fields.subFrames { push(children: sub, depth: depth + 1, level: level, onto: &pending) }
        }
        thread.frames.shrinkToFit()
        threads.append(thread)
        frameNodes.append(nodes)
        sampleCounts.append(samples)
        writer.line("")
    }

    /// Pushes the frame objects of array `array` so that the first is popped first; more than
    /// one is a branch, indented one level more.
    private mutating func push(children array: Int, depth: Int, level: Int,
                               onto pending: inout [(node: Int, depth: Int, level: Int)]) {
        guard tree.nodes[array].kind == .array else { return }
        scratch.removeAll(keepingCapacity: true)
        for child in tree.children(of: array) where tree.nodes[child].kind == .object { scratch.append(child) }
        let childLevel = scratch.count > 1 ? min(level + 1, Self.maxIndent) : level
        for child in scratch.reversed() { pending.append((child, depth, childLevel)) }
    }

    private func frameFields(_ node: Int) -> FrameFields {
        var fields = FrameFields()
        for member in tree.children(of: node) {
            if tree.keyEquals(member, "binaryUUID") {
                fields.uuid = intern(member)
            } else if tree.keyEquals(member, "binaryName") {
                fields.name = intern(member)
            } else if tree.keyEquals(member, "offsetIntoBinaryTextSegment") {
                fields.offset = number(member)
            } else if tree.keyEquals(member, "address") {
                fields.address = number(member)
            } else if tree.keyEquals(member, "sampleCount") {
                fields.samples = tree.unsigned(member)
            } else if tree.keyEquals(member, "subFrames") {
                fields.subFrames = member
            }
        }
        return fields
    }

    /// Writes one frame line and returns its frame. The image base is the address less the
    /// offset; a frame missing one of them gets it from the base another frame of its binary gave.
    private mutating func writeFrame(_ fields: FrameFields, depth: Int, level: Int) -> Frame {
        var imageIndex = image(for: fields)
        let base = imageIndex.flatMap { baseKnown[$0] ? images[$0].loadAddress : nil }
        var offset = fields.offset
        var address = fields.address
        if offset == nil, let address, let base, address >= base { offset = address - base }
        if address == nil, let given = offset, let base {
            let (sum, overflow) = base.addingReportingOverflow(given)
            // Base and offset that make no 64-bit address contradict each other: nothing is known.
            if overflow { offset = nil } else { address = sum }
        }
        // Without an offset the frame is placed by its address alone, which needs the base.
        if offset == nil && (address == nil || base == nil) { imageIndex = nil }
        let name = fields.name >= 0 ? names[fields.name] : "???"

        let lineStart = writer.text.count
        writer.text.append(contentsOf: repeatElement(ASCII.space, count: 2 * level))
        let numberStart = writer.text.count
        writer.text.append(decimal: depth)
        writer.pad(from: numberStart, to: 4)
        let samplesStart = writer.text.count
        if let samples = fields.samples {
            writer.text.append(0x5B /* [ */)
            writer.text.append(decimal: samples)
            writer.text.append(0x5D /* ] */)
        }
        writer.pad(from: samplesStart, to: 7)
        let nameStart = writer.text.count
        writer.appendEscaped(name)
        writer.pad(from: nameStart, to: 31)
        if let address {
            writer.text.append(literal: "0x")
            let hex = String(address, radix: 16)
            writer.text.append(contentsOf: repeatElement(ASCII.zero, count: max(0, 16 - hex.utf8.count)))
            writer.text.append(utf8: hex)
        } else {
            writer.text.append(literal: "???")
            writer.text.append(contentsOf: repeatElement(ASCII.space, count: 15))
        }
        writer.text.append(ASCII.space)
        let restStart = writer.text.count - lineStart
        let form: FrameForm
        switch (offset, base) {
        case let (offset?, base?):
            form = .unsymbolicated(loadAddress: base, offset: offset)
            writer.text.append(hex: base)
            writer.text.append(literal: " + ")
            writer.text.append(decimal: offset)
        case let (offset?, nil):
            form = .imageOffset(offset: offset)
            writer.appendEscaped(name)
            writer.text.append(literal: " + ")
            writer.text.append(decimal: offset)
        case (nil, _):
            form = .unknown
            writer.text.append(literal: "???")
        }
        writer.endLine()
        var frame = Frame(index: depth, imageName: name, address: address ?? 0, form: form, image: imageIndex,
                          line: writer.lineCount - 1, restStart: restStart, imageOffset: offset, returnAddress: depth > 0,
                          text: names)
        frame.addressUnknown = address == nil
        return frame
    }

    // MARK: Images

    /// Makes the images of a call-stack tree, in the order their frames come, each with the base
    /// the first frame giving both an address and an offset says.
    private mutating func findImages(in stackTree: Int) {
        let end = tree.nodes[stackTree].end
        var node = stackTree + 1
        while node < tree.nodes.count && tree.nodes[node].start < end {
            defer { node += 1 }
            guard tree.nodes[node].kind == .object else { continue }
            let fields = frameFields(node)
            guard fields.uuid >= 0 || fields.name >= 0 else { continue }
            let key = ImageKey(uuid: fields.uuid, name: fields.uuid >= 0 ? -1 : fields.name)
            let index: Int
            if let known = imageByKey[key] {
                index = known
            } else {
                index = images.count
                imageByKey[key] = index
                let uuid = fields.uuid >= 0 ? ImageIdentity.compactUUID(names[fields.uuid]) : nil
                images.append(BinaryImage(loadAddress: 0, endAddress: 0, name: fields.name >= 0 ? names[fields.name] : "???",
                                          uuid: uuid))
                baseKnown.append(false)
            }
            if !baseKnown[index], let offset = fields.offset, let address = fields.address, address >= offset {
                images[index].loadAddress = address - offset
                images[index].endAddress = address - offset
                baseKnown[index] = true
            }
        }
    }

    private func image(for fields: FrameFields) -> Int? {
        guard fields.uuid >= 0 || fields.name >= 0 else { return nil }
        return imageByKey[ImageKey(uuid: fields.uuid, name: fields.uuid >= 0 ? -1 : fields.name)]
    }

    // MARK: Values

    /// A string member's text in the names table.
    private func intern(_ node: Int) -> Int32 {
        guard tree.nodes[node].kind == .string else { return -1 }
        let range = tree.nodes[node].range
        if !tree.bytes[range].contains(ASCII.backslash) {
            return tree.bytes.withUnsafeBufferPointer { names.intern($0, range.lowerBound + 1, range.upperBound - 1) }
        }
        return names.intern(tree.string(node) ?? "")
    }

    /// A number, or a string of decimal or `0x` hexadecimal digits (as some collectors write them).
    private func number(_ node: Int) -> UInt64? {
        if let value = tree.unsigned(node) { return value }
        guard let text = tree.string(node) else { return nil }
        if text.hasPrefix("0x") || text.hasPrefix("0X") { return UInt64(text.dropFirst(2), radix: 16) }
        return UInt64(text)
    }

    /// `key: value` for a member; an object's members as `key.member: value`, one level deep.
    private mutating func field(_ member: Int, prefix: String) {
        let key = prefix + MetricKitParser.rawKey(of: member, in: tree)
        if tree.nodes[member].kind == .object && prefix.isEmpty {
            for inner in tree.children(of: member) { field(inner, prefix: key + ".") }
            return
        }
        writer.fieldKey(key)
        switch tree.nodes[member].kind {
        case .string:
            if let bytes = tree.stringBytes(member) { writer.appendEscaped(bytes) }
        case .number, .bool, .null, .array, .object:
            tree.bytes.withUnsafeBufferPointer { b in
                writer.appendEscaped(UnsafeBufferPointer(rebasing: b[tree.nodes[member].range]))
            }
        }
        if let name = MetricKitNames.valueName(key: key, value: tree.int(member)) {
            writer.text.append(literal: " (")
            writer.text.append(utf8: name)
            writer.text.append(ASCII.closeParen)
        }
        writer.endLine()
    }

    private static func isContainer(_ tree: JSONTree, _ node: Int) -> Bool {
        tree.nodes[node].kind == .object || tree.nodes[node].kind == .array
    }
}
