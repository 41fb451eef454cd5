extension TextRenderer {
    /// A resolved frame of a Swift runtime backtrace, in the runtime's own symbolicated form
    /// (`symbolicate=full`): after the address, `NAME [+ OFFSET] in IMAGE [at FILE:LINE:COLUMN]`,
    /// the name as the runtime spells it (`crash(_:)`), the offset from the function's start
    /// (for a return address, from the byte before it), the full source path. Inlined calls come
    /// first, innermost first, each on a line of its own with the frame's number and
    /// `[inlined]` among its attributes, and no offset, as the runtime prints them:
    ///
    ///     3 [ra] [inlined] 0x00005555555560f8 inner(_:_:) in d at /src/d.swift:2:69
    ///     3 [ra] 0x00005555555560f8 outer(_:_:) + 23 in d at /src/d.swift:3:65
    ///
    /// The concrete frame keeps its line as it was up to the address; the runtime numbers
    /// inlined frames as frames of their own and so renumbers the rest, which is not done here,
    /// so that a frame keeps the number the log gave it. Each line is set in bold when `marked`.
    func renderSwiftFrame(_ report: CrashReport, _ b: UnsafeBufferPointer<UInt8>, line prefix: Range<Int>,
                          frames: [SourceFrame], terminators: (last: UnsafeBufferPointer<UInt8>,
                                                               inner: UnsafeBufferPointer<UInt8>),
                          marked: Bool, into out: inout [UInt8]) {
        // INDEX [ATTR]... 0xADDRESS: the parser found it so; the address ends the prefix.
        var addressStart = prefix.upperBound
        while addressStart > prefix.lowerBound, !isBlank(b[addressStart - 1]) { addressStart -= 1 }
        var indexEnd = b.skipBlanks(from: prefix.lowerBound, to: addressStart)
        while indexEnd < addressStart, isDigit(b[indexEnd]) { indexEnd += 1 }
        let attributesStart = b.skipBlanks(from: indexEnd, to: addressStart)
        let attributesEnd = b.trimEnd(attributesStart, addressStart)
        let imageName = b.hexNumber(at: addressStart, end: prefix.upperBound)
            .flatMap { report.image(containing: $0.value) }.map { report.images[$0].name }

        for (k, frame) in frames.enumerated() {
            out.appendMarkStart(marked)
            if frame.inlined {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[prefix.lowerBound..<indexEnd]))
                out.append(ASCII.space)
                if attributesStart < attributesEnd {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: b[attributesStart..<attributesEnd]))
                    out.append(ASCII.space)
                }
                out.append(literal: "[inlined] ")
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[addressStart..<prefix.upperBound]))
            } else {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[prefix]))
            }
            out.append(ASCII.space)
            Self.appendSwift(frame, image: imageName, to: &out)
            out.appendMarkEnd(marked)
            out.append(contentsOf: k == frames.count - 1 ? terminators.last : terminators.inner)
        }
    }

    /// `NAME [+ OFFSET] [in IMAGE] [at FILE[:LINE[:COLUMN]]]`.
    static func appendSwift(_ frame: SourceFrame, image: String?, to out: inout [UInt8]) {
        OutputEscaping.append(frame.function, to: &out)
        if !frame.inlined, let offset = frame.offset, offset > 0 {
            out.append(literal: " + ")
            out.append(decimal: offset)
        }
        if let image {
            out.append(literal: " in ")
            OutputEscaping.append(image, to: &out)
        }
        guard let file = frame.file, !file.isEmpty else { return }
        out.append(literal: " at ")
        OutputEscaping.append(file, to: &out)
        guard let line = frame.line, line > 0 else { return }
        out.append(ASCII.colon)
        out.append(decimal: line)
        guard let column = frame.column, column > 0 else { return }
        out.append(ASCII.colon)
        out.append(decimal: column)
    }
}
