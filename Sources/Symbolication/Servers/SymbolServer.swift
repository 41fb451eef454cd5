/// A symbol server named with `--symbol-server URL[#layout]`: a folder on this machine
/// (`file:///srv/symbols`) or a web server (`http://`, `https://`), and the layout its files
/// are kept in (``SymbolServerLayout``, `unified` when not given).
///
/// Files of a `file://` server are read where they are; those of a web server are downloaded
/// into the download folder (see ``DebugFileServers``), as are the zstd-compressed files of a
/// `file://` server, inflated.
public struct SymbolServer: Sendable, Equatable, CustomStringConvertible {
    /// The URL without its `#layout` and trailing slashes.
    public var url: String
    public var layout: SymbolServerLayout
    /// The folder of a `file://` URL (percent-decoded); nil for a web server.
    public var directory: String?

    /// What is wrong with a `--symbol-server` value.
    public struct ParseError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads `URL[#layout]`.
    public init(parsing argument: String) throws {
        var url = Substring(argument)
        layout = .unified
        if let hash = url.lastIndex(of: "#") {
            let name = url[url.index(after: hash)...].lowercased()
            guard let named = SymbolServerLayout(rawValue: name) else {
                let known = SymbolServerLayout.allCases.map(\.rawValue).joined(separator: ", ")
                throw ParseError(description: "\(argument): unknown layout '\(name)' (known: \(known))")
            }
            layout = named
            url = url[..<hash]
        }
        while url.hasSuffix("/") && !url.hasSuffix("://") { url = url.dropLast() }
        self.url = String(url)
        let lower = url.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            guard url.split(separator: "/", omittingEmptySubsequences: true).count >= 2 else {
                throw ParseError(description: "\(argument): no host in the URL")
            }
            directory = nil
        } else if lower.hasPrefix("file://") {
            var rest = url.dropFirst(7)
            if rest.lowercased().hasPrefix("localhost/") { rest = rest.dropFirst(9) }
            guard rest.hasPrefix("/") else {
                throw ParseError(description: "\(argument): a file:// URL names an absolute path (file:///srv/symbols)")
            }
            guard let decoded = Self.percentDecoded(rest) else {
                throw ParseError(description: "\(argument): a bad %-escape in the path")
            }
            directory = decoded.count > 1 && decoded.hasSuffix("/") ? String(decoded.dropLast()) : decoded
        } else {
            throw ParseError(description: "\(argument): not a file://, http:// or https:// URL")
        }
    }

    /// The URL of the file at `relative` (a layout's path) on this server.
    public func location(of relative: String) -> String {
        url + "/" + relative
    }

    public var description: String { url }

    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next(), let low = iterator.next(),
                  let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16), value != 0
            else { return nil }
            bytes.append(value)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
