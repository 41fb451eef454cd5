import CrashReport
import DebugInfo
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// The `atos` way of asking: addresses of one object file, answered one line each in
/// atos's own form:
///
///     main (in App) (main.c:42)          with line information
///     helper (in App) + 12               with a symbol only
///     0x100003f2c                        with nothing known
///
/// Addresses are taken as they are given (no return-address adjustment). With a load
/// address they are run-time addresses, rebased to the file as `address − load + text
/// vmaddr`; without one they are the file's own addresses.
public struct AtosLookup {
    /// What to look up in, and how to answer.
    public struct Options: Sendable {
        /// A debug file or a `.dSYM` bundle.
        public var objectPath: String
        /// The slice of a universal file; needed when it has several.
        public var architecture: Architecture?
        /// The image's load address: addresses are run-time addresses. Nil: file addresses.
        public var loadAddress: UInt64?
        /// One line per inlined frame, innermost first, instead of one line per address.
        public var inlinedFrames: Bool
        /// Full source paths instead of file names.
        public var fullPath: Bool
        /// Demangle Swift, C++, Rust and D names (see ``Demangler``).
        public var demangle: Bool

        public init(objectPath: String, architecture: Architecture? = nil, loadAddress: UInt64? = nil,
                    inlinedFrames: Bool = false, fullPath: Bool = false, demangle: Bool = true) {
            self.objectPath = objectPath
            self.architecture = architecture
            self.loadAddress = loadAddress
            self.inlinedFrames = inlinedFrames
            self.fullPath = fullPath
            self.demangle = demangle
        }
    }

    /// Why the object cannot be used; each names the file.
    public enum Failure: Error, CustomStringConvertible {
        case noObject(String)
        case notAFile(path: String, reason: String)
        case ambiguous(path: String, architectures: [String])
        case noSlice(path: String, architecture: String, architectures: [String])

        public var description: String {
            switch self {
            case let .noObject(path): return "\(path): no Mach-O or ELF file here"
            case let .notAFile(path, reason): return "\(path): \(reason)"
            case let .ambiguous(path, archs):
                return "\(path): a universal file (\(archs.joined(separator: ", "))): choose a slice with --arch"
            case let .noSlice(path, arch, archs):
                return "\(path): no \(arch) slice (it has \(archs.joined(separator: ", ")))"
            }
        }
    }

    private let options: Options
    private let index: SymbolIndex
    /// ` (in Image)`, escaped once for every line.
    private let inImage: [UInt8]

    /// Opens the object (a file or a `.dSYM` bundle) and indexes the chosen slice, through
    /// `indexSource` (by default built from the file; an ``IndexCache`` reuses stored ones).
    public init(options: Options, indexSource: (DebugFile) throws -> SymbolIndex = SymbolIndex.build) throws {
        self.options = options
        var path = options.objectPath
        if DebugFileLocator.isBundle(path) {
            guard let first = DebugFileLocator.bundleFiles(path).first else { throw Failure.noObject(path) }
            path = first
        }
        // A FIFO would block the open, a device never end: only a regular file is read.
        guard let info = System.status(path) else { throw Failure.notAFile(path: path, reason: SystemError.reason(errno)) }
        guard System.isRegular(info) else {
            throw Failure.notAFile(path: path, reason: "\(System.kind(of: info)), not a Mach-O or ELF file")
        }
        let slices = try DebugFile.identify(path: path)
        let names = slices.map { $0.architecture?.name ?? "unknown" }
        let chosen: DebugFile
        if let wanted = options.architecture {
            guard let slice = slices.first(where: { $0.architecture == wanted }) else {
                throw Failure.noSlice(path: path, architecture: wanted.name, architectures: names)
            }
            chosen = slice
        } else if slices.count == 1 {
            chosen = slices[0]
        } else {
            throw Failure.ambiguous(path: path, architectures: names)
        }
        index = try indexSource(chosen)
        var inImage = Array(" (in ".utf8)
        OutputEscaping.append(Path.lastComponent(path), to: &inImage)
        inImage.append(UInt8(ascii: ")"))
        self.inImage = inImage
    }

    /// Appends the lines atos prints for `address` to `out` (several with inlined frames),
    /// each ending in a newline, its names from the object file escaped (`OutputEscaping`):
    /// no String per line, for a batch of addresses.
    public func appendLines(for address: UInt64, to out: inout [UInt8]) {
        var fileAddress = address
        if let load = options.loadAddress {
            guard address >= load else { return appendUnknown(address, to: &out) }
            fileAddress = address - load &+ index.debugFile.textVMAddress
        }
        let frames = index.lookup(fileAddress, demangle: options.demangle)
        guard let concrete = frames.last else { return appendUnknown(address, to: &out) }
        if options.inlinedFrames {
            for frame in frames { appendLine(frame, at: fileAddress, to: &out) }
            return
        }
        var single = concrete
        single.file = frames[0].file
        single.line = frames[0].line
        appendLine(single, at: fileAddress, to: &out)
    }

