/// How much a renderer will write for a report, reserved before it starts: an output grown by
/// appending is copied each time its capacity doubles, and the last copy holds the old and the
/// new buffer at once, up to three times the output. The estimates err on the large side,
/// which costs address space but no memory: the pages of a large buffer that are never
/// written are never touched.
extension SymbolicatedReport {
    /// The text form: the input, and for each resolved frame its line again per source frame
    /// with the names in it.
    var estimatedTextSize: Int {
        var size = report.bytes.count + 64
        for (key, sources) in frames where !sources.isEmpty {
            guard report.threads.indices.contains(key.thread),
                  report.threads[key.thread].frames.indices.contains(key.frame)
            else { continue }
            let line = report.threads[key.thread].frames[key.frame].line
            let lineLength = report.lines.indices.contains(line) ? report.lines[line].count : 0
            size += sources.count * (lineLength + 48) + sources.namesSize
        }
        return size
    }

    /// One record of `perFrame` bytes plus the names for each frame, and `perImage` per image.
    func estimatedRecordsSize(perFrame: Int, perImage: Int) -> Int {
        var size = 256 + report.path.utf8.count + report.images.count * perImage
        for (t, thread) in report.threads.enumerated() {
            size += 128 + (thread.name?.utf8.count ?? 0)
            for (f, frame) in thread.frames.enumerated() {
                let sources = frames[FrameKey(thread: t, frame: f)] ?? []
                let names = (frame.imageName?.utf8.count ?? 0) + frame.form.namesSize
                size += max(1, sources.count) * (perFrame + names) + sources.namesSize
            }
        }
        for image in report.images {
            size += image.name.utf8.count + (image.path?.utf8.count ?? 0) + (debugFiles.isEmpty ? 0 : 256)
        }
        return size
    }
}

extension Array where Element == SourceFrame {
    /// The bytes of the names the frames print.
    fileprivate var namesSize: Int {
        var size = 0
        for source in self { size += source.function.utf8.count + (source.file?.utf8.count ?? 0) }
        return size
    }
}

extension FrameForm {
    /// The bytes of the names a frame of this form prints when it is not resolved.
    fileprivate var namesSize: Int {
        switch self {
        case .symbol(let name, _): return name.utf8.count
        case .symbolicated(let name, _, let file, _): return name.utf8.count + file.utf8.count + 24
        case .unsymbolicated, .imageOffset, .unknown, .addressOnly: return 0
        }
    }
}
