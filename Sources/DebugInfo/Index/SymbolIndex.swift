import CDwarf
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// Everything needed to answer "which function, file and line is this address?" for one
/// debug file, built in one pass over its DWARF and kept for the whole run — and between runs
/// by ``IndexCache``, which maps a stored index instead of building it again.
///
/// Layout (``Tables``: arrays, each a ``FlatArray``, which lives in memory after a build and
/// in the mapped cache file after a load, read alike by the lookups; a lookup reads a few
/// pages of each):
/// - function blocks: one ``FunctionBlock`` per out-of-line function with code, holding its
///   ranges, the calls inlined into it (name, call site, ranges, parent) and its inline
///   segments (which inlined call is the deepest at each address), delta-encoded;
/// - concrete ranges: the address ranges of out-of-line functions, sorted by start, with a
///   running maximum of their ends so overlapping ranges are found by a short backward scan,
///   each pointing at its function's block;
/// - line sequences, sorted by start, and their rows, delta-encoded in blocks of 32
///   (``LineRows``);
/// - a ``Fence`` (every 8th key) over each sorted table, searched first;
/// - the strings the blocks name, once each, and a table of the source paths.
///
/// A lookup is a search for the concrete function, a search in its block's inline segments and
/// a walk up the parent links from the call found, and a search in the line table:
///
///     0x1000 main            (main.c)
///       0x1010-0x1030 clamp  inlined at main.c:12      → lookup(0x1014) =
///         0x1014-0x1018 min  inlined at math.h:7           [min    math.h:3   (row at 0x1014),
///                                                            clamp  math.h:7   (call site of min),
///                                                            main   main.c:12  (call site of clamp)]
public final class SymbolIndex: @unchecked Sendable {
    /// The debug file the index was built from.
    public let debugFile: DebugFile
    /// The first problem met reading the DWARF when part of it could not be read.
    public let problem: String?

    /// The most inlined frames one address answers with: calls inlined into calls run a few
    /// dozen deep in real code; a debug file of nested inlined calls as deep as its bytes allow
    /// would otherwise make every frame of a report as many lines. Past it, the chain is cut
    /// short, as it is at damage (no out-of-line frame).
    static let maximumInlineDepth = 1024

    /// Whether any of the DWARF was read: a function or a line-table row.
    public var hasDWARFAnswers: Bool { tables.concrete.count > 0 || tables.sequences.count > 0 }

    /// Whether the symbol table names any function.
    public var hasSymbols: Bool { !symbols.isEmpty }

    let tables: Tables
    let symbols: SymbolTable
    /// For an index mapped from the cache: its checks, and the index to answer from instead
    /// once they find damage.
    private let stored: StoredIndex?
    /// Names (demangled, or as stored) and paths, by string offset: a batch meets the same
    /// functions over and over.
    private let names = NameCache()
    private let symbolAddressesLock = Lock()
    private var symbolAddresses: [String: UInt64] = [:]
    /// The last answer of ``startsOfSymbols(named:)``, with the names it was for.
    private var symbolStarts: (names: Set<String>, starts: [UInt64])?

    /// Reads `file` (its DWARF and its symbol table) and builds the index. Throws
    /// ``DebugInfoError/changedWhileRead(path:)`` when the file changed while it was read.
    public static func build(_ file: DebugFile) throws -> SymbolIndex {
        if file.format == .dyldCache {
            return try SymbolIndex(file: file, raw: nil, symbols: DyldSharedCache.symbolTable(of: file))
        }
        // The file is unmapped before the tables are made: its pages and the tables' are
        // never held at once.
        let (symbols, raw) = try { () throws -> (SymbolTable, RawDWARF?) in
            let mapped = try MappedFile.opening(file)
            return try mapped.reading {
                let layout = try ObjectLayout(file, in: mapped)
                let symbols = SymbolTable(layout, of: file, in: mapped)
                if !file.hasDWARF {
                    guard !symbols.isEmpty else { throw DebugInfoError.noDWARF(path: file.path) }
                    return (symbols, nil)
                }
                return (symbols, try DWARFReader.read(file, layout: layout, in: mapped))
            }
        }()
        return try SymbolIndex(file: file, raw: consume raw, symbols: symbols)
    }

