// Reading the values of collapsed containers: those `JSONScanner.parse(_:from:to:recordingDepth:)`
// checked but gave no nodes, so that a large document costs nodes only for the part being read.

extension JSONTree {
    /// The value of `node` as a tree of its own whose values are recorded down to
    /// `recordingDepth` below it (its root, node 0, is `node`'s value; ranges are still offsets
    /// into `bytes`). For a container that is not collapsed, or a scalar, that is the same value.
    /// Nil only if the bytes are not one JSON value, which a collapsed value's never are (the
    /// scanner checked them).
    func expanded(_ node: Int, recordingDepth: Int = .max) -> JSONTree? {
        var buffer: [JSONNode] = []
        return expanded(node, recordingDepth: recordingDepth, reusing: &buffer)
    }

    /// The same, its nodes made in `buffer` (emptied first, its room kept): for reading many
    /// values in turn (an `.ips` report's threads) without an allocation for each. A tree kept
    /// past the next use of the buffer keeps its nodes (the next use copies).
    func expanded(_ node: Int, recordingDepth: Int = .max, reusing buffer: inout [JSONNode]) -> JSONTree? {
        let range = nodes[node].range
        guard (try? JSONScanner.parse(bytes, from: range.lowerBound, to: range.upperBound, recordingDepth: recordingDepth,
                                      into: &buffer)) != nil else { return nil }
        return JSONTree(bytes: bytes, nodes: buffer)
    }

    /// Calls `body` with each element of array `node` in order, as a tree and the element's
    /// node in it: this tree and the element's own node when the array has nodes, and a
    /// one-element tree (node 0) otherwise, its nodes made in one buffer reused for every
    /// element. An element that is itself collapsed is read whole into that buffer too.
    /// Does nothing if `node` is not an array.
    func forEachElement(of node: Int, _ body: (JSONTree, Int) -> Void) {
        guard nodes[node].kind == .array else { return }
        var buffer: [JSONNode] = []
        func readWhole(from start: Int, to end: Int) -> Int? {
            guard let next = try? JSONScanner.parse(bytes, from: start, to: end, into: &buffer) else { return nil }
            body(JSONTree(bytes: bytes, nodes: buffer), 0)
            return next
        }
        guard nodes[node].isCollapsed else {
            for child in children(of: node) {
                if nodes[child].isCollapsed {
                    _ = readWhole(from: nodes[child].start, to: nodes[child].end)
                } else {
                    body(self, child)
                }
            }
            return
        }
        let end = nodes[node].end - 1  // the closing bracket
        var i = nodes[node].start + 1
        while true {
            while i < end && JSONScanner.isSpace(bytes[i]) { i += 1 }
            guard i < end, let next = readWhole(from: i, to: end) else { return }
            i = next
            while i < end && JSONScanner.isSpace(bytes[i]) { i += 1 }
            guard i < end, bytes[i] == ASCII.comma else { return }
            i += 1
        }
    }

    /// How many elements array `node` has, counted without reading a collapsed one's values
    /// into nodes; for a collapsed array, how many objects it holds at any depth (at least its
    /// elements, when they are objects, as frames are).
    func elementCountEstimate(of node: Int) -> Int {
        nodes[node].isCollapsed ? nodes[node].collapsedObjects : children(of: node).reduce(0) { n, _ in n + 1 }
    }
}
