/// The sections of a protobuf tombstone's text that hold memory, not frames: the memory map
/// and the dumps of memory near registers, as `pbtombstone` prints them. The text parser reads
/// no frame in them, and neither does `ProtobufTombstoneText`.
enum ProtobufTombstoneMaps {
    /// `memory map (N entries):` and a line per mapping, the fault address marked `--->`.
    static func write(_ tombstone: AndroidTombstone_Tombstone, width: Int, to writer: inout ClassicTextWriter) {
        func pointer(_ value: UInt64) -> String {
            width == 16 ? paddedHex(value >> 32, 8) + "'" + paddedHex(value & 0xFFFF_FFFF, 8) : paddedHex(value, width)
        }
        let maps = tombstone.memoryMappings
        let signal = tombstone.signalInfo
        let hasFault = signal.hasFaultAddress_p
        // The fault address without its tag (the top byte on arm64).
        let fault = tombstone.arch == .arm64 ? signal.faultAddress & 0x00FF_FFFF_FFFF_FFFF : signal.faultAddress
        var heading = "memory map (\(maps.count) \(maps.count == 1 ? "entry" : "entries")):"
        var marked = false
        if hasFault, let first = maps.first {
            if fault < first.beginAddress {
                heading += "\n--->Fault address falls at \(pointer(fault)) before any mapped regions"
                marked = true
            } else {
                heading += " (fault address prefixed with --->)"
            }
        }
        for part in heading.split(separator: "\n") { writer.line(String(part)) }
        for map in maps {
            var line = "    "
            if hasFault && !marked {
                if fault < map.beginAddress {
                    marked = true
                    writer.line("--->Fault address falls at \(pointer(fault)) between mapped regions")
                } else if fault < map.endAddress {
                    marked = true
                    line = "--->"
                }
            }
            let size = map.endAddress &- map.beginAddress
            line += pointer(map.beginAddress) + "-" + pointer(map.endAddress &- 1) + " "
            line += (map.read ? "r" : "-") + (map.write ? "w" : "-") + (map.execute ? "x" : "-")
            line += "  " + padded(String(map.offset, radix: 16)) + "  " + padded(String(size, radix: 16))
            if !map.mappingName.isEmpty {
                line += "  " + String(protobufText: map.mappingName)
                if !map.buildID.isEmpty { line += " (BuildId: \(String(protobufText: map.buildID)))" }
                if map.loadBias != 0 { line += " (load bias 0x\(String(map.loadBias, radix: 16)))" }
            }
            writer.line(line)
        }
        if hasFault && !marked {
            writer.line("--->Fault address falls at \(pointer(fault)) after any mapped regions")
        }
    }

    /// `memory near REGISTER (MAPPING):` and 16 bytes a line: the address, the words, the bytes
    /// as ASCII.
    static func writeMemory(_ dump: AndroidTombstone_MemoryDump, width: Int, to writer: inout ClassicTextWriter) {
        writer.line("")
        let register = String(protobufText: dump.registerName)
        let mapping = String(protobufText: dump.mappingName)
        writer.line(mapping.isEmpty ? "memory near \(register):" : "memory near \(register) (\(mapping)):")
        let bytes = [UInt8](dump.memory)
        let word = width / 2
        var offset = 0
        while offset < bytes.count {
            let count = min(16, bytes.count - offset)
            var line = "    " + paddedHex(dump.beginAddress &+ UInt64(offset), width)
            var i = 0
            while i < count {
                var value: UInt64 = 0
                for k in 0..<word where i + k < count {
                    value |= UInt64(bytes[offset + i + k]) << (8 * UInt64(k))
                }
                line += " " + paddedHex(value, width)
                i += word
            }
            var ascii = ""
            for k in 0..<16 {
                let byte = k < count ? bytes[offset + k] : 0
                ascii.append(byte >= 0x20 && byte < 0x7F ? Character(Unicode.Scalar(byte)) : ".")
            }
            writer.line(line + "  " + ascii)
            offset += 16
        }
    }

    private static func padded(_ text: String) -> String {
        String(repeating: " ", count: max(0, 8 - text.utf8.count)) + text
    }
}