    /// An index from tables made elsewhere (mapped by ``IndexCache``); nil unless their
    /// shapes agree (``Tables/hasConsistentShape``). Their contents are not read here: every
    /// lookup checks what it reads, so a damaged table can make a lookup's result wrong, never
    /// make it fault or loop, and a mapped index costs only the pages its lookups touch.
    ///
    /// `stored` holds the checks of the file the tables are in: once they find damage, every
    /// answer comes from the index it gives instead (see ``StoredIndex``).
    init?(file: DebugFile, problem: String?, tables: Tables, symbols: SymbolTable, stored: StoredIndex? = nil) {
        guard tables.hasConsistentShape, symbols.hasConsistentShape else { return nil }
        debugFile = file
        self.problem = problem
        self.tables = tables
        self.symbols = symbols
        self.stored = stored
    }

    /// Whether the mapped file the tables are in was found damaged (``IndexBlocks``).
    var isDamaged: Bool { stored?.blocks.isDamaged ?? false }

    /// `answer` of this index, unless the tables read were found damaged: then `answer` of the
    /// index ``StoredIndex`` gives instead, or `none` when there is none.
    @inline(__always)
    private func checked<T>(_ none: T, _ answer: (SymbolIndex) -> T) -> T {
        guard let stored else { return answer(self) }
        if let replacement = stored.replacementIfDamaged() { return replacement.map(answer) ?? none }
        let result = answer(self)
        guard let replacement = stored.replacementIfDamaged() else { return result }
        return replacement.map(answer) ?? none
    }

    private init(file: DebugFile, raw: consuming RawDWARF?, symbols: SymbolTable) throws {
        debugFile = file
        self.symbols = symbols
        stored = nil
        let raw = raw ?? RawDWARF(functions: [], ranges: FlatArray(), rows: FlatArray(), files: [], strings: [0], problem: nil)
        let problem = raw.problem
        guard symbols.isWellFormed else {
            throw DebugInfoError.corruptDWARF(path: file.path, reason: "inconsistent symbol table")
        }
        guard let (tables, tablesProblem) = Self.usable(Tables(consume raw), besides: symbols) else {
            throw DebugInfoError.corruptDWARF(path: file.path, reason: "inconsistent function, range or line tables, and no symbols")
        }
        self.tables = tables
        self.problem = tablesProblem ?? problem
    }

    /// `tables` when they are well formed; else, when `symbols` can answer, empty tables and
    /// why: a fault of the tables made of a file's DWARF (which they are made never to have)
    /// costs its lines and inlined frames, not the file. Nil when neither can be used.
    static func usable(_ tables: Tables, besides symbols: SymbolTable) -> (Tables, problem: String?)? {
        if tables.isWellFormed { return (tables, nil) }
        guard !symbols.isEmpty else { return nil }
        return (Tables(), "the function, range or line tables made of it are inconsistent: its symbol table is used alone")
    }

    private func string(_ offset: UInt32) -> String? { tables.strings.cString(at: offset) }

    /// The frames at `address` (a file address: already rebased to the debug file's own
    /// addresses), innermost inlined frame first, the out-of-line function last. Empty when
    /// neither the DWARF nor the symbol table knows the address.
    /// Names are spelled in `style` when demangled.
    public func lookup(_ address: UInt64, demangle: Bool = true, style: NameStyle = .full) -> [Location] {
        checked([]) { $0.lookupInTables(address, demangle: demangle ? style : nil) }
    }

