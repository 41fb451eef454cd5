/// The rule for one line of an Apple report's "Binary Images:" list, shared by every text format
/// that prints one (classic crash reports, `sample`, spindump and microstackshot reports):
///
///     0x104a30000 - 0x104a3ffff +App arm64  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /private/var/.../App
///     0x1017ff000 - 0x101885fff +com.example.app (4.2.0 - 68) <7B639009-221F-3815-A7A3-657098146F8A> /Applications/...
///     0x104320000 -         ???  com.example.App 1.2 (3)  <7B639009-221F-3815-A7A3-657098146F8A> /path
///
/// `0xSTART - END [+]NAME [ARCH] [(VERSION)] <UUID> PATH`, where END is `0x...` or `???`
/// (microstackshot and resource reports do not know where an image ends), NAME may contain
/// spaces or be a bundle id, ARCH may also appear in parentheses (`(x86_64)`, `(*)`), the UUID
/// may have dashes, any case, or be `???`, and NAME or PATH may be `???`.
enum BinaryImageLine {
    /// Parses the line's text `p..<e` (blanks around it removed); nil if it is not an image line.
    static func parse(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ e: Int, line: Int) -> BinaryImage? {
        guard let (load, afterLoad) = b.hexNumber(at: p, end: e) else { return nil }
        let dash = b.skipBlanks(from: afterLoad, to: e)
        guard dash < e, b[dash] == ASCII.minus else { return nil }
        let endStart = b.skipBlanks(from: dash + 1, to: e)
        let end: UInt64?
        let afterEnd: Int
        if let (value, next) = b.hexNumber(at: endStart, end: e) {
            (end, afterEnd) = (value, next)
        } else if endStart + 3 <= e, b.equals("???", endStart, endStart + 3) {
            (end, afterEnd) = (nil, endStart + 3)
        } else {
            return nil
        }
        guard afterEnd == e || isBlank(b[afterEnd]) else { return nil }
        var q = b.skipBlanks(from: afterEnd, to: e)
        var isApp = false
        if q < e && b[q] == ASCII.plus {
            isApp = true
            q = b.skipBlanks(from: q + 1, to: e)
        }

        // The UUID: the first "<...>" that starts a token; else a bare UUID or "???" token
        // before the path.
        var middleEnd = e
        var uuid: String?
        var path: String?
        if let (open, close) = bracketedToken(b, q, e) {
            middleEnd = b.trimEnd(q, open)
            uuid = b.compactUUID(open + 1, close)
            let pathStart = b.skipBlanks(from: close + 1, to: e)
            if pathStart < e { path = b.string(pathStart, e) }
        } else {
            var slash = q + 1
            while slash < e && !(b[slash] == ASCII.slash && isBlank(b[slash - 1])) { slash += 1 }
            if slash < e {
                middleEnd = b.trimEnd(q, slash)
                path = b.string(slash, e)
            }
            let token = lastTokenStart(b, q, middleEnd)
            if token > q, b.equals("???", token, middleEnd) || b.compactUUID(token, middleEnd) != nil {
                uuid = b.compactUUID(token, middleEnd)
                middleEnd = b.trimEnd(q, token)
            }
        }
        if path == "???" { path = nil }

        // NAME [ARCH] [(VERSION)] or NAME [(ARCH)].
        var nameEnd = middleEnd
        var arch: String?
        var archInParentheses = false
        if nameEnd > q, b[nameEnd - 1] == ASCII.closeParen {
            var open = nameEnd - 2
            while open > q && b[open] != ASCII.openParen { open -= 1 }
            if open > q, isBlank(b[open - 1]) {
                if isArch(b, open + 1, nameEnd - 1) {
                    arch = b.string(open + 1, nameEnd - 1)
                    archInParentheses = true
                } else if b.equals("*", open + 1, nameEnd - 1) {
                    archInParentheses = true
                }
                nameEnd = b.trimEnd(q, open)
            }
        }
        if !archInParentheses {
            let token = lastTokenStart(b, q, nameEnd)
            if token > q, isArch(b, token, nameEnd) {
                arch = b.string(token, nameEnd)
                nameEnd = b.trimEnd(q, token)
            } else if token > q, nameEnd < middleEnd, isDigit(b[token]) {
                // Old macOS: `com.apple.Accelerate 1.6 (Accelerate 1.6)`; resource reports:
                // `com.example.App 1.2 (3)`: a short version before the long one in parentheses.
                nameEnd = b.trimEnd(q, token)
            }
        }
        var name = b.string(q, nameEnd)
        if name.isEmpty { name = path.map { String(basename($0)) } ?? "???" }
        var image = BinaryImage(loadAddress: load, endAddress: end ?? load, name: name, arch: arch, uuid: uuid,
                                path: path, isApp: isApp, line: line)
        image.endIsKnown = end != nil
        return image
    }

