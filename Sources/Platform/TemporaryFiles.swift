#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The temporary files the process has open, removed whatever ends it: on a failure by their
/// writer, on SIGINT, SIGTERM or SIGHUP by a signal handler, and after a `kill -9` by the
/// next run (``removeStale(in:)``), which knows them by their name,
/// `.NAME.symbolicate-<pid>-XXXXXX`, and the process that made them being gone.
///
/// The signal handler may only call async-signal-safe functions: it walks a table of paths
/// allocated before any handler is installed, unlinks each one, and raises the signal again
/// with its default action, so that the process ends as the signal meant.
public enum TemporaryFiles {
    /// How many temporary files can be registered at once; more are still written, and left
    /// to the next run's clean-up if a signal comes.
    static let slotCount = 512
    static let slotSize = Int(PATH_MAX)

    private static let lock = Lock()
    private static var installed = false
    private static var cleanedFolders: Set<String> = []

    /// The infix of the names of our temporary files.
    static let marker = ".symbolicate-"

    /// The template for a temporary file beside `path`: `.NAME.symbolicate-<pid>-XXXXXX`, the
    /// name shortened (in bytes) so that the whole stays within a file name's 255 bytes.
    public static func template(for path: String) -> [UInt8] {
        let folder = Path.deletingLastComponent(path)
        let name = FileName.bytes(Path.lastComponent(path))
        var template = folder.isEmpty ? [] : FileName.bytes(folder) + (folder.hasSuffix("/") ? [] : [UInt8(ascii: "/")])
        template += [UInt8(ascii: ".")] + name.prefix(200) + Array("\(marker)\(getpid())-XXXXXX".utf8)
        return template
    }

    /// Records `path` (in file-system bytes) for removal on a signal; returns its slot, to
    /// give back with ``unregister(_:)``, or nil when the table is full.
    static func register(_ path: [UInt8]) -> Int? {
        guard path.count < slotSize else { return nil }
        return lock.withLock {
            installHandlers()
            for slot in 0..<slotCount where slots[slot * slotSize] == 0 {
                let entry = slots + slot * slotSize
                for (i, byte) in path.enumerated().dropFirst() { entry[i] = CChar(bitPattern: byte) }
                entry[path.count] = 0
                // The first byte last: the handler never sees a slot half written.
                entry[0] = CChar(bitPattern: path[0])
                return slot
            }
            return nil
        }
    }

    /// Lets SIGINT, SIGTERM and SIGHUP through if the parent process blocked them (its mask is
    /// inherited): a stop asked for is then honoured at once, temporaries removed, rather than
    /// held until the run ends. To be called before any thread is started, which inherit it.
    public static func unblockStopSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, signal) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Forgets the file of `slot`: it was renamed into place or removed.
    static func unregister(_ slot: Int?) {
        guard let slot else { return }
        lock.withLock { slots[slot * slotSize] = 0 }
    }

    private static func installHandlers() {
        guard !installed else { return }
        installed = true
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            var old = sigaction()
            sigaction(signal, nil, &old)
            #if canImport(Glibc)
            let handler = old.__sigaction_handler.sa_handler
            #else
            let handler = old.__sigaction_u.__sa_handler
            #endif
            let ignored = unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
            if ignored { continue }  // nohup: the signal is not to end the process
            setHandler(removeTemporariesAndRaise, for: signal)
        }
    }

    /// Removes our temporary files in `folder` whose process is gone (a run killed with
    /// SIGKILL, or by a crash, left them). Once per folder per run.
    public static func removeStale(in folder: String) {
        let key = folder.isEmpty ? "." : folder
        guard lock.withLock({ cleanedFolders.insert(key).inserted }) else { return }
        guard let stream = FileName.withCString(key, { opendir($0) }) else { return }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = Array(System.entryName(entry))
            guard let pid = ownerOfTemporary(name), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            let path = Path.join(key, FileName.decode(name))
            guard let info = System.status(path, followingLinks: false), System.isRegular(info),
                  info.st_uid == getuid() else { continue }
            _ = FileName.withCString(path) { unlink($0) }
        }
    }

    /// The process id in a name of the form `.NAME.symbolicate-<pid>-XXXXXX`; nil for any
    /// other name.
    static func ownerOfTemporary(_ name: [UInt8]) -> pid_t? {
        guard name.first == UInt8(ascii: "."), name.count > 7, name[name.count - 7] == UInt8(ascii: "-") else { return nil }
        let head = name.dropLast(7)
        let digitCount = head.reversed().prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }.count
        guard (1...10).contains(digitCount) else { return nil }
        let beforeDigits = head.dropLast(digitCount)
        let marker = Array(self.marker.utf8)
        guard beforeDigits.count > marker.count, beforeDigits.suffix(marker.count).elementsEqual(marker) else { return nil }
        return pid_t(String(decoding: head.suffix(digitCount), as: UTF8.self))
    }
}

/// The table of temporary paths the signal handler reads: allocated once, never freed.
private let slots: UnsafeMutablePointer<CChar> = {
    // calloc: zeroed pages the system gives on first touch, not 2 MB written now.
    let table = calloc(TemporaryFiles.slotCount, TemporaryFiles.slotSize)!
    return table.bindMemory(to: CChar.self, capacity: TemporaryFiles.slotCount * TemporaryFiles.slotSize)
}()

/// The handler of SIGINT, SIGTERM and SIGHUP: async-signal-safe calls only.
private func removeTemporariesAndRaise(_ signal: Int32) {
    let table = slots
    var slot = 0
    while slot < TemporaryFiles.slotCount {
        let entry = table + slot * TemporaryFiles.slotSize
        if entry[0] != 0 { unlink(entry) }
        slot += 1
    }
    setHandler(SIG_DFL, for: signal)
    raise(signal)
}

/// Sets the handler of `signal`, with no flags and nothing masked: async-signal-safe, so the
/// signal handler may call it too.
private func setHandler(_ handler: (@convention(c) (Int32) -> Void)?, for signal: Int32) {
    var action = sigaction()
    #if canImport(Glibc)
    action.__sigaction_handler.sa_handler = handler
    #else
    action.__sigaction_u.__sa_handler = handler
    #endif
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0
    sigaction(signal, &action, nil)
}
