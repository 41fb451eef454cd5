/// What a report's model may take in memory, and how a report too dense to read is refused
/// (``ReportError/tooDense(_:reason:)``): text parsers charge what they make to the report's
/// ``FrameText`` (``FrameText/charge(_:)``) and stop once it passes ``FrameText/limit``; JSON
/// and protobuf reports are counted before they are translated (``TranslationEstimate``).
extension FrameText {
    /// What a backtrace's record costs a report's model beside its frames.
    public static let backtraceCost = MemoryLayout<Backtrace>.stride
    /// What an image's record and its strings cost a report's model.
    public static let imageCost = MemoryLayout<BinaryImage>.stride + 160

    /// What the translation of a JSON or protobuf report may make, as a multiple of its size:
    /// twice a text report's (``limitFactor``), since its text is longer than its JSON (a
    /// frame's line is 60 to 90 bytes against 35 to 60).
    public static let translationFactor = 2 * limitFactor

    /// What the translation of a report of `inputSize` bytes may make (``translationFactor``
    /// times that, and ``limitBase``).
    public static func translationLimit(inputSize: Int) -> Int {
        inputSize.multipliedReportingOverflow(by: translationFactor).partialValue &+ limitBase
    }

    /// What a report too dense to read holds, for ``ReportError/tooDense(_:reason:)``:
    /// "its 2097152 frames, 1 backtrace and 0 images".
    public static func density(backtraces: Int, frames: Int, images: Int) -> String {
        func counted(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
        return "its \(counted(frames, "frame", "frames")), \(counted(backtraces, "backtrace", "backtraces")) and "
            + counted(images, "image", "images")
    }

    /// The error of a report at `path` too dense to read: what `threads` and `images` hold would
    /// take more than ``limitFactor`` times its size in memory.
    public static func tooDense(path: String, threads: [Backtrace], images: [BinaryImage]) -> ReportError {
        let frames = threads.reduce(0) { $0 + $1.frames.count }
        return .tooDense(path, reason: tooDense(density(backtraces: threads.count, frames: frames, images: images.count)))
    }

    /// The reason of ``ReportError/tooDense(_:reason:)``: what the report holds (`what`) would
    /// take more than `factor` times its size in memory.
    public static func tooDense(_ what: String, factor: Int = limitFactor) -> String {
        "\(what) would take more than \(factor) times its size in memory"
    }

    /// Refuses a report at `path` of `inputSize` bytes whose translation would make `bytes`
    /// (of `what` it holds), when that passes ``translationLimit(inputSize:)``.
    static func refuseTranslation(_ bytes: Int, of what: @autoclosure () -> String, path: String, inputSize: Int) throws {
        guard bytes > translationLimit(inputSize: inputSize) else { return }
        throw ReportError.tooDense(path, reason: tooDense(what(), factor: translationFactor))
    }
}

/// The frames, backtraces and images a JSON report's translation would make, counted in its
/// tree before any of it is made.
struct TranslationEstimate {
    var frames = 0
    var threads = 0
    var images = 0

    /// What they would take: a frame's record and its line of text (some 80 bytes; a frame's
    /// JSON is 35 or more), a backtrace's record, list and lines, an image's record and line.
    var bytes: Int {
        frames * 80 + threads * (FrameText.backtraceCost + 128) + images * (FrameText.imageCost + 120)
    }

    /// Refuses the report at `path` (`inputSize` bytes) when they would take more than its
    /// translation may (``FrameText/translationLimit(inputSize:)``).
    func refuseWhenTooDense(path: String, inputSize: Int) throws {
        try FrameText.refuseTranslation(bytes, of: FrameText.density(backtraces: threads, frames: frames, images: images),
                                        path: path, inputSize: inputSize)
    }
}
