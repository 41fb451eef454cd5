import Platform

/// Translates a stackshot's JSON into a text report, and makes the report's threads, frames and
/// images as it writes their lines.
///
/// The stackshot
///
///     {"bug_type":"288","os_version":"iPhone OS 15.0 (19A346)"}
///     {"binaryImages":[["4C4C44C3-5555-3144-A19B-AF60D4F21F14",4372758528,"U"],
///                      ["447D769E-1CB7-3086-A0B4-32226837B587",18446741874686296064,"K"]],
///      "processByPid":{"1234":{"procname":"App","threadById":{"5678":{"name":"worker",
///          "kernelFrames":[[1,771644]],"userFrames":[[0,16900],[0,17220]]}}}}}
///
/// becomes
///
///     bug_type:                     288
///     os_version:                   iPhone OS 15.0 (19A346)
///
///     Process:                      App [1234]
///
///     Thread 5678:                  worker
///       Kernel Frames:
///     0   447D769E-1CB7-3086-A0B4-32226837B587 0xfffffe000b8248bc 0xfffffe000b768000 + 771644
///       User Frames:
///     1   4C4C44C3-5555-3144-A19B-AF60D4F21F14 0x0000000104a34204 0x104a30000 + 16900
///     2   4C4C44C3-5555-3144-A19B-AF60D4F21F14 0x0000000104a34344 0x104a30000 + 17220
///
///     Binary Images:
///            0x104a30000 4C4C44C3-5555-3144-A19B-AF60D4F21F14 (U)
///     0xfffffe000b768000 447D769E-1CB7-3086-A0B4-32226837B587 (K)
///
/// Images have no names in a stackshot: each is named by its UUID, which is how its debug file
/// is found. A frame's address is its image's load address plus its offset; each frame is tied
/// to its image by index, not by address, since processes' address spaces overlap. A thread's
/// kernel frames (innermost) come first, then its user frames, numbered on; the first of each
/// is the thread's PC there, the others return addresses. A frame that names no image of the
/// list, or no offset, or one that its image's load address leaves no room for in 64 bits, is
/// printed as its JSON (`???  ??? [99,16900]`): a frame of its thread whose address is unknown
/// (`Frame.addressUnknown`), which nothing resolves. Scalar
/// members of the metadata and the body are printed as `key: value`, a string of several lines
/// as indented lines. Control characters are written visibly (`OutputEscaping`).
struct StackshotTranslator {
    struct Translation {
        var text: [UInt8]
        var header: [(key: String, value: String)]
        var threads: [Backtrace]
        var images: [BinaryImage]
        var warnings: [String]
    }

    private let metadata: JSONTree
    private let body: JSONTree
    /// The text, its fields `Key:` padded to 30 columns (by the key's bytes as given).
    private var writer = ClassicTextWriter(fieldStyle: .init(valueColumn: 30, skipsEmptyValues: false,
                                                             countsEscapedKey: false))
    private var header: [(key: String, value: String)] = []
    private var threads: [Backtrace] = []
    private var images: [BinaryImage] = []
    /// `imageOfEntry[i]`: the index in `images` of entry `i` of `binaryImages`, -1 for an entry
    /// without a usable load address.
    private var imageOfEntry: [Int32] = []
    private var skippedFrames = 0
    private let names = FrameText()

    /// Translates `body`'s stackshot object `stackshot` (`StackshotParser.stackshot(in:)`).
    static func translate(metadata: JSONTree, body: JSONTree, stackshot: Int) -> Translation {
        var translator = StackshotTranslator(metadata: metadata, body: body)
        translator.run(stackshot)
        var warnings: [String] = []
        if translator.skippedFrames > 0 {
            warnings.append("\(translator.skippedFrames) stackshot frame(s) name no listed image or no offset that fits; printed as they are")
        }
        return Translation(text: translator.writer.text, header: translator.header, threads: translator.threads,
                           images: translator.images, warnings: warnings)
    }

    private init(metadata: JSONTree, body: JSONTree) {
        self.metadata = metadata
        self.body = body
    }

