"""Reading and rewriting the few parts of a linked Mach-O dylib that a dyld shared cache
changes: segment and section addresses, symbol values, and the offsets of the `__LINKEDIT`
tables. 64-bit little-endian only (every cache image here is)."""

import struct

LC_SEGMENT_64 = 0x19
LC_SYMTAB = 0x2
LC_DYSYMTAB = 0xB
LC_UUID = 0x1B
LC_CODE_SIGNATURE = 0x1D
LC_SEGMENT_SPLIT_INFO = 0x1E
LC_DYLD_INFO = 0x22
LC_DYLD_INFO_ONLY = 0x80000022
LC_FUNCTION_STARTS = 0x26
LC_DATA_IN_CODE = 0x29
LC_DYLD_EXPORTS_TRIE = 0x80000033
LC_DYLD_CHAINED_FIXUPS = 0x80000034
LINKEDIT_DATA = {LC_CODE_SIGNATURE, LC_SEGMENT_SPLIT_INFO, LC_FUNCTION_STARTS, LC_DATA_IN_CODE,
                 LC_DYLD_EXPORTS_TRIE, LC_DYLD_CHAINED_FIXUPS}


class Dylib:
    """One linked dylib: its bytes and where its load commands and tables are."""

    def __init__(self, data, path):
        self.data = bytearray(data)
        self.path = path
        magic, self.cputype, self.cpusubtype, _, self.ncmds, self.sizeofcmds = struct.unpack_from("<IiiIII", data, 0)
        assert magic == 0xFEEDFACF, path
        self.commands = []  # (offset, cmd, cmdsize)
        at = 32
        for _ in range(self.ncmds):
            cmd, size = struct.unpack_from("<II", data, at)
            self.commands.append((at, cmd, size))
            at += size
        self.segments = {}
        for at, cmd, _ in self.commands:
            if cmd == LC_SEGMENT_64:
                name = data[at + 8:at + 24].rstrip(b"\0").decode()
                vmaddr, vmsize, fileoff, filesize = struct.unpack_from("<QQQQ", data, at + 24)
                self.segments[name] = (at, vmaddr, vmsize, fileoff, filesize)
        assert set(self.segments) <= {"__TEXT", "__LINKEDIT"}, f"{path}: segments {set(self.segments)}"

    def command(self, wanted):
        return next(((at, size) for at, cmd, size in self.commands if cmd == wanted), None)

    @property
    def uuid(self):
        at, _ = self.command(LC_UUID)
        return bytes(self.data[at + 8:at + 24])

    @property
    def text(self):
        _, vmaddr, vmsize, fileoff, filesize = self.segments["__TEXT"]
        return bytes(self.data[fileoff:fileoff + filesize]), vmaddr, vmsize

    def symtab(self):
        at, _ = self.command(LC_SYMTAB)
        return struct.unpack_from("<IIII", self.data, at + 8)  # symoff, nsyms, stroff, strsize

    def dysymtab(self):
        at, _ = self.command(LC_DYSYMTAB)
        return at, struct.unpack_from("<18I", self.data, at + 8)

    def nlists(self):
        symoff, nsyms, _, _ = self.symtab()
        return [bytearray(self.data[symoff + 16 * i:symoff + 16 * (i + 1)]) for i in range(nsyms)]

    def strings(self):
        _, _, stroff, strsize = self.symtab()
        return bytes(self.data[stroff:stroff + strsize])

    def rebase(self, delta):
        """Moves `__TEXT` (and every symbol defined in a section) up by `delta` bytes; the
        exports trie and the function starts count from the header and need no change."""
        for name, (at, vmaddr, vmsize, fileoff, filesize) in self.segments.items():
            struct.pack_into("<Q", self.data, at + 24, vmaddr + delta)
            nsects, = struct.unpack_from("<I", self.data, at + 64)
            for s in range(nsects):
                sect = at + 72 + 80 * s
                address, = struct.unpack_from("<Q", self.data, sect + 32)
                struct.pack_into("<Q", self.data, sect + 32, address + delta)
            self.segments[name] = (at, vmaddr + delta, vmsize, fileoff, filesize)
        symoff, nsyms, _, _ = self.symtab()
        for i in range(nsyms):
            entry = symoff + 16 * i
            type_, sect = self.data[entry + 4], self.data[entry + 5]
            if type_ & 0xE0 == 0 and type_ & 0x0E == 0x0E and sect:
                value, = struct.unpack_from("<Q", self.data, entry + 8)
                struct.pack_into("<Q", self.data, entry + 8, value + delta)

    def linkedit_tables(self):
        """Every table in `__LINKEDIT`: (command offset, field offset in the command, size
        field offset or None, offset, size). The symbol table's size is counted in entries."""
        tables = []
        for at, cmd, _ in self.commands:
            if cmd == LC_DYLD_CHAINED_FIXUPS:
                # Applied when the cache is built: a cache image carries none (size 0).
                tables.append((at + 8, 0, 0))
            elif cmd in LINKEDIT_DATA:
                off, size = struct.unpack_from("<II", self.data, at + 8)
                tables.append((at + 8, off, size))
            elif cmd in (LC_DYLD_INFO, LC_DYLD_INFO_ONLY):
                for pair in range(5):
                    off, size = struct.unpack_from("<II", self.data, at + 8 + 8 * pair)
                    tables.append((at + 8 + 8 * pair, off, size))
        return tables
