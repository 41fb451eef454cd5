/// The parsed headers of one debug file's slice: parsed once when its index is built, then
/// read by the symbol table and the DWARF reader alike.
enum ObjectLayout {
    case machO(MachOSlice)
    case elf(ELFImage)

    init(_ file: DebugFile, in mapped: MappedFile) throws {
        switch file.format {
        case .machO:
            MachO.pinHeaders(of: mapped)
            let slices = try MachO.slices(of: mapped.bytes, path: mapped.path)
            guard let slice = slices.first(where: { $0.offset == file.sliceOffset }) else {
                throw DebugInfoError.malformed(path: file.path, reason: "slice at offset \(file.sliceOffset) not found")
            }
            self = .machO(slice)
        case .elf:
            ELF.pinHeaders(of: mapped)
            self = .elf(try ELF.parse(mapped.bytes, path: mapped.path))
        case .dyldCache:
            throw DebugInfoError.malformed(path: file.path, reason: "an image of a dyld shared cache, read by DyldSharedCache")
        }
    }

    /// The code section (`__TEXT,__text` or `.text`): address and size.
    var codeSection: (address: UInt64, size: UInt64)? {
        switch self {
        case .machO(let slice):
            return slice.sections.first { $0.segment == "__TEXT" && $0.name == "__text" }.map { ($0.address, $0.size) }
        case .elf(let image):
            return image.sections.first { $0.name == ".text" }.map { ($0.address, $0.size) }
        }
    }
}
