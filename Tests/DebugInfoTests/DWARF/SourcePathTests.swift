@testable import DebugInfo
import XCTest

/// ``SourcePath`` joins a line-table file entry as LLVM's
/// `DWARFDebugLine::Prologue::getFileNameByIndex` (AbsoluteFilePath) does; OracleTests checks the
/// same against llvm-symbolizer on real files (glibc's, the relative-compdir fixtures).
final class SourcePathTests: XCTestCase {
    private func joined(_ name: String, dir: UInt64, _ include: [String], compDir: String, version: Int) -> String {
        SourcePath.joined(name: name, directoryIndex: dir, includeDirectories: include, compilationDirectory: compDir,
                          lineTableVersion: version)
    }

    func testDWARF5DirectoryZeroIsTheCompilationDirectory() {
        // glibc: -fdebug-prefix-map=$PWD=. leaves a relative DW_AT_comp_dir, repeated as entry 0.
        let include = ["./nptl", "../sysdeps/unix/sysv/linux"]
        XCTAssertEqual(joined("pthread_kill.c", dir: 0, include, compDir: "./nptl", version: 5), "./nptl/pthread_kill.c")
        XCTAssertEqual(joined("internal-signals.h", dir: 1, include, compDir: "./nptl", version: 5),
                       "./nptl/../sysdeps/unix/sysv/linux/internal-signals.h")
        // The usual absolute case, and a name that carries its own directories (clang).
        XCTAssertEqual(joined("app/main.c", dir: 0, ["/src"], compDir: "/src", version: 5), "/src/app/main.c")
        XCTAssertEqual(joined("platform.h", dir: 1, ["/src", "app"], compDir: "/src", version: 5), "/src/app/platform.h")
        // Entry 0 is used as it is, even when it differs from DW_AT_comp_dir.
        XCTAssertEqual(joined("a.c", dir: 0, ["/elsewhere"], compDir: "/src", version: 5), "/elsewhere/a.c")
        XCTAssertEqual(joined("a.c", dir: 0, ["rel"], compDir: "/src", version: 5), "rel/a.c")
    }

    func testDWARF2To4NumberDirectoriesFromOne() {
        XCTAssertEqual(joined("main.c", dir: 0, ["app"], compDir: "/src", version: 4), "/src/main.c")
        XCTAssertEqual(joined("checksum.h", dir: 1, ["app"], compDir: "/src", version: 4), "/src/app/checksum.h")
        XCTAssertEqual(joined("stdio.h", dir: 1, ["/usr/include"], compDir: "/src", version: 3), "/usr/include/stdio.h")
        XCTAssertEqual(joined("x.c", dir: 0, [], compDir: "./csu", version: 2), "./csu/x.c")
    }

    func testAbsoluteNamesAndMissingParts() {
        XCTAssertEqual(joined("/abs/x.c", dir: 1, ["inc"], compDir: "/src", version: 5), "/abs/x.c")
        XCTAssertEqual(joined("C:\\src\\x.c", dir: 0, ["d"], compDir: "/src", version: 4), "C:\\src\\x.c")
        // No DW_AT_comp_dir; a directory index out of range (DWARF 5 still adds DW_AT_comp_dir).
        XCTAssertEqual(joined("x.c", dir: 1, ["inc"], compDir: "", version: 4), "inc/x.c")
        XCTAssertEqual(joined("x.c", dir: 7, ["/src"], compDir: "/src", version: 5), "/src/x.c")
        XCTAssertEqual(joined("x.c", dir: 3, ["inc"], compDir: "", version: 4), "x.c")
    }

    func testSeparatorsAreJoinedAsLLVMDoes() {
        XCTAssertEqual(joined("x.c", dir: 1, ["inc/"], compDir: "/src/", version: 4), "/src/inc/x.c")
        XCTAssertEqual(joined("x.c", dir: 1, ["./"], compDir: ".", version: 4), "././x.c")
        // Nothing is normalized.
        XCTAssertEqual(joined("../x/./y.c", dir: 0, [], compDir: "./csu", version: 4), "./csu/../x/./y.c")
    }

    func testAbsoluteForPOSIXOrWindows() {
        for path in ["/", "/x", "//net/share", "C:\\x", "c:/x", "\\\\server\\share", "abc:/x"] {
            XCTAssertTrue(SourcePath.isAbsolute(path), path)
        }
        for path in ["", "x", "./x", "C:x", "C:", "\\x", "\\\\server", "x/y:/z"] {
            XCTAssertFalse(SourcePath.isAbsolute(path), path)
        }
    }
}
