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

    /// The function records of the DWARF pass's entries, their address ranges and the sorted
    /// ranges of the out-of-line functions, made once by ``makeRecords()`` on whichever thread
    /// calls it: the part of the tables that reads no strings.
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
    }
}
