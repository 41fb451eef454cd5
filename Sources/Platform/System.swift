#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few operating-system services the tool needs, without Foundation.
public enum System {
    /// Writes `text` to standard error, whole.
    /// File names in it are spelled with their own bytes (see ``FileName``).
    public static func writeToStandardError(_ text: String) {
        FileName.bytes(text).withUnsafeBytes { _ = writeAll(STDERR_FILENO, $0) }
    }

    /// Makes sure descriptors 0, 1 and 2 are open, so that no file the tool opens later takes
    /// their place (output meant for a closed standard output would go into it). A closed
    /// standard output gets `/dev/null` opened read-only, so that writing to it fails with
    /// EBADF and is reported as it would have been; closed standard input and error get
    /// `/dev/null` for reading and writing.
    public static func reserveStandardDescriptors() {
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let flags = fd == STDERR_FILENO ? O_WRONLY : O_RDONLY
            let opened = open("/dev/null", flags)
            if opened >= 0 && opened != fd {
                dup2(opened, fd)
                close(opened)
            }
        }
    }

    /// Writes all of `bytes` to `fd`, again after an interruption; false once the descriptor
    /// refuses them (a closed pipe, a full disk: `errno` says which). A write that makes no
    /// progress without an error is taken as a full device (ENOSPC).
    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            guard let progressed = wrote(n) else { continue }
            guard progressed else { return false }
            offset += n
        }
        return true
    }

    /// Writes all of the `count` pieces at `pieces` to `fd`, in order, with `writev` (at most
    /// 1,024 pieces a call, POSIX's least `IOV_MAX` and Linux's), again after an interruption
    /// or a short write; false as ``writeAll(_:_:)`` says. The pieces' descriptions are
    /// changed as they are written.
    @discardableResult
    public static func writeAll(_ fd: Int32, gathering pieces: UnsafeMutablePointer<iovec>, count: Int) -> Bool {
        var first = 0
        while first < count {
            if pieces[first].iov_len == 0 {
                first += 1
                continue
            }
            let n = writev(fd, pieces + first, Int32(min(count - first, 1024)))
            guard let progressed = wrote(n) else { continue }
            guard progressed else { return false }
            first = skip(n, of: pieces, from: first, count: count)
        }
        return true
    }

    /// What a write that returned `n` means: nil to try again (it was interrupted), false when
    /// the descriptor refuses the bytes (`errno` says why; a write that makes no progress
    /// without an error is taken as a full device, ENOSPC), true when `n` bytes went.
    private static func wrote(_ n: Int) -> Bool? {
        if n < 0 { return errno == EINTR ? nil : false }
        if n == 0 {
            errno = ENOSPC
            return false
        }
        return true
    }

    /// Moves past `written` bytes of the pieces from `first` on: past the pieces written whole,
    /// and into the one written in part, whose description is changed to its rest. The first
    /// piece left to write.
    static func skip(_ written: Int, of pieces: UnsafeMutablePointer<iovec>, from first: Int, count: Int) -> Int {
        var first = first, written = written
        while first < count && written >= pieces[first].iov_len {
            written -= pieces[first].iov_len
            first += 1
        }
        if written > 0 && first < count {
            pieces[first].iov_base += written
            pieces[first].iov_len -= written
        }
        return first
    }

    /// The modification and status-change times of `info`, in nanoseconds since the epoch.
    public static func times(of info: stat) -> (modified: Int64, changed: Int64) {
        #if canImport(Darwin)
        let modified = info.st_mtimespec, changed = info.st_ctimespec
        #else
        let modified = info.st_mtim, changed = info.st_ctim
        #endif
        return (Int64(modified.tv_sec) &* 1_000_000_000 &+ Int64(modified.tv_nsec),
                Int64(changed.tv_sec) &* 1_000_000_000 &+ Int64(changed.tv_nsec))
    }

    /// The working directory.
    public static var currentDirectory: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getcwd(&buffer, buffer.count) != nil else { return "." }
        return String(cString: buffer)
    }

    /// The process's environment.
    public static var environment: [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let pair = String(cString: pointer)
            if let equals = pair.firstIndex(of: "=") {
                result[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            entry += 1
        }
        return result
    }

    /// The tool's folder for caches: `$SYMBOLICATE_CACHE_DIR` when set (`--cache-dir` sets
    /// it; a relative path is taken from the current directory), else
    /// `$XDG_CACHE_HOME/symbolicate` when `XDG_CACHE_HOME` is an absolute path, else
    /// `$HOME/.cache/symbolicate`; nil when none is set.
    public static func cacheDirectory(environment: [String: String]) -> String? {
        if let named = environment["SYMBOLICATE_CACHE_DIR"], !named.isEmpty { return absolutePath(named) }
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return Path.join(xdg, "symbolicate") }
        if let home = environment["HOME"], home.hasPrefix("/") { return Path.join(home, ".cache/symbolicate") }
        return nil
    }

    /// Cache folders shared with other machines, read before the own one and never written:
    /// `$SYMBOLICATE_SHARED_CACHE`, colon-separated (`--shared-cache` adds to it); relative
    /// paths are taken from the current directory, empty entries ignored.
    public static func sharedCacheDirectories(environment: [String: String]) -> [String] {
        (environment["SYMBOLICATE_SHARED_CACHE"] ?? "").split(separator: ":").map { absolutePath(String($0)) }
    }

    /// `path`, or the current directory joined with it when it is relative.
    public static func absolutePath(_ path: String) -> String {
        path.hasPrefix("/") ? path : Path.join(currentDirectory, path)
    }

    /// The number of processors this process may run on.
    public static var processorCount: Int {
        Int(max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// Seconds on a monotonic clock, for rates and intervals.
    public static var monotonicSeconds: Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Whether `fd` is a terminal.
    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}

/// A failed system call: what was being done and `strerror`'s words for `errno`.
public struct SystemError: Error, CustomStringConvertible {
    public var operation: String
    public var code: Int32
    /// Words that say more than the code (which kind of file was refused, which limit).
    public var detail: String?

    public init(operation: String, code: Int32, detail: String? = nil) {
        self.operation = operation
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(operation): \(reason)" }

    /// `strerror`'s words for the code, or plainer ones for the codes a path lookup gives.
    public var reason: String { detail ?? SystemError.reason(code) }

    /// Words for `code` that say what is true of a path: a symbolic link loop, a missing
    /// file, a directory where a file was needed.
    public static func reason(_ code: Int32) -> String {
        switch code {
        case ELOOP: return "a symbolic link loop (too many levels of symbolic links)"
        case ENOENT: return "no such file or directory"
        case EISDIR: return "is a directory"
        default: return String(cString: strerror(code))
        }
    }
}
