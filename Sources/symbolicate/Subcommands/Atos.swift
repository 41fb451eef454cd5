import ArgumentParser
import DebugInfo
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform
import Symbolication

extension Architecture: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
}

struct Atos: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "atos",
        abstract: "Look up addresses in one debug file, as Apple's atos does.",
        discussion: """
        Prints one line per address: "function (in Image) (File.c:42)", or \
        "function (in Image) + 12" without line information, or the address itself when \
        nothing is known. Addresses are hexadecimal; with none given they are read from \
        standard input, separated by white space.
        """
    )

    @Option(name: .customShort("o", allowingJoined: true), help: ArgumentHelp("The debug file or .dSYM bundle.", valueName: "file"),
            completion: .file())
    var object: String

    @Option(help: ArgumentHelp("The slice of a universal file (arm64, x86_64, armv7, ...).", valueName: "arch"))
    var arch: Architecture?

    @Option(name: .customShort("l", allowingJoined: true), help: ArgumentHelp("The image's load address: addresses are run-time addresses.",
                                                         valueName: "address"))
    var loadAddress: String?

    @Flag(name: .customShort("i"), help: "Print inlined frames, innermost first.")
    var inlinedFrames = false

    @OptionGroup var common: LookupOptions

    @Argument(help: ArgumentHelp("Addresses to look up.", valueName: "address"))
    var addresses: [String] = []

    /// Addresses answered together at most, and the answers' bytes a batch aims at: its
    /// answers are held until it is done (under 100 bytes each for C, over a kilobyte for
    /// C++ with its inlined frames), so each batch takes as many addresses as the last one's
    /// answers say fit.
    static let batchSize = 1 << 16
    static let batchBytes = 8 << 20

    func validate() throws {
        if let loadAddress, AtosLookup.parseAddress(loadAddress) == nil {
            throw ValidationError("-l: not a hexadecimal address: \(loadAddress)")
        }
    }

    func run() throws {
        let diagnostics = Diagnostics()
        let lookup: AtosLookup
        do {
            lookup = try AtosLookup(options: .init(
                objectPath: object, architecture: arch, loadAddress: loadAddress.flatMap(AtosLookup.parseAddress),
                inlinedFrames: inlinedFrames, fullPath: common.fullPath, demangle: !common.noDemangle),
                indexSource: DebugFileOptions.indexSource(cache: !common.noCache, environment: common.cache.environment(),
                                                        diagnostics: diagnostics))
        } catch {
            diagnostics.warn("\(error)")
            throw ExitCode(.reportFailed)
        }
        let output = OutputWriter()
        var failed = false
        // Addresses are answered in batches (``AtosLookup/forEachAnswer(to:_:)`` looks a batch
        // up in address order), each as soon as no more input is ready.
        var batch: [UInt64] = []
        var batchLimit = 4096
        var answers = AtosLookup.Answers()
        func take(_ text: String) {
            guard let address = AtosLookup.parseAddress(text) else {
                diagnostics.warn("atos: not an address: \(text)")
                failed = true
                return
            }
            batch.append(address)
            if batch.count >= batchLimit { answerBatch() }
        }
        func answerBatch() {
            guard !batch.isEmpty else { return }
            var bytes = 0
            lookup.answer(batch, in: &answers) { text, spans in
                bytes = spans.reduce(0) { $0 + $1.count }
                output.write(spans: spans, of: text)
            }
            batchLimit = min(Self.batchSize, max(1024, Self.batchBytes / max(1, bytes / batch.count)))
            batch.removeAll(keepingCapacity: true)
        }
        if addresses.isEmpty {
            let words = WordReader(fd: STDIN_FILENO)
            while !output.closed, let word = words.next() {
                switch word {
                case .word(let text): take(text)
                case .tooLong(let prefix):
                    diagnostics.warn("atos: not an address: \(prefix)...")
                    failed = true
                case .endOfLine:
                    // Answers go out before the next read can wait for more input: at once
                    // for a program that writes an address and waits, in large batches for a
                    // file piped in.
                    if words.mayWait {
                        answerBatch()
                        output.flush()
                    }
                }
            }
            if let error = words.error {
                diagnostics.warn("standard input: cannot read: \(SystemError.reason(error))")
                failed = true
            }
        } else {
            for text in addresses where !output.closed { take(text) }
        }
        if !output.closed { answerBatch() }
        if !output.finish(diagnostics: diagnostics) { throw ExitCode(.outputFailed) }
        if failed { throw ExitCode(.reportFailed) }
    }
}

extension Atos: ManyPositionalArguments {
    var positionalArguments: [String] {
        get { addresses }
        set { addresses = newValue }
    }
}
