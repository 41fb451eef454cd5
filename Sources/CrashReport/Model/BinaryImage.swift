import Platform

/// One image loaded in the crashed process: an entry of an Apple report's "Binary Images:" list
/// (a Mach-O image), or a module a Linux log's frame lines name (an ELF module; see `format`).
///
/// Apple reports list them in lines such as
///
///     0x104a30000 - 0x104a3ffff +App arm64  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /private/var/.../App
///     0x1017ff000 - 0x101885fff +com.example.app (4.2.0 - 68) <7B639009-221F-3815-A7A3-657098146F8A> /Applications/...
///     0x0 - 0xffffffffffffffff ??? (*) <00000000-0000-0000-0000-000000000000> ???
///     0x104320000 -         ???  com.example.App 1.2 (3)  <7B639009-221F-3815-A7A3-657098146F8A> /path
///
/// (see `BinaryImageLine`, which reads them).
public struct BinaryImage: Sendable, Equatable {
    /// The address the image's `__TEXT` segment was loaded at (the first address of the range).
    public var loadAddress: UInt64
    /// The last address of the image's range, inclusive, as printed; for a line that prints
    /// `???` there, as far as the image can reach (`BinaryImageLine.closingOpenEnds`).
    public var endAddress: UInt64
    /// False when the report printed `???` for the end of the range: `endAddress` is then
    /// inferred, not read.
    public var endIsKnown = true
    /// The image's name as printed; it may contain spaces. Older macOS reports print the bundle
    /// identifier here (e.g. "com.AlphaSoft.iTubeDownloader"). "???" when the report does not know it.
    public var name: String
    /// The architecture ("arm64", "arm64e", "x86_64", ...); nil when the line carries none.
    public var arch: String?
    /// The image's UUID as 32 lowercase hexadecimal digits without dashes; nil when the report
    /// prints "???" or no UUID. For an ELF module, its GNU build-id (lowercase hexadecimal digits)
    /// when a frame line gives one.
    public var uuid: String?
    /// The image's path on the device; nil when printed as "???" or missing.
    public var path: String?
    /// Whether the line is marked with "+", the report's sign for the app's own binaries.
    public var isApp: Bool
    /// The 0-based index of the image's line in the report.
    public var line: Int
    /// The image's object format: Mach-O for Apple reports, ELF for the modules of a Linux log.
    /// A Linux log names a module but not its address range: `loadAddress` and `endAddress` are
    /// 0 there, and frames carry `imageOffset` instead.
    public var format: ImageFormat

    /// Creates an image from its parts.
    public init(loadAddress: UInt64, endAddress: UInt64, name: String, arch: String? = nil,
                uuid: String? = nil, path: String? = nil, isApp: Bool = false, line: Int = 0,
                format: ImageFormat = .machO) {
        self.loadAddress = loadAddress
        self.endAddress = endAddress
        self.name = name
        self.arch = arch
        self.uuid = uuid
        self.path = path
        self.isApp = isApp
        self.line = line
        self.format = format
    }

    /// Whether the image spans more than 2^40 bytes: macOS 12's `0x0 - 0xffffffffffffffff ???`
    /// placeholder, which holds every address but describes none.
    public var isPlaceholder: Bool {
        loadAddress <= endAddress && endAddress - loadAddress >= 1 << 40
    }

    /// `uuid` as an identity: a UUID for a Mach-O image, a build-id for an ELF module.
    public var identity: ImageIdentity? {
        uuid.map { ImageIdentity(hex: $0, kind: format == .machO ? .uuid : .buildID) }
    }

    /// Whether `address` lies in `loadAddress...endAddress`.
    public func contains(_ address: UInt64) -> Bool {
        loadAddress <= address && address <= endAddress
    }
}

/// The object format of a report's binary image.
public enum ImageFormat: Sendable, Equatable {
    /// A Mach-O image of an Apple report, identified by UUID.
    case machO
    /// An ELF module of a Linux log, identified by GNU build-id (or by its path).
    case elf
}
