import DebugInfo
import XCTest

final class ArchitectureTests: XCTestCase {
    func testNamesAndMachOTypesMapBothWays() {
        let table: [(String, Int32, Int32)] = [
            ("arm64", 0x0100_000c, 0), ("arm64e", 0x0100_000c, 2), ("arm64_32", 0x0200_000c, 1),
            ("armv7", 12, 9), ("armv7s", 12, 11), ("armv7k", 12, 12),
            ("x86_64", 0x0100_0007, 3), ("x86_64h", 0x0100_0007, 8), ("i386", 7, 3),
        ]
        for (name, type, subtype) in table {
            let architecture = Architecture(name: name)
            XCTAssertEqual(architecture?.name, name)
            XCTAssertEqual(architecture?.machO?.cpuType, type, name)
            XCTAssertEqual(architecture?.machO?.cpuSubtype, subtype, name)
            XCTAssertEqual(Architecture(cpuType: type, cpuSubtype: subtype)?.name, name)
        }
        // Capability bits in the subtype (arm64e's pointer-auth ABI) are ignored.
        XCTAssertEqual(Architecture(cpuType: 0x0100_000c, cpuSubtype: Int32(bitPattern: 0x8000_0002))?.name, "arm64e")
        XCTAssertEqual(Architecture(name: "ARM64"), .arm64)
        XCTAssertNil(Architecture(name: "sparc"))
        XCTAssertEqual(Architecture(elfMachine: 62, is64Bit: true), .x86_64)
        XCTAssertEqual(Architecture(elfMachine: 183, is64Bit: true), .arm64)
    }

    func testCallSiteOfAReturnAddress() {
        XCTAssertEqual(Architecture.x86_64.callSite(ofReturnAddress: 0x1000), 0xfff)
        XCTAssertEqual(Architecture.arm64.callSite(ofReturnAddress: 0x1004), 0x1000)
        XCTAssertEqual(Architecture.arm64.callSite(ofReturnAddress: 0x1006), 0x1000)
        XCTAssertEqual(Architecture(name: "armv7")!.callSite(ofReturnAddress: 0x1005), 0x1002)
        XCTAssertEqual(Architecture(name: "armv7")!.callSite(ofReturnAddress: 0x1004), 0x1002)
        XCTAssertEqual(Architecture.arm64.callSite(ofReturnAddress: 0), 0)
    }

    /// Apple's reports write an async frame's resume point one byte past the continuation's
    /// entry: one byte back is the entry, four would be the function before it.
    func testAnArm64AsyncResumePointStepsBackOneByte() {
        XCTAssertEqual(Architecture.arm64.callSite(ofReturnAddress: 0x1001), 0x1000)
        XCTAssertEqual(Architecture(name: "arm64e")!.callSite(ofReturnAddress: 0x2001), 0x2000)
        XCTAssertEqual(Architecture.x86_64.callSite(ofReturnAddress: 0x1001), 0x1000)
    }
}