    /// The largest range given to an image whose end the report does not print: no Mach-O
    /// image's `__TEXT` comes near it.
    static let openEndReach: UInt64 = 1 << 32

    /// `images` with an end for each whose line printed `???` there.
    ///
    /// Such an image reaches up to the next image's start, in address order (at most
    /// `openEndReach` bytes). Not an unbounded range: that would claim every address past
    /// the last image, frames of images the list leaves out included, and would be taken for
    /// macOS 12's `0x0 - 0xffffffffffffffff` placeholder (`BinaryImage.isPlaceholder`). Up to
    /// the next start is where the image can be at most; an image listed inside that range is
    /// smaller and still wins its own addresses (`CrashReport.image(containing:)` takes the
    /// smallest), so every frame lands in the image that really holds it. Frames of the
    /// formats that print such lines also give their offset into the image, which places them
    /// whatever the range.
    static func closingOpenEnds(_ images: [BinaryImage]) -> [BinaryImage] {
        guard images.contains(where: { !$0.endIsKnown }) else { return images }
        var images = images
        let starts = images.map(\.loadAddress).sorted()
        for i in images.indices where !images[i].endIsKnown {
            let load = images[i].loadAddress
            var low = 0
            var high = starts.count
            while low < high {
                let mid = (low + high) / 2
                if starts[mid] <= load { low = mid + 1 } else { high = mid }
            }
            let reach = load > UInt64.max - openEndReach ? UInt64.max : load + openEndReach - 1
            images[i].endAddress = low < starts.count ? min(starts[low] - 1, reach) : reach
        }
        return images
    }

    /// The first token `<UUID>` or `<???>`: the positions of `<` and `>`.
    private static func bracketedToken(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ e: Int) -> (Int, Int)? {
        var i = p
        while i < e {
            if b[i] == ASCII.less && (i == p || isBlank(b[i - 1])) {
                var close = i + 1
                while close < e && b[close] != ASCII.greater && !isBlank(b[close]) { close += 1 }
                if close < e && b[close] == ASCII.greater
                    && (b.equals("???", i + 1, close) || b.compactUUID(i + 1, close) != nil) {
                    return (i, close)
                }
                i = close
            } else {
                i += 1
            }
        }
        return nil
    }

    /// The start of the last blank-separated token of `p..<e` (`e` must not follow a blank).
    private static func lastTokenStart(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ e: Int) -> Int {
        var i = e
        while i > p && !isBlank(b[i - 1]) { i -= 1 }
        return i
    }

    private static let architectures: [StaticString] = [
        "arm64", "arm64e", "arm64_32", "armv7", "armv7s", "armv7k", "armv7m", "armv7em", "armv6",
        "armv6m", "armv8", "arm", "x86_64", "x86_64h", "i386", "i486", "i586", "i686", "ppc",
        "ppc64", "ppc7400", "ppc970",
    ]

    private static func isArch(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ e: Int) -> Bool {
        architectures.contains { b.equals($0, p, e) }
    }
}
