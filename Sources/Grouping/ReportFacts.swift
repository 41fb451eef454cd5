import CrashReport
import Platform

/// What grouping keeps of one report: its signature and the few facts a group collects. The
/// report itself is let go as soon as these are read.
public struct ReportFacts: Sendable {
    /// Which group the report falls into.
    public var signature: CrashSignature
    /// The report's exception type as it gives it (`EXC_BAD_ACCESS (SIGSEGV)`).
    public var exceptionType: String?
    /// When the crash happened, as the report's `Date/Time` says.
    public var date: CrashDate?
    /// The app's version as the report gives it (`1.0 (1)`, `1 (1.0)`).
    public var appVersion: String?
    /// The OS version as the report gives it (`iPhone OS 14.4 (18D52)`).
    public var osVersion: String?
    /// The backtrace the signature came from, resolved, when asked for.
    public var example: ExampleThread?

    /// The facts of `symbolicated`; its backtrace's frames too when `example`, with source
    /// files as the debug information records them (`fullPath`) or by file name. `namer`
    /// names the registers of a destroyed stack (``DestroyedStack``).
    public init(_ symbolicated: SymbolicatedReport, example: Bool = false, fullPath: Bool = false,
                namer: DestroyedStack.Namer? = nil) {
        let report = symbolicated.report
        let (signature, found) = SignatureReader.read(symbolicated, example: example, namer: namer)
        var thread = found
        if !fullPath, thread != nil {
            for i in thread!.frames.indices { thread!.frames[i].file = thread!.frames[i].file.map(Path.lastComponent) }
        }
        self.signature = signature
        self.example = thread
        exceptionType = SignatureReader.header(report, "Exception Type")
        date = (SignatureReader.header(report, "Date/Time") ?? SignatureReader.header(report, "Timestamp")).flatMap(CrashDate.init)
        appVersion = SignatureReader.header(report, "Version")
        osVersion = SignatureReader.header(report, "OS Version")
    }

    /// Creates facts from their parts.
    public init(signature: CrashSignature, exceptionType: String? = nil, date: CrashDate? = nil,
                appVersion: String? = nil, osVersion: String? = nil, example: ExampleThread? = nil) {
        self.signature = signature
        self.exceptionType = exceptionType
        self.date = date
        self.appVersion = appVersion
        self.osVersion = osVersion
        self.example = example
    }
}

/// One backtrace of an example report, resolved, as the page shows it.
public struct ExampleThread: Sendable {
    /// `Thread 0 Crashed: Dispatch queue: com.apple.main-thread`, `Last Exception Backtrace`.
    public var name: String
    /// Its frames, innermost first, inlined frames each a frame.
    public var frames: [ExampleFrame]
}

/// One frame of an ``ExampleThread``.
public struct ExampleFrame: Sendable {
    /// The frame's number in the report (inlined frames share their frame's).
    public var number: Int
    /// The image's file name.
    public var image: String
    /// The last component of the image's path, where the report gives one: what an unresolved
    /// frame's signature name (`App+0x1f0c`) starts with, the same in a macOS `.crash` report
    /// (whose frames name the image by its bundle ID) and in its `.ips` twin (by its file name).
    public var signatureImage: String?
    /// The address as the report gives it.
    public var address: UInt64
    /// The offset from the image's start, when known.
    public var imageOffset: UInt64?
    /// The function, as resolved or as the report names it.
    public var function: String?
    /// The offset into the function.
    public var offset: UInt64?
    /// The source file, as the debug information records it.
    public var file: String?
    /// The source line.
    public var line: Int?
    /// Whether the frame is inlined into the next one.
    public var inlined = false
    /// Whether the frame is in an app image.
    public var inApp: Bool
    /// Whether an image of the report holds the frame's address.
    public var placed = true
    /// Whether the frame belongs to a crash handler (it comes before a signal trampoline).
    public var handler = false
    /// Whether the frame is one of those that make the signature.
    public var inSignature = false
    /// The frame as the signature spells it (set for the frames considered).
    public var signatureName = ""

    /// Creates a frame that names no function yet.
    public init(number: Int, image: String, address: UInt64, imageOffset: UInt64?, inApp: Bool) {
        self.number = number
        self.image = image
        self.address = address
        self.imageOffset = imageOffset
        self.inApp = inApp
    }

    /// `parser.c:8`, or nil without a file.
    public var location: String? {
        guard let file else { return nil }
        guard let line, line > 0 else { return file }
        return "\(file):\(line)"
    }
}
