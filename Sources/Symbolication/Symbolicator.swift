import CrashReport
import DebugInfo
import Foundation

/// Turns a parsed report into a symbolicated one: finds each frame's image, the image's
/// debug file, the address in the debug file, and what the debug file says is there.
///
/// The address arithmetic (FORMATS.md §4):
///
///     lookup = address − image load address + debug file's text vmaddr
///
///     image App loaded at 0x104a30000, linked at 0x100000000 (its __TEXT vmaddr):
///     frame 3 at 0x104a3c5e0  →  0x100000000 + 0xc5e0 = 0x10000c5e0
///
/// Every frame but the first of a thread is a return address: the call that made it is the
/// instruction before, so those are looked up at their call site (see
/// ``DebugInfo/Architecture/callSite(ofReturnAddress:)``). The printed address is always the
/// reported one.
///
/// Each debug file is indexed at most once per run, when the first report needs it; the
/// indexes are shared by all reports and threads.
public final class Symbolicator: @unchecked Sendable {
    /// What to resolve and how to name it.
    public struct Options: Sendable {
        /// Demangle Swift and C++ names.
        public var demangle: Bool
        public init(demangle: Bool = true) { self.demangle = demangle }
    }

    private let locator: DebugFileLocator
    private let options: Options
    private let diagnostics: Diagnostics
    private let lock = NSLock()
    private var indexes: [DebugFile: SymbolIndex?] = [:]
    private var used: Set<DebugFile> = []

    /// A symbolicator over the debug files `locator` found.
    public init(locator: DebugFileLocator, options: Options = Options(), diagnostics: Diagnostics) {
        self.locator = locator
        self.options = options
        self.diagnostics = diagnostics
    }

    /// The index of `file`, built on first use; nil (said once) when it cannot be built.
    public func index(for file: DebugFile) -> SymbolIndex? {
        lock.lock()
        defer { lock.unlock() }
        if let cached = indexes[file] { return cached }
        var built: SymbolIndex?
        do {
            let index = try SymbolIndex.build(file)
            if let problem = index.problem {
                diagnostics.warn("\(file.path): part of the DWARF could not be read: \(problem)")
            }
            built = index
        } catch {
            diagnostics.warn("\(error)")
        }
        indexes[file] = .some(built)
        return built
    }

    /// Debug files given one by one that no image of any report so far has used.
    public var unusedExplicitFiles: [DebugFile] {
        lock.lock()
        defer { lock.unlock() }
        return locator.explicitFiles.filter { !used.contains($0) }
    }

    /// Symbolicates every frame of `report` that a debug file can resolve.
    public func symbolicate(_ report: CrashReport) -> SymbolicatedReport {
        var result = SymbolicatedReport(report: report)
        var images: [Int: (file: DebugFile, index: SymbolIndex, architecture: Architecture?)] = [:]
        for (i, image) in report.images.enumerated() {
            guard let uuid = image.uuid else { continue }
            let architecture = Symbolicator.architecture(of: image, in: report, debugFile: nil)
            guard let file = locator.debugFile(identifier: uuid, architecture: architecture) else { continue }
            lock.lock()
            used.insert(file)
            lock.unlock()
            guard let index = index(for: file) else { continue }
            images[i] = (file, index, Symbolicator.architecture(of: image, in: report, debugFile: file))
            result.debugFiles[i] = file.path
        }
        guard !images.isEmpty else { return result }

        for (t, thread) in report.threads.enumerated() {
            for (f, frame) in thread.frames.enumerated() {
                guard let imageIndex = frame.image, let (file, index, architecture) = images[imageIndex] else { continue }
                if case .symbolicated = frame.form { continue }  // already has file and line
                let image = report.images[imageIndex]
                guard let (address, lookup) = Symbolicator.addresses(of: frame, at: f, in: thread, image: image,
                                                                     debugFile: file, architecture: architecture)
                else { continue }
                let locations = index.lookup(lookup, demangle: options.demangle)
                guard !locations.isEmpty else { continue }
                result.frames[FrameKey(thread: t, frame: f)] = locations.map { location in
                    SourceFrame(function: location.function,
                                offset: location.functionStart.flatMap { address >= $0 ? address - $0 : nil },
                                file: location.file,
                                line: location.line == 0 ? nil : location.line,
                                column: location.column == 0 ? nil : location.column,
                                inlined: location.inlined)
                }
            }
        }
        return result
    }

    /// The frame's address in the debug file, and the address to look up there: the same for
    /// a faulting PC, the call site for a return address. Nil when the frame lies below its
    /// image.
    public static func addresses(of frame: Frame, at position: Int, in thread: ReportThread, image: BinaryImage,
                                 debugFile: DebugFile, architecture: Architecture?)
        -> (address: UInt64, lookup: UInt64)? {
        guard frame.address >= image.loadAddress else { return nil }
        let address = frame.address - image.loadAddress &+ debugFile.textVMAddress
        guard isReturnAddress(position: position, of: thread, address: address, architecture: architecture),
              let architecture else { return (address, address) }
        return (address, architecture.callSite(ofReturnAddress: address))
    }

    /// Whether the frame at `position` holds a return address rather than the faulting PC.
    ///
    /// The first frame of a thread is the PC; every later one a return address. Exception
    /// backtraces are lists of return addresses throughout. On 32-bit ARM a PC is always even
    /// and a return into Thumb code odd, so an odd first frame is a return address too (some
    /// reporters put the link register there).
    static func isReturnAddress(position: Int, of thread: ReportThread, address: UInt64,
                                architecture: Architecture?) -> Bool {
        if case .thread = thread.kind {
            if position > 0 { return true }
            return architecture?.family == .arm && address & 1 == 1
        }
        return true
    }

    /// An image's architecture: as the image list says, else as the report's "Code Type"
    /// says (macOS reports name no architecture per image), else the debug file's.
    public static func architecture(of image: BinaryImage, in report: CrashReport, debugFile: DebugFile?) -> Architecture? {
        image.arch.flatMap(Architecture.init(name:)) ?? architecture(ofCodeType: report.codeType) ?? debugFile?.architecture
    }

    /// The architecture a report's "Code Type" names, for images that do not say theirs.
    public static func architecture(ofCodeType codeType: String?) -> Architecture? {
        guard let codeType = codeType?.uppercased() else { return nil }
        if codeType.hasPrefix("ARM-64") || codeType.hasPrefix("ARM64") { return .arm64 }
        if codeType.hasPrefix("X86-64") || codeType.hasPrefix("X86_64") { return .x86_64 }
        if codeType.hasPrefix("ARM") { return Architecture(name: "armv7") }
        if codeType.hasPrefix("X86") || codeType.hasPrefix("I386") { return Architecture(name: "i386") }
        return nil
    }
}
