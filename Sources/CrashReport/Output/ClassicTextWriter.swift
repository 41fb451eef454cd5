/// The text of a classic crash report being written line by line: what the translators of JSON
/// reports (`.ips`, MetricKit, stackshots) make, for the classic parser's model of their frames
/// and for the text output.
///
/// It holds the text and counts its lines, so that a translator knows which line each frame
/// is on (``lineCount`` while the line is written). What comes from the report is written
/// through ``OutputEscaping``, so that every value stays on its line; a translator may append
/// bytes it made itself (numbers, fixed words) to ``text`` directly, and ends such a line with
/// ``endLine()``.
///
/// A `Key:` field is the key and its colon, padded with spaces to the ``FieldStyle``'s column
/// (at least one), then the value:
///
///     Process:             App [1234]
///     Code Type:           ARM-64 (Native)
struct ClassicTextWriter {
    /// How ``field(_:_:)`` writes a `Key:` field; the translators' reports differ here.
    struct FieldStyle {
        /// The column the value starts at, counted from 0 at the line's start.
        var valueColumn: Int
        /// Whether a field whose value is empty is left out, as one without a value always is.
        var skipsEmptyValues: Bool
        /// Whether the key's width is counted as written (escaped), rather than as its UTF-8
        /// bytes: the two differ only for a key with control characters.
        var countsEscapedKey: Bool
    }

    /// The text written so far, less what was let go (``dropText(from:)``).
    var text: [UInt8] = []
    /// The lines ended so far: the index of the line being written.
    private(set) var lineCount = 0
    /// Once text was let go: the lines up to `linesEnd` of `text`, those let go among them as
    /// empty lines.
    private var keptLines: LineRanges?
    private var linesEnd = 0
    /// The bytes of text let go so far.
    private(set) var droppedBytes = 0
    /// How many lines the text is expected to have, for the room of its lines once text is let
    /// go (room a guess leaves unused is never touched).
    var expectedLineCount = 0
    /// How fields are written.
    let fieldStyle: FieldStyle

    /// An empty text whose fields are written as `fieldStyle` says.
    init(fieldStyle: FieldStyle) {
        self.fieldStyle = fieldStyle
    }

    /// Lets go of the text from `start` (where a line starts, at or after the last text let go)
    /// to the end, which ends a line: its lines stay counted, each an empty line at `start` in
    /// ``lineRanges()``. A translator whose model is all that is read of some of its lines
    /// writes them and lets them go, so that their text is never held whole. Text that does not
    /// start and end lines there is kept.
    mutating func dropText(from start: Int) {
        guard start >= linesEnd, start < text.count, start == 0 || text[start - 1] == ASCII.newline,
              text.last == ASCII.newline else { return }
        var lines: LineRanges
        if let kept = keptLines {
            lines = kept
        } else {
            lines = LineRanges()
            lines.reserveCapacity(expectedLineCount)
        }
        keptLines = nil
        text.withUnsafeBufferPointer { b in
            lines.appendLines(of: UnsafeBufferPointer(rebasing: b[linesEnd..<start]), at: linesEnd)
        }
        // The lines let go are those ended since: the lines the frames were told they are on.
        lines.appendEmptyLines(lineCount - lines.count)
        keptLines = lines
        linesEnd = start
        droppedBytes += text.count - start
        text.removeSubrange(start...)
    }

    /// The ranges of the lines of ``text``; a line let go (``dropText(from:)``) is empty.
    func lineRanges() -> LineRanges {
        guard var lines = keptLines else { return LineRanges(text) }
        text.withUnsafeBufferPointer { b in
            lines.appendLines(of: UnsafeBufferPointer(rebasing: b[linesEnd...]), at: linesEnd)
        }
        return lines
    }

    /// Ends the line being written with "\n".
    mutating func endLine() {
        text.append(ASCII.newline)
        lineCount += 1
    }

    /// Appends `string` escaped (``OutputEscaping``).
    mutating func appendEscaped(_ string: String) {
        OutputEscaping.append(string, to: &text)
    }

    /// Appends `bytes` escaped (``OutputEscaping``).
    mutating func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        OutputEscaping.append(bytes, to: &text)
    }

    /// Appends `bytes` escaped (``OutputEscaping``).
    mutating func appendEscaped(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { OutputEscaping.append($0, to: &text) }
    }

    /// A line of `string`, escaped.
    mutating func line(_ string: String) {
        appendEscaped(string)
        endLine()
    }

    /// Pads with spaces what was written since `start` (an index into ``text``) to `width`
    /// bytes, with one space at least: a column that starts at `start + width` unless what
    /// was written is too long for it.
    mutating func pad(from start: Int, to width: Int) {
        text.append(contentsOf: repeatElement(ASCII.space, count: max(1, width - (text.count - start))))
    }

    /// Puts spaces before what was written since `start` (an index into ``text``) so that it
    /// takes `width` bytes, none when it takes as many or more: a right-aligned column.
    mutating func rightAlign(from start: Int, to width: Int) {
        let count = width - (text.count - start)
        if count > 0 { text.insert(contentsOf: repeatElement(ASCII.space, count: count), at: start) }
    }

    /// Starts a field: `key` and a colon, escaped, padded to the value column; the value and
    /// the line's end are the caller's to write.
    mutating func fieldKey(_ key: String) {
        let start = text.count
        let label = key + ":"
        appendEscaped(label)
        if fieldStyle.countsEscapedKey {
            pad(from: start, to: fieldStyle.valueColumn)
        } else {
            text.append(contentsOf: repeatElement(ASCII.space, count: max(1, fieldStyle.valueColumn - label.utf8.count)))
        }
    }

    /// A line `Key:   value`, both escaped; nothing for a missing value, nor for an empty one
    /// when the style skips those.
    mutating func field(_ key: String, _ value: String?) {
        guard let value, !(value.isEmpty && fieldStyle.skipsEmptyValues) else { return }
        fieldKey(key)
        appendEscaped(value)
        endLine()
    }
}
