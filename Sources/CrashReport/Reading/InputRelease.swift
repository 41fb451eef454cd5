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
    private var bytes: UnsafeRawBufferPointer
    /// Where the run of bytes given back ends; -1 when no run is on.
    private var consumedEnd = -1
    /// Where the run's bytes not yet given back start (the part of a page a range left): the
    /// next range goes on from here.
    private var pendingStart = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Goes on with `bytes`, the same input as before (its run and its pages given back stay),
    /// reached anew: ``IPSPieces`` translates a piece at a time, each inside its own access.
    mutating func attach(_ bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count == self.bytes.count && bytes.baseAddress == self.bytes.baseAddress,
                     "the same input")
        self.bytes = bytes
    }

    /// Gives back `range` of the input, and with it the run of bytes read for the last time
    /// that the ranges given back since the run started make: what lies between them, which
    /// the caller has read for the last time too (a comma between two elements of an array,
    /// a thread's members before its frames), and what one left of a page. A range may hold
    /// ranges given back before it (a thread, after its frames).
    mutating func release(_ range: Range<Int>) {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count, !range.isEmpty,
              let base = bytes.baseAddress else { return }
        let start = consumedEnd >= 0 ? pendingStart : range.lowerBound
        consumedEnd = max(consumedEnd, range.upperBound)
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
