/// A JSON `.ips` report as read: the original bytes and where each frame of the translated
/// report sits in them, so that `IPSRenderer` can write the document back with symbols.
public struct IPSDocument: Sendable {
    /// The file's bytes, unchanged.
    public var bytes: [UInt8]

    /// Creates a document over the file's bytes.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }
}
