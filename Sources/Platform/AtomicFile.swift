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

    /// Writes `bytes` to `path`; see ``write(to:temporary:permissionsFrom:below:_:)``.
    public static func write(_ bytes: [UInt8], to path: String, temporary: String? = nil,
                             permissionsFrom original: String? = nil, below root: String? = nil) throws {
        try write(to: path, temporary: temporary, permissionsFrom: original, below: root) { out in
            bytes.withUnsafeBytes { out($0) }
        }
    }

    /// Creates the missing folders of `path`, lets `body` write the content through the
    /// function it is given (which returns false once a write fails), and renames the result
    /// over `path`. The temporary file is removed on every failure, and on SIGINT, SIGTERM
    /// and SIGHUP (see ``TemporaryFiles``); the temporaries a killed run left in the folder
    /// are removed first.
    ///
    /// - Parameters:
    ///   - temporary: the temporary file's path; by default `.NAME.symbolicate-<pid>-XXXXXX`,
    ///     hidden, beside `path`.
    ///   - original: a file whose permissions the result takes (a report replaced in place);
    ///     by default 0644 less the umask.
    ///   - root: an existing folder `path` is under, from which folders are created without
    ///     following symbolic links (the output folder of `-o`).
    public static func write(to path: String, temporary: String? = nil, permissionsFrom original: String? = nil,
                             below root: String? = nil,
                             _ body: ((UnsafeRawBufferPointer) -> Bool) -> Bool) throws {
        let folder = Path.deletingLastComponent(path)
        do {
            if let root {
                try System.createDirectories(folder.isEmpty ? root : folder, below: root)
            } else if !folder.isEmpty {
                try System.createDirectories(folder)
            }
        } catch {
            throw WriteError(description: "\(error)")
        }
        if temporary == nil { TemporaryFiles.removeStale(in: folder) }
        let (fd, temporaryPath, slot) = try create(path, temporary)
        var failure: String?
        var mode: mode_t = 0o644
        if let original {
            if let info = System.status(original) { mode = info.st_mode & 0o7777 }
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
        if failure == nil, rename(temporaryPath, FileName.bytes(path)) != 0 { failure = reason() }
        if failure != nil { unlink(temporaryPath) }
        TemporaryFiles.unregister(slot)
        if let failure { throw WriteError(description: "\(path): \(failure)") }
    }

    private static func rename(_ from: [CChar], _ to: [UInt8]) -> Int32 {
        let target = to.map { CChar(bitPattern: $0) } + [0]
        #if canImport(Glibc)
        return Glibc.rename(from, target)
        #else
        return Darwin.rename(from, target)
        #endif
    }

    /// The open temporary file, its path as the system spells it, and its slot in the table
    /// of files removed on a signal. The path is registered before the file is made, so that
    /// no signal finds a file not yet in the table (mkstemp would leave that moment open).
    private static func create(_ path: String, _ temporary: String?) throws -> (Int32, [CChar], Int?) {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
        for _ in 0..<100 {
            var name: [UInt8]
            if let temporary {
                name = FileName.bytes(temporary)
            } else {
                name = TemporaryFiles.template(for: path)
                for i in (name.count - 6)..<name.count { name[i] = letters.randomElement()! }
            }
            let slot = TemporaryFiles.register(name)
            let cName = name.map { CChar(bitPattern: $0) } + [0]
            let fd = open(cName, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 { return (fd, cName, slot) }
            let code = errno
            TemporaryFiles.unregister(slot)
            if code != EEXIST || temporary != nil {
                throw WriteError(description: "\(temporary ?? path): \(String(cString: strerror(code)))")
            }
        }
        throw WriteError(description: "\(path): no free temporary file name")
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
