import Platform

/// Gives an input's bytes back to the system as a translator is done with them: a JSON report
/// translated to text for its text alone (``ReportUse/text``) then never holds its JSON and its
/// text whole at once.
///
/// The bytes given back read as zeros. A parser uses one only for bytes it was handed to take
/// (``ReportParser/parse(taking:path:use:)``), for parts of them it has read for the last time,
/// and only once the translation can no longer fail (a failed parse hands the input back as it
/// was, to be written out unchanged).
struct InputRelease {
    /// The input; valid while the translation runs.
    private let bytes: UnsafeRawBufferPointer
    /// Where the last range given back ended.
    private var consumedEnd = -1
    /// Where the bytes read for the last time but not yet given back start (the part of a
    /// page a range left): the next range that starts at `consumedEnd` goes on from here.
    private var pendingStart = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Gives back `range` of the input, with what lies between it and the range given back
    /// last, and what that one left of a page: every whole page of the run of bytes read for
    /// the last time. (Between two elements of a JSON array lie only a comma and blanks.)
    mutating func release(_ range: Range<Int>) {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count, !range.isEmpty,
              let base = bytes.baseAddress else { return }
        let start = consumedEnd >= 0 && range.lowerBound >= consumedEnd ? pendingStart : range.lowerBound
        consumedEnd = range.upperBound
        // The last partial page waits for the next range.
        let address = Int(bitPattern: base)
        let end = ((address + range.upperBound) & ~(System.pageSize - 1)) - address
        guard end > start else {
            pendingStart = start
            return
        }
        System.releasePages(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
        pendingStart = end
    }

    /// Ends the run: the bytes from the last range given back to the next one are read again,
    /// and stay.
    mutating func keepFromHere() {
        consumedEnd = -1
    }
}
