/// A KSCrash (or SentryCrash) JSON report as read: the original bytes, their JSON tree, and the
/// frame object each frame of the translated report came from, so that `KSCrashRenderer` can
/// write the document back with symbols.
///
/// For the report
///
///     {"crash":{"threads":[{"crashed":true,"backtrace":{"contents":[
///         {"instruction_addr":4372775428,"object_addr":4372758528,"object_name":"App"}]}}]}, ...}
///
/// frame 0 of thread 0 is the object in `contents` above.
public struct KSCrashDocument: Sendable {
    /// The file's bytes, unchanged.
    public var bytes: [UInt8]
    /// The JSON tree over `bytes`.
    let tree: JSONTree
    /// `frameNodes[t][f]`: the JSON node of the frame object of frame `f` of thread `t`.
    let frameNodes: [[Int32]]

    init(bytes: [UInt8], tree: JSONTree, frameNodes: [[Int32]]) {
        self.bytes = bytes
        self.tree = tree
        self.frameNodes = frameNodes
    }

    /// The JSON node of frame `key`'s frame object; nil for a key of no frame.
    func frameNode(_ key: FrameKey) -> Int? {
        guard frameNodes.indices.contains(key.thread), frameNodes[key.thread].indices.contains(key.frame) else { return nil }
        return Int(frameNodes[key.thread][key.frame])
    }
}
