#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A small JSON reader for `.ips` reports that keeps every value's place in the input.
//
// `Foundation.JSONSerialization` gives dictionaries: key order, number spelling and the exact
// bytes are lost, and a renderer that must write the document back with a few members changed
// needs all three. `JSONScanner` reads one JSON value into a flat `JSONTree`: one `JSONNode` per
// value, holding its kind, its byte range and (for a member of an object) its key's byte range,
// linked to its first child and next sibling. For
//
//     {"imageOffset":16900,"imageIndex":0}
//
// the tree is three nodes: the object `0..<36`, then `16900` (`15..<20`, key `1..<14`) and `0`
// (`34..<35`, key `21..<33`). Strings are decoded only when asked for.
//
// The scanner is iterative (its stack is an array), so deep nesting costs memory, never the call
// stack. It accepts exactly RFC 8259 JSON, with two liberties met in real files: leading zeros in
// numbers, and anything after the value (the caller decides what trailing bytes mean).

/// What kind of value a `JSONNode` holds.
enum JSONKind: UInt8, Sendable {
    case object, array, string, number, bool, null
}

/// One value of a `JSONTree`.
///
/// An `.ips` report has a node for every number and string of its frames, so a node is kept
/// small: its offsets and links are 32-bit (`JSONScanner.parse` takes no input past 4 GiB), with
/// `UInt32.max` for -1, and the properties below present them as `Int`s.
struct JSONNode: Sendable {
    private var storedStart: UInt32
    private var storedEnd: UInt32
    private var storedKeyStart: UInt32
    private var storedKeyEnd: UInt32
    /// The first child's index; for a collapsed container, how many objects it holds.
    private var storedFirstChild: UInt32 = .max
    private var storedNextSibling: UInt32 = .max
    /// The value's kind.
    var kind: JSONKind
    /// Whether this container's values were checked but given no nodes (see
    /// `JSONScanner.parse(_:from:to:recordingDepth:)`).
    private(set) var isCollapsed = false

    init(kind: JSONKind, start: Int, end: Int, keyStart: Int = -1, keyEnd: Int = -1) {
        self.kind = kind
        storedStart = Self.pack(start)
        storedEnd = Self.pack(end)
        storedKeyStart = Self.pack(keyStart)
        storedKeyEnd = Self.pack(keyEnd)
    }

    /// The value's first byte (`{`, `[`, `"`, a digit, ...).
    var start: Int { Self.unpack(storedStart) }
    /// One past the value's last byte.
    var end: Int {
        get { Self.unpack(storedEnd) }
        set { storedEnd = Self.pack(newValue) }
    }
    /// For a member of an object: the key's string token, quotes included; -1 otherwise.
    var keyStart: Int { Self.unpack(storedKeyStart) }
    var keyEnd: Int { Self.unpack(storedKeyEnd) }
    /// The node index of the first element or member; -1 if none, or if the container is
    /// collapsed.
    var firstChild: Int {
        get { isCollapsed ? -1 : Self.unpack(storedFirstChild) }
        set { storedFirstChild = Self.pack(newValue) }
    }

    /// Whether the container holds values, with nodes or collapsed.
    var hasValues: Bool { isCollapsed || storedFirstChild != .max }

    /// For a collapsed container: how many objects it holds, at any depth; 0 otherwise.
    var collapsedObjects: Int { isCollapsed ? Int(storedFirstChild) : 0 }

    /// Marks the container collapsed: it has values, and they have no nodes.
    mutating func collapse() {
        guard !isCollapsed else { return }
        isCollapsed = true
        storedFirstChild = 0
    }

    /// Counts one more object inside a collapsed container.
    mutating func countCollapsedObject() {
        if storedFirstChild < .max - 1 { storedFirstChild += 1 }
    }
    /// The node index of the next element or member of the same parent; -1 if none.
    var nextSibling: Int {
        get { Self.unpack(storedNextSibling) }
        set { storedNextSibling = Self.pack(newValue) }
    }

    var range: Range<Int> { start..<end }
    var keyRange: Range<Int>? { keyStart >= 0 ? keyStart..<keyEnd : nil }

    @inline(__always)
    private static func pack(_ value: Int) -> UInt32 {
        value < 0 ? .max : UInt32(truncatingIfNeeded: value)
    }