    /// `demangle`: the style names are demangled in, nil to keep them mangled.
    private func lookupInTables(_ address: UInt64, demangle: NameStyle?) -> [Location] {
        let row = lineRow(at: address)
        let rowFile = row.flatMap { self.path($0.file) }, rowLine = row.map { Int($0.line) } ?? 0
        let rowColumn = row.map { Int($0.column) } ?? 0
        guard let block = concreteFunction(at: address) else {
            if let symbol = symbols.position(containing: address) {
                let record = symbols[symbol]
                return [Location(function: symbolName(record.name, demangle: demangle), functionStart: record.address,
                                       file: rowFile ?? symbols.string(symbols.file(at: symbol)),
                                       line: rowLine, column: rowColumn, inlined: false)]
            }
            guard row != nil else { return [] }
            return [Location(function: "??", functionStart: nil, file: rowFile, line: rowLine, column: rowColumn,
                                   inlined: false)]
        }
        // Innermost first: each frame is where the one inside it was called. Each call's parent
        // lies before it in the block, so the walk ends.
        var frames: [Location] = []
        var file = rowFile, line = rowLine, column = rowColumn
        var position = block.deepestCall(at: address)
        while let at = position, frames.count < SymbolIndex.maximumInlineDepth {
            guard let call = block.call(at: at, address: address) else { break }
            frames.append(Location(function: name(call.name, demangle: demangle), functionStart: call.start,
                                         file: file, line: line, column: column, inlined: true))
            file = path(call.callFile)
            line = Int(call.callLine)
            column = Int(call.callColumn)
            position = call.parent
        }
        if position == nil {
            let function: String
            if let symbol = symbols.position(containing: address) {
                function = symbolName(symbols[symbol].name, demangle: demangle)
            } else {
                function = name(block.name, demangle: demangle)
            }
            frames.append(Location(function: function, functionStart: block.start(address: address),
                                         file: file, line: line, column: column, inlined: false))
        }
        return frames
    }

    /// The path of file-table entry `index`, made once per run and kept with the names
    /// (frames meet the same few hundred files over and over).
    private func path(_ index: UInt32) -> String? {
        guard index != 0, Int(index) < tables.files.count else { return nil }
        let offset = tables.files[Int(index)]
        guard offset != 0 else { return nil }
        return names.demangled(UInt64(index) | 2 << 32, .full) { string(offset) ?? "" }
    }

    /// The address of the function symbol `name` (as the symbol table spells it, mangled),
    /// for frames that give a symbol and an offset instead of an address, as glibc's
    /// `prog(main+0x1b)` does. Nil when the symbol table has no such name.
    public func address(ofSymbol name: String) -> UInt64? {
        checked(nil) { $0.addressInTables(ofSymbol: name) }
    }

    private func addressInTables(ofSymbol name: String) -> UInt64? {
        symbolAddressesLock.lock()
        defer { symbolAddressesLock.unlock() }
        if let known = symbolAddresses[name] { return known }
        guard let found = symbols.address(of: name), !isDamaged else { return nil }
        symbolAddresses[name] = found
        return found
    }

    /// The addresses, in order, at which symbol-table symbols named one of `names` (C names)
    /// start, whatever their size: where ``symbolName(startingAt:)`` answers one of `names`.
    /// Found once per index for a set of names (one pass over the symbols' strings), so that a
    /// frame is checked against a list, most often empty, not by a search of the table.
    public func startsOfSymbols(named names: Set<String>) -> [UInt64] {
        checked([]) { $0.startsInTables(named: names) }
    }

    private func startsInTables(named names: Set<String>) -> [UInt64] {
        symbolAddressesLock.lock()
        defer { symbolAddressesLock.unlock() }
        if let known = symbolStarts, known.names == names { return known.starts }
        let starts = symbols.starts(ofSymbolsNamed: names)
        symbolStarts = (names, starts)
        return starts
    }

    /// The C name of the symbol-table symbol that starts exactly at `address`, whatever its
    /// size: how a frame in a sized-0 signal trampoline such as `__restore_rt` is recognized.
    public func symbolName(startingAt address: UInt64) -> String? {
        checked(nil) { $0.symbols.name(startingAt: address) }
    }

    /// The DWARF's name at `offset` of the strings. (An out-of-line function takes the symbol
    /// table's name where a symbol covers the address instead: it names clones such as
    /// `.isra.0` and functions the DWARF leaves without a linkage name, as llvm-symbolizer does.)
    private func name(_ offset: UInt32, demangle: NameStyle?) -> String {
        name(in: tables.strings, at: offset, key: UInt64(offset), droppingUnderscore: false, demangle: demangle) ?? "??"
    }

