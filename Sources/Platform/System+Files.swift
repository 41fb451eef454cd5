#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files: their status, reading them whole, making folders. Every path goes to the system
/// through ``FileName/withCString(_:_:)``, so that names that are not UTF-8 are the file
/// system's own.
extension System {
    /// The name of a directory entry `readdir` gave, its bytes where they lie (valid until
    /// the next `readdir` or `closedir` of the stream). The name is read up to its NUL: a
    /// record holds only as much of `d_name` as the name needs, so copying the whole
    /// 256-byte field reads past the record, and past the end of the buffer for the last one.
    public static func entryName(_ entry: UnsafeMutablePointer<dirent>) -> UnsafeBufferPointer<UInt8> {
        let name = (UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
        return UnsafeBufferPointer(start: name.assumingMemoryBound(to: UInt8.self),
                                   count: strlen(name.assumingMemoryBound(to: CChar.self)))
    }

    /// The most a report is read to, by default: a stream such as `/dev/zero` would
    /// otherwise be read until memory runs out.
    public static let defaultReadLimit = 1 << 30

    /// What `stat` (or `lstat`, when not `followingLinks`) says of `path`; nil with `errno`
    /// set when it fails.
    public static func status(_ path: String, followingLinks: Bool = true) -> stat? {
        var info = stat()
        let result = FileName.withCString(path) { followingLinks ? stat($0, &info) : lstat($0, &info) }
        return result == 0 ? info : nil
    }

    /// Whether `path` names a directory (following links).
    public static func isDirectory(_ path: String) -> Bool {
        status(path).map { $0.st_mode & S_IFMT == S_IFDIR } ?? false
    }

    /// Whether `info` is that of a regular file.
    public static func isRegular(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFREG }

    /// A word for what `info` is, for messages about files that are not regular.
    public static func kind(of info: stat) -> String {
        switch info.st_mode & S_IFMT {
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        case S_IFLNK: return "a symbolic link"
        default: return "not a regular file"
        }
    }

    /// Whether `path`, whose status is `info`, is a place whose files are not files to read
    /// as debug files: under `/proc`, `/sys` or `/dev` as spelled or once the links of its
    /// folder are resolved, or on the file system mounted there (a link to one of its files),
    /// whose "files" are the kernel's live state.
    public static func isSystemPseudoFile(_ path: String, _ info: stat) -> Bool {
        if pseudoFileSystemDevices.contains(UInt64(info.st_dev)) || isUnderSystemFolder(path) { return true }
        let folder = Path.deletingLastComponent(path)
        guard let resolved = FileName.withCString(folder.isEmpty ? "." : folder, { realpath($0, nil) }) else { return false }
        defer { free(resolved) }
        return isUnderSystemFolder(String(cString: resolved))
    }

    private static func isUnderSystemFolder(_ path: String) -> Bool {
        ["/proc", "/sys", "/dev"].contains { path == $0 || path.hasPrefix($0 + "/") }
    }

    /// The devices of the kernel's pseudo file systems at their usual mount points.
    private static let pseudoFileSystemDevices: Set<UInt64> = {
        let mountPoints = ["/proc", "/sys", "/dev", "/dev/pts", "/dev/shm", "/sys/kernel/debug", "/sys/kernel/tracing",
                           "/sys/kernel/security", "/sys/fs/cgroup"]
        // Where one is not a mount point of its own, its device is the root's: not pseudo.
        let root = status("/").map { UInt64($0.st_dev) }
        return Set(mountPoints.compactMap { status($0).map { UInt64($0.st_dev) } }.filter { $0 != root })
    }()

    /// A look at the first block of a file before the rest is read: the block (all of the
    /// file when `whole`), and the reason to refuse the file, or nil to read on.
    public typealias FirstBlockCheck = (_ block: UnsafeRawBufferPointer, _ whole: Bool) -> String?

    /// The whole content of the file at `path`, read with `read(2)` into one array of its
    /// exact size (for reports: cheaper than mapping them). The error names the reason only.
    ///
    /// The file is opened without blocking (a FIFO without a writer would block the open)
    /// and then checked: a directory is refused; a FIFO, device or socket is refused unless
    /// `streams` (a report named on the command line may be `<(cat x.crash)`), and is then
    /// read until its end. More than `limit` bytes is an error, not an exhausted memory.
    /// With `check`, the first `firstBlock` bytes (or all, when there are fewer) are read
    /// first and handed to it: a reason it gives is the error, and no more is read, so that
    /// an endless device that is no text costs one block, not the limit.
    public static func readFile(_ path: String, limit: Int = defaultReadLimit, streams: Bool = false,
                                firstBlock: Int = 1 << 16, check: FirstBlockCheck? = nil) throws(SystemError) -> [UInt8] {
        let fd = FileName.withCString(path) { open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { throw SystemError(operation: "open", code: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemError(operation: "stat", code: errno) }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            throw SystemError(operation: "read", code: EISDIR)
        case S_IFREG:
            guard info.st_size <= limit else { throw SystemError.tooLarge(limit) }
        default:
            guard streams else {
                throw SystemError(operation: "read", code: EINVAL, detail: "\(kind(of: info)), not a regular file")
            }
        }
        // Reads block from here on: a pipe's writer may be slow.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return try readAll(fd, expected: System.isRegular(info) ? Int(info.st_size) : 0, limit: limit,
                           firstBlock: firstBlock, check: check)
    }

    /// Everything on standard input, until its end; more than `limit` bytes is an error. A
    /// regular file (`< report.crash`) is read into an array of its size; `check` is as for
    /// ``readFile(_:limit:streams:firstBlock:check:)``.
    public static func readStandardInput(limit: Int = defaultReadLimit, firstBlock: Int = 1 << 16,
                                         check: FirstBlockCheck? = nil) throws(SystemError) -> [UInt8] {
        var info = stat()
        var expected = 0
        if fstat(STDIN_FILENO, &info) == 0 && isRegular(info) {
            // From the current offset: the shell may have read part of it already.
            let offset = lseek(STDIN_FILENO, 0, SEEK_CUR)
            let size = Int(info.st_size) - (offset > 0 ? Int(offset) : 0)
            guard size <= limit else { throw SystemError.tooLarge(limit) }
            expected = max(0, size)
        }
        return try readAll(STDIN_FILENO, expected: expected, limit: limit, firstBlock: firstBlock, check: check)
    }

    /// Reads `fd` to its end: first `expected` bytes into an array of that size, then (the
    /// file grew, or its size is unknown) in chunks. With `check`, the first `firstBlock`
    /// bytes are looked at as soon as they are read, before any more is.
    private static func readAll(_ fd: Int32, expected: Int, limit: Int, firstBlock: Int,
                                check: FirstBlockCheck?) throws(SystemError) -> [UInt8] {
        var failure: Int32 = 0
        var refusal: String?
        var checked = check == nil
        /// Hands the first block of `bytes` to `check` once; true when the file is refused.
        func refused(_ bytes: UnsafeRawBufferPointer, whole: Bool) -> Bool {
            guard !checked, let check else { return false }
            checked = true
            refusal = check(UnsafeRawBufferPointer(rebasing: bytes.prefix(firstBlock)), whole && bytes.count <= firstBlock)
            return refusal != nil
        }
        var result = [UInt8](unsafeUninitializedCapacity: expected) { buffer, count in
            count = 0
            while count < expected {
                // The first block alone first, so that it is looked at before the rest is read.
                let end = checked ? expected : min(expected, firstBlock)
                let n = read(fd, buffer.baseAddress! + count, end - count)
                if n < 0 && errno == EINTR { continue }
                if n < 0 { failure = errno }
                if n <= 0 { break }
                count += n
                if count == end, !checked,
                   refused(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count), whole: count == expected) { break }
            }
        }
        if failure != 0 { throw SystemError(operation: "read", code: failure) }
        if let refusal { throw SystemError.refused(refusal) }
        if result.count < expected {  // the file shrank
            if result.withUnsafeBytes({ refused($0, whole: true) }), let refusal { throw SystemError.refused(refusal) }
            return result
        }
        // The rest (a stream, or a file that grew) is read in chunks of 1 MiB, put together
        // at the end into an array of the exact size, each chunk let go once copied: reading
        // costs the content and a chunk, not the old and the new buffer of an array that
        // doubles as it grows.
        let chunkSize = max(1 << 20, firstBlock)
        func newChunk() -> [UInt8] { [UInt8](unsafeUninitializedCapacity: chunkSize) { $1 = chunkSize } }
        var chunks: [[UInt8]] = []
        var chunk: [UInt8]
        var filled = 0
        var total = result.count
        if expected > 0 {
            // A regular file read whole is at its end: one byte read says so, without a chunk.
            var byte: UInt8 = 0
            var n: Int
            repeat { n = read(fd, &byte, 1) } while n < 0 && errno == EINTR
            if n < 0 { throw SystemError(operation: "read", code: errno) }
            if n == 0 { return result }
            guard total < limit else { throw SystemError.tooLarge(limit) }
            chunk = newChunk()
            chunk[0] = byte
            filled = 1
            total += 1
        } else {
            chunk = newChunk()
        }
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, chunkSize - filled) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw SystemError(operation: "read", code: errno) }
            if n == 0 { break }
            guard total + n <= limit else {
                // What is there of the first block still says whether it is no text at all.
                if result.isEmpty && chunks.isEmpty,
                   chunk.withUnsafeBytes({ refused(UnsafeRawBufferPointer(rebasing: $0[0..<filled]), whole: false) }),
                   let refusal { throw SystemError.refused(refusal) }
                throw SystemError.tooLarge(limit)
            }
            filled += n
            total += n
            // Unchecked means nothing came before: the first block is at the start of this chunk.
            if !checked && filled >= firstBlock,
               chunk.withUnsafeBytes({ refused(UnsafeRawBufferPointer(rebasing: $0[0..<filled]), whole: false) }),
               let refusal { throw SystemError.refused(refusal) }
            if filled == chunkSize {
                chunks.append(chunk)
                chunk = newChunk()
                filled = 0
            }
        }
        if !checked, chunk.withUnsafeBytes({ refused(UnsafeRawBufferPointer(rebasing: $0[0..<filled]), whole: true) }),
           let refusal { throw SystemError.refused(refusal) }
        if total == result.count { return result }
        return [UInt8](unsafeUninitializedCapacity: total) { buffer, count in
            count = 0
            func copy(_ bytes: UnsafeBufferPointer<UInt8>) {
                _ = UnsafeMutableBufferPointer(rebasing: buffer[count..<count + bytes.count]).initialize(from: bytes)
                count += bytes.count
            }
            result.withUnsafeBufferPointer { copy($0) }
            result = []
            for i in chunks.indices {
                chunks[i].withUnsafeBufferPointer { copy($0) }
                chunks[i] = []
            }
            chunk.withUnsafeBufferPointer { copy(UnsafeBufferPointer(rebasing: $0[0..<filled])) }
        }
    }

    /// Creates `path` and any missing parent folders.
    public static func createDirectories(_ path: String) throws(SystemError) {
        if path.isEmpty || isDirectory(path) { return }
        let parent = Path.deletingLastComponent(path)
        if parent != path { try createDirectories(parent) }
        if FileName.withCString(path, { mkdir($0, 0o777) }) != 0 && errno != EEXIST {
            throw SystemError(operation: "cannot create \(path)", code: errno)
        }
    }

    /// Creates the folders of `path` below `root` (which must exist) one component at a
    /// time, following no symbolic link: a link planted in the tree cannot make the tool
    /// write outside it. `path` must be `root` or a path under it.
    public static func createDirectories(_ path: String, below root: String) throws(SystemError) {
        var current = root
        let rest = path.dropFirst(root.count)
        for component in rest.split(separator: "/") where component != "." {
            guard component != ".." else {
                throw SystemError(operation: "cannot create \(path)", code: EINVAL, detail: "'..' in an output path")
            }
            current = Path.join(current, String(component))
            if let info = status(current, followingLinks: false) {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    throw SystemError(operation: "cannot create \(path)", code: ENOTDIR,
                                      detail: "\(current) is \(kind(of: info)), not a folder (links are not followed)")
                }
                continue
            }
            if FileName.withCString(current, { mkdir($0, 0o777) }) != 0 && errno != EEXIST {
                throw SystemError(operation: "cannot create \(current)", code: errno)
            }
        }
    }
}

extension SystemError {
    /// A file refused for what its first block holds, with the reason a check gave.
    static func refused(_ reason: String) -> SystemError {
        SystemError(operation: "read", code: EINVAL, detail: reason)
    }

    /// More than `limit` bytes to read.
    static func tooLarge(_ limit: Int) -> SystemError {
        SystemError(operation: "read", code: EFBIG, detail: "larger than the limit of \(System.describeSize(limit))")
    }
}

extension System {
    /// `1 GiB`, `512 MiB`, `4096 bytes`: a size in the largest binary unit that divides it.
    public static func describeSize(_ bytes: Int) -> String {
        for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] where bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return "\(bytes >> shift) \(unit)"
        }
        return "\(bytes) bytes"
    }
}