    private mutating func run(_ stackshot: Int) {
        if metadata.nodes[metadata.root].kind == .object {
            for member in metadata.children(of: metadata.root) { field(member, in: metadata) }
            if let os = metadata.text(metadata.member("os_version", of: metadata.root)) {
                header.append((key: "OS Version", value: os))
            }
        }
        for member in body.children(of: stackshot) { field(member, in: body) }
        if stackshot != body.root {
            for member in body.children(of: body.root) where member != stackshot { field(member, in: body) }
        }
        writer.line("")
        readImages(body.member("binaryImages", of: stackshot))
        if let processes = body.member("processByPid", of: stackshot), body.nodes[processes].kind == .object {
            for process in body.children(of: processes) where body.nodes[process].kind == .object {
                writeProcess(process)
            }
        }
        writeImages()
    }

    // MARK: Processes and threads

    private mutating func writeProcess(_ process: Int) {
        let name = body.text(body.member("procname", of: process)) ?? "???"
        let pid = body.text(body.member("pid", of: process)) ?? key(of: process, in: body)
        writer.field("Process", name + " [" + pid + "]")
        writer.line("")
        if let byID = body.member("threadById", of: process), body.nodes[byID].kind == .object {
            for thread in body.children(of: byID) where body.nodes[thread].kind == .object {
                writeThread(thread)
            }
        }
        if let waits = body.member("waitInfo", of: process), body.nodes[waits].kind == .array {
            writer.line("Wait Info:")
            for wait in body.children(of: waits) {
                if let text = body.text(wait) { writer.line("  " + text) }
            }
            writer.line("")
        }
    }

    private mutating func writeThread(_ node: Int) {
        let idText = body.text(body.member("id", of: node)) ?? key(of: node, in: body)
        let id = Int(idText) ?? threads.count
        let name = body.text(body.member("name", of: node))
        let queue = body.text(body.member("dispatch_queue_label", of: node))
        var label = [name, queue.map { "Dispatch queue: " + $0 }].compactMap { $0 }.joined(separator: "  ")
        if label.isEmpty {
            writer.line("Thread \(idText):")
        } else {
            writer.field("Thread \(idText)", label)
        }
        if let state = body.member("state", of: node), body.nodes[state].kind == .array {
            label = body.children(of: state).compactMap { body.text($0) }.joined(separator: " ")
            if !label.isEmpty { writer.line("  State: " + label) }
        }
        var thread = Backtrace(kind: .thread(id), name: name ?? queue, headerLine: writer.lineCount - 1)
        var position = 0
        for (key, title) in [("kernelFrames", "  Kernel Frames:"), ("userFrames", "  User Frames:")] {
            guard let frames = body.member(key, of: node), body.nodes[frames].kind == .array,
                  body.nodes[frames].firstChild >= 0
            else { continue }
            writer.line(title)
            var first = true
            for frame in body.children(of: frames) {
                writeFrame(frame, index: position, first: first, into: &thread)
                position += 1
                first = false
            }
        }
        thread.frames.shrinkToFit()
        threads.append(thread)
        writer.line("")
    }

    /// Writes the line of one `[imageIndex, offset]` pair, and its frame when it is one.
    private mutating func writeFrame(_ node: Int, index: Int, first: Bool, into thread: inout Backtrace) {
        var place: (image: Int, offset: UInt64)?
        if body.nodes[node].kind == .array {
            var children = body.children(of: node)
            if let entry = children.next().flatMap({ body.int($0) }), entry < imageOfEntry.count,
               imageOfEntry[entry] >= 0, let offset = children.next().flatMap({ body.unsigned($0) }),
               !images[Int(imageOfEntry[entry])].loadAddress.addingReportingOverflow(offset).overflow {
                place = (Int(imageOfEntry[entry]), offset)
            }
        }
        let lineStart = writer.text.count
        writer.text.append(decimal: index)
        writer.pad(from: lineStart, to: 4)
        guard let (imageIndex, offset) = place else {
            skippedFrames += 1
            writer.text.append(literal: "???")
            writer.pad(from: lineStart, to: 41)
            writer.text.append(literal: "??? ")
            let restStart = writer.text.count - lineStart
            body.bytes.withUnsafeBufferPointer { b in
                writer.appendEscaped(UnsafeBufferPointer(rebasing: b[body.nodes[node].range]))
            }
            writer.endLine()
            var frame = Frame.unreadable(index: index, imageName: nil, line: writer.lineCount - 1, restStart: restStart,
                                         text: names)
            frame.returnAddress = !first
            thread.frames.append(frame)
            return
        }
        let image = images[imageIndex]
        let address = image.loadAddress + offset
        writer.appendEscaped(image.name)
        writer.pad(from: lineStart, to: 41)
        writer.text.append(literal: "0x")
        var shift = 60
        while shift >= 0 {
            let digit = UInt8((address >> UInt64(shift)) & 0xF)
            writer.text.append(digit < 10 ? ASCII.zero + digit : 0x61 + digit - 10)
            shift -= 4
        }
        writer.text.append(ASCII.space)
        let restStart = writer.text.count - lineStart
        writer.text.append(hex: image.loadAddress)
        writer.text.append(literal: " + ")
        writer.text.append(decimal: offset)
        writer.endLine()
        thread.frames.append(Frame(index: index, imageName: image.name, address: address,
                                   form: .unsymbolicated(loadAddress: image.loadAddress, offset: offset),
                                   image: imageIndex, line: writer.lineCount - 1, restStart: restStart,
                                   imageOffset: offset, returnAddress: !first, text: names))
    }

