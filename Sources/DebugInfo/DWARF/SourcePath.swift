/// The path of a line-table file entry, spelled as llvm-symbolizer spells it (LLVM's
/// `DWARFDebugLine::Prologue::getFileNameByIndex` with `AbsoluteFilePath`, POSIX separators):
///
/// - an absolute name (POSIX or Windows) is the path;
/// - else the directory is `include_directories[index]` (DWARF 5, where entry 0 is the
///   compilation directory) or `include_directories[index - 1]` (DWARF 2-4, where index 0
///   means the compilation directory and names none);
/// - DW_AT_comp_dir goes in front unless that directory is absolute or, in DWARF 5, the index
///   is 0 (entry 0 already is the compilation directory: with a relative one, as
///   `-fdebug-prefix-map=$PWD=.` leaves, `./nptl` + `./nptl` + `x.c` would double it);
/// - the parts are joined with `/`, as `sys::path::append` does: no separator added after one
///   that ends the path so far, and none doubled.
///
/// Nothing is normalized (`./csu/../sysdeps/x86/libc-start.c` stays as it is).
enum SourcePath {
    static func joined(name: String, directoryIndex: UInt64, includeDirectories: [String],
                       compilationDirectory: String, lineTableVersion: Int) -> String {
        if isAbsolute(name) { return name }
        var directory = ""
        if lineTableVersion >= 5 {
            if directoryIndex < UInt64(includeDirectories.count) { directory = includeDirectories[Int(directoryIndex)] }
        } else if directoryIndex > 0, directoryIndex <= UInt64(includeDirectories.count) {
            directory = includeDirectories[Int(directoryIndex - 1)]
        }
        var path = ""
        if lineTableVersion < 5 || directoryIndex != 0, !compilationDirectory.isEmpty, !isAbsolute(directory) {
            append(compilationDirectory, to: &path)
        }
        append(directory, to: &path)
        append(name, to: &path)
        return path
    }

    /// `sys::path::append` (POSIX style) of one component.
    private static func append(_ component: String, to path: inout String) {
        if path.hasSuffix("/") {
            path += component.drop { $0 == "/" }
            return
        }
        if !path.isEmpty, !component.hasPrefix("/") { path += "/" }
        path += component
    }

    /// Absolute for POSIX (`/x`) or for Windows (`C:\x`, `C:/x`, `\\server\share`): debug
    /// information can come from either, as LLVM's `isPathAbsoluteOnWindowsOrPosix` allows.
    static func isAbsolute(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard let first = bytes.first else { return false }
        if first == UInt8(ascii: "/") { return true }
        func isSeparator(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") }
        // Windows: a root name (a drive such as `C:`, or `\\net`) followed by a separator.
        let rootNameEnd: Int
        if bytes.count > 2, isSeparator(first), bytes[1] == first, !isSeparator(bytes[2]) {
            rootNameEnd = bytes[2...].firstIndex(where: isSeparator) ?? bytes.count
        } else if bytes.count >= 2, (first | 0x20) >= UInt8(ascii: "a"), (first | 0x20) <= UInt8(ascii: "z"),
                  bytes[1] == UInt8(ascii: ":") {
            rootNameEnd = 2
        } else if isSeparator(first) {
            return false
        } else {
            let end = bytes.firstIndex(where: isSeparator) ?? bytes.count
            guard bytes[end - 1] == UInt8(ascii: ":") else { return false }
            rootNameEnd = end
        }
        return rootNameEnd < bytes.count && isSeparator(bytes[rootNameEnd])
    }
}
