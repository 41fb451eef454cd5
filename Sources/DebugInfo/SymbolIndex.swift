import CDwarf
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform

/// One source frame for an address: a function, and where in the source the address is.
public struct SourceLocation: Sendable, Equatable {
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

/// Everything needed to answer "which function, file and line is this address?" for one
/// debug file, built in one pass over its DWARF and kept for the whole run — and between runs
/// by ``IndexStore``, which maps a stored index instead of building it again.
///
/// Layout (struct of arrays, so a lookup touches a few cache lines; each array a
/// ``FlatArray``, which lives in memory after a build and in the mapped cache file after a
/// load, read alike by the lookups):
/// - functions: one entry per subprogram / inlined-subroutine DIE in DIE order, so the
///   entries inlined into a function follow it and end at `functionEnd[i]`;
/// - concrete ranges: the address ranges of out-of-line functions, sorted by start, with a
///   running maximum of their ends so overlapping ranges are found by a short backward scan;
/// - line sequences, sorted by start, and their rows.
///
/// A lookup is a binary search for the concrete function, a descent through the inlined
/// entries beneath it, and a binary search in the line table:
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

    /// The DWARF side of the index: every array a lookup reads, as it is stored (see ``IndexStore``).
    struct Tables {
        /// NUL-terminated names and paths; offset 0 is the empty string standing for none.
        var strings = FlatArray<UInt8>()
        // Functions, in DIE order.
        var functionName = FlatArray<UInt32>()
        /// One past the last entry nested in the function (its subtree).
        var functionEnd = FlatArray<Int32>()
        var functionParent = FlatArray<Int32>()
        /// 1 for inlined subroutines, 0 for subprograms.
        var functionInlined = FlatArray<UInt8>()
        var callFile = FlatArray<UInt32>()
        var callLine = FlatArray<UInt32>()
        var callColumn = FlatArray<UInt32>()
        var rangeStart = FlatArray<UInt32>()
        var rangeCount = FlatArray<UInt32>()
        // Address ranges of the functions.
        var rangeLow = FlatArray<UInt64>()
        var rangeHigh = FlatArray<UInt64>()
        // Ranges of out-of-line functions, sorted.
        var concreteLow = FlatArray<UInt64>()
        var concreteHigh = FlatArray<UInt64>()
        var concreteMaxHigh = FlatArray<UInt64>()
        var concreteFunction = FlatArray<Int32>()
        // Line sequences, sorted, and their rows.
        var sequenceLow = FlatArray<UInt64>()
        var sequenceHigh = FlatArray<UInt64>()
        var sequenceMaxHigh = FlatArray<UInt64>()
        var sequenceStart = FlatArray<Int32>()
        var sequenceEnd = FlatArray<Int32>()
        var rowAddress = FlatArray<UInt64>()
        var rowFile = FlatArray<UInt32>()
        var rowLine = FlatArray<UInt32>()
        var rowColumn = FlatArray<UInt32>()

        /// Hands every array with its section kind (its number in the cache format) to `visitor`.
        mutating func visit(_ visitor: inout some IndexSectionVisitor) {
            visitor.visit(1, &strings)
            visitor.visit(2, &functionName)
            visitor.visit(3, &functionEnd)
            visitor.visit(4, &functionParent)
            visitor.visit(5, &functionInlined)
            visitor.visit(6, &callFile)
            visitor.visit(7, &callLine)
            visitor.visit(8, &callColumn)
            visitor.visit(9, &rangeStart)
            visitor.visit(10, &rangeCount)
            visitor.visit(11, &rangeLow)
            visitor.visit(12, &rangeHigh)
            visitor.visit(13, &concreteLow)
            visitor.visit(14, &concreteHigh)
            visitor.visit(15, &concreteMaxHigh)
            visitor.visit(16, &concreteFunction)
            visitor.visit(17, &sequenceLow)
            visitor.visit(18, &sequenceHigh)
            visitor.visit(19, &sequenceMaxHigh)
            visitor.visit(20, &sequenceStart)
            visitor.visit(21, &sequenceEnd)
            visitor.visit(22, &rowAddress)
            visitor.visit(23, &rowFile)
            visitor.visit(24, &rowLine)
            visitor.visit(25, &rowColumn)
        }

