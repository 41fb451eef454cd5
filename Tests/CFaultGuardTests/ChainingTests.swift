import Foundation
import TestSupport
import XCTest

/// A fault outside every guarded region goes to the handler installed before the guard, or
/// kills the process as it would have without the guard: checked in programs of their own,
/// built from the guard's source, since such a fault ends the process.
final class ChainingTests: XCTestCase {
    private static let program = #"""
    #include "CFaultGuard.h"
    #include <fcntl.h>
    #include <signal.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    #include <sys/mman.h>
    #include <unistd.h>

    static void previous(int signal, siginfo_t *info, void *context) {
        (void)signal; (void)info; (void)context;
        _exit(42);
    }

    int main(int argc, char **argv) {
        const char *mode = argv[1], *path = argv[2];
        alarm(10);  /* a fault answered again and again ends here, not in a hang */
        if (strcmp(mode, "chained") == 0) {
            struct sigaction action;
            memset(&action, 0, sizeof(action));
            action.sa_sigaction = previous;
            action.sa_flags = SA_SIGINFO;
            sigaction(SIGBUS, &action, NULL);
        }
        long page = sysconf(_SC_PAGESIZE);
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (ftruncate(fd, 4 * page) != 0) return 2;
        volatile char *guarded = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
        volatile char *unguarded = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
        int handle = cfg_register((const void *)guarded, 4 * page);
        if (ftruncate(fd, 0) != 0) return 2;
        char sum = guarded[3 * page];  /* answered: zeros */
        if (sum != 0 || !cfg_is_damaged(handle)) return 3;
        sum += unguarded[3 * page];    /* not ours */
        return 4 + sum;
    }
    """#

    private func run(_ mode: String) throws -> Int32 {
        let gcc = "/usr/bin/gcc"
        guard FileManager.default.isExecutableFile(atPath: gcc) else { throw XCTSkip("gcc is not installed at \(gcc)") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("chaining-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("main.c").path, binary = dir.appendingPathComponent("main").path
        try Self.program.write(toFile: source, atomically: true, encoding: .utf8)
        let guardSource = TestPaths.packageRoot.appendingPathComponent("Sources/CFaultGuard")
        let built = try runProcess(gcc, ["-O1", "-I", guardSource.appendingPathComponent("include").path, source,
                                         guardSource.appendingPathComponent("faultguard.c").path, "-lpthread", "-o", binary])
        guard built.status == 0 else { throw XCTSkip("cannot build the test program: \(built.stderrText)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [mode, dir.appendingPathComponent("mapped").path]
        try process.run()
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
    }

    func testAFaultElsewhereGoesToThePreviousHandler() throws {
        XCTAssertEqual(try run("chained"), 42)
    }

    func testAFaultElsewhereWithoutAPreviousHandlerKillsTheProcess() throws {
        XCTAssertEqual(try run("alone"), -SIGBUS)
    }
}
