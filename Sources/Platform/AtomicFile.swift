#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file so that no reader ever sees it half written: the bytes go to a temporary
/// file in the same folder, which is then renamed over the target. A run killed midway leaves
/// at most the temporary file, never a cut-short target. Used for reports written with `-o` or
/// in place, and for the identity and index caches.
public enum AtomicFile {
    /// What went wrong: the file and the system's reason.
    public struct WriteError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Writes `bytes` to `path`; see ``write(to:temporary:permissionsFrom:_:)``.
    public static func write(_ bytes: [UInt8], to path: String, temporary: String? = nil,
                             permissionsFrom original: String? = nil) throws {
        try write(to: path, temporary: temporary, permissionsFrom: original) { out in
            bytes.withUnsafeBytes { out($0) }
        }
    }

    /// Creates the missing folders of `path`, lets `body` write the content through the
    /// function it is given (which returns false once a write fails), and renames the result
    /// over `path`.
    ///
    /// - Parameters:
    ///   - temporary: the temporary file's path; by default `.NAME.XXXXXX`, hidden, beside `path`.
    ///   - original: a file whose permissions the result takes (a report replaced in place);
    ///     by default 0644 less the umask.
    public static func write(to path: String, temporary: String? = nil, permissionsFrom original: String? = nil,
                             _ body: ((UnsafeRawBufferPointer) -> Bool) -> Bool) throws {
        let folder = Path.deletingLastComponent(path)
        if !folder.isEmpty {
            do {
                try System.createDirectories(folder)
            } catch {
                throw WriteError(description: "\(error)")
            }
        }
        let (fd, temporaryPath) = try create(path, temporary)
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
        if fchmod(fd, mode) != 0 { failure = reason() }
        if failure == nil {
            let written = body { bytes in System.writeAll(fd, bytes) }
            if !written { failure = reason() }
        }
        if close(fd) != 0, failure == nil { failure = reason() }
        if failure == nil, rename(temporaryPath, path) != 0 { failure = reason() }
        if let failure {
            unlink(temporaryPath)
            throw WriteError(description: "\(path): \(failure)")
        }
    }

    private static func create(_ path: String, _ temporary: String?) throws -> (Int32, String) {
        if let temporary {
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw WriteError(description: "\(temporary): \(reason())") }
            return (fd, temporary)
        }
        let folder = Path.deletingLastComponent(path)
        var template = Array(((folder.isEmpty ? "" : folder + "/") + "." + Path.lastComponent(path) + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw WriteError(description: "\(path): \(reason())") }
        return (fd, String(cString: template))
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
