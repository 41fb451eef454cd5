#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// The recursive walk over `-d` folders and folders of reports.
extension DebugFileLocator {
    /// A file met by a walk, with what `stat` says of it (of the target, for a link).
    struct FileEntry {
        var path: String
        var info: stat
    }

    /// Regular files under `root`, recursively, in a stable order; hidden files and `.o`
    /// files skipped.
    ///
    /// A symbolic link to a file counts as the file; a link to a `.dSYM` bundle as the
    /// bundle's DWARF files; links to other directories are not followed. Each folder is
    /// entered once, known by its device and inode, so that no link or mount cycle makes the
    /// walk endless. FIFOs, devices and sockets are passed over (opening a FIFO would block),
    /// and so are the kernel's pseudo file systems (`/proc`, `/sys`, `/dev`). Names are the
    /// file system's bytes (``FileName``): a name that is not UTF-8 is found like any other.
    static func regularFiles(under root: String) -> [String] {
        walk(root).map(\.path)
    }

    /// What ``regularFiles(under:)`` lists, with each file's `stat`: one `lstat` per entry
    /// (and one `stat` per link), no other reads.
    static func walk(_ root: String) -> [FileEntry] {
        var result: [FileEntry] = []
        var entered: Set<FileIdentity> = []
        if let info = System.status(root), info.st_mode & S_IFMT == S_IFDIR {
            walk(root, info, entered: &entered, into: &result)
        }
        return result.map { (FileName.bytes($0.path), $0) }.sorted { $0.0.lexicographicallyPrecedes($1.0) }.map(\.1)
    }

    private static func walk(_ directory: String, _ info: stat, entered: inout Set<FileIdentity>,
                             into result: inout [FileEntry]) {
        guard entered.insert(FileIdentity(info)).inserted, !System.isSystemPseudoFile(directory, info),
              let stream = FileName.withCString(directory, { opendir($0) }) else { return }
        defer { closedir(stream) }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        while let entry = readdir(stream) {
            let name = FileName.decode(System.entryName(entry))
            if name.hasPrefix(".") || name.hasSuffix(".o") { continue }
            let path = prefix + name
            guard var info = System.status(path, followingLinks: false) else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                result.append(FileEntry(path: path, info: info))
            case S_IFDIR:
                walk(path, info, entered: &entered, into: &result)
            case S_IFLNK:
                guard let target = System.status(path) else { continue }
                info = target
                if System.isRegular(info), !System.isSystemPseudoFile(path, info) {
                    result.append(FileEntry(path: path, info: info))
                } else if info.st_mode & S_IFMT == S_IFDIR, isBundle(name) {
                    let dwarf = bundleDWARFFolder(path)
                    if let folder = System.status(dwarf), folder.st_mode & S_IFMT == S_IFDIR {
                        walk(dwarf, folder, entered: &entered, into: &result)
                    }
                }
            default:
                break
            }
        }
    }
}
