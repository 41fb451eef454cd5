extension TextRenderer {
    /// A resolved frame of a Linux log, in the sanitizers' own symbolized form:
    /// `in FUNCTION FILE:LINE:COLUMN`, the file as the debug information records it (the
    /// sanitizers print full paths), `:COLUMN` only when known, `FILE:LINE` left out when the
    /// file is unknown. The renderer has already written the line up to the frame's
    /// `restStart` and one blank.
    ///
    /// For a `#N 0xADDR` line (sanitizer, LLVM) the renderer repeats the prefix, number
    /// included, for each inlined frame, and the repeated number says "inlined" (a sanitizer
    /// renumbers them instead); nothing is added:
    ///
    ///     #1 0x5607584d843d in ledger::sum_if<...>(...) /src/ledger.hpp:21:13
    ///     #1 0x5607584d843d in ledger::Ledger::balance(int) const /src/ledger.cpp:24:12
    ///
    /// A glibc line has no number, and recursion gives identical consecutive lines in glibc
    /// backtraces, so a repeated line alone cannot say "inlined": inlined frames there end in
    /// ` [inlined]`, as in Apple reports. The text goes after `[0xADDR]`, the end of the line:
    ///
    ///     ./prog(+0x1388)[0x55fd7aec4388] in item_weight /src/inventory.h:25:12 [inlined]
    ///     ./prog(+0x1388)[0x55fd7aec4388] in inventory_total /src/inventory.c:10:18
    ///
    /// ThreadSanitizer's lines have no address; they become what it prints when it
    /// symbolizes, the module group kept: `#0 main /src/race.c:9:10 (prog+0x1249)`.
    ///
    /// Which of these a line is shows in its `prefix`, the bytes kept up to the frame's
    /// `restStart`: a glibc prefix ends in `]`, a numbered one in the address's last hexadecimal
    /// digit, a ThreadSanitizer one in `#N`.
    ///
    /// `replaced` is the text the frame had after its address (`(/path/prog+0x1234) (BuildId:
    /// ...)`); when the debug file names the function but no source file, its module part is
    /// kept, as a sanitizer prints `in _start (/path/prog+0x80260) (BuildId: ...)`.
    func appendLinux(_ frame: SourceFrame, prefix: UnsafeBufferPointer<UInt8>, replacing replaced: UnsafeBufferPointer<UInt8>,
                     to out: inout [UInt8]) {
        var last = prefix.count - 1
        while last >= 0 && isBlank(prefix[last]) { last -= 1 }
        let afterGlibcLine = last >= 0 && prefix[last] == 0x5D  // ]
        var token = last
        while token > 0 && !isBlank(prefix[token - 1]) { token -= 1 }
        let threadSanitizer = token >= 0 && token <= last && prefix[token] == 0x23  // "#N", no address

        if !threadSanitizer { out.append(literal: "in ") }
        OutputEscaping.append(frame.function, to: &out)
        if let file = frame.file, !file.isEmpty {
            out.append(ASCII.space)
            OutputEscaping.append(file, to: &out)
            if let line = frame.line, line > 0 {
                out.append(ASCII.colon)
                out.append(decimal: line)
                if let column = frame.column, column > 0 {
                    out.append(ASCII.colon)
                    out.append(decimal: column)
                }
            }
        }
        if threadSanitizer || frame.file?.isEmpty ?? true, let module = Self.moduleText(replaced) {
            out.append(ASCII.space)
            OutputEscaping.append(module, to: &out)
        }
        if afterGlibcLine && frame.inlined { out.append(literal: " [inlined]") }
    }

    /// The text from the `(module+0xOFFSET)` group of a sanitizer frame's text on
    /// (`(/path/prog+0x1234) (BuildId: ...)`, or from `in _start (/path/prog+0x1234)` when
    /// read back), if it has one.
    private static func moduleText(_ text: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        var end = 0
        while end < text.count {
            guard let open = text[end...].firstIndex(of: ASCII.openParen),
                  let close = text[open...].firstIndex(of: ASCII.closeParen) else { return nil }
            let group = UnsafeBufferPointer(rebasing: text[open...close])
            if let plus = group.lastIndex(of: ASCII.plus), plus + 2 < group.count,
               group[plus + 1] == UInt8(ascii: "0"), group[plus + 2] == UInt8(ascii: "x") {
                // The group and what follows it (a build-id), as the sanitizer keeps them.
                var last = text.count
                while last > open && isBlank(text[last - 1]) { last -= 1 }
                return UnsafeBufferPointer(rebasing: text[open..<last])
            }
            end = close + 1
        }
        return nil
    }
}