    @inline(__always)
    private static func unpack(_ value: UInt32) -> Int {
        value == .max ? -1 : Int(value)
    }
}

/// Why the input is not JSON: what was wrong and at which byte.
struct JSONError: Error, Sendable {
    /// The byte offset of the problem in the input.
    var offset: Int
    /// What was expected or found, e.g. "expected ',' or '}'".
    var message: String
    /// Whether the input ended before the value did (a truncated file).
    var atEnd: Bool
    /// Whether the input holds more recorded values than `maxNodes` allowed (a file of empty
    /// objects made to fill memory), not a syntax error.
    var tooDense = false

    /// A one-line reason naming where in `bytes` (line and column) and what, e.g.
    /// "not valid JSON: expected ',' or '}' at line 3, column 7"; `part` names the part of
    /// the file ("the JSON body") when there is more than one.
    func reason(in bytes: [UInt8], part: String? = nil) -> String {
        var line = 1
        var lineStart = 0
        for i in 0..<min(offset, bytes.count) where bytes[i] == ASCII.newline {
            line += 1
            lineStart = i + 1
        }
        let place = "line \(line), column \(offset - lineStart + 1)"
        let what = (part.map { "\($0) is not" } ?? "not") + " valid JSON: \(message)"
        return atEnd ? "\(what) (\(place)): the file is cut short" : "\(what) at \(place)"
    }
}

/// A parsed JSON value: its nodes in document order (the root is node 0) over the input bytes.
struct JSONTree: Sendable {
    /// The input the ranges refer to.
    let bytes: [UInt8]
    /// The nodes in the order their values start.
    let nodes: [JSONNode]

    /// The root value's node index.
    var root: Int { 0 }

    /// The node indices of the elements of an array or the members of an object, in order.
    func children(of node: Int) -> JSONChildren {
        JSONChildren(nodes: nodes, current: nodes[node].firstChild)
    }

    /// The value of the first member of object `node` whose key is `name`; nil if there is none
    /// or `node` is not an object.
    func member(_ name: String, of node: Int?) -> Int? {
        guard let node, nodes[node].kind == .object else { return nil }
        for child in children(of: node) where keyEquals(child, name) { return child }
        return nil
    }

    /// Sets `found` to the value nodes of the first members of object `node` whose keys are
    /// `names`, in the order of `names` (nil for a name no member has), found in one pass over
    /// its members: what `member(_:of:)` gives for each name, for objects read member by
    /// member (`found` is the caller's, kept from one object to the next).
    func members(_ names: [StaticString], of node: Int, into found: inout [Int?]) {
        found.removeAll(keepingCapacity: true)
        found.append(contentsOf: repeatElement(nil, count: names.count))
        guard nodes[node].kind == .object else { return }
        bytes.withUnsafeBufferPointer { b in
            for child in children(of: node) {
                let n = nodes[child]
                guard n.keyStart >= 0, let base = b.baseAddress else { continue }
                let key = base + n.keyStart + 1, count = n.keyEnd - 1 - (n.keyStart + 1)
                let escaped = memchr(key, Int32(ASCII.backslash), count) != nil
                for k in names.indices where found[k] == nil {
                    let name = names[k]
                    let equal = escaped ? keyEquals(child, name.description)
                        : name.utf8CodeUnitCount == count && (count == 0 || memcmp(key, name.utf8Start, count) == 0)
                    if equal {
                        found[k] = child
                        break
                    }
                }
            }
        }
    }

    /// Whether the key of member `node` is `name`.
    ///
    /// A key without an escape is its bytes, compared in place; one with an escape is decoded
    /// first. (A key whose bytes are `name`'s has an escape only if `name` has a backslash.)
    func keyEquals(_ node: Int, _ name: String) -> Bool {
        let n = nodes[node]
        guard n.keyStart >= 0 else { return false }
        let start = n.keyStart + 1, count = n.keyEnd - 1 - start
        var name = name
        let plain: Bool? = bytes.withUnsafeBufferPointer { b in
            name.withUTF8 { u in
                guard let key = b.baseAddress.map({ $0 + start }) else { return nil }
                let escaped = memchr(key, Int32(ASCII.backslash), count) != nil
                if escaped { return nil }
                return u.count == count && (count == 0 || memcmp(key, u.baseAddress!, count) == 0)
            }
        }
        return plain ?? (decodeString(n.keyStart..<n.keyEnd) == name)
    }

