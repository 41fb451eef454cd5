// # CrashReport
//
// The model of an Apple crash report, the parser of its classic text form, and the renderers
// that print a report back after symbolication.
//
// ## The classic text report
//
// A `.crash` / `.txt` report, as Xcode and Console show it, is a sequence of blocks, any of which
// may be missing or cut short:
//
//     Incident Identifier: 6156848E-344E-4D9E-84E0-87AFD0D0AE7B      <- header: "Key: value"
//     Code Type:           ARM-64 (Native)
//     Triggered by Thread:  0
//
//     Last Exception Backtrace:                                       <- optional; either frame
//     (0x18eee41c0 0x18d91c55c 0x104a3c5e0)                              lines or a list of addresses
//
//     Thread 0 name:  Dispatch queue: com.apple.main-thread          <- threads
//     Thread 0 Crashed:
//     0   libsystem_kernel.dylib        0x000000018da6eec4 __pthread_kill + 8
//     1   App                           0x0000000104a3c5e0 0x104a30000 + 50656
//
//     Thread 0 crashed with ARM Thread State (64-bit):                 <- registers, not frames
//         x0: 0x0000000000000000   x1: 0x0000000000000000
//
//     Binary Images:                                                   <- start - end (inclusive)
//     0x104a30000 - 0x104a3ffff App arm64  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /private/var/.../App
//     0x18da6b000 - 0x18da9ffff libsystem_kernel.dylib arm64e  <...> /usr/lib/system/libsystem_kernel.dylib
//
// A frame line is `INDEX IMAGE ADDRESS REST`, separated by spaces or tabs; IMAGE may contain
// spaces, so the address is found as the first `0x...` token after the index. REST says what the
// reporter knew (`FrameForm`): `0xLOAD + OFFSET`, `symbol + OFFSET`, `symbol + OFFSET (File.m:42)`,
// `IMAGE + OFFSET`, or `???`. Frames are matched to images by address range once the whole report
// (whose images come last) has been read. The details and the variants met in real reports are
// in `ClassicReportParser`.
//
// ## Rendering
//
// The parse keeps the input bytes and every line's byte range, and each frame remembers where the
// text after its address starts. `TextRenderer` copies the report line for line and rewrites only
// the frames that were resolved, so that
//
//     1   App                           0x0000000104a3c5e0 0x104a30000 + 50656
//
// becomes (innermost inlined frame first)
//
//     1   App                           0x0000000104a3c5e0 clamp + 8 (Math.h:12) [inlined]
//     1   App                           0x0000000104a3c5e0 compute + 40 (main.c:42)
//
// and a report without resolutions comes back byte for byte. `JSONRenderer` writes the same
// information as one JSON document.

/// A parsed crash report: the input bytes, their lines, and the header, backtraces and images
/// found in them.
public struct CrashReport: Sendable {
    /// Where the report was read from, for messages.
    public var path: String
    /// The input, unchanged.
    public var bytes: [UInt8]
    /// The byte range of each line in `bytes`, including its terminator ("\n" or "\r\n"); the
    /// last line may have none. Concatenating all ranges gives `bytes` exactly.
    public var lines: LineRanges
    /// The "Key: value" lines of the header block, in order. "Application Specific Information"
    /// may span several lines; its value is its first line.
    public var header: [(key: String, value: String)]
    /// The raw "Code Type" value, e.g. "ARM-64 (Native)".
    public var codeType: String?
    /// The crashed thread's number, from "Triggered by Thread:" / "Crashed Thread:", or else from
    /// the first thread header that says "Crashed".
    public var crashedThread: Int?
    /// Every backtrace in report order, including "Last Exception Backtrace" and "Application
    /// Specific Backtrace" ones.
    public var threads: [Backtrace]
    /// The binary images in report order.
    public var images: [BinaryImage] {
        didSet { imageIndex = ImageIndex(images) }
    }

    /// What the report was read from (classic text, `.ips`, a Linux log, ...), with the document
    /// that output in that format is written from. For `.ips` and MetricKit JSON, `bytes` holds
    /// the report translated to the classic text form, which the text renderer prints.
    public var source: ReportSource
    /// What the user should know about how the report was read (one line each, naming the
    /// file), e.g. that it was UTF-16 and is written as UTF-8.
    public var warnings: [String] = []
    /// Backtraces that another producer wrote in the same log, named and written as that
    /// producer does (``BacktraceProducer``); empty for the log of one producer.
    public var otherProducers: [BacktraceProducer] = []

    private var imageIndex: ImageIndex

    /// Creates a report from its parts. Frames keep the `image` they are given.
    public init(path: String, bytes: [UInt8], lines: LineRanges,
                header: [(key: String, value: String)] = [], codeType: String? = nil,
                crashedThread: Int? = nil, threads: [Backtrace] = [], images: [BinaryImage] = [],
                source: ReportSource = .classic) {
        self.path = path
        self.bytes = bytes
        self.lines = lines
        self.header = header
        self.codeType = codeType
        self.crashedThread = crashedThread
        self.threads = threads
        self.images = images
        self.source = source
        self.imageIndex = ImageIndex(images)
    }

    /// The index into `images` of the smallest image whose range contains `address` (the
    /// earliest one among equals); nil if none does.
    public func image(containing address: UInt64) -> Int? {
        imageIndex.lookup(address)
    }

