import Foundation
import CDwarf

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
/// debug file, built in one pass over its DWARF and kept for the whole run.
///
/// Layout (struct of arrays, so a lookup touches a few cache lines):
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

    private let strings: [UInt8]
    private let functionName: [UInt32]
    private let functionEnd: [Int32]
    private let functionParent: [Int32]
    private let functionInlined: [Bool]
    private let callFile: [UInt32]
    private let callLine: [UInt32]
    private let callColumn: [UInt32]
    private let rangeStart: [UInt32]
    private let rangeCount: [UInt32]
    private let rangeLow: [UInt64]
    private let rangeHigh: [UInt64]

    private let concreteLow: [UInt64]
    private let concreteHigh: [UInt64]
    private let concreteMaxHigh: [UInt64]
    private let concreteFunction: [Int32]

    private let sequenceLow: [UInt64]
    private let sequenceHigh: [UInt64]
    private let sequenceMaxHigh: [UInt64]
    private let sequenceStart: [Int32]
    private let sequenceEnd: [Int32]
    private let rowAddress: [UInt64]
    private let rowFile: [UInt32]
    private let rowLine: [UInt32]
    private let rowColumn: [UInt32]

    private let symbols: SymbolTable
    private let symbolAddressesLock = NSLock()
    private var symbolAddresses: [String: UInt64] = [:]

    /// Reads `file` (its DWARF and its symbol table) and builds the index.
    public static func build(_ file: DebugFile) throws -> SymbolIndex {
        let mapped = try MappedFile(path: file.path)
        let layout = try ObjectLayout(file, in: mapped)
        let symbols = SymbolTable(layout, of: file, in: mapped)
        if !file.hasDWARF {
            guard !symbols.isEmpty else { throw DebugInfoError.noDWARF(path: file.path) }
            return SymbolIndex(file: file, raw: nil, symbols: symbols)
        }
        let raw = try DWARFReader.read(file, layout: layout, in: mapped)
        return SymbolIndex(file: file, raw: raw, symbols: symbols)
    }

    private init(file: DebugFile, raw: RawDWARF?, symbols: SymbolTable) {
        debugFile = file
        self.symbols = symbols
        let raw = raw ?? RawDWARF(functions: [], ranges: [], rows: [], files: [], strings: [0], problem: nil)
        problem = raw.problem
        strings = raw.strings
        let functions = raw.functions
        let count = functions.count

        // Names: the linkage name wherever the chain of abstract origins and specifications
        // has one, else the plain name (as llvm-symbolizer does).
        var byOffset: [UInt64: Int32] = [:]
        byOffset.reserveCapacity(count)
        for (i, f) in functions.enumerated() { byOffset[f.offset] = Int32(i) }
        func resolve(_ index: Int, _ pick: (cdw_function) -> UInt32) -> UInt32 {
            var current = index
            for _ in 0..<16 {
                let f = functions[current]
                let value = pick(f)
                if value != 0 { return value }
                if f.origin != UInt64.max, let next = byOffset[f.origin] {
                    current = Int(next)
                } else if f.specification != UInt64.max, let next = byOffset[f.specification] {
                    current = Int(next)
                } else {
                    return 0
                }
            }
            return 0
        }
        var names = [UInt32](repeating: 0, count: count)
        for i in 0..<count {
            let linkage = resolve(i) { $0.linkage_name }
            names[i] = linkage != 0 ? linkage : resolve(i) { $0.name }
        }
        functionName = names

        // Subtree ends: entries are in DIE order with parent links.
        var ends = (0..<count).map { Int32($0 + 1) }
        for i in stride(from: count - 1, through: 0, by: -1) {
            let parent = Int(functions[i].parent)
            if parent >= 0, parent < count, ends[parent] < ends[i] { ends[parent] = ends[i] }
        }
        functionEnd = ends
        functionParent = functions.map(\.parent)
        functionInlined = functions.map { $0.tag == UInt32(CDW_TAG_INLINED_SUBROUTINE) }
        callFile = functions.map { $0.call_file < raw.files.count ? raw.files[Int($0.call_file)] : 0 }
        callLine = functions.map { $0.call_line }
        callColumn = functions.map { $0.call_column }
        rangeStart = functions.map { $0.first_range }
        rangeCount = functions.map { $0.range_count }
        rangeLow = raw.ranges.map { $0.low }
        rangeHigh = raw.ranges.map { $0.high }

        var concrete: [(low: UInt64, high: UInt64, function: Int32)] = []
        for (i, f) in functions.enumerated() where f.tag == UInt32(CDW_TAG_SUBPROGRAM) {
            for r in Int(f.first_range)..<Int(f.first_range + f.range_count) {
                concrete.append((raw.ranges[r].low, raw.ranges[r].high, Int32(i)))
            }
        }
        concrete.sort { $0.low != $1.low ? $0.low < $1.low : $0.high > $1.high }
        concreteLow = concrete.map(\.low)
        concreteHigh = concrete.map(\.high)
        concreteFunction = concrete.map(\.function)
        concreteMaxHigh = SymbolIndex.runningMaximum(concreteHigh)

        // Line sequences: rows up to and including an end_sequence row.
        var sequences: [(low: UInt64, high: UInt64, first: Int, last: Int)] = []
        var first = 0
        for (i, row) in raw.rows.enumerated() where row.end_sequence != 0 {
            if i > first, raw.rows[first].address < row.address {
                sequences.append((raw.rows[first].address, row.address, first, i))
            }
            first = i + 1
        }
        sequences.sort { $0.low != $1.low ? $0.low < $1.low : $0.high > $1.high }
        var addresses: [UInt64] = [], files: [UInt32] = [], lines: [UInt32] = [], columns: [UInt32] = []
        var starts: [Int32] = [], sequenceEnds: [Int32] = []
        addresses.reserveCapacity(raw.rows.count)
        for s in sequences {
            starts.append(Int32(addresses.count))
            for r in s.first..<s.last {
                let row = raw.rows[r]
                addresses.append(row.address)
                files.append(row.file < raw.files.count ? raw.files[Int(row.file)] : 0)
                lines.append(row.line)
                columns.append(row.column)
            }
            sequenceEnds.append(Int32(addresses.count))
        }
        sequenceLow = sequences.map(\.low)
        sequenceHigh = sequences.map(\.high)
        sequenceMaxHigh = SymbolIndex.runningMaximum(sequenceHigh)
        sequenceStart = starts
        sequenceEnd = sequenceEnds
        rowAddress = addresses
        rowFile = files
        rowLine = lines
        rowColumn = columns
    }

    private static func runningMaximum(_ values: [UInt64]) -> [UInt64] {
        var result = values
        var maximum: UInt64 = 0
        for i in result.indices {
            maximum = max(maximum, result[i])
            result[i] = maximum
        }
        return result
    }

    /// The number of the last element of `values` (sorted) that is ≤ `key`, or -1.
    private static func lastNotAbove(_ values: [UInt64], _ key: UInt64) -> Int {
        var low = 0, high = values.count
        while low < high {
            let mid = (low + high) / 2
            if values[mid] <= key { low = mid + 1 } else { high = mid }
        }
        return low - 1
    }

    private func string(_ offset: UInt32) -> String? {
        guard offset != 0, Int(offset) < strings.count else { return nil }
        return strings.withUnsafeBufferPointer { buffer in
            String(cString: UnsafeRawPointer(buffer.baseAddress! + Int(offset)).assumingMemoryBound(to: CChar.self))
        }
    }

    /// The frames at `address` (a file address: already rebased to the debug file's own
    /// addresses), innermost inlined frame first, the out-of-line function last. Empty when
    /// neither the DWARF nor the symbol table knows the address.
    public func lookup(_ address: UInt64, demangle: Bool = true) -> [SourceLocation] {
        let row = lineRow(at: address)
        guard let concrete = concreteFunction(at: address) else {
            if let symbol = symbols.lookup(address) {
                return [SourceLocation(function: symbolName(symbol, demangle: demangle), functionStart: symbol.address,
                                       file: row.flatMap { string(rowFile[$0]) } ?? symbol.file,
                                       line: row.map { Int(rowLine[$0]) } ?? 0, column: row.map { Int(rowColumn[$0]) } ?? 0,
                                       inlined: false)]
            }
            guard let row else { return [] }
            return [SourceLocation(function: "??", functionStart: nil, file: string(rowFile[row]),
                                   line: Int(rowLine[row]), column: Int(rowColumn[row]), inlined: false)]
        }
        let chain = inlineChain(in: concrete, at: address)
        var frames: [SourceLocation] = []
        frames.reserveCapacity(chain.count)
        var file = row.flatMap { string(rowFile[$0]) }
        var line = row.map { Int(rowLine[$0]) } ?? 0
        var column = row.map { Int(rowColumn[$0]) } ?? 0
        for (depth, entry) in chain.enumerated().reversed() {
            frames.append(SourceLocation(function: name(of: entry, at: address, demangle: demangle),
                                         functionStart: start(of: entry, containing: address),
                                         file: file, line: line, column: column, inlined: depth > 0))
            file = string(callFile[entry])
            line = Int(callLine[entry])
            column = Int(callColumn[entry])
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
        let end = Int(functionEnd[concrete])
        while i < end {
            while let last = openEnds.last, i >= last { openEnds.removeLast() }
            guard functionInlined[i] else {
                i = Int(functionEnd[i])  // a function nested in this one is not part of its code
                continue
            }
            if openEnds.count + 1 > deepestDepth, rangeIndex(of: i, containing: address) != nil {
                deepest = i
                deepestDepth = openEnds.count + 1
            }
            openEnds.append(Int(functionEnd[i]))
            i += 1
        }
        var chain = [deepest]
        while let last = chain.last, last != concrete {
            let parent = Int(functionParent[last])
            guard parent >= concrete else { break }
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

    /// Whether `address` is the start of a signal-return trampoline (`__restore_rt`,
    /// `__kernel_rt_sigreturn`, ...): the frame a kernel pushes for a signal handler. The frame
    /// after it in a backtrace is the interrupted instruction, not a return address.
    public func isSignalTrampoline(_ address: UInt64) -> Bool {
        symbols.hasSymbol(at: address, named: SymbolIndex.signalTrampolines)
    }

    private static let signalTrampolines: Set<String> = [
        "__restore_rt", "__restore", "__kernel_rt_sigreturn", "__kernel_sigreturn", "__sigreturn",
        "_sigtramp", "sigreturn", "__default_rt_sa_restorer", "__default_sa_restorer",
    ]

    /// The name of an inlined entry is the DWARF's; an out-of-line function takes the symbol
    /// table's name where a symbol covers the address (it names clones such as `.isra.0` and
    /// functions the DWARF leaves without a linkage name), as llvm-symbolizer does.
    private func name(of entry: Int, at address: UInt64, demangle: Bool) -> String {
        if !functionInlined[entry], let symbol = symbols.lookup(address) {
            return symbolName(symbol, demangle: demangle)
        }
        if let raw = string(functionName[entry]) {
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
        let first = Int(rangeStart[entry])
        for r in first..<(first + Int(rangeCount[entry])) where rangeLow[r] <= address && address < rangeHigh[r] {
            return r
        }
        return nil
    }

    /// The entry address: the first listed range's start, unless the address lies below it.
    private func start(of entry: Int, containing address: UInt64) -> UInt64? {
        guard rangeCount[entry] > 0 else { return nil }
        let first = rangeLow[Int(rangeStart[entry])]
        if first <= address { return first }
        return rangeIndex(of: entry, containing: address).map { rangeLow[$0] }
    }

    /// The innermost out-of-line function whose ranges hold `address`.
    private func concreteFunction(at address: UInt64) -> Int? {
        var i = SymbolIndex.lastNotAbove(concreteLow, address)
        var best: Int?
        var bestSize = UInt64.max
        while i >= 0, concreteMaxHigh[i] > address {
            if address < concreteHigh[i] {
                let size = concreteHigh[i] - concreteLow[i]
                if size < bestSize {
                    best = Int(concreteFunction[i])
                    bestSize = size
                }
            }
            i -= 1
        }
        return best
    }

    /// The line-table row for `address`: in the sequence holding it, the last row at or below it.
    private func lineRow(at address: UInt64) -> Int? {
        var s = SymbolIndex.lastNotAbove(sequenceLow, address)
        while s >= 0, sequenceMaxHigh[s] > address {
            if address < sequenceHigh[s] {
                let rows = Int(sequenceStart[s])..<Int(sequenceEnd[s])
                var low = rows.lowerBound, high = rows.upperBound
                while low < high {
                    let mid = (low + high) / 2
                    if rowAddress[mid] <= address { low = mid + 1 } else { high = mid }
                }
                return low > rows.lowerBound ? low - 1 : nil
            }
            s -= 1
        }
        return nil
    }
}
