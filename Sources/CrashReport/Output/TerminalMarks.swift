/// How text output marks what matters when it is read on a terminal (`--color`): the lines of
/// frames resolved in the app's own images are set in bold, as Xcode sets the app's frames apart
/// from the system's, so that they stand out in a long report. Each marked line is
/// `ESC[1m` + the line + `ESC[0m`, before its line terminator: a line is never left in bold, and
/// `less -R`, `grep` and copy-and-paste see the line's text unchanged between the two.
///
/// Renderers given no marks (files, pipes, `--color=never`) write no escape sequence at all.
public struct TerminalMarks: Sendable {
    /// For each image index of the report (into `CrashReport.images`), whether the image is
    /// the app's own code rather than the system's.
    public var appImages: [Bool]

    /// Marks for a report whose image `i` is the app's when `appImages[i]`.
    public init(appImages: [Bool]) {
        self.appImages = appImages
    }

    /// Whether a resolved frame of image `image` is marked.
    @inline(__always)
    func marks(image: Int?) -> Bool {
        guard let image, image >= 0, image < appImages.count else { return false }
        return appImages[image]
    }

    /// Select Graphic Rendition: bold.
    public static let bold: StaticString = "\u{1B}[1m"
    /// Select Graphic Rendition: red, for problems (the summary's unresolved frames and
    /// missing debug files).
    public static let problem: StaticString = "\u{1B}[31m"
    /// Select Graphic Rendition: back to the terminal's normal text.
    public static let reset: StaticString = "\u{1B}[0m"
}

extension Array where Element == UInt8 {
    /// Appends the start of a marked line when `marked`.
    @inline(__always)
    mutating func appendMarkStart(_ marked: Bool) {
        if marked { append(literal: TerminalMarks.bold) }
    }

    /// Appends the end of a marked line when `marked`.
    @inline(__always)
    mutating func appendMarkEnd(_ marked: Bool) {
        if marked { append(literal: TerminalMarks.reset) }
    }
}
