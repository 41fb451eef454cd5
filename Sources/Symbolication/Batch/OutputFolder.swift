#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// Checks of the folder `-o` writes into, made before anything is written.
public enum OutputFolder {
    /// Why `folder` cannot receive the reports read from `inputs`, or nil when it can: it
    /// must be named, must be a folder if it exists, and must not be one of the folders of
    /// reports or inside one (its outputs would be read as reports by the next run, or by
    /// this one). Folders are compared by device and inode, not by spelling, so neither a
    /// symbolic link nor `..` hides the overlap.
    public static func problem(_ folder: String, inputs: [String]) -> String? {
        if folder.isEmpty { return "--output: the folder name is empty" }
        if let info = System.status(folder), info.st_mode & S_IFMT != S_IFDIR {
            return "--output \(folder): \(System.kind(of: info)), not a folder"
        }
        let inputFolders: [(path: String, identity: FileIdentity)] = inputs.compactMap { input in
            guard input != "-", let info = System.status(input), info.st_mode & S_IFMT == S_IFDIR else { return nil }
            return (input, FileIdentity(info))
        }
        guard !inputFolders.isEmpty else { return nil }
        // The folder, or where it will be made: its nearest existing ancestor; then every
        // folder above that, through "..", up to the root.
        var current = folder
        while System.status(current) == nil {
            let parent = Path.deletingLastComponent(current)
            current = parent.isEmpty ? "." : parent
        }
        var previous: FileIdentity?
        while let info = System.status(current), info.st_mode & S_IFMT == S_IFDIR {
            let identity = FileIdentity(info)
            if identity == previous { break }
            if let input = inputFolders.first(where: { $0.identity == identity }) {
                let relation = previous == nil && System.status(folder) != nil ? "is" : "is inside"
                return "--output \(folder) \(relation) the folder of reports \(input.path): choose a folder outside it"
            }
            previous = identity
            current += "/.."
        }
        return nil
    }
}