    /// The name of the symbol whose name is at `offset` of the symbol table's strings, as C
    /// spells it (Mach-O's leading underscore dropped).
    private func symbolName(_ offset: UInt32, demangle: NameStyle?) -> String {
        name(in: symbols.strings, at: offset, key: UInt64(offset) | 1 << 32, droppingUnderscore: symbols.stripsUnderscore,
             demangle: demangle) ?? ""
    }

    /// The NUL-terminated name at `offset` of `strings` (nil for 0 and past the end), without
    /// a leading underscore when `droppingUnderscore`. A mangled name is demangled once per
    /// `key` and style and kept in ``names``, and found there before its bytes are read again:
    /// for a C++ name of hundreds of bytes, that costs more than the lookup that found it. Only
    /// its first bytes are read to tell (the strings end in a NUL); they are checked with the
    /// rest (``FlatArray/verifiedCString(at:)``) when the name is made.
    private func name(in strings: FlatArray<UInt8>, at offset: UInt32, key: UInt64, droppingUnderscore: Bool,
                      demangle: NameStyle?) -> String? {
        guard offset != 0, Int(offset) < strings.count, let base = strings.buffer.baseAddress else { return nil }
        var start = base + Int(offset)
        if droppingUnderscore, start.pointee == UInt8(ascii: "_") { start += 1 }
        guard let style = demangle, Demangler.isMangled(start) else {
            _ = strings.verifiedCString(at: offset)
            return String(cString: start)
        }
        return names.demangled(key, style) {
            _ = strings.verifiedCString(at: offset)
            return Demangler.demangle(String(cString: start), style: style)
        }
    }

    /// The block of the innermost out-of-line function whose ranges hold `address`.
    private func concreteFunction(at address: UInt64) -> FunctionBlock? {
        let concrete = tables.concrete
        var i = Fence.lastNotAbove(address, fence: tables.concreteFence, count: concrete.count) { concrete[$0].low }
        var best: SortedRange?
        var bestSize = UInt64.max
        while i >= 0 {
            let range = concrete[i]
            guard range.maxHigh > address else { break }
            if address < range.high {
                let size = range.high &- range.low
                if size < bestSize {
                    best = range
                    bestSize = size
                }
            }
            i -= 1
        }
        guard let best else { return nil }
        return FunctionBlock(tables.functionBytes, start: Int(best.first), end: Int(best.end))
    }

    /// The line-table row for `address`: in the sequence holding it, the last row at or below it.
    private func lineRow(at address: UInt64) -> LineRow? {
        let sequences = tables.sequences
        var s = Fence.lastNotAbove(address, fence: tables.sequenceFence, count: sequences.count) { sequences[$0].low }
        while s >= 0 {
            let sequence = sequences[s]
            guard sequence.maxHigh > address else { break }
            if address < sequence.high { return tables.lineRow(inSequence: sequence, at: address) }
            s -= 1
        }
        return nil
    }
}

extension SymbolIndex {
    /// What the index answers for an address, one per function that holds it (inlined ones
    /// first): the function, where it starts, and where in the source the address is.
    ///
    /// The report's `SourceFrame` is made from it: the index knows where a function starts,
    /// the report says how far into it a frame is (its offset, the address less the start).
    public struct Location: Sendable, Equatable {
        /// The function's name, demangled unless asked otherwise.
        public var function: String
        /// The lowest address of the function (or of the inlined instance) that holds the address.
        public var functionStart: UInt64?
        /// The source path as the DWARF records it (joined with its directory and DW_AT_comp_dir).
        public var file: String?
        /// 0 when unknown.
        public var line: Int
        /// 0 when unknown.
        public var column: Int
        /// True for frames inlined into the next one.
        public var inlined: Bool

        /// A location from its parts.
        public init(function: String, functionStart: UInt64?, file: String?, line: Int, column: Int, inlined: Bool) {
            self.function = function
            self.functionStart = functionStart
            self.file = file
            self.line = line
            self.column = column
            self.inlined = inlined
        }
    }
}