    /// Sets every frame's `image`: by address range first, by name when no range matches.
    ///
    /// An address no image holds may carry arm64e pointer-authentication bits, which some
    /// reporters leave in (or only macOS 12's `0x0 - 0xffffffffffffffff ???` placeholder holds
    /// it): it is stripped to the platform's address width (iOS and its
    /// siblings: 36 bits; macOS: 47; unknown: 47, then 36) and kept stripped if an image then
    /// holds it.
    mutating func matchFramesToImages() {
        var byName: [Substring: Int]?
        let masks = pointerAuthenticationMasks()
        for t in threads.indices {
            for f in threads[t].frames.indices {
                let frame = threads[t].frames[f]
                if frame.addressUnknown { continue }
                let found = image(containing: frame.address)
                if let index = found, !images[index].isPlaceholder {
                    threads[t].frames[f].image = index
                } else if let (stripped, index) = strippedMatch(frame.address, masks) {
                    threads[t].frames[f].address = stripped
                    threads[t].frames[f].image = index
                } else if let index = found {
                    threads[t].frames[f].image = index
                } else if let name = frame.imageName, name != "???" {
                    if byName == nil { byName = imagesByName() }
                    threads[t].frames[f].image = byName?[name[...]]
                }
            }
        }
    }

    /// The address widths to try for pointer-authentication bits: none unless the report is
    /// from a 64-bit ARM process.
    func pointerAuthenticationMasks() -> [UInt64] {
        let code = codeType?.uppercased() ?? ""
        let arm64 = code.hasPrefix("ARM-64") || code.hasPrefix("ARM64")
            || images.contains { $0.arch == "arm64e" || $0.arch == "arm64" }
        guard arm64 else { return [] }
        let os = (header.first { $0.key == "OS Version" }?.value ?? "").lowercased()
        if os.hasPrefix("macos") || os.hasPrefix("mac os") { return [(1 << 47) - 1] }
        if ["iphone os", "ios", "ipados", "watchos", "tvos", "visionos", "xros"].contains(where: os.hasPrefix) {
            return [(1 << 36) - 1]
        }
        return [(1 << 47) - 1, (1 << 36) - 1]
    }

    private func strippedMatch(_ address: UInt64, _ masks: [UInt64]) -> (UInt64, Int)? {
        for mask in masks where address & ~mask != 0 {
            if let index = image(containing: address & mask), !images[index].isPlaceholder {
                return (address & mask, index)
            }
        }
        return nil
    }

    /// The first image of each name and of each file name, except "???".
    private func imagesByName() -> [Substring: Int] {
        var result: [Substring: Int] = [:]
        for (index, image) in images.enumerated() {
            if image.name != "???", result[image.name[...]] == nil {
                result[image.name[...]] = index
            }
            if let path = image.path {
                let file = basename(path)
                if !file.isEmpty, result[file] == nil { result[file] = index }
            }
        }
        return result
    }
}

/// Address → image lookup in O(log n), built in O(n log n) however the images overlap.
///
/// The address space is cut at every image's start and just past its end into segments no
/// image starts or ends inside; each segment gets, once, the image that wins it: the smallest
/// holding it, the earliest in the report among equals. Images are taken in that order and each
/// paints the segments of its range not painted yet, a skip list of "next unpainted segment"
/// pointers (union-find) making each segment's paint a step.
private struct ImageIndex: Sendable {
    /// Segment `k` runs from `starts[k]` up to `starts[k + 1]` (the last to the end of memory).
    private var starts: [UInt64] = []
    /// The image each segment belongs to, or -1.
    private var owners: [Int] = []

    init(_ images: [BinaryImage]) {
        var cuts: [UInt64] = []
        cuts.reserveCapacity(images.count * 2)
        for image in images where image.loadAddress <= image.endAddress {
            cuts.append(image.loadAddress)
            if image.endAddress < .max { cuts.append(image.endAddress + 1) }
        }
        cuts.sort()
        var unique: [UInt64] = []
        unique.reserveCapacity(cuts.count)
        for cut in cuts where unique.last != cut { unique.append(cut) }
        starts = unique
        owners = Array(repeating: -1, count: unique.count)

        let order = images.indices.filter { images[$0].loadAddress <= images[$0].endAddress }.sorted {
            (images[$0].endAddress - images[$0].loadAddress, $0) < (images[$1].endAddress - images[$1].loadAddress, $1)
        }
        // next[k]: the first segment at or after k not painted yet (path-halving union-find).
        var next = Array(0...unique.count)
        func unpainted(_ k: Int) -> Int {
            var k = k
            while next[k] != k {
                next[k] = next[next[k]]
                k = next[k]
            }
            return k
        }
        for index in order {
            let image = images[index]
            let first = Self.segment(startingAt: image.loadAddress, in: unique)
            let end = image.endAddress == .max ? unique.count : Self.segment(startingAt: image.endAddress + 1, in: unique)
            var k = unpainted(first)
            while k < end {
                owners[k] = index
                next[k] = k + 1
                k = unpainted(k + 1)
            }
        }
    }

    /// The index of the segment that starts exactly at `address`, which is one of the cuts.
    private static func segment(startingAt address: UInt64, in starts: [UInt64]) -> Int {
        var low = 0
        var high = starts.count
        while low < high {
            let mid = (low + high) / 2
            if starts[mid] < address { low = mid + 1 } else { high = mid }
        }
        return low
    }

    func lookup(_ address: UInt64) -> Int? {
        // The last segment starting at or below the address.
        var low = 0
        var high = starts.count
        while low < high {
            let mid = (low + high) / 2
            if starts[mid] <= address { low = mid + 1 } else { high = mid }
        }
        guard low > 0, owners[low - 1] >= 0 else { return nil }
        return owners[low - 1]
    }
}
