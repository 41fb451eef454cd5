extension JSONTree {
    /// How many objects the tree records.
    var objectCount: Int {
        nodes.reduce(0) { $0 + ($1.kind == .object ? 1 : 0) }
    }

    /// Refuses a JSON report at `path` (`inputSize` bytes, its whole tree read) before it is
    /// translated, when what its translation would make could not be held: each of its objects
    /// taken for a frame of 120 bytes, its record and line of text
    /// (``FrameText/translationLimit(inputSize:)``). A real report's objects are 100 bytes of
    /// JSON or more; one of empty objects, 3.
    func refuseWhenTooDense(path: String, inputSize: Int) throws {
        let objects = objectCount
        try FrameText.refuseTranslation(objects.multipliedReportingOverflow(by: 120).partialValue,
                                        of: "its \(objects) JSON objects", path: path, inputSize: inputSize)
    }
}
