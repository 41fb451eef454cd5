extension TextRenderer {
    /// A resolved frame of a Linux log. (Being written.)
    func appendLinux(_ frame: SourceFrame, to out: inout [UInt8]) {
        out.append(literal: "in ")
        out.append(utf8: frame.function)
    }
}
