/// A MetricKit payload as read: the original bytes, their JSON tree, and the frame object each
/// frame of the translated report came from, so that `MetricKitRenderer` can write the payload
/// back with symbols and the renderers can print each frame's sample count.
///
/// For the payload
///
///     {"crashDiagnostics":[{"callStackTree":{"callStacks":[{"callStackRootFrames":[
///         {"binaryUUID":"4C4C44A0-...","offsetIntoBinaryTextSegment":16900,"sampleCount":1,
///          "binaryName":"App","address":4372775428,"subFrames":[...]}]}]}}]}
///
/// frame 0 of thread 0 is the root frame object above, and its sample count is 1.
public struct MetricKitDocument: Sendable {
    /// The file's bytes, unchanged.
    public var bytes: [UInt8]
    /// The JSON tree over `bytes`.
    let tree: JSONTree
    /// `frameNodes[t][f]`: the JSON node of the frame object of frame `f` of thread `t`.
    let frameNodes: [[Int32]]
    /// `sampleCounts[t][f]`: the frame's `sampleCount`, or -1 when it has none.
    let sampleCounts: [[Int64]]

    init(bytes: [UInt8], tree: JSONTree, frameNodes: [[Int32]], sampleCounts: [[Int64]]) {
        self.bytes = bytes
        self.tree = tree
        self.frameNodes = frameNodes
        self.sampleCounts = sampleCounts
    }

    /// The `sampleCount` of frame `key`; nil when the payload gives none.
    public func sampleCount(_ key: FrameKey) -> UInt64? {
        guard sampleCounts.indices.contains(key.thread), sampleCounts[key.thread].indices.contains(key.frame)
        else { return nil }
        let count = sampleCounts[key.thread][key.frame]
        return count < 0 ? nil : UInt64(count)
    }

    /// The JSON node of frame `key`'s frame object; nil for a key of no frame.
    func frameNode(_ key: FrameKey) -> Int? {
        guard frameNodes.indices.contains(key.thread), frameNodes[key.thread].indices.contains(key.frame) else { return nil }
        return Int(frameNodes[key.thread][key.frame])
    }
}
