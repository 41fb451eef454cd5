import Foundation

/// Where the tests find their material: the package itself, the fixtures built by
/// `Fixtures/build.sh`, the shared corpus beside the clone, and the oracle tools.
public enum TestPaths {
    /// The package root (the folder holding Package.swift).
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// `../shared/corpus`, present in CI, absent in a user's clone.
    public static var corpus: URL? {
        let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// `Fixtures/build`, made by `Fixtures/build.sh` (which `make test` runs first).
    public static var fixtures: URL? {
        let url = packageRoot.appendingPathComponent("Fixtures/build")
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("manifest.txt").path) ? url : nil
    }

    public static let corpusAbsent = "the shared corpus (../shared/corpus) is absent: tests that need it are skipped"
    public static let fixturesAbsent = "Fixtures/build is absent: run Fixtures/build.sh (make test does) to build the fixtures"

    /// The oracle: LLVM 21's llvm-symbolizer from the Swift toolchain when present, else the one on PATH.
    public static var llvmSymbolizer: String? {
        for candidate in ["/opt/swift/usr/bin/llvm-symbolizer", "/usr/bin/llvm-symbolizer"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return nil
    }

    /// A tool of Debian's LLVM 19 (`llvm-symbolizer`, `llvm-cxxfilt`, ...): the release whose
    /// demangler library the program links, so that names must agree with it byte for byte.
    public static func llvm19(_ tool: String) -> String? {
        ["/usr/bin/\(tool)-19", "/usr/lib/llvm-19/bin/\(tool)"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The built `symbolicate` executable (the one `swift test` just built).
    public static var symbolicateBinary: URL {
        let build = packageRoot.appendingPathComponent(".build")
        for configuration in ["debug", "release"] {
            let url = build.appendingPathComponent(configuration).appendingPathComponent("symbolicate")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return build.appendingPathComponent("debug/symbolicate")
    }
}

/// The result of running a program to completion.
public struct ProcessResult {
    public var status: Int32
    public var stdout: Data
    public var stderr: Data
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

/// A child that exits before it reads all its input makes writing it fail with EPIPE, not
/// kill the tests with SIGPIPE.
private let ignoringBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

/// Runs `executable` with `arguments`, feeding `input` on stdin; collects both outputs.
///
/// The child is started with `posix_spawn` and waited for by its own pid, its pipes read with
/// `poll` on this thread: Foundation's `Process` on Linux reaps children and delivers their
/// pipes on threads of its own, and once in a shuffled run handed back an exit status of 0 and
/// no standard error for a child that had exited 1 and said why. A child killed by a signal
/// gives that signal's number, as `Process` does.
public func runProcess(_ executable: String, _ arguments: [String], input: Data? = nil,
                environment: [String: String]? = nil) throws -> ProcessResult {
    _ = ignoringBrokenPipes
    // Closed on exec: a child spawned meanwhile by another thread does not hold them open.
    var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0], errorsFromChild: [Int32] = [0, 0]
    func closedOnExec(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }
    guard closedOnExec(&toChild), closedOnExec(&fromChild), closedOnExec(&errorsFromChild) else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "pipe: errno \(errno)"])
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
    posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errorsFromChild[1], 2)
    let environment = environment ?? ProcessInfo.processInfo.environment
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    // The child starts with every signal's default action and none blocked, as from a shell
    // (this process ignores SIGPIPE, which a child would otherwise inherit).
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var all = sigset_t(), none = sigset_t()
    sigfillset(&all)
    sigemptyset(&none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
    close(toChild[0]); close(fromChild[1]); close(errorsFromChild[1])
    guard spawned == 0 else {
        close(toChild[1]); close(fromChild[0]); close(errorsFromChild[0])
        throw CocoaError(.fileReadNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "\(executable): posix_spawn: \(spawned)"])
    }
    // The child's input is written as it reads it, while its outputs are read: neither side
    // waits on a full pipe.
    let bytes = [UInt8](input ?? Data())
    var written = 0
    var writing: Int32 = toChild[1]
    _ = fcntl(writing, F_SETFL, fcntl(writing, F_GETFL) | O_NONBLOCK)
    if bytes.isEmpty { close(writing); writing = -1 }
    var out: [UInt8] = [], errors: [UInt8] = []
    var open: [(fd: Int32, isErrors: Bool)] = [(fromChild[0], false), (errorsFromChild[0], true)]
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while !open.isEmpty || writing >= 0 {
        var fds = open.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        if writing >= 0 { fds.append(pollfd(fd: writing, events: Int16(POLLOUT), revents: 0)) }
        guard poll(&fds, nfds_t(fds.count), -1) >= 0 || errno == EINTR else { break }
        for entry in fds where entry.revents != 0 {
            if entry.fd == writing {
                let n = bytes.withUnsafeBytes { write(writing, $0.baseAddress! + written, bytes.count - written) }
                if n > 0 { written += n }
                if (n < 0 && errno != EAGAIN && errno != EINTR) || written == bytes.count {
                    close(writing)
                    writing = -1
                }
                continue
            }
            let n = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress!, $0.count) }
            if n > 0 {
                if open.first(where: { $0.fd == entry.fd })!.isErrors {
                    errors += buffer[0..<n]
                } else {
                    out += buffer[0..<n]
                }
            } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                close(entry.fd)
                open.removeAll { $0.fd == entry.fd }
            }
        }
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
    let exited = status & 0x7F == 0
    return ProcessResult(status: exited ? (status >> 8) & 0xFF : status & 0x7F, stdout: Data(out), stderr: Data(errors))
}
