import CFetch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// One HTTP(S) download into a file, atomically: the body goes to a temporary file beside the
/// target (`.NAME.symbolicate-<pid>-XXXXXX`, removed on failure and on SIGINT, SIGTERM,
/// SIGHUP), renamed over the target once whole. Two runs downloading the same file each
/// write their own temporary file and the last rename wins; a reader never sees half a file.
///
/// A zstd-compressed body (see ``ServerFileWriter``) is inflated as it arrives: the target
/// holds the debug file, never the compressed bytes, and a body that cannot be inflated
/// whole leaves no file.
enum Download {
    /// How a download ended.
    enum Outcome: Equatable {
        /// The file is at the target path.
        case stored
        /// 404 or 410: the server does not have it.
        case notFound
        /// Another HTTP status of 400 or more.
        case httpError(status: Int)
        /// Larger than the limit.
        case tooLarge
        /// zstd-compressed, and it cannot be inflated (damaged, cut short, over the limit).
        case notInflated(ZstdInflater.Problem)
        /// No answer (connection refused or dropped, a stall, a TLS failure): the reason.
        case transport(String)
        /// libcurl cannot be loaded: the reason.
        case noLibrary(String)
        /// The file could not be written: the reason.
        case notStored(String)
    }

    /// What a download may take.
    struct Limits {
        /// The largest body accepted, in bytes; also the most a compressed body may inflate to.
        var maxBytes: Int
        /// Seconds to connect, and seconds without a byte received before giving up.
        var timeout: Int
    }

    /// GETs `url` into `path` (its folders made as needed).
    static func fetch(_ url: String, to path: String, limits: Limits) -> Outcome {
        /// The writer the C callback passes the body to.
        final class Sink {
            var write: (UnsafeRawBufferPointer) -> Bool
            init(_ write: @escaping (UnsafeRawBufferPointer) -> Bool) { self.write = write }
        }
        // nil until the transfer has run, and when the file could not be written.
        var received: Outcome?
        do {
            try AtomicFile.write(to: path) { write in withoutActuallyEscaping(write) { write in
                let writer = ServerFileWriter(limit: limits.maxBytes, write: write)
                let sink = Sink { writer.write($0) }
                var reason = [CChar](repeating: 0, count: 512)
                var status = 0
                let result = withExtendedLifetime(sink) {
                    url.withCString { cURL in
                        cfetch_http_get(cURL, Int64(limits.maxBytes), limits.timeout, limits.timeout, { bytes, count, context in
                            guard let bytes, let context else { return 0 }
                            let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
                            return sink.write(UnsafeRawBufferPointer(start: bytes, count: count)) ? 1 : 0
                        }, Unmanaged.passUnretained(sink).toOpaque(), &status, &reason, reason.count)
                    }
                }
                let message = String(cString: reason)
                switch Int(result) {
                case Int(CFETCH_OK): received = writer.finish() ? .stored : writer.problem.map { .notInflated($0) }
                case Int(CFETCH_HTTP_ERROR): received = status == 404 || status == 410 ? .notFound : .httpError(status: status)
                case Int(CFETCH_TOO_LARGE): received = .tooLarge
                case Int(CFETCH_NO_LIBRARY): received = .noLibrary(message)
                case Int(CFETCH_SINK_FAILED): received = writer.problem.map { .notInflated($0) }
                default: received = .transport(message.isEmpty ? "no answer" : message)
                }
                return received == .stored
            } }
            return .stored
        } catch {
            guard let received, received != .stored else { return .notStored("\(error)") }
            return received
        }
    }
}
