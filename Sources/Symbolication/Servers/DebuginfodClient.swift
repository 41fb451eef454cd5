import CFetch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Requests to debuginfod servers (the elfutils protocol Linux distributions run) through
/// libdebuginfod, which does the work as gdb and the elfutils tools do: it reads the servers
/// from `DEBUGINFOD_URLS` (space-separated, asked together, the first that has the file
/// wins), keeps what it downloads (and what no server has, for a while) in
/// `DEBUGINFOD_CACHE_PATH` (default `~/.cache/debuginfod_client`), and gives up on a server
/// after `DEBUGINFOD_TIMEOUT` seconds (default 90) without progress.
///
/// The library is loaded when the first build-id is asked for, never in a run that names no
/// server.
public final class DebuginfodClient: @unchecked Sendable {
    /// What a request gave.
    enum Answer: Equatable {
        /// The debug file, at this path in the client's cache.
        case found(String)
        /// No server has it.
        case missing
        /// The servers could not be asked: the reason and the server it was about, if known.
        case failed(reason: String, url: String?)
    }

    /// The servers `DEBUGINFOD_URLS` names in `environment`; empty when it is unset or blank.
    public static func urls(environment: [String: String]) -> [String] {
        (environment["DEBUGINFOD_URLS"] ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
            .map(String.init)
    }

    /// Makes `urls` the servers of this process's requests (in `DEBUGINFOD_URLS`, which
    /// libdebuginfod reads). To be called before any thread starts.
    public static func use(urls: [String]) {
        setenv("DEBUGINFOD_URLS", urls.joined(separator: " "), 1)
    }

    /// Loads libdebuginfod; the reason when it cannot be.
    static func open() -> String? {
        var message = [CChar](repeating: 0, count: 512)
        return cfetch_debuginfod_open(&message, message.count) == 0 ? nil : String(cString: message)
    }

    /// Asks the servers for the debug file of `buildID`. ``open()`` must have succeeded.
    static func find(buildID: String) -> Answer {
        var path: UnsafeMutablePointer<CChar>?
        var url = [CChar](repeating: 0, count: 1024)
        let code = buildID.withCString { cfetch_debuginfod_find($0, &path, &url, url.count) }
        defer { free(path) }
        if code == 0, let path { return .found(String(cString: path)) }
        if code == -ENOENT { return .missing }
        let server = String(cString: url)
        return .failed(reason: reason(-code), url: server.isEmpty ? nil : server)
    }

    /// Words for the errno values libdebuginfod gives, which name a curl failure.
    private static func reason(_ code: Int32) -> String {
        switch code {
        case ETIME, ETIMEDOUT: return "no answer within DEBUGINFOD_TIMEOUT"
        case ECONNREFUSED: return "connection refused"
        case EHOSTUNREACH, ENETUNREACH: return "no route to the server"
        case EFBIG: return "larger than DEBUGINFOD_MAXSIZE"
        default: return String(cString: strerror(code))
        }
    }
}
