extension CrashReport {
    /// Gives an image offset to the frames that state one and that no image range holds:
    /// `<UUID> + 16568` (the image named by its UUID), `App + 16568`,
    /// `_mh_execute_header + 16568` (an offset from the image's Mach-O header). Such lines come
    /// from reports cut short before their Binary Images, pasted in part, or partly
    /// symbolicated by another tool; the offset places them in their debug file all the same.
    ///
    /// A frame named by a UUID the image list does not hold gets an image of its own, made
    /// from the frame: that UUID, the load address its offset implies. A frame whose offset is
    /// past its address, or past what its image's load address leaves of 64 bits, is left in no
    /// image: its numbers contradict each other, and no answer would be right.
    mutating func placeFramesByImageOffset() {
        var byUUID: [String: Int]?
        var made: [BinaryImage] = []
        for t in threads.indices {
            for f in threads[t].frames.indices {
                let frame = threads[t].frames[f]
                guard case .imageOffset(let offset) = frame.form, frame.imageOffset == nil, !frame.addressUnknown
                else { continue }
                if let i = frame.image, images[i].contains(frame.address), !images[i].isPlaceholder { continue }
                // An offset past the frame's address would put its image below address 0.
                guard offset <= frame.address else {
                    threads[t].frames[f].image = nil
                    continue
                }
                if let uuid = bracketedUUID(of: frame) {
                    if byUUID == nil {
                        byUUID = [:]
                        for (i, image) in images.enumerated() { if let id = image.uuid, byUUID?[id] == nil { byUUID?[id] = i } }
                    }
                    if let i = byUUID?[uuid] {
                        threads[t].frames[f].image = i
                    } else {
                        let name = frame.imageName.flatMap { $0 == "???" ? nil : $0 } ?? "???"
                        made.append(BinaryImage(loadAddress: frame.address - offset, endAddress: frame.address,
                                                name: name, uuid: uuid, line: frame.line))
                        byUUID?[uuid] = images.count + made.count - 1
                        threads[t].frames[f].image = images.count + made.count - 1
                    }
                }
                guard let i = threads[t].frames[f].image else { continue }
                // The image's base and the offset must make an address that fits in 64 bits.
                let base = i < images.count ? images[i].loadAddress : made[i - images.count].loadAddress
                guard !base.addingReportingOverflow(offset).overflow else {
                    threads[t].frames[f].image = nil
                    continue
                }
                threads[t].frames[f].imageOffset = offset
            }
        }
        if !made.isEmpty { images += made }
    }

    /// The UUID of a frame line whose text after the address starts `<UUID>`, as 32 lowercase
    /// hexadecimal digits.
    private func bracketedUUID(of frame: Frame) -> String? {
        guard let restStart = frame.restStart, lines.indices.contains(frame.line) else { return nil }
        let range = lines[frame.line]
        var i = range.lowerBound + restStart
        guard i < range.upperBound, bytes[i] == ASCII.less else { return nil }
        i += 1
        var digits: [UInt8] = []
        digits.reserveCapacity(32)
        while i < range.upperBound, bytes[i] != ASCII.greater {
            let byte = bytes[i]
            i += 1
            if byte == ASCII.minus { continue }
            guard hexDigitValue(byte) != nil, digits.count < 32 else { return nil }
            digits.append(byte &- 0x41 < 26 ? byte | 0x20 : byte)
        }
        guard i < range.upperBound, digits.count == 32 else { return nil }
        return String(decoding: digits, as: UTF8.self)
    }
}
