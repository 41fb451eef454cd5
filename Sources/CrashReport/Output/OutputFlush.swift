/// Where a renderer hands its output on while it renders, so that the output of a large report
/// is never held whole: the renderer appends to its buffer as always and, at the end of each
/// line or frame, hands the buffer on once it holds ``threshold`` bytes, and empties it. The
/// parts of the input a renderer keeps as they are go out directly, without being copied into
/// the buffer first. A renderer given no `OutputFlush` appends everything to its buffer.
public struct OutputFlush {
    /// How many bytes the buffer holds before it is handed on.
    public let threshold: Int
    private let write: (UnsafeRawBufferPointer) -> Void

    /// Hands the output to `write` in pieces of about `threshold` bytes (and the kept parts
    /// of the input as they are).
    public init(threshold: Int = 1 << 20, write: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.threshold = threshold
        self.write = write
    }

    /// Hands `out` on when it holds at least ``threshold`` bytes.
    @inline(__always)
    func callAsFunction(_ out: inout [UInt8]) {
        if out.count >= threshold { handOn(&out) }
    }

    /// Hands what `out` holds on, and empties it.
    public func handOn(_ out: inout [UInt8]) {
        guard !out.isEmpty else { return }
        out.withUnsafeBytes { write($0) }
        out.removeAll(keepingCapacity: true)
    }

    /// Hands `bytes` on after what `out` holds: a large part of the input goes out as it is,
    /// a small one joins the buffer.
    public func pass(_ bytes: UnsafeBufferPointer<UInt8>, after out: inout [UInt8]) {
        if bytes.count < threshold / 4 {
            out.append(contentsOf: bytes)
            self(&out)
            return
        }
        handOn(&out)
        write(UnsafeRawBufferPointer(bytes))
    }
}

extension Optional where Wrapped == OutputFlush {
    /// Appends `bytes`, a part of the input kept as it is, to `out`, or hands it on directly
    /// when there is a flush.
    @inline(__always)
    func append(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        if let flush = self {
            flush.pass(bytes, after: &out)
        } else {
            out.append(contentsOf: bytes)
        }
    }

    /// Hands `out` on when there is a flush and `out` holds enough.
    @inline(__always)
    func check(_ out: inout [UInt8]) {
        if let flush = self { flush(&out) }
    }

    /// Reserves room in `out` for `estimate` more bytes; with a flush, whose buffer never grows
    /// much past its threshold, for no more than a threshold and a little.
    @inline(__always)
    func reserve(_ estimate: Int, in out: inout [UInt8]) {
        let limit = self.map { $0.threshold + $0.threshold / 4 } ?? Int.max
        out.reserveCapacity(out.count + min(estimate, limit))
    }
}
