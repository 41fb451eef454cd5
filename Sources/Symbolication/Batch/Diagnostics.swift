#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CrashReport
import Platform

/// Warnings, errors and the summary meant for the user: one line each, on stderr, warnings each
/// said once. Every line the tool writes to stderr goes through here.
///
/// A debug file that cannot be read is reported the first time it is needed, not for every
/// frame that needed it.
///
/// Lines name files and images from untrusted input, so each is escaped (`OutputEscaping`):
/// a newline in a path cannot make two lines of one, nor an escape sequence reach the terminal.
public final class Diagnostics: @unchecked Sendable {
    private let lock = Lock()
    /// The lines and keys said, up to ``saidKept`` of them: a batch of reports strangers
    /// made can name a new image in every line, and each would be kept for the run. Past
    /// that, they are let go, and a line may be said again.
    private var said: Set<String> = []
    static let saidKept = 1 << 16
    private let sink: (String) -> Void

    /// Writes to stderr, prefixed with `symbolicate: `.
    public init() {
        self.sink = { line in
            System.writeToStandardError("symbolicate: " + line + "\n")
        }
    }

    /// Collects lines only (for tests and embedding).
    public init(sink: @escaping (String) -> Void) {
        self.sink = sink
    }

    /// Says `line` unless it was said before.
    public func warn(_ line: String) {
        warn(line, once: line)
    }

    /// Says `line` unless a line with the same `key` was said before: for warnings about one
    /// thing (an image) that name the first of several places it was met (a report). The line
    /// is made only when it is said (a batch meets the same image in report after report).
    public func warn(_ line: @autoclosure () -> String, once key: String) {
        lock.lock()
        if said.count >= Self.saidKept { said.removeAll() }
        let isNew = said.insert(key).inserted
        lock.unlock()
        if isNew { sink(OutputEscaping.escaped(line())) }
    }

    /// Says each of `lines`, however often they were said before.
    public func say(_ lines: [String]) {
        for line in lines { sink(OutputEscaping.escaped(line)) }
    }

    /// Says each of `lines` as it is: lines whose untrusted parts the caller escaped, and which
    /// carry the caller's own terminal marks (the summary on a terminal).
    func sayEscaped(_ lines: [String]) {
        for line in lines { sink(line) }
    }
}
