import Foundation

/// Where the tests find their material: the package itself, the fixtures built by
/// `Fixtures/build.sh`, the shared corpus beside the clone, and the oracle tools.
public enum TestPaths {
    /// The package root (the folder holding Package.swift).
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// `../shared/corpus`, present in CI, absent in a user's clone.
    public static var corpus: URL? {
        let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// `Fixtures/build`, made by `Fixtures/build.sh` (which `make test` runs first).
    public static var fixtures: URL? {
        let url = packageRoot.appendingPathComponent("Fixtures/build")
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("manifest.txt").path) ? url : nil
    }

    public static let corpusAbsent = "the shared corpus (../shared/corpus) is absent: tests that need it are skipped"
    public static let fixturesAbsent = "Fixtures/build is absent: run Fixtures/build.sh (make test does) to build the fixtures"

    /// The oracle: LLVM 21's llvm-symbolizer from the Swift toolchain when present, else the one on PATH.
    public static var llvmSymbolizer: String? {
        for candidate in ["/opt/swift/usr/bin/llvm-symbolizer", "/usr/bin/llvm-symbolizer"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return nil
    }

    /// A tool of Debian's LLVM 19 (`llvm-symbolizer`, `llvm-cxxfilt`, ...): the release whose
    /// demangler library the program links, so that names must agree with it byte for byte.
    public static func llvm19(_ tool: String) -> String? {
        ["/usr/bin/\(tool)-19", "/usr/lib/llvm-19/bin/\(tool)"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The built `symbolicate` executable (the one `swift test` just built).
    public static var symbolicateBinary: URL {
        let build = packageRoot.appendingPathComponent(".build")
        for configuration in ["debug", "release"] {
            let url = build.appendingPathComponent(configuration).appendingPathComponent("symbolicate")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return build.appendingPathComponent("debug/symbolicate")
    }
}

/// The result of running a program to completion.
public struct ProcessResult {
    public var status: Int32
    public var stdout: Data
    public var stderr: Data
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

/// Runs `executable` with `arguments`, feeding `input` on stdin; collects both outputs.
public func runProcess(_ executable: String, _ arguments: [String], input: Data? = nil,
                environment: [String: String]? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let stdinPipe = Pipe(), stdoutPipe = Pipe(), stderrPipe = Pipe()
    process.standardInput = stdinPipe
    process.standardOutput = stdoutPipe
    process.standardError = stderrPipe
    try process.run()
    let group = DispatchGroup()
    final class Box: @unchecked Sendable { var data = Data() }
    let errors = Box()
    DispatchQueue.global().async(group: group) {
        if let input { stdinPipe.fileHandleForWriting.write(input) }
        try? stdinPipe.fileHandleForWriting.close()
    }
    DispatchQueue.global().async(group: group) {
        errors.data = stderrPipe.fileHandleForReading.readDataToEndOfFile()
    }
    let outData = stdoutPipe.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, stdout: outData, stderr: errors.data)
}
