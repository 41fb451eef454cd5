extension TextRenderer {
    /// A resolved frame of an Android tombstone: the line is kept whole — its pc, map, the
    /// device's function and offset, build-id — and the source frame follows it in the
    /// sanitizers' form that `TextRenderer+Linux.swift` writes, `in FUNCTION FILE:LINE:COLUMN`:
    /// the file as the debug information records it (as ndk-stack and llvm-symbolizer print
    /// it), `:COLUMN` only when known, `FILE:LINE` left out when the file is unknown. The
    /// renderer has already written the line (the frame's `restStart` is its end) and one
    /// blank.
    ///
    /// An inlined frame repeats the line, frame number included, innermost first; a
    /// tombstone never repeats a frame number, so the repeated line says "inlined", as a
    /// sanitizer's repeated address does:
    ///
    ///       #00 pc 000000000000433c  /data/app/.../libcrashy.so (cart_total+36) (BuildId: 5f0e...) in unit_price /src/native-lib.c:19:12
    ///       #00 pc 000000000000433c  /data/app/.../libcrashy.so (cart_total+36) (BuildId: 5f0e...) in line_price /src/native-lib.c:24:12
    ///       #00 pc 000000000000433c  /data/app/.../libcrashy.so (cart_total+36) (BuildId: 5f0e...) in cart_total /src/native-lib.c:32:18
    ///
    /// The device's own name in the line is never replaced: it is what the debug file was
    /// checked against when the library was found without a build-id (`ReportEvidence`).
    /// `TombstoneLine` reads this text back as an earlier resolution, so that a tombstone
    /// symbolicated twice comes out the same.
    func appendTombstone(_ frame: SourceFrame, to out: inout [UInt8]) {
        out.append(literal: "in ")
        OutputEscaping.append(frame.function, to: &out)
        guard let file = frame.file, !file.isEmpty else { return }
        out.append(ASCII.space)
        OutputEscaping.append(file, to: &out)
        guard let line = frame.line, line > 0 else { return }
        out.append(ASCII.colon)
        out.append(decimal: line)
        if let column = frame.column, column > 0 {
            out.append(ASCII.colon)
            out.append(decimal: column)
        }
    }
}
