#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few operating-system services the tool needs, without Foundation.
public enum System {
    /// Writes `text` to standard error, whole.
    public static func writeToStandardError(_ text: String) {
        Array(text.utf8).withUnsafeBytes { _ = writeAll(STDERR_FILENO, $0) }
    }

    /// Writes all of `bytes` to `fd`, again after an interruption; false once the descriptor
    /// refuses them (a closed pipe, a full disk: `errno` says which).
    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }

    /// Everything on standard input, until its end.
    public static func readStandardInput() -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            result.append(contentsOf: chunk[0..<n])
        }
        return result
    }

    /// The whole content of the file at `path`, read with `read(2)` into one array (for small
    /// files such as reports, cheaper than mapping them). The error names the reason only.
    public static func readFile(_ path: String) throws(SystemError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError(operation: "open", code: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemError(operation: "stat", code: errno) }
        guard info.st_mode & S_IFMT != S_IFDIR else { throw SystemError(operation: "read", code: EISDIR) }
        // The size is a hint (the file may grow or shrink): read until the end.
        var result = [UInt8](repeating: 0, count: max(Int(info.st_size), 0) + 1)
        var count = 0
        while true {
            if count == result.count { result += [UInt8](repeating: 0, count: max(result.count, 1 << 16)) }
            let n = result.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError(operation: "read", code: errno)
            }
            if n == 0 { break }
            count += n
        }
        result.removeLast(result.count - count)
        return result
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

    /// Whether `path` names a directory (following links).
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Creates `path` and any missing parent folders.
    public static func createDirectories(_ path: String) throws {
        if path.isEmpty || isDirectory(path) { return }
        let parent = Path.deletingLastComponent(path)
        if parent != path { try createDirectories(parent) }
        if mkdir(path, 0o777) != 0 && errno != EEXIST {
            throw SystemError(operation: "cannot create \(path)", code: errno)
        }
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

    /// The tool's folder for caches: `$XDG_CACHE_HOME/symbolicate` when `XDG_CACHE_HOME` is an
    /// absolute path, else `$HOME/.cache/symbolicate`; nil when neither is set.
    public static func cacheDirectory(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return Path.join(xdg, "symbolicate") }
        if let home = environment["HOME"], home.hasPrefix("/") { return Path.join(home, ".cache/symbolicate") }
        return nil
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

    public init(operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    public var description: String { "\(operation): \(String(cString: strerror(code)))" }
}
