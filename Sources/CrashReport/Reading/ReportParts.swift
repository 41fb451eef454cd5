#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the reports of a file that holds several, one after another, begin: crash reports
/// copied into one file (`cat *.crash > all.crash`), or collected so by a tool.
///
/// Each report is then read, symbolicated and written on its own: its frames are matched to its
/// own Binary Images list (the same app, loaded at another address in another launch, would
/// otherwise make two images of one name), and a run holds the file and one report's model,
/// not a model of all of them. The parts are consecutive and hold every byte of the file, so
/// their outputs, one after another, are the file's.
///
/// Two kinds of report are told apart so, the ones that start with a line that says so:
/// - A classic text report, whose first line is a header line (`Incident Identifier:`,
///   `Hardware Model:`, `Process:`), ends before the first line that starts another report:
///   such a header line after its `Binary Images:` line, or one it has had already (a report
///   of its header alone), or an `.ips` metadata line.
/// - An `.ips` report with a JSON body ends with its body: what follows it (after whitespace)
///   is another part, a report or not (text after a report is kept, never dropped).
///
/// Any other file (a spindump, whose processes each list their images; a Linux log; a
/// tombstone; JSON documents) is one part, as is the rest of a file from a part that is none
/// of these on.
public enum ReportParts {
    /// The most parts a file of `size` bytes is read as, the last of them the rest of the file,
    /// written as it is: one for each ``minimumPart`` bytes, and 65,536 for any file. Each part
    /// costs what a report does in a run; a file of tiny reports a few bytes each (made to, or
    /// cut short) would otherwise cost as many as it has lines.
    public static func maxParts(size: Int) -> Int {
        max(65_536, size / minimumPart)
    }

    /// The fewest bytes a part of classic text holds: a shorter classic report is read together
    /// with the next (as the whole file was read before). A real report's header alone is
    /// some 700 bytes, a whole report several KiB.
    public static let minimumPart = 512

    /// The header lines that open a classic text report, at the start of a line.
    private static let reportStarts: [StaticString] = ["Incident Identifier:", "Hardware Model:", "Process:"]

    /// The ranges of the reports `bytes` holds, in order, which cover all of them; one range
    /// (`0..<bytes.count`) for a file of one report, and for a binary report (PLCrashReporter,
    /// a protobuf tombstone) or UTF-16 text, read whole as before.
    public static func ranges(in bytes: [UInt8]) -> [Range<Int>] {
        split(bytes).ranges
    }

    /// The ranges of ``ranges(in:)``, and whether the last is the rest of a file of more
    /// reports than it is read as (``maxParts(size:)``), left unread.
    public static func split(_ bytes: [UInt8]) -> (ranges: [Range<Int>], lastIsRest: Bool) {
        bytes.withUnsafeBufferPointer { b in
            if PLCrashParser.looksLikePLCrash(b) || ProtobufTombstoneParser.looksLikeProtobufTombstone(b, whole: true)
                || UTF16Text.encoding(of: b) != nil {
                return ([0..<b.count], false)
            }
            var ranges: [Range<Int>] = []
            var (start, report) = (0, 0)
            let maxParts = maxParts(size: b.count)
            while ranges.count < maxParts - 1, let next = nextReport(in: b, of: bytes, after: report) {
                report = next.start
                // A classic report too short to be a part of its own goes with the next; an
                // `.ips` report with a JSON body is one however short (its end is exact).
                if next.start - start >= minimumPart || next.afterJSON {
                    ranges.append(start..<next.start)
                    start = next.start
                }
            }
            let lastIsRest = ranges.count == maxParts - 1 && nextReport(in: b, of: bytes, after: report) != nil
            ranges.append(start..<b.count)
            return (ranges, lastIsRest)
        }
    }