    /// The decoded text of string `node`; nil if it is not a string.
    func string(_ node: Int?) -> String? {
        guard let node, nodes[node].kind == .string else { return nil }
        return decodeString(nodes[node].range)
    }

    /// The decoded bytes of string `node`; nil if it is not a string.
    func stringBytes(_ node: Int?) -> [UInt8]? {
        guard let node, nodes[node].kind == .string else { return nil }
        return decodeStringBytes(nodes[node].range)
    }

    /// The value of number `node` if it is a non-negative integer that fits in 64 bits (a
    /// fraction or exponent of zero is allowed: `12.0`); nil otherwise.
    func unsigned(_ node: Int?) -> UInt64? {
        guard let node, nodes[node].kind == .number else { return nil }
        let n = nodes[node]
        var value: UInt64 = 0
        var i = n.start
        while i < n.end, isDigit(bytes[i]) {
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(bytes[i] &- ASCII.zero))
            guard !o1, !o2 else { return nil }
            value = sum
            i += 1
        }
        guard i > n.start else { return nil }  // a minus sign
        if i < n.end, bytes[i] == 0x2E {  // ".000" only
            i += 1
            while i < n.end, bytes[i] == ASCII.zero { i += 1 }
        }
        return i == n.end ? value : nil
    }

    /// The value of number `node` as an `Int`, if it is a non-negative integer that fits.
    func int(_ node: Int?) -> Int? {
        unsigned(node).flatMap { $0 <= UInt64(Int.max) ? Int($0) : nil }
    }

    /// The value of `true` / `false` node `node`; nil for other kinds.
    func bool(_ node: Int?) -> Bool? {
        guard let node, nodes[node].kind == .bool else { return nil }
        return bytes[nodes[node].start] == 0x74
    }

    /// The text of a string, or the spelling of a number or literal: for header values that
    /// reports write either way (`"bug_type":"309"`, `"code":6`).
    func text(_ node: Int?) -> String? {
        guard let node else { return nil }
        switch nodes[node].kind {
        case .string: return string(node)
        case .number, .bool: return String(decoding: bytes[nodes[node].range], as: UTF8.self)
        case .object, .array, .null: return nil
        }
    }

    /// Decodes the string token at `range` (quotes included) to UTF-8 bytes. Escapes were
    /// checked by the scanner; a lone surrogate becomes U+FFFD.
    private func decodeStringBytes(_ range: Range<Int>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var i = range.lowerBound + 1
        let end = range.upperBound - 1
        while i < end {
            let byte = bytes[i]
            guard byte == ASCII.backslash, i + 1 < end else {
                out.append(byte)
                i += 1
                continue
            }
            let escape = bytes[i + 1]
            i += 2
            switch escape {
            case 0x62: out.append(0x08)  // b
            case 0x66: out.append(0x0C)  // f
            case 0x6E: out.append(ASCII.newline)  // n
            case 0x72: out.append(ASCII.carriageReturn)  // r
            case 0x74: out.append(ASCII.tab)  // t
            case 0x75:  // u
                var scalar = hex4(at: i, end: end) ?? 0xFFFD
                i += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    if i + 6 <= end, bytes[i] == ASCII.backslash, bytes[i + 1] == 0x75,
                       let low = hex4(at: i + 2, end: end), (0xDC00..<0xE000).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    } else {
                        scalar = 0xFFFD
                    }
                } else if (0xDC00..<0xE000).contains(scalar) {
                    scalar = 0xFFFD
                }
                out.append(contentsOf: String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
            default: out.append(escape)  // " \ /
            }
        }
        return out
    }

    private func decodeString(_ range: Range<Int>) -> String {
        String(decoding: decodeStringBytes(range), as: UTF8.self)
    }

    private func hex4(at i: Int, end: Int) -> UInt32? {
        guard i + 4 <= end else { return nil }
        var value: UInt32 = 0
        for k in i..<(i + 4) {
            guard let digit = hexDigitValue(bytes[k]) else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}

/// The children of a node, following `nextSibling` links.
struct JSONChildren: Sequence, IteratorProtocol {
    let nodes: [JSONNode]
    var current: Int

    mutating func next() -> Int? {
        guard current >= 0 else { return nil }
        defer { current = nodes[current].nextSibling }
        return current
    }
}

/// Reads one JSON value from bytes (see the top of this file).
enum JSONScanner {
    /// Parses the JSON value that starts at `start` (after any whitespace) and ends before
    /// `end`. Returns the tree and the offset just past the value.
    ///
    /// With `recordingDepth`, only values at most that deep (the root is at depth 0) get nodes:
    /// deeper ones are checked as strictly, but their container at that depth is left
    /// collapsed (`JSONNode.isCollapsed`), to be read later with `JSONTree.forEachElement` or
    /// `JSONTree.expanded`. An `.ips` body's frames, most of its values, then cost no nodes
    /// until they are read, a thread at a time.
    /// - Throws: `JSONError` if the bytes are not one JSON value.
    /// With `maxNodes`, a value that would record more nodes throws (`JSONError.tooDense`):
    /// a node is 28 bytes, and an empty object 2.
    static func parse(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil,
                      recordingDepth: Int = .max, maxNodes: Int = .max) throws -> (tree: JSONTree, end: Int) {
        var nodes: [JSONNode] = []
        // Room for the most nodes allowed (up to 8 Mi of them, 224 MiB), so that the nodes of a
        // large value are not copied as they grow: room never written is never paged in. (Of
        // a value under 1 MiB, a copy costs little, and the room would cost more than it.)
        if maxNodes != .max, (end ?? bytes.count) - start >= 1 << 20 { nodes.reserveCapacity(min(maxNodes, 1 << 23)) }
        let next = try scan(bytes, from: start, to: end ?? bytes.count, recordingDepth: recordingDepth,
                            maxNodes: maxNodes, into: &nodes)
        return (JSONTree(bytes: bytes, nodes: nodes), next)
    }

    /// Parses `bytes` from `start` as one whole JSON document: one value, and nothing after it
    /// but whitespace.
    /// - Throws: `JSONError` if they are not.
    /// A document recording more than one node for each 6 bytes of the input (and 65,536
    /// more) throws (`JSONError.tooDense`): a real report's values are 12
    /// bytes or more each, a node is 28, and an empty object 2.
    static func parseDocument(_ bytes: [UInt8], from start: Int = 0) throws -> JSONTree {
        let (tree, end) = try parse(bytes, from: start, maxNodes: documentNodeLimit(bytes.count - start))
        var rest = end
        while rest < bytes.count && isSpace(bytes[rest]) { rest += 1 }
        guard rest == bytes.count else {
            throw JSONError(offset: rest, message: "text after the JSON value", atEnd: false)
        }
        return tree
    }

    /// The most nodes a whole document of `size` bytes may record (``parseDocument(_:from:)``).
    static func documentNodeLimit(_ size: Int) -> Int {
        size / 6 + 65_536
    }

    /// What the nodes ``documentNodeLimit(_:)`` allows take at most, as a multiple of the
    /// document's size (28 bytes for each 6), for the message of a document refused.
    static let documentNodeFactor = 5

    /// The input size a tree can describe: its nodes hold 32-bit offsets and indices.
    static let largest = UInt32.max

    /// Whether `byte` is JSON whitespace.
    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == ASCII.space || byte == ASCII.newline || byte == ASCII.carriageReturn || byte == ASCII.tab
    }

    /// Parses the value at `start` into `nodes` (emptied first, its room kept): for reading
    /// the values of collapsed containers one at a time without an allocation for each.
    /// Returns the offset just past the value.
    static func parse(_ bytes: [UInt8], from start: Int, to end: Int, recordingDepth: Int = .max,
                      into nodes: inout [JSONNode]) throws -> Int {
        nodes.removeAll(keepingCapacity: true)
        return try scan(bytes, from: start, to: end, recordingDepth: recordingDepth, into: &nodes)
    }

    /// Scans the value at `start` (ending before `end`), appending its nodes to `nodes`;
    /// returns the offset just past it.
    private static func scan(_ bytes: [UInt8], from start: Int, to end: Int, recordingDepth: Int,
                             maxNodes: Int = .max, into nodes: inout [JSONNode]) throws -> Int {
        let end = min(end, bytes.count)
        guard end < Int(JSONScanner.largest) else {
            throw JSONError(offset: start, message: "the JSON text is larger than 4 GiB", atEnd: false)
        }
        return try bytes.withUnsafeBufferPointer { b in
            var scanner = Scanner(b: b, end: end, recordingDepth: recordingDepth, maxNodes: maxNodes)
            swap(&scanner.nodes, &nodes)
            defer { swap(&scanner.nodes, &nodes) }
            return try scanner.run(from: start)
        }
    }

    private struct Scanner {
        let b: UnsafeBufferPointer<UInt8>
        let end: Int
        /// The deepest values that get nodes (the root is at depth 0).
        let recordingDepth: Int
        var nodes: [JSONNode] = []
        /// Open containers, innermost last, with the last child added to each; `node` is -1
        /// for a container that has no node (it is deeper than `recordingDepth`).
        var open: [(node: Int, lastChild: Int, isObject: Bool)] = []

        /// The most nodes the value may record (``JSONScanner/parse(_:from:to:recordingDepth:maxNodes:)``).
        let maxNodes: Int

        init(b: UnsafeBufferPointer<UInt8>, end: Int, recordingDepth: Int, maxNodes: Int = .max) {
            self.b = b
            self.end = end
            self.recordingDepth = max(0, recordingDepth)
            self.maxNodes = maxNodes
        }

        private enum State {
            case value, firstMemberOrEnd, member, firstElementOrEnd, commaOrEnd
        }

        mutating func run(from start: Int) throws -> Int {
            var i = start
            var state = State.value
            var key: (Int, Int) = (-1, -1)
            while true {
                while i < end && JSONScanner.isSpace(b[i]) { i += 1 }
                if nodes.count > maxNodes {
                    var error = JSONError(offset: i, message: "more than \(maxNodes) values", atEnd: false)
                    error.tooDense = true
                    throw error
                }
                guard i < end else {
                    throw JSONError(offset: i, message: open.isEmpty && state == .value
                                    ? "expected a value" : "the document ends before its value does", atEnd: true)
                }
                let byte = b[i]
                switch state {
                case .value:
                    switch byte {
                    case 0x7B:  // {
                        open.append((add(.object, i, i + 1, key: key), -1, true))
                        key = (-1, -1)
                        i += 1
                        state = .firstMemberOrEnd
                        continue
                    case 0x5B:  // [
                        open.append((add(.array, i, i + 1, key: key), -1, false))
                        key = (-1, -1)
                        i += 1
                        state = .firstElementOrEnd
                        continue
                    case ASCII.quote:
                        let next = try scanString(i)
                        add(.string, i, next, key: key)
                        i = next
                    case ASCII.minus, ASCII.zero...0x39:
                        let next = try scanNumber(i)
                        add(.number, i, next, key: key)
                        i = next
                    case 0x74:  // t
                        i = try literal("true", .bool, i, key: key)
                    case 0x66:  // f
                        i = try literal("false", .bool, i, key: key)
                    case 0x6E:  // n
                        i = try literal("null", .null, i, key: key)
                    default:
                        throw unexpected(i, "expected a value")
                    }
                    key = (-1, -1)
                    guard !open.isEmpty else { return i }
                    state = .commaOrEnd
                case .firstMemberOrEnd, .member:
                    if byte == 0x7D && state == .firstMemberOrEnd {  // }
                        i += 1
                        if let done = close(at: i) { return done }
                        state = .commaOrEnd
                        continue
                    }
                    guard byte == ASCII.quote else { throw unexpected(i, "expected a member name in quotes") }
                    let keyEnd = try scanString(i)
                    var colon = keyEnd
                    while colon < end && JSONScanner.isSpace(b[colon]) { colon += 1 }
                    guard colon < end else {
                        throw JSONError(offset: colon, message: "the document ends before its value does", atEnd: true)
                    }
                    guard b[colon] == ASCII.colon else { throw unexpected(colon, "expected ':' after a member name") }
                    key = (i, keyEnd)
                    i = colon + 1
                    state = .value
                case .firstElementOrEnd:
                    if byte == 0x5D {  // ]
                        i += 1
                        if let done = close(at: i) { return done }
                        state = .commaOrEnd
                    } else {
                        state = .value
                    }
                case .commaOrEnd:
                    let inObject = open[open.count - 1].isObject
                    if byte == ASCII.comma {
                        i += 1
                        state = inObject ? .member : .value
                    } else if byte == (inObject ? 0x7D : 0x5D) {
                        i += 1
                        if let done = close(at: i) { return done }
                    } else {
                        throw unexpected(i, inObject ? "expected ',' or '}'" : "expected ',' or ']'")
                    }
                }
            }
        }

        /// Adds a node and links it to the open container; returns its index, or -1 when the
        /// value is deeper than `recordingDepth` (its collapsed container then counts it if
        /// it is an object).
        @discardableResult
        private mutating func add(_ kind: JSONKind, _ start: Int, _ end: Int, key: (Int, Int)) -> Int {
            if open.count > recordingDepth {
                let collapsed = open[recordingDepth].node
                nodes[collapsed].collapse()
                if kind == .object { nodes[collapsed].countCollapsedObject() }
                return -1
            }
            let index = nodes.count
            nodes.append(JSONNode(kind: kind, start: start, end: end, keyStart: key.0, keyEnd: key.1))
            if let parent = open.last {
                if parent.lastChild < 0 {
                    nodes[parent.node].firstChild = index
                } else {
                    nodes[parent.lastChild].nextSibling = index
                }
                open[open.count - 1].lastChild = index
            }
            return index
        }

        /// Closes the innermost container, whose last byte is before `i`. Returns `i` if that
        /// was the root.
        private mutating func close(at i: Int) -> Int? {
            let container = open.removeLast()
            if container.node >= 0 { nodes[container.node].end = i }
            return open.isEmpty ? i : nil
        }

        private func scanString(_ start: Int) throws -> Int {
            var i = start + 1
            while i < end {
                let byte = b[i]
                if byte == ASCII.quote { return i + 1 }
                if byte == ASCII.backslash {
                    guard i + 1 < end else { break }
                    switch b[i + 1] {
                    case ASCII.quote, ASCII.backslash, ASCII.slash, 0x62, 0x66, 0x6E, 0x72, 0x74:
                        i += 2
                    case 0x75:
                        for k in (i + 2)..<(i + 6) {
                            guard k < end else {
                                throw JSONError(offset: end, message: "the document ends inside a string", atEnd: true)
                            }
                            guard hexDigitValue(b[k]) != nil else { throw unexpected(k, "bad \\u escape in a string") }
                        }
                        i += 6
                    default:
                        throw unexpected(i, "bad escape in a string")
                    }
                    continue
                }
                if byte < 0x20 { throw unexpected(i, "control character in a string") }
                i += 1
            }
            throw JSONError(offset: end, message: "the document ends inside a string", atEnd: true)
        }

        private func scanNumber(_ start: Int) throws -> Int {
            var i = start
            if b[i] == ASCII.minus { i += 1 }
            let digits = i
            while i < end && isDigit(b[i]) { i += 1 }
            guard i > digits else { throw numberError(i) }
            if i < end && b[i] == 0x2E {  // .
                i += 1
                let fraction = i
                while i < end && isDigit(b[i]) { i += 1 }
                guard i > fraction else { throw numberError(i) }
            }
            if i < end && (b[i] | 0x20) == 0x65 {  // e E
                i += 1
                if i < end && (b[i] == ASCII.plus || b[i] == ASCII.minus) { i += 1 }
                let exponent = i
                while i < end && isDigit(b[i]) { i += 1 }
                guard i > exponent else { throw numberError(i) }
            }
            return i
        }

        private func numberError(_ i: Int) -> JSONError {
            i >= end ? JSONError(offset: i, message: "the document ends inside a number", atEnd: true)
                : unexpected(i, "bad number")
        }

        private mutating func literal(_ word: StaticString, _ kind: JSONKind, _ i: Int, key: (Int, Int)) throws -> Int {
            let count = word.utf8CodeUnitCount
            for k in 0..<count {
                guard i + k < end else {
                    throw JSONError(offset: end, message: "the document ends before its value does", atEnd: true)
                }
                guard b[i + k] == word.utf8Start[k] else { throw unexpected(i, "expected a value") }
            }
            add(kind, i, i + count, key: key)
            return i + count
        }

        private func unexpected(_ i: Int, _ message: String) -> JSONError {
            JSONError(offset: i, message: message, atEnd: false)
        }
    }
}
