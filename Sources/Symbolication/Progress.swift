import Foundation

/// A progress line on stderr — reports done / total and the rate — redrawn in place at most
/// ten times a second, and erased at the end. Only for terminals: the caller decides.
final class Progress {
    private let total: Int
    private let enabled: Bool
    private var done = 0
    private let start = Date()
    private var lastDrawn = Date.distantPast
    private var drawn = false

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
    }

    /// One more report done.
    func advance() {
        done += 1
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(lastDrawn) >= 0.1 || done == total else { return }
        lastDrawn = now
        let elapsed = max(now.timeIntervalSince(start), 0.001)
        let rate = Double(done) / elapsed
        let line = "\r\u{1B}[Ksymbolicate: \(done)/\(total) reports, \(String(format: "%.0f", rate))/s"
        FileHandle.standardError.write(Data(line.utf8))
        drawn = true
    }

    /// Erases the line.
    func finish() {
        guard drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
