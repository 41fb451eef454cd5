/// Why a debug file could not be used. Every case names the file.
public enum DebugInfoError: Error, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case unknownFormat(path: String)
    case malformed(path: String, reason: String)
    case noDWARF(path: String)
    case corruptDWARF(path: String, reason: String)
    /// The file was cut short or written while it was read: what was read is not used.
    case changedWhileRead(path: String)
    /// A sub-cache or `.symbols` file of a dyld shared cache: read with its main file.
    case partOfDyldCache(path: String)
    /// A dyld shared cache whose headers or tables cannot be read.
    case damagedDyldCache(path: String, reason: String)
    /// A zip archive (an APK, an app bundle) whose directory or libraries cannot be read
    /// (``ZipArchive``).
    case damagedArchive(path: String, reason: String)
    /// A zip archive with no ELF library in it.
    case archiveWithoutLibraries(path: String)

    /// What is wrong, without the file's path: for messages that name the file themselves.
    public var reason: String {
        switch self {
        case let .unreadable(_, reason): return "cannot read: \(reason)"
        case .unknownFormat: return "not a Mach-O or ELF file"
        case let .malformed(_, reason): return "malformed object file: \(reason)"
        case .noDWARF: return "no DWARF debug information"
        case let .corruptDWARF(_, reason): return "corrupt DWARF: \(reason)"
        case .changedWhileRead: return "the file changed while it was being read"
        case .partOfDyldCache: return "a sub-cache of a dyld shared cache: name its main file (dyld_shared_cache_ARCH)"
        case let .damagedDyldCache(_, reason): return "damaged dyld shared cache: \(reason)"
        case let .damagedArchive(_, reason): return "damaged zip archive: \(reason)"
        case .archiveWithoutLibraries: return "a zip archive with no ELF library (lib/ABI/*.so) in it"
        }
    }

    public var description: String {
        switch self {
        case let .unreadable(path, reason): return "\(path): cannot read: \(reason)"
        case let .unknownFormat(path): return "\(path): not a Mach-O or ELF file"
        case let .malformed(path, reason): return "\(path): malformed object file: \(reason)"
        case let .noDWARF(path): return "\(path): no DWARF debug information"
        case let .corruptDWARF(path, reason): return "\(path): corrupt DWARF: \(reason)"
        case let .changedWhileRead(path): return "\(path): the file changed while it was being read; its frames are left as they are"
        case let .partOfDyldCache(path), let .damagedDyldCache(path, _), let .damagedArchive(path, _), let .archiveWithoutLibraries(path): return "\(path): \(reason)"
        }
    }
}
