import Platform

extension SymbolIndex.Tables {
    /// The out-of-line functions in the order their first ranges come in `concrete` (sorted
    /// by address): the order of their ``FunctionBlock``s.
    static func blockOrder(_ concrete: [SortedRange], functionCount: Int) -> [Int32] {
        var order: [Int32] = []
        var seen = [Bool](repeating: false, count: functionCount)
        for range in concrete where !seen[Int(range.first)] {
            seen[Int(range.first)] = true
            order.append(range.first)
        }
        return order
    }

    /// The ``FunctionBlock``s of the out-of-line functions `order` lists (``blockOrder(_:functionCount:)``),
    /// and `concrete` with each range pointing at its function's block; `names` are the names
    /// and paths kept for them (``keepNames(of:_:_:)``).
    ///
    /// The blocks, which read nothing that changes, are written in two parts when there are
    /// many and a second core, the second on a thread of its own, and put together: the same
    /// bytes as one writer makes.
    static func functionBlocks(_ records: FlatArrayWriter<FunctionRecord>, _ ranges: FlatArray<AddressRange>,
                               _ segments: (segments: FlatArray<InlineSegment>, places: FlatArray<SegmentPlace>),
                               _ concrete: [SortedRange], order: [Int32], names: KeptNames,
                               splittingFrom minimum: Int = 4096)
        -> (bytes: FlatArray<UInt8>, concrete: FlatArray<SortedRange>) {
        // Cut where about half the records of the functions' subtrees lie before.
        var total = 0
        for function in order { total += Int(records[Int(function)].end) - Int(function) }
        var cut = order.count, before = 0
        for (k, function) in order.enumerated() {
            if 2 * before >= total {
                cut = k
                break
            }
            before += Int(records[Int(function)].end) - Int(function)
        }
        let split = order.count >= minimum && cut > 0 && cut < order.count && (hasASecondCore || minimum <= 1)
        let cutAt = split ? cut : order.count
        var (first, second) = WorkerThread.both(together: split, {
            writeBlocks(order[..<cutAt], records, ranges, segments, names)
        }, {
            writeBlocks(order[cutAt...], records, ranges, segments, names)
        })

        // The second part's blocks follow the first's.
        let shift = first.writer.byteCount
        var blocks = [Range<Int>](repeating: 0..<0, count: records.count)
        for (function, place) in zip(order[..<cutAt], first.places) { blocks[Int(function)] = place }
        for (function, place) in zip(order[cutAt...], second.places) {
            blocks[Int(function)] = (place.lowerBound + shift)..<(place.upperBound + shift)
        }
        first.writer.appendBlocks(of: second.writer)
        second.writer = FunctionBlockWriter(recordCount: 0)
        let pointing = FlatArray(count: concrete.count) { i -> SortedRange in
            var range = concrete[i]
            let block = blocks[Int(range.first)]
            range.first = Int32(truncatingIfNeeded: block.lowerBound)
            range.end = Int32(truncatingIfNeeded: block.upperBound)
            return range
        }
        return (first.writer.takeBytes(), pointing)
    }

    /// For each record a block names, its name's offset in the strings kept and its call's
    /// path's index in the file table; 0 for the others.
    struct KeptNames: @unchecked Sendable {
        let names: FlatArray<UInt32>
        let files: FlatArray<UInt32>
    }

    /// Puts the names and paths the blocks of `functions` use in `kept`, in the order their
    /// blocks name them (each function's inlined calls in DIE order, each call's name and then
    /// its path, then the function's name), and returns where they are. Only reads the
    /// records, which another thread may be reading meanwhile.
    static func keepNames(of functions: [Int32], _ records: FlatArrayWriter<FunctionRecord>,
                          _ kept: inout StringsKept) -> KeptNames {
        let names = FlatArrayWriter<UInt32>(count: records.count), files = FlatArrayWriter<UInt32>(count: records.count)
        for i in 0..<records.count {
            names[i] = 0
            files[i] = 0
        }
        for f in functions {
            let function = Int(f)
            var i = function + 1
            let end = min(Int(records[function].end), records.count)
            while i < end {
                let call = records[i]
                guard call.inlined != 0 else {
                    i = max(Int(call.end), i + 1)
                    continue
                }
                names[i] = kept.name(call.name)
                files[i] = kept.file(call.callFile)
                i += 1
            }
            names[function] = kept.name(records[function].name)
        }
        return KeptNames(names: names.array, files: files.array)
    }

    /// The blocks of `functions`, in order, and where each lies in the writer's bytes.
    private static func writeBlocks(_ functions: ArraySlice<Int32>, _ records: FlatArrayWriter<FunctionRecord>,
                                    _ ranges: FlatArray<AddressRange>,
                                    _ segments: (segments: FlatArray<InlineSegment>, places: FlatArray<SegmentPlace>),
                                    _ names: KeptNames) -> (writer: FunctionBlockWriter, places: [Range<Int>]) {
        var writer = FunctionBlockWriter(recordCount: functions.isEmpty ? 0 : records.count)
        var places: [Range<Int>] = []
        places.reserveCapacity(functions.count)
        for function in functions {
            places.append(writer.append(function: Int(function), records: records, ranges: ranges,
                                        segments: segments.segments, place: segments.places[Int(function)],
                                        name: { names.names[$0] }, file: { names.files[$0] }))
        }
        return (writer, places)
    }
}