        /// Whether the arrays agree in length and the strings end in a NUL: all a lookup
        /// needs to stay inside the arrays and finish, since it checks every index it reads
        /// from one array before using it in another. Constant time: what a stored index is
        /// checked for when it is mapped.
        var hasConsistentShape: Bool {
            let functions = functionName.count, ranges = rangeLow.count, concrete = concreteLow.count
            let sequences = sequenceLow.count, rows = rowAddress.count
            return strings.last == 0 && strings.count <= Int(UInt32.max) && functions < Int(Int32.max)
                && rows < Int(Int32.max)
                && [functionEnd.count, functionParent.count, functionInlined.count, callFile.count, callLine.count,
                    callColumn.count, rangeStart.count, rangeCount.count].allSatisfy({ $0 == functions })
                && rangeHigh.count == ranges
                && [concreteHigh.count, concreteMaxHigh.count, concreteFunction.count].allSatisfy({ $0 == concrete })
                && [sequenceHigh.count, sequenceMaxHigh.count, sequenceStart.count, sequenceEnd.count]
                    .allSatisfy({ $0 == sequences })
                && [rowFile.count, rowLine.count, rowColumn.count].allSatisfy({ $0 == rows })
        }

        /// Whether, beyond ``hasConsistentShape``, every index stored in one array is valid in
        /// the others: subtree ends lie past their entry, parents before it, ranges, functions
        /// and rows where they point, strings inside the string table. A linear pass: what a
        /// freshly built index is checked for, so that a fault of the DWARF pass is an error,
        /// not a wrong answer.
        var isWellFormed: Bool {
            guard hasConsistentShape else { return false }
            let functions = functionName.count, ranges = rangeLow.count, concrete = concreteLow.count
            let sequences = sequenceLow.count, rows = rowAddress.count
            let stringLimit = UInt32(strings.count)
            for i in 0..<functions {
                let end = Int(functionEnd[i]), parent = Int(functionParent[i])
                guard end > i, end <= functions, parent >= -1, parent < i, functionInlined[i] <= 1,
                      Int(rangeStart[i]) + Int(rangeCount[i]) <= ranges,
                      functionName[i] < stringLimit, callFile[i] < stringLimit
                else { return false }
            }
            for i in 0..<concrete where concreteFunction[i] < 0 || Int(concreteFunction[i]) >= functions {
                return false
            }
            for i in 0..<sequences {
                guard sequenceStart[i] >= 0, sequenceStart[i] <= sequenceEnd[i], Int(sequenceEnd[i]) <= rows else {
                    return false
                }
            }
            for i in 0..<rows where rowFile[i] >= stringLimit { return false }
            return true
        }
    }

    let tables: Tables
    let symbols: SymbolTable
    private let symbolAddressesLock = Lock()
    private var symbolAddresses: [String: UInt64] = [:]

    /// Reads `file` (its DWARF and its symbol table) and builds the index.
    public static func build(_ file: DebugFile) throws -> SymbolIndex {
        let mapped = try MappedFile(path: file.path)
        let layout = try ObjectLayout(file, in: mapped)
        let symbols = SymbolTable(layout, of: file, in: mapped)
        if !file.hasDWARF {
            guard !symbols.isEmpty else { throw DebugInfoError.noDWARF(path: file.path) }
            return try SymbolIndex(file: file, raw: nil, symbols: symbols)
        }
        let raw = try DWARFReader.read(file, layout: layout, in: mapped)
        return try SymbolIndex(file: file, raw: raw, symbols: symbols)
    }

    /// An index from tables made elsewhere (mapped by ``IndexStore``); nil unless their
    /// shapes agree (``Tables/hasConsistentShape``). Their contents are not read here: every
    /// lookup checks what it reads, so a damaged table can make an answer wrong, never a
    /// lookup fault or loop, and a mapped index costs only the pages its lookups touch.
    init?(file: DebugFile, problem: String?, tables: Tables, symbols: SymbolTable) {
        guard tables.hasConsistentShape, symbols.hasConsistentShape else { return nil }
        debugFile = file
        self.problem = problem
        self.tables = tables
        self.symbols = symbols
    }

    private init(file: DebugFile, raw: RawDWARF?, symbols: SymbolTable) throws {
        debugFile = file
        self.symbols = symbols
        let raw = raw ?? RawDWARF(functions: [], ranges: [], rows: [], files: [], strings: [0], problem: nil)
        problem = raw.problem
        tables = SymbolIndex.tables(from: raw)
        guard tables.isWellFormed, symbols.isWellFormed else {
            throw DebugInfoError.corruptDWARF(path: file.path, reason: "inconsistent function, range or line tables")
        }
    }

