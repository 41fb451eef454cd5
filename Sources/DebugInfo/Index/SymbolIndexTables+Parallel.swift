#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CDwarf

extension SymbolIndex.Tables {
    /// Whether the machine has a core beside the one building the tables (counted once):
    /// else the parts below run one after the other, in the caller's thread.
    static let hasASecondCore = sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1

    /// The function records of the DWARF pass's entries, their address ranges, the sorted
    /// ranges of the out-of-line functions (``makeRecords()``) and their inline segments
    /// (``makeSegments()``): the part of the tables that reads no strings, each made once, on
    /// whichever thread calls it.
    ///
    /// It holds the only references to the raw entries and ranges, and lets them go as soon
    /// as the records are made, as the tables did when they made them in line.
    final class FunctionTables: @unchecked Sendable {
        private var functions: [cdw_function]
        private var rawRanges: FlatArray<cdw_range>
        private let files: [UInt32]
        /// What ``makeRecords()`` made; nil before.
        private(set) var records: (records: FlatArrayWriter<FunctionRecord>, ranges: FlatArray<AddressRange>,
                                   concrete: [SortedRange])?
        /// What ``makeSegments()`` made.
        private(set) var segments = (segments: FlatArray<InlineSegment>(), places: FlatArray<SegmentPlace>())

        init(functions: [cdw_function], ranges: FlatArray<cdw_range>, files: [UInt32]) {
            self.functions = functions
            rawRanges = ranges
            self.files = files
        }

        /// Whether the entries are many enough to be worth a thread beside the line rows
        /// (a thread costs some 50 µs to start) and there is a second core to run it.
        var worthAThread: Bool {
            functions.count >= 4096 && SymbolIndex.Tables.hasASecondCore
        }

        func makeRecords() {
            let (made, concrete) = functions.withUnsafeBufferPointer { functions in
                files.withUnsafeBufferPointer { files in
                    SymbolIndex.Tables.functionRecords(functions, rawRanges.buffer, files)
                }
            }
            functions = []
            let ranges = rawRanges
            rawRanges = FlatArray()
            records = (made, SymbolIndex.Tables.addressRanges(ranges), concrete)
        }

        /// Reads the records and writes nothing of them, so that their names may be kept at once
        /// (``SymbolIndex/Tables/keepNames(of:_:_:)``, which reads them too).
        func makeSegments() {
            guard let (records, ranges, _) = records else { return }
            segments = SymbolIndex.Tables.inlineSegments(records, ranges)
        }
    }
}

extension SymbolIndex.Tables {
    /// ``lineTablesAreWellFormed`` of some tables, found by ``run()`` on whichever thread
    /// calls it.
    final class LineTablesCheck: @unchecked Sendable {
        private let tables: SymbolIndex.Tables
        /// The answer, once ``run()`` has returned; false before.
        private(set) var passed = false

        init(_ tables: SymbolIndex.Tables) {
            self.tables = tables
        }

        func run() {
            passed = tables.lineTablesAreWellFormed
        }
    }
}
