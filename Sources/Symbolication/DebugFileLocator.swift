import DebugInfo
import Foundation

/// Finds the debug file of a binary image by its identity.
///
/// Each `-d` path is a debug file (Mach-O, thin or universal, or ELF), a `.dSYM` bundle (the
/// files under `Contents/Resources/DWARF/`), or a directory searched recursively (a folder of
/// dSYM bundles named by UUID, a build folder). Every object file found is identified once
/// by reading its headers — UUID or build-id per architecture slice — and is opened for
/// DWARF only when a report needs it. Relocatable objects (`.o`) are passed over: they are
/// not the debug file of any image.
///
/// Matching is by UUID / build-id, never by name: a file named like the image but with
/// another UUID was built from other sources and would give wrong answers.
public final class DebugFileLocator: @unchecked Sendable {
    private var byIdentifier: [String: [DebugFile]] = [:]
    /// Paths the user named one by one (a file or a bundle), for "matched no image" warnings.
    public private(set) var explicitFiles: [DebugFile] = []

    /// Every debug file found.
    public var debugFiles: [DebugFile] { byIdentifier.values.flatMap { $0 } }

    /// Identifies the object files under `paths`; unreadable or unknown files named directly
    /// are reported through `diagnostics`.
    public init(paths: [String], diagnostics: Diagnostics) {
        for path in paths { add(path, diagnostics: diagnostics) }
    }

    private func add(_ path: String, diagnostics: Diagnostics) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            diagnostics.warn("\(path): no such file or directory")
            return
        }
        if isDirectory.boolValue {
            let isBundle = DebugFileLocator.isBundle(path)
            let found = isBundle ? DebugFileLocator.bundleFiles(path) : DebugFileLocator.regularFiles(under: path)
            if isBundle, found.isEmpty {
                diagnostics.warn("\(path): a .dSYM bundle with no files under Contents/Resources/DWARF")
            }
            for file in found { identify(file, explicit: isBundle, diagnostics: diagnostics, quietIfUnknown: !isBundle) }
        } else {
            identify(path, explicit: true, diagnostics: diagnostics, quietIfUnknown: false)
        }
    }

    private func identify(_ path: String, explicit: Bool, diagnostics: Diagnostics, quietIfUnknown: Bool) {
        if quietIfUnknown, !DebugFile.looksLikeObjectFile(path: path) { return }
        do {
            let files = try DebugFile.identify(path: path).filter { !$0.isRelocatable }
            for file in files {
                guard let identifier = file.identifier else {
                    if explicit { diagnostics.warn("\(path): has no UUID or build-id: it cannot be matched to an image") }
                    continue
                }
                byIdentifier[identifier, default: []].append(file)
                if explicit { explicitFiles.append(file) }
            }
        } catch {
            if !quietIfUnknown { diagnostics.warn("\(error)") }
        }
    }

    /// The debug file for an image: same identifier, preferably the same architecture, and a
    /// file with DWARF over one with only a symbol table.
    public func debugFile(identifier: String, architecture: Architecture?) -> DebugFile? {
        guard let candidates = byIdentifier[identifier.lowercased()] else { return nil }
        return candidates.max { rank($0, architecture) < rank($1, architecture) }
    }

    private func rank(_ file: DebugFile, _ architecture: Architecture?) -> Int {
        (file.hasDWARF ? 2 : 0) + (architecture == nil || file.architecture == architecture ? 1 : 0)
    }

    /// Files under `root`, recursively, in a stable order; hidden files and `.o` files skipped.
    ///
    /// A symbolic link to a file counts as the file; a link to a `.dSYM` bundle as the
    /// bundle's DWARF files; links to other directories are not followed, so a link cycle
    /// cannot make the walk endless.
    static func regularFiles(under root: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        var result: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix(".") || name.hasSuffix(".o") { continue }
            let path = (root as NSString).appendingPathComponent(relative)
            switch enumerator.fileAttributes?[.type] as? FileAttributeType {
            case .typeRegular?:
                result.append(path)
            case .typeSymbolicLink?:
                var target = stat()
                guard stat(path, &target) == 0 else { continue }
                if target.st_mode & S_IFMT == S_IFREG {
                    result.append(path)
                } else if target.st_mode & S_IFMT == S_IFDIR, isBundle(name) {
                    result += bundleFiles(path)
                }
            default:
                break
            }
        }
        return result.sorted()
    }

    /// Whether `path` names a `.dSYM` bundle.
    public static func isBundle(_ path: String) -> Bool {
        path.hasSuffix(".dSYM") || path.hasSuffix(".dSYM/")
    }

    /// The debug files of a `.dSYM` bundle: the files under `Contents/Resources/DWARF`.
    public static func bundleFiles(_ bundle: String) -> [String] {
        regularFiles(under: (bundle as NSString).appendingPathComponent("Contents/Resources/DWARF"))
    }
}