    /// Appends the lines of each of `addresses`, in their order: what ``appendLines(for:to:)``
    /// appends for each in turn, byte for byte (``forEachAnswer(to:_:)``).
    public func appendLines(for addresses: [UInt64], to out: inout [UInt8]) {
        forEachAnswer(to: addresses) { out.append(contentsOf: $0) }
    }

    /// Hands `write` the lines of each of `addresses`, in their order: what
    /// ``appendLines(for:to:)`` appends for each in turn, byte for byte.
    ///
    /// The lookups themselves are made in address order, and an address that comes again is
    /// looked up once. Most of a lookup is waiting for memory (the index's tables are far
    /// larger than the processor's caches); addresses in order read neighbouring parts of them,
    /// which for 32,000 addresses spread over an 85 MB dSYM halves the time. The answers are
    /// held until the last is made (a batch's memory is that of its answers).
    public func forEachAnswer(to addresses: [UInt64], _ write: (UnsafeBufferPointer<UInt8>) -> Void) {
        var answers = Answers()
        forEachAnswer(to: addresses, in: &answers, write)
    }

    /// The memory a batch's answers are made in, kept from one batch to the next: the pages
    /// of a batch's text are then touched once for the whole run, not once for each batch.
    public struct Answers {
        fileprivate var text: [UInt8] = []
        fileprivate var spans: [Range<Int>] = []
        fileprivate var order: [(address: UInt64, position: UInt32)] = []

        /// No memory yet.
        public init() {}
    }

    /// ``forEachAnswer(to:_:)``, its answers made in `answers`, whose memory the next batch
    /// uses again.
    public func forEachAnswer(to addresses: [UInt64], in answers: inout Answers,
                              _ write: (UnsafeBufferPointer<UInt8>) -> Void) {
        answer(addresses, in: &answers) { text, spans in
            for span in spans { write(UnsafeBufferPointer(rebasing: text[span])) }
        }
    }

    /// ``forEachAnswer(to:in:_:)`` in one call: `write` gets every answer's text and, in the
    /// order of `addresses`, the span of each one's lines in it (spans repeat for an address
    /// that comes again), for a writer that gathers them without copying them first.
    public func answer(_ addresses: [UInt64], in answers: inout Answers,
                       _ write: (UnsafeBufferPointer<UInt8>, [Range<Int>]) -> Void) {
        answers.text.removeAll(keepingCapacity: true)
        answers.spans.removeAll(keepingCapacity: true)
        guard addresses.count > 1 else {
            for address in addresses { appendLines(for: address, to: &answers.text) }
            answers.spans.append(0..<answers.text.count)
            answers.text.withUnsafeBufferPointer { write($0, answers.spans) }
            return
        }
        // Each address with its position, sorted by address (4 GiB of addresses is no batch).
        answers.order.removeAll(keepingCapacity: true)
        answers.order.append(contentsOf: addresses.indices.lazy.map {
            (address: addresses[$0], position: UInt32(truncatingIfNeeded: $0))
        })
        answers.order.sort { $0.address < $1.address }
        answers.spans.append(contentsOf: repeatElement(0..<0, count: addresses.count))
        var previous: (address: UInt64, span: Range<Int>)?
        for (address, position) in answers.order {
            if let previous, previous.address == address {
                answers.spans[Int(position)] = previous.span
                continue
            }
            let start = answers.text.count
            appendLines(for: address, to: &answers.text)
            answers.spans[Int(position)] = start..<answers.text.count
            previous = (address, start..<answers.text.count)
        }
        answers.text.withUnsafeBufferPointer { write($0, answers.spans) }
    }

    /// An address nothing is known of, printed back as atos does.
    private func appendUnknown(_ address: UInt64, to out: inout [UInt8]) {
        out.append(hex: address)
        out.append(0x0a)
    }

    private func appendLine(_ frame: SymbolIndex.Location, at address: UInt64, to out: inout [UInt8]) {
        OutputEscaping.append(frame.function, to: &out)
        out.append(contentsOf: inImage)
        if let file = frame.file, frame.line > 0 {
            out.append(contentsOf: " (".utf8)
            OutputEscaping.append(options.fullPath ? file : Path.lastComponent(file), to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(decimal: UInt64(frame.line))
            out.append(UInt8(ascii: ")"))
        } else if let start = frame.functionStart, address >= start {
            out.append(contentsOf: " + ".utf8)
            out.append(decimal: address - start)
        }
        out.append(0x0a)
    }

    /// Parses an address as atos does: hexadecimal, with or without `0x`.
    public static func parseAddress(_ text: String) -> UInt64? {
        var digits = text.utf8[...]
        if digits.count >= 2, digits.first == UInt8(ascii: "0"),
           digits.dropFirst().first == UInt8(ascii: "x") || digits.dropFirst().first == UInt8(ascii: "X") {
            digits = digits.dropFirst(2)
        }
        guard !digits.isEmpty, digits.count <= 16 else { return nil }
        var value: UInt64 = 0
        for byte in digits {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }
}