    /// The arrays of the index, from what the DWARF pass collected: one pass over the
    /// functions, sorts instead of dictionaries, every array written in place once.
    private static func tables(from raw: RawDWARF) -> Tables {
        var t = Tables()
        t.strings = FlatArray(raw.strings.last == 0 ? raw.strings : raw.strings + [0])
        raw.functions.withUnsafeBufferPointer { functions in
            raw.ranges.withUnsafeBufferPointer { ranges in
                raw.files.withUnsafeBufferPointer { files in
                    fillFunctions(&t, functions, ranges, files)
                }
            }
        }
        raw.rows.withUnsafeBufferPointer { rows in
            raw.files.withUnsafeBufferPointer { files in
                fillLines(&t, rows, files)
            }
        }
        return t
    }

    private static func fillFunctions(_ t: inout Tables, _ functions: UnsafeBufferPointer<cdw_function>,
                                      _ ranges: UnsafeBufferPointer<cdw_range>, _ files: UnsafeBufferPointer<UInt32>) {
        let count = functions.count
        // DIE offset → entry. Entries come in DIE order, so their offsets rise, and a reference
        // mostly points near the entry that makes it (an abstract origin in the same unit):
        // searched outwards from the referring entry. (Offsets that do not rise are sorted
        // first.) Of equal offsets the last entry counts.
        var offsets = [UInt64](), order = [Int32]()
        offsets.reserveCapacity(count)
        var rising = true
        for i in 0..<count {
            if let last = offsets.last, last > functions[i].offset { rising = false }
            offsets.append(functions[i].offset)
        }
        if !rising {
            order = Array(0..<Int32(count))
            order.sort { offsets[Int($0)] != offsets[Int($1)] ? offsets[Int($0)] < offsets[Int($1)] : $0 < $1 }
            offsets = order.map { offsets[Int($0)] }
        }
        func entry(at offset: UInt64, near i: Int) -> Int32 {
            guard offset != UInt64.max, count > 0 else { return -1 }
            // Bracket the offset between low and high by steps doubling from i, then bisect.
            var low = 0, high = count
            let start = rising ? i : count / 2
            if offsets[start] <= offset {
                low = start
                var step = 1
                while low + step < count, offsets[low + step] <= offset {
                    low += step
                    step *= 2
                }
                high = min(count, low + step)
            } else {
                high = start
                var step = 1
                while high - step >= 0, offsets[high - step] > offset {
                    high -= step
                    step *= 2
                }
                low = max(0, high - step)
            }
            // Now offsets[low] <= offset < offsets[high] (where those exist): the last ≤ offset.
            while low < high {
                let mid = (low + high) / 2
                if offsets[mid] <= offset { low = mid + 1 } else { high = mid }
            }
            guard low > 0, offsets[low - 1] == offset else { return -1 }
            return rising ? Int32(low - 1) : order[low - 1]
        }
        // Where a function's name comes from when it has none itself: its abstract origin, else
        // the declaration it specifies. A function inlined in many places is the origin of
        // each: recent answers are remembered (direct-mapped by a hash of the offset).
        let next = FlatArrayWriter<Int32>(count: count)
        var recentOffsets = [UInt64](repeating: UInt64.max, count: 4096), recentEntries = [Int32](repeating: -1, count: 4096)
        for i in 0..<count {
            var origin: Int32 = -1
            let offset = functions[i].origin
            if offset != UInt64.max {
                let slot = Int(truncatingIfNeeded: (offset &* 0x9E37_79B9_7F4A_7C15) >> 52)
                if recentOffsets[slot] == offset {
                    origin = recentEntries[slot]
                } else {
                    origin = entry(at: offset, near: i)
                    recentOffsets[slot] = offset
                    recentEntries[slot] = origin
                }
            }
            next[i] = origin >= 0 ? origin : entry(at: functions[i].specification, near: i)
        }

        let names = FlatArrayWriter<UInt32>(count: count), ends = FlatArrayWriter<Int32>(count: count)
        let parents = FlatArrayWriter<Int32>(count: count), inlined = FlatArrayWriter<UInt8>(count: count)
        let callFiles = FlatArrayWriter<UInt32>(count: count), callLines = FlatArrayWriter<UInt32>(count: count)
        let callColumns = FlatArrayWriter<UInt32>(count: count), rangeStarts = FlatArrayWriter<UInt32>(count: count)
        let rangeCounts = FlatArrayWriter<UInt32>(count: count)
        var concrete: [(low: UInt64, high: UInt64, function: Int32)] = []
        for i in 0..<count {
            let f = functions[i]
            // The name: the linkage name wherever the chain of abstract origins and
            // specifications has one, else the plain name (as llvm-symbolizer does).
            var name: UInt32 = 0, current = i
            for _ in 0..<16 {
                let g = functions[current]
                if g.linkage_name != 0 {
                    name = g.linkage_name
                    break
                }
                if name == 0 { name = g.name }
                let following = Int(next[current])
                if following < 0 { break }
                current = following
            }
            names[i] = name
            ends[i] = Int32(i + 1)
            parents[i] = f.parent
            inlined[i] = f.tag == UInt32(CDW_TAG_INLINED_SUBROUTINE) ? 1 : 0
            callFiles[i] = Int(f.call_file) < files.count ? files[Int(f.call_file)] : 0
            callLines[i] = f.call_line
            callColumns[i] = f.call_column
            rangeStarts[i] = f.first_range
            rangeCounts[i] = f.range_count
            if f.tag == UInt32(CDW_TAG_SUBPROGRAM) {
                let first = Int(f.first_range), end = min(first + Int(f.range_count), ranges.count)
                for r in first..<max(first, end) { concrete.append((ranges[r].low, ranges[r].high, Int32(i))) }
            }
        }
        // Subtree ends: entries are in DIE order with parent links.
        for i in stride(from: count - 1, through: 0, by: -1) {
            let parent = Int(functions[i].parent)
            if parent >= 0, parent < count, ends[parent] < ends[i] { ends[parent] = ends[i] }
        }
        t.functionName = names.array
        t.functionEnd = ends.array
        t.functionParent = parents.array
        t.functionInlined = inlined.array
        t.callFile = callFiles.array
        t.callLine = callLines.array
        t.callColumn = callColumns.array
        t.rangeStart = rangeStarts.array
        t.rangeCount = rangeCounts.array
        t.rangeLow = FlatArray(count: ranges.count) { ranges[$0].low }
        t.rangeHigh = FlatArray(count: ranges.count) { ranges[$0].high }

        // Of equal ranges the later function comes later, as a stable sort leaves them.
        concrete.sort {
            $0.low != $1.low ? $0.low < $1.low : $0.high != $1.high ? $0.high > $1.high : $0.function < $1.function
        }
        t.concreteLow = FlatArray(count: concrete.count) { concrete[$0].low }
        t.concreteHigh = FlatArray(count: concrete.count) { concrete[$0].high }
        t.concreteFunction = FlatArray(count: concrete.count) { concrete[$0].function }
        t.concreteMaxHigh = runningMaximum(t.concreteHigh)
    }