    // MARK: Images

    /// Makes an image of each `[UUID, loadAddress, type]` entry with a load address.
    private mutating func readImages(_ list: Int?) {
        guard let list, body.nodes[list].kind == .array else { return }
        for entry in body.children(of: list) {
            var uuidNode: Int?
            var loadNode: Int?
            var typeNode: Int?
            if body.nodes[entry].kind == .array {
                var fields = body.children(of: entry)
                (uuidNode, loadNode, typeNode) = (fields.next(), fields.next(), fields.next())
            }
            guard let load = address(loadNode) else {
                imageOfEntry.append(-1)
                continue
            }
            let uuid = body.string(uuidNode).flatMap(ImageIdentity.compactUUID).flatMap { $0.allSatisfy { $0 == "0" } ? nil : $0 }
            var image = BinaryImage(loadAddress: load, endAddress: load, name: uuid.map(ImageIdentity.dashedUUID) ?? "???", uuid: uuid)
            image.endIsKnown = false
            image.arch = body.text(typeNode)
            imageOfEntry.append(Int32(images.count))
            images.append(image)
        }
    }

    /// "Binary Images:" and one line per image: `0xLOAD UUID (TYPE)`.
    private mutating func writeImages() {
        guard !images.isEmpty else { return }
        writer.line("Binary Images:")
        for i in images.indices {
            images[i].line = writer.lineCount
            let start = writer.text.count
            writer.text.append(hex: images[i].loadAddress)
            writer.rightAlign(from: start, to: 18)
            writer.text.append(ASCII.space)
            writer.text.append(utf8: images[i].name)
            if let type = images[i].arch {
                writer.text.append(literal: " (")
                writer.appendEscaped(type)
                writer.text.append(ASCII.closeParen)
            }
            writer.endLine()
            // The type letter is printed, not an architecture to match debug files by.
            images[i].arch = nil
        }
    }

    /// A load address: a number, or a string of decimal or `0x` hexadecimal digits.
    private func address(_ node: Int?) -> UInt64? {
        if let value = body.unsigned(node) { return value }
        guard let text = body.string(node) else { return nil }
        if text.hasPrefix("0x") || text.hasPrefix("0X") { return UInt64(text.dropFirst(2), radix: 16) }
        return UInt64(text)
    }

    // MARK: Lines

    /// `key: value` for a scalar member; a string of several lines as indented lines.
    private mutating func field(_ member: Int, in tree: JSONTree) {
        let kind = tree.nodes[member].kind
        guard kind != .object && kind != .array else { return }
        let key = self.key(of: member, in: tree)
        guard kind == .string, let value = tree.stringBytes(member) else {
            writer.field(key, tree.text(member) ?? "null")
            return
        }
        let parts = value.split(separator: ASCII.newline, omittingEmptySubsequences: false)
        guard parts.count > 1 else {
            writer.fieldKey(key)
            writer.appendEscaped(value)
            writer.endLine()
            return
        }
        writer.line(key + ":")
        for part in parts where !part.isEmpty {
            writer.text.append(literal: "  ")
            writer.appendEscaped(Array(part))
            writer.endLine()
        }
    }

    private func key(of node: Int, in tree: JSONTree) -> String {
        guard let range = tree.nodes[node].keyRange, range.count >= 2 else { return "" }
        return String(decoding: tree.bytes[(range.lowerBound + 1)..<(range.upperBound - 1)], as: UTF8.self)
    }
}
