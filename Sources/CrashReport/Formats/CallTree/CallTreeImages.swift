/// Places the frames of a call-tree report in their images, once every Binary Images block has
/// been read.
///
/// A report may describe several processes (a spindump, a microstackshot report's "Powerstats
/// for:" blocks), each with a Binary Images block after its trees, and two processes may load
/// different images at one address. A frame is therefore looked for in its own block first —
/// the first that follows its line — and in the others after. In that order, the first rule
/// that finds an image decides:
///
/// 1. `<UUID> + OFFSET`: the image with that UUID; if the list has none, an image is added for
///    it (based at address − offset), so that its debug file is still found by UUID.
/// 2. An address and an offset into the image: the image based at address − offset, its name
///    (or file name) the frame's if several are.
/// 3. The image whose name or file name is the frame's (the app's image is listed by bundle
///    id, `com.example.App`, and named `App` in frames).
///
/// The frame's `imageOffset` is the offset it gives, else its address less the image's base;
/// a frame without an address gets base + offset, for the JSON and frames outputs. A frame
/// whose offset is past its address, or whose base + offset does not fit in 64 bits, is placed
/// in no image: its numbers contradict each other, and no answer would be right.
enum CallTreeImages {
    static func place(_ report: inout CrashReport, _ placements: [[CallTreePlacement]], imageBlocks: [Int],
                      blockStarts: [Int]) {
        var images = report.images
        var threads = report.threads
        var byUUID: [String: [Int]] = [:]
        var byBase: [UInt64: [Int]] = [:]
        var byName: [Substring: [Int]] = [:]
        func index(_ i: Int) {
            let image = images[i]
            if let uuid = image.uuid { byUUID[uuid, default: []].append(i) }
            byBase[image.loadAddress, default: []].append(i)
            byName[image.name[...], default: []].append(i)
            if let path = image.path {
                let file = basename(path)
                if !file.isEmpty, file != image.name[...] { byName[file, default: []].append(i) }
            }
        }
        for i in images.indices { index(i) }

        for t in threads.indices where placements.indices.contains(t) {
            for f in threads[t].frames.indices where placements[t].indices.contains(f) {
                let placement = placements[t][f]
                let frame = threads[t].frames[f]
                let block = blockAfter(line: frame.line, blockStarts)
                func preferred(_ candidates: [Int]?) -> Int? {
                    guard let candidates, !candidates.isEmpty else { return nil }
                    return candidates.first { imageBlocks.indices.contains($0) && imageBlocks[$0] == block }
                        ?? candidates[0]
                }
                var found: Int?
                // An offset past the address puts the image below address 0: nothing places it.
                if placement.hasAddress, let offset = placement.imageOffset, offset > frame.address { continue }
                if let uuid = placement.uuid {
                    found = preferred(byUUID[uuid])
                    if found == nil {
                        let base = placement.hasAddress ? frame.address - (placement.imageOffset ?? 0) : 0
                        var image = BinaryImage(loadAddress: base, endAddress: base, name: frame.imageName ?? "???",
                                                uuid: uuid, line: frame.line)
                        image.endIsKnown = false
                        images.append(image)
                        index(images.count - 1)
                        found = images.count - 1
                    }
                } else if placement.hasAddress, let offset = placement.imageOffset, frame.address >= offset {
                    let candidates = byBase[frame.address - offset]
                    found = candidates?.first { i in
                        frame.imageName.map { byName[$0[...]]?.contains(i) ?? false } ?? false
                    } ?? preferred(candidates)
                }
                if found == nil, let name = frame.imageName, name != "???" {
                    found = preferred(byName[name[...]])
                }
                guard let image = found else { continue }
                let base = images[image].loadAddress
                if let offset = placement.imageOffset, !placement.hasAddress {
                    // Base and offset must make an address: a sum past 64 bits is none.
                    let (address, overflow) = base.addingReportingOverflow(offset)
                    guard !overflow else {
                        threads[t].frames[f].addressUnknown = true
                        continue
                    }
                    threads[t].frames[f].address = address
                }
                threads[t].frames[f].image = image
                if let offset = placement.imageOffset {
                    threads[t].frames[f].imageOffset = offset
                } else if placement.hasAddress, frame.address >= base {
                    threads[t].frames[f].imageOffset = frame.address - base
                } else {
                    threads[t].frames[f].image = nil
                }
            }
        }
        report.threads = threads
        if images.count != report.images.count { report.images = images }
    }

    /// The index of the first Binary Images block after `line`, else the last one; -1 if none.
    private static func blockAfter(line: Int, _ blockStarts: [Int]) -> Int {
        var low = 0
        var high = blockStarts.count
        while low < high {
            let mid = (low + high) / 2
            if blockStarts[mid] < line { low = mid + 1 } else { high = mid }
        }
        return low < blockStarts.count ? low : blockStarts.count - 1
    }
}