    /// Line sequences: rows up to and including an end_sequence row, sorted by address.
    ///
    /// Rows a lookup can never return are left out (half the rows of gcc's line tables): of
    /// rows at one address a lookup finds the last, and a row that says what the row before it
    /// said (file, line and column) answers nothing that row does not.
    private static func fillLines(_ t: inout Tables, _ rows: UnsafeBufferPointer<cdw_row>, _ files: UnsafeBufferPointer<UInt32>) {
        var sequences: [(low: UInt64, high: UInt64, first: Int32, last: Int32)] = []
        var first = 0, total = 0
        for i in 0..<rows.count where rows[i].end_sequence != 0 {
            if i > first, rows[first].address < rows[i].address {
                sequences.append((rows[first].address, rows[i].address, Int32(first), Int32(i)))
                total += i - first
            }
            first = i + 1
        }
        sequences.sort {
            $0.low != $1.low ? $0.low < $1.low : $0.high != $1.high ? $0.high > $1.high : $0.first < $1.first
        }
        let addresses = FlatArrayWriter<UInt64>(count: total), rowFiles = FlatArrayWriter<UInt32>(count: total)
        let lines = FlatArrayWriter<UInt32>(count: total), columns = FlatArrayWriter<UInt32>(count: total)
        let starts = FlatArrayWriter<Int32>(count: sequences.count), ends = FlatArrayWriter<Int32>(count: sequences.count)
        var n = 0
        for (s, sequence) in sequences.enumerated() {
            let start = n, last = Int(sequence.last)
            starts[s] = Int32(start)
            for r in Int(sequence.first)..<last {
                let row = rows[r]
                if r + 1 < last, rows[r + 1].address == row.address { continue }
                let file = Int(row.file) < files.count ? files[Int(row.file)] : 0
                if n > start, rowFiles[n - 1] == file, lines[n - 1] == row.line, columns[n - 1] == row.column { continue }
                addresses[n] = row.address
                rowFiles[n] = file
                lines[n] = row.line
                columns[n] = row.column
                n += 1
            }
            ends[s] = Int32(n)
        }
        t.sequenceLow = FlatArray(count: sequences.count) { sequences[$0].low }
        t.sequenceHigh = FlatArray(count: sequences.count) { sequences[$0].high }
        t.sequenceMaxHigh = runningMaximum(t.sequenceHigh)
        t.sequenceStart = starts.array
        t.sequenceEnd = ends.array
        t.rowAddress = addresses.array(first: n)
        t.rowFile = rowFiles.array(first: n)
        t.rowLine = lines.array(first: n)
        t.rowColumn = columns.array(first: n)
    }

