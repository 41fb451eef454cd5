/// A CPU architecture as crash reports and object files name it.
///
/// Crash reports spell architectures (`arm64`, `arm64e`, `armv7s`, `x86_64h`); Mach-O headers
/// carry a cputype/cpusubtype pair; ELF headers an `e_machine`. All three map to this type,
/// and so does the instruction-set family that decides how a return address is turned into
/// a call-site address.
public struct Architecture: Hashable, Sendable, CustomStringConvertible {
    /// The name as `uname -m`, Xcode and crash reports spell it.
    public let name: String

    /// The architecture a crash report or `--arch` names (any case); nil for unknown names.
    public init?(name: String) {
        let lowered = name.lowercased()
        guard Architecture.known.contains(where: { $0.name == lowered }) || Architecture.elfOnly.contains(lowered) else { return nil }
        self.name = lowered
    }

    private init(known name: String) { self.name = name }

    public var description: String { name }

    /// The instruction-set family of the architecture.
    public enum Family: Sendable { case x86, arm64, arm, riscv }

    /// The family, which decides how a return address becomes a call-site address.
    public var family: Family {
        switch name {
        case "i386", "x86_64", "x86_64h": return .x86
        case "arm64", "arm64e", "arm64_32": return .arm64
        case "riscv64": return .riscv
        default: return .arm
        }
    }

    /// The Mach-O cputype and cpusubtype (without capability bits).
    public var machO: (cpuType: Int32, cpuSubtype: Int32)? {
        Architecture.known.first { $0.name == name }.map { ($0.type, $0.subtype) }
    }

    /// The architecture of a Mach-O header.
    public init?(cpuType: Int32, cpuSubtype: Int32) {
        let subtype = cpuSubtype & 0x00ff_ffff
        if let exact = Architecture.known.first(where: { $0.type == cpuType && $0.subtype == subtype }) {
            self.name = exact.name
        } else if let family = Architecture.known.first(where: { $0.type == cpuType }) {
            self.name = family.name
        } else {
            return nil
        }
    }

    /// The architecture of an ELF header's `e_machine`.
    public init?(elfMachine: UInt16, is64Bit: Bool) {
        switch elfMachine {
        case 3: self.name = "i386"
        case 62: self.name = is64Bit ? "x86_64" : "i386"
        case 40: self.name = "armv7"
        case 183: self.name = "arm64"
        case 243 where is64Bit: self.name = "riscv64"
        default: return nil
        }
    }

    /// The address of the call instruction whose return address is `address`.
    ///
    /// x86: one byte back lands inside the call; arm64: instructions are 4 bytes, aligned;
    /// Thumb: clear the interworking bit, then step back by the smallest instruction; RISC-V:
    /// step back by the smallest instruction (2 bytes, the C extension's), as the sanitizers do.
    ///
    /// An arm64 address one past an instruction boundary is no return address: Apple's reports
    /// write a Swift async frame's resume point (the entry of the continuation, `await resume
    /// partial function for ...`) that way, so that stepping back one byte lands on it
    /// (`completeTaskWithClosure(...) + 1`). It is stepped back one byte, not four, which
    /// would land in the function before it.
    public func callSite(ofReturnAddress address: UInt64) -> UInt64 {
        guard address > 0 else { return address }
        switch family {
        case .x86: return address - 1
        case .arm64: return address & 3 == 1 ? address &- 1 : (address & ~3) &- 4
        case .arm: return (address & ~1) &- 2
        case .riscv: return address &- 2
        }
    }

    /// 64-bit Intel.
    public static let x86_64 = Architecture(known: "x86_64")
    /// 64-bit ARM.
    public static let arm64 = Architecture(known: "arm64")

    private static let cpuArchABI64: Int32 = 0x0100_0000
    private static let cpuArchABI64_32: Int32 = 0x0200_0000
    /// Architectures of ELF files only, with no Mach-O cputype: RISC-V (`e_machine` 243).
    private static let elfOnly = ["riscv64"]
    private static let known: [(name: String, type: Int32, subtype: Int32)] = [
        ("arm64", 12 | cpuArchABI64, 0),
        ("arm64", 12 | cpuArchABI64, 1),
        ("arm64e", 12 | cpuArchABI64, 2),
        ("arm64_32", 12 | cpuArchABI64_32, 1),
        ("armv7", 12, 9),
        ("armv7s", 12, 11),
        ("armv7k", 12, 12),
        ("armv7f", 12, 10),
        ("armv6", 12, 6),
        ("x86_64", 7 | cpuArchABI64, 3),
        ("x86_64h", 7 | cpuArchABI64, 8),
        ("i386", 7, 3),
    ]
}