    /// Where the report after the one that starts at `start` begins, and whether that one ends
    /// with an `.ips` JSON body; nil when it runs to the end of `b`, or is not of a kind whose
    /// end is known. (`b` is `bytes`' storage.)
    static func nextReport(in b: UnsafeBufferPointer<UInt8>, of bytes: [UInt8], after start: Int)
        -> (start: Int, afterJSON: Bool)? {
        var i = start == 0 ? b.byteOrderMarkLength : start
        while i < b.count && JSONScanner.isSpace(b[i]) { i += 1 }
        guard i < b.count else { return nil }
        var lineEnd = endOfLine(b, from: i)
        if isIPSMetadata(b, i, lineEnd) {
            var body = lineEnd
            while body < b.count && JSONScanner.isSpace(b[body]) { body += 1 }
            guard body < b.count else { return nil }
            if b[body] == 0x7B || b[body] == 0x5B {  // { [
                return ipsEnd(b, of: bytes, bodyStart: body).map { ($0, true) }
            }
            // A text body (bug_type 109, ...) is a classic report's text.
            (i, lineEnd) = (body, endOfLine(b, from: body))
        }
        guard var seen = reportStart(b, i, lineEnd) else { return nil }
        // The first line after this report's Binary Images line that starts another report, or
        // before it, a header line this report has had already (a report cut short before its
        // images, as some tools keep only the header).
        var imagesSeen = false
        var line = lineEnd + 1
        while line < b.count {
            let end = endOfLine(b, from: line)
            if let key = reportStart(b, line, end) {
                if imagesSeen || seen & key != 0 { return (line, false) }
                seen |= key
            } else if isIPSMetadata(b, line, end) {
                return (line, false)
            } else if !imagesSeen && b[line] == UInt8(ascii: "B") && b.starts(with: "Binary Images:", at: line, end: end) {
                imagesSeen = true
            }
            line = end + 1
        }
        return nil
    }

    /// The end of an `.ips` report whose JSON body starts at `bodyStart`: the start of the line
    /// after the body where anything but whitespace begins, or, when text follows the body on
    /// its own last line, right after the body; nil when nothing follows the body, or the body
    /// is not valid JSON (the report's own parse says why).
    private static func ipsEnd(_ b: UnsafeBufferPointer<UInt8>, of bytes: [UInt8], bodyStart i: Int) -> Int? {
        // Nothing to find when the file ends with a brace and no line after the body's first
        // opens an object, as another metadata line would: a single report, spared a second
        // scan of its body.
        var last = b.count
        while last > i && JSONScanner.isSpace(b[last - 1]) { last -= 1 }
        if b[last - 1] == 0x7D, b.firstIndex(of: "\n{", in: i..<b.count) == nil { return nil }  // }
        guard let end = try? JSONScanner.parse(bytes, from: i, recordingDepth: 0, maxNodes: 1).end else { return nil }
        var next = end
        while next < b.count && JSONScanner.isSpace(b[next]) { next += 1 }
        guard next < b.count else { return nil }
        // The blank lines after the body stay with it.
        var lineStart = next
        while lineStart > end && b[lineStart - 1] != ASCII.newline { lineStart -= 1 }
        return lineStart
    }

    /// Whether the line `start..<end` is an `.ips` metadata line: a JSON object naming a `bug_type`.
    private static func isIPSMetadata(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        b[start] == 0x7B && b.firstIndex(of: "\"bug_type\"", in: start..<end) != nil
    }

    /// The header line that opens a classic report the line `start..<end` is, as a bit of
    /// ``reportStarts``; nil when it is none.
    private static func reportStart(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> UInt8? {
        let first = b[start]
        guard first == UInt8(ascii: "I") || first == UInt8(ascii: "H") || first == UInt8(ascii: "P") else { return nil }
        guard let k = reportStarts.firstIndex(where: { b.starts(with: $0, at: start, end: end) }) else { return nil }
        return 1 << k
    }

    /// The index of the "\n" that ends the line at `start`, or `b.count`.
    private static func endOfLine(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = b.baseAddress, start < b.count,
              let hit = memchr(base + start, Int32(ASCII.newline), b.count - start) else { return b.count }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }
}

private extension UnsafeBufferPointer<UInt8> {
    /// Whether the bytes at `start` (before `end`) begin with `literal`.
    func starts(with literal: StaticString, at start: Int, end: Int) -> Bool {
        let length = literal.utf8CodeUnitCount
        guard let base = baseAddress, end - start >= length else { return false }
        return memcmp(base + start, literal.utf8Start, length) == 0
    }
}