    private static func runningMaximum(_ values: FlatArray<UInt64>) -> FlatArray<UInt64> {
        var maximum: UInt64 = 0
        return FlatArray(count: values.count) { i in
            maximum = max(maximum, values[i])
            return maximum
        }
    }

    /// The number of the last element of `values` (sorted) that is ≤ `key`, or -1.
    private static func lastNotAbove(_ values: FlatArray<UInt64>, _ key: UInt64) -> Int {
        var low = 0, high = values.count
        while low < high {
            let mid = (low + high) / 2
            if values[mid] <= key { low = mid + 1 } else { high = mid }
        }
        return low - 1
    }

    private func string(_ offset: UInt32) -> String? {
        guard offset != 0, Int(offset) < tables.strings.count else { return nil }
        return String(cString: tables.strings.buffer.baseAddress! + Int(offset))
    }

    /// The frames at `address` (a file address: already rebased to the debug file's own
    /// addresses), innermost inlined frame first, the out-of-line function last. Empty when
    /// neither the DWARF nor the symbol table knows the address.
    public func lookup(_ address: UInt64, demangle: Bool = true) -> [SourceLocation] {
        let row = lineRow(at: address)
        guard let concrete = concreteFunction(at: address) else {
            if let symbol = symbols.lookup(address) {
                return [SourceLocation(function: symbolName(symbol, demangle: demangle), functionStart: symbol.address,
                                       file: row.flatMap { string(tables.rowFile[$0]) } ?? symbol.file,
                                       line: row.map { Int(tables.rowLine[$0]) } ?? 0,
                                       column: row.map { Int(tables.rowColumn[$0]) } ?? 0,
                                       inlined: false)]
            }
            guard let row else { return [] }
            return [SourceLocation(function: "??", functionStart: nil, file: string(tables.rowFile[row]),
                                   line: Int(tables.rowLine[row]), column: Int(tables.rowColumn[row]), inlined: false)]
        }
        let chain = inlineChain(in: concrete, at: address)
        var frames: [SourceLocation] = []
        frames.reserveCapacity(chain.count)
        var file = row.flatMap { string(tables.rowFile[$0]) }
        var line = row.map { Int(tables.rowLine[$0]) } ?? 0
        var column = row.map { Int(tables.rowColumn[$0]) } ?? 0
        for (depth, entry) in chain.enumerated().reversed() {
            frames.append(SourceLocation(function: name(of: entry, at: address, demangle: demangle),
                                         functionStart: start(of: entry, containing: address),
                                         file: file, line: line, column: column, inlined: depth > 0))
            file = string(tables.callFile[entry])
            line = Int(tables.callLine[entry])
            column = Int(tables.callColumn[entry])
        }
        return frames
    }

    /// The entries from `concrete` down to the deepest inlined entry holding `address`.
    ///
    /// The deepest entry decides, even when an entry between it and the function does not
    /// hold the address itself: strict DWARF 2 has no range lists, so an inlined call whose
    /// code is split records only its first piece, while the entries nested in it still say
    /// where they were inlined (llvm-symbolizer reads it the same way).
    private func inlineChain(in concrete: Int, at address: UInt64) -> [Int] {
        var deepest = concrete, deepestDepth = 0
        var openEnds: [Int] = []  // subtree ends of the inlined entries enclosing `i`
        var i = concrete + 1
        let end = min(Int(tables.functionEnd[concrete]), tables.functionName.count)
        while i < end {
            while let last = openEnds.last, i >= last { openEnds.removeLast() }
            guard tables.functionInlined[i] != 0 else {
                // A function nested in this one is not part of its code.
                i = max(Int(tables.functionEnd[i]), i + 1)
                continue
            }
            if openEnds.count + 1 > deepestDepth, rangeIndex(of: i, containing: address) != nil {
                deepest = i
                deepestDepth = openEnds.count + 1
            }
            openEnds.append(Int(tables.functionEnd[i]))
            i += 1
        }
        var chain = [deepest]
        while let last = chain.last, last != concrete {
            let parent = Int(tables.functionParent[last])
            guard parent >= concrete, parent < last else { break }
            chain.append(parent)
        }
        return chain.reversed()
    }

