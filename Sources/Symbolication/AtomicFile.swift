#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// Writes a file so that no reader ever sees it half written: the bytes go to a temporary
/// file in the same folder (`.NAME.XXXXXX`, hidden), which is then renamed over the target.
/// A run killed midway leaves at most such a hidden temporary file, never a cut-short report.
enum AtomicFile {
    struct WriteError: Error, CustomStringConvertible {
        var description: String
    }

    /// Writes `bytes` to `path`, creating missing folders. The file gets the permissions of
    /// `permissionsFrom` when given (a report replaced in place), else 0644 less the umask.
    static func write(_ bytes: [UInt8], to path: String, permissionsFrom original: String? = nil) throws {
        let folder = Path.deletingLastComponent(path)
        let name = Path.lastComponent(path)
        if !folder.isEmpty { try System.createDirectories(folder) }
        var template = Array(((folder.isEmpty ? "" : folder + "/") + "." + name + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw WriteError(description: String(cString: strerror(errno))) }
        let temporary = String(cString: template)
        var failure: String?
        var mode: mode_t = 0o644
        if let original {
            var info = stat()
            if stat(original, &info) == 0 { mode = info.st_mode & 0o7777 }
        } else {
            let mask = umask(0)
            umask(mask)
            mode &= ~mask
        }
        if fchmod(fd, mode) != 0 { failure = String(cString: strerror(errno)) }
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while failure == nil && offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                } else {
                    offset += n
                }
            }
        }
        if close(fd) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        if failure == nil, rename(temporary, path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw WriteError(description: failure)
        }
    }
}
