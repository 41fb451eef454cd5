#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// A progress line on stderr — reports done / total and the rate — redrawn in place at most
/// ten times a second, and erased at the end. Only for terminals: the caller decides.
final class Progress {
    private let total: Int
    private let enabled: Bool
    private var done = 0
    private let start = System.monotonicSeconds
    private var lastDrawn = -Double.infinity
    private var drawn = false

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
    }

    /// One more report done.
    func advance() {
        done += 1
        guard enabled else { return }
        let now = System.monotonicSeconds
        guard now - lastDrawn >= 0.1 || done == total else { return }
        lastDrawn = now
        let rate = Int((Double(done) / max(now - start, 0.001)).rounded())
        System.writeToStandardError("\r\u{1B}[Ksymbolicate: \(done)/\(total) reports, \(rate)/s")
        drawn = true
    }

    /// Erases the line.
    func finish() {
        guard drawn else { return }
        System.writeToStandardError("\r\u{1B}[K")
    }
}