    /// The address of the function symbol `name` (as the symbol table spells it, mangled),
    /// for frames that give a symbol and an offset instead of an address, as glibc's
    /// `prog(main+0x1b)` does. Nil when the symbol table has no such name.
    public func address(ofSymbol name: String) -> UInt64? {
        symbolAddressesLock.lock()
        defer { symbolAddressesLock.unlock() }
        if let known = symbolAddresses[name] { return known }
        guard let found = symbols.address(of: name) else { return nil }
        symbolAddresses[name] = found
        return found
    }

    /// The C name of the symbol-table symbol that starts exactly at `address`, whatever its
    /// size: how a frame in a sized-0 signal trampoline such as `__restore_rt` is recognized.
    public func symbolName(startingAt address: UInt64) -> String? {
        symbols.name(startingAt: address)
    }

    /// The name of an inlined entry is the DWARF's; an out-of-line function takes the symbol
    /// table's name where a symbol covers the address (it names clones such as `.isra.0` and
    /// functions the DWARF leaves without a linkage name), as llvm-symbolizer does.
    private func name(of entry: Int, at address: UInt64, demangle: Bool) -> String {
        if tables.functionInlined[entry] == 0, let symbol = symbols.lookup(address) {
            return symbolName(symbol, demangle: demangle)
        }
        if let raw = string(tables.functionName[entry]) {
            return demangle ? Demangler.demangle(raw) : raw
        }
        return "??"
    }

    private func symbolName(_ symbol: SymbolTable.Symbol, demangle: Bool) -> String {
        if symbols.stripsUnderscore, symbol.name.hasPrefix("_") {
            return demangle ? Demangler.demangle(String(symbol.name.dropFirst())) : String(symbol.name.dropFirst())
        }
        return demangle ? Demangler.demangle(symbol.name) : symbol.name
    }

    private func rangeIndex(of entry: Int, containing address: UInt64) -> Int? {
        let first = Int(tables.rangeStart[entry])
        let end = min(first + Int(tables.rangeCount[entry]), tables.rangeLow.count)
        guard first < end else { return nil }
        for r in first..<end where tables.rangeLow[r] <= address && address < tables.rangeHigh[r] {
            return r
        }
        return nil
    }

    /// The entry address: the first listed range's start, unless the address lies below it.
    private func start(of entry: Int, containing address: UInt64) -> UInt64? {
        guard tables.rangeCount[entry] > 0, Int(tables.rangeStart[entry]) < tables.rangeLow.count else { return nil }
        let first = tables.rangeLow[Int(tables.rangeStart[entry])]
        if first <= address { return first }
        return rangeIndex(of: entry, containing: address).map { tables.rangeLow[$0] }
    }

    /// The innermost out-of-line function whose ranges hold `address`.
    private func concreteFunction(at address: UInt64) -> Int? {
        var i = SymbolIndex.lastNotAbove(tables.concreteLow, address)
        var best: Int?
        var bestSize = UInt64.max
        while i >= 0, tables.concreteMaxHigh[i] > address {
            let function = Int(tables.concreteFunction[i])
            if address < tables.concreteHigh[i], function >= 0, function < tables.functionName.count {
                let size = tables.concreteHigh[i] &- tables.concreteLow[i]
                if size < bestSize {
                    best = function
                    bestSize = size
                }
            }
            i -= 1
        }
        return best
    }

    /// The line-table row for `address`: in the sequence holding it, the last row at or below it.
    private func lineRow(at address: UInt64) -> Int? {
        var s = SymbolIndex.lastNotAbove(tables.sequenceLow, address)
        while s >= 0, tables.sequenceMaxHigh[s] > address {
            if address < tables.sequenceHigh[s] {
                let first = max(Int(tables.sequenceStart[s]), 0)
                let rows = first..<max(first, min(Int(tables.sequenceEnd[s]), tables.rowAddress.count))
                var low = rows.lowerBound, high = rows.upperBound
                while low < high {
                    let mid = (low + high) / 2
                    if tables.rowAddress[mid] <= address { low = mid + 1 } else { high = mid }
                }
                return low > rows.lowerBound ? low - 1 : nil
            }
            s -= 1
        }
        return nil
    }
}
