@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

/// riscv64 (ELF `e_machine` 243) on real objects: the fixtures' Android library
/// (`--target=riscv64-linux-android35`) and a library built here for riscv64-linux-gnu.
final class RiscV64Tests: XCTestCase {
    func testTheArchitectureIsNamedFromTheELFHeader() throws {
        XCTAssertEqual(Architecture(elfMachine: 243, is64Bit: true)?.name, "riscv64")
        XCTAssertNil(Architecture(elfMachine: 243, is64Bit: false), "riscv32 is not riscv64")
        XCTAssertEqual(Architecture(name: "RISCV64"), Architecture(elfMachine: 243, is64Bit: true))
        XCTAssertEqual(Architecture(name: "riscv64")?.family, .riscv)
        XCTAssertNil(Architecture(name: "riscv64")?.machO, "no Mach-O cputype")
        // The smallest instruction (the C extension's) is 2 bytes, as the sanitizers step back.
        XCTAssertEqual(Architecture(name: "riscv64")?.callSite(ofReturnAddress: 0x1006), 0x1004)
    }

    func testTheAndroidLibraryIsRiscV64() throws {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        let files = try DebugFile.identify(path: fixtures.appendingPathComponent("android/riscv64/libcrashy.so").path)
        XCTAssertEqual(files.map(\.architecture?.name), ["riscv64"])
        XCTAssertNotNil(files.first?.identifier)
    }

    /// A library built for riscv64-linux-gnu: named riscv64, and its symbols keep their values
    /// (no Thumb bit to clear): each function's start resolves to itself.
    func testALinuxLibraryResolvesAtItsFunctionsStarts() throws {
        let clang = "/opt/swift/usr/bin/clang"
        guard FileManager.default.isExecutableFile(atPath: clang) else { throw XCTSkip("no clang at \(clang)") }
        let dir = NSTemporaryDirectory() + "riscv64-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = dir + "/lib.c", library = dir + "/libtriple.so"
        try """
            static inline int twice(int x) { return x * 2; }
            int triple(int x) { return twice(x) + x; }
            int sum(const int *xs, int n) { int s = 0; for (int i = 0; i < n; i++) s += triple(xs[i]); return s; }
            """.write(toFile: source, atomically: true, encoding: .utf8)
        let build = try runProcess(clang, ["--target=riscv64-linux-gnu", "-shared", "-nostdlib", "-ffreestanding", "-fPIC",
                                           "-fuse-ld=lld", "-Wl,--build-id=sha1", "-g", "-O1", source, "-o", library])
        guard build.status == 0 else { throw XCTSkip("clang --target=riscv64-linux-gnu: \(build.stderrText)") }
        let files = try DebugFile.identify(path: library)
        XCTAssertEqual(files.map(\.architecture?.name), ["riscv64"])
        let file = try XCTUnwrap(files.first)
        XCTAssertTrue(file.hasDWARF)
        let index = try SymbolIndex.build(file)
        let nm = try runProcess("/opt/swift/usr/bin/llvm-nm", ["--defined-only", library]).stdoutText
        var checked = 0
        for line in nm.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[1] == "T", let address = UInt64(fields[0], radix: 16) else { continue }
            XCTAssertEqual(index.lookup(address).last?.function, String(fields[2]), "at 0x\(String(address, radix: 16))")
            checked += 1
        }
        XCTAssertEqual(checked, 2)
    }
}
