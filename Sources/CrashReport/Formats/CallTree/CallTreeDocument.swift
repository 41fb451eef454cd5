/// What a call-tree report (spindump, `sample`, microstackshot) says about each of its frames
/// beyond the `Frame` model: the sample count of the node, and where in its line the parts sit
/// that `CallTreeRenderer` keeps when it writes the frame resolved.
///
/// A spindump / microstackshot frame line
///
///     `    16  ??? (App + 1234) [0x104a3c5e0] 1-16`
///
/// has its symbol at `Frame.restStart`, the image and offset (`App + 1234`) at `image`, the parenthesized group ending at `groupEnd`, and the rest (` [0x...] 1-16`) after
/// it. A `sample` line
///
///     `    +   2757 ???  (in App)  load address 0x104a30000 + 0xc5e0  [0x104a3c5e0]`
///
/// has `(in App)` at `image` and `[0x104a3c5e0]` at `address`. Offsets are from the line's
/// first byte.
public struct CallTreeDocument: Sendable {
    /// The layout of the report's frame lines.
    public enum Style: Sendable, Equatable {
        /// spindump, hang and microstackshot reports: `COUNT  SYMBOL (IMAGE + OFFSET) [0xADDRESS]`.
        case spindump
        /// macOS `sample`: `COUNT SYMBOL  (in IMAGE) + OFFSET  [0xADDRESS]  FILE:LINE`.
        case sample
    }

    /// One frame line: a node of a call tree, or a line of a heaviest stack.
    public struct Node: Sendable, Equatable {
        /// How many samples the node stands for.
        public var samples: UInt64
        /// The image part of the line (`App + 1234` for spindump, `(in App)` for sample); empty
        /// for a line that names no image (`??? [0x...]`).
        public var image: Range<Int32>
        /// Spindump: just past the `)` that closes the image group.
        public var groupEnd: Int32
        /// The `[0x...]` address, brackets included; nil if the line has none.
        public var address: Range<Int32>?

        /// Creates a node from its parts.
        public init(samples: UInt64, image: Range<Int32>, groupEnd: Int32, address: Range<Int32>?) {
            self.samples = samples
            self.image = image
            self.groupEnd = groupEnd
            self.address = address
        }
    }

    /// The layout of the report's frame lines.
    public var style: Style
    /// `nodes[t][f]`: what the line of frame `f` of thread `t` holds beyond the frame.
    public var nodes: [[Node]]

    /// Creates a document from its parts.
    public init(style: Style, nodes: [[Node]]) {
        self.style = style
        self.nodes = nodes
    }

    /// The node of frame `key`, if there is one.
    public func node(_ key: FrameKey) -> Node? {
        guard nodes.indices.contains(key.thread), nodes[key.thread].indices.contains(key.frame) else { return nil }
        return nodes[key.thread][key.frame]
    }
}
