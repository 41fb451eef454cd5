import Foundation
import TestSupport
import XCTest

// Real servers on 127.0.0.1 for the tests of debug files from servers: Debian's debuginfod
// over a folder of ELF files, Python's http.server over a folder laid out as a symbol server,
// and small Python servers that misbehave on purpose (drop every connection, never answer,
// answer every request with one status). Each is stopped when the test ends.

/// A server process on a loopback port, stopped (SIGTERM, then SIGKILL) by ``stop()``.
final class LoopbackServer {
    let port: Int
    let process: Process
    /// The file its stderr goes to (http.server logs each request there).
    let log: URL

    var url: String { "http://127.0.0.1:\(port)" }

    private init(port: Int, process: Process, log: URL) {
        self.port = port
        self.process = process
        self.log = log
    }

    /// Starts `executable ARGUMENTS` (which is to listen on `port`) and waits until a
    /// connection to the port succeeds.
    static func start(_ executable: String, _ arguments: [String], port: Int, in dir: URL,
                      file: StaticString = #filePath, line: UInt = #line) throws -> LoopbackServer {
        let log = dir.appendingPathComponent("server-\(port).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let server = LoopbackServer(port: port, process: process, log: log)
        let deadline = Date().addingTimeInterval(30)
        while !Loopback.canConnect(port: port) {
            guard process.isRunning, Date() < deadline else {
                server.stop()
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                throw FixtureError("\(executable) did not listen on 127.0.0.1:\(port): \(text)")
            }
            usleep(50_000)
        }
        return server
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// What the server wrote to stdout and stderr so far.
    var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    deinit { stop() }
}

enum Loopback {
    /// Debian's Python (not a version manager's shim, which is slow to start).
    static var python: String {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
    }

    /// A port no one listens on now (the kernel's choice for a socket bound to port 0).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FixtureError("socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw FixtureError("bind: \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func connect(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { close(fd); return nil }
        return fd
    }

    static func canConnect(port: Int) -> Bool {
        guard let fd = connect(port: port) else { return false }
        close(fd)
        return true
    }

    /// `GET path` on 127.0.0.1:port (HTTP/1.0): the status and the body; nil when there is no
    /// answer within 10 seconds.
    static func get(port: Int, _ path: String) -> (status: Int, body: String)? {
        guard let fd = connect(port: port) else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard write(fd, request, request.count) == request.count else { return nil }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count < 0 { return nil }
            if count == 0 { break }
            response += buffer[0..<count]
        }
        let text = String(decoding: response, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let statusLine = parts.first?.components(separatedBy: "\r\n").first ?? ""
        let fields = statusLine.split(separator: " ")
        guard fields.count >= 2, let status = Int(fields[1]) else { return nil }
        return (status, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// A Python server on `port` that misbehaves: `drop` closes every connection once it
    /// has read the request, `hang` accepts and never answers, `status:N` answers N to
    /// every GET. Requests are logged, one line each, to its stderr.
    static func misbehaving(_ mode: String, port: Int, in dir: URL) throws -> LoopbackServer {
        let script = dir.appendingPathComponent("misbehaving.py")
        try """
        import socket, sys, threading, time
        mode, port = sys.argv[1], int(sys.argv[2])
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", port))
        server.listen(64)
        held = []
        def serve(connection):
            request = b""
            while b"\\r\\n\\r\\n" not in request:
                chunk = connection.recv(4096)
                if not chunk:
                    break
                request += chunk
            sys.stderr.write(request.split(b"\\r\\n")[0].decode("latin-1") + "\\n")
            sys.stderr.flush()
            if mode == "drop":
                connection.close()
            elif mode.startswith("status:"):
                code = mode.split(":")[1]
                connection.sendall(("HTTP/1.1 %s Oops\\r\\nContent-Length: 5\\r\\nConnection: close\\r\\n\\r\\noops\\n" % code).encode())
                connection.close()
            else:
                held.append(connection)
        deadline = time.time() + 300
        while time.time() < deadline:
            connection, _ = server.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()
        """.write(to: script, atomically: true, encoding: .utf8)
        return try LoopbackServer.start(python, ["-u", script.path, mode, String(port)], port: port, in: dir)
    }

    /// Python's http.server over `directory` on `port`; it logs each request to stderr.
    static func httpServer(over directory: URL, port: Int, in dir: URL) throws -> LoopbackServer {
        try LoopbackServer.start(python, ["-u", "-m", "http.server", "--bind", "127.0.0.1", String(port),
                                          "--directory", directory.path], port: port, in: dir)
    }
}

extension LoopbackServer {
    /// The requests http.server or a misbehaving server logged for paths containing `text`.
    func requests(containing text: String) -> [String] {
        logText.split(separator: "\n").map(String.init).filter { $0.contains("GET ") && $0.contains(text) }
    }
}

/// Runs the tool with `arguments` in ``CLI/environment`` changed by `changes` (a nil value
/// removes the variable), under a time limit that only a hang reaches (300 s).
func runTool(_ arguments: [String], _ changes: [String: String?], file: StaticString = #filePath,
             line: UInt = #line) throws -> ProcessResult {
    var environment = CLI.environment
    environment["DEBUGINFOD_URLS"] = nil
    for (key, value) in changes { environment[key] = value }
    return try runProcess("/usr/bin/timeout", ["-k", "5", "300", try CLI.binary(file: file, line: line)] + arguments,
                          environment: environment)
}
