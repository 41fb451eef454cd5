#!/usr/bin/env python3
"""Wraps the DWARF of Mach-O object files (.o) into a dSYM, thin or universal.

Usage: dsym_from_objects.py OUTPUT OBJECT.o [OBJECT.o ...]   (one object per architecture)

dsymutil rewrites what it links (every string becomes DW_FORM_strp, abbreviations are
merged); a dSYM made here keeps a compiler's DWARF byte for byte, as dSYMs of other eras and
tools hold it: inline DW_FORM_string attributes, one abbreviation table per unit, armv7
(which ld64.lld does not link). Each object's sections start at address 0 in the object and
in the dSYM, so the DWARF's addresses (which a Mach-O object keeps in place, relocations
adding to 0) are the dSYM's.

A slice is an MH_DSYM file: LC_UUID (from the object's bytes), LC_SYMTAB (the object's
symbols defined in a section), a __TEXT segment listing the object's code sections without
their bytes, and a __DWARF segment holding the object's __DWARF sections.
"""
import hashlib
import struct
import sys

MH_MAGIC, MH_MAGIC_64, MH_DSYM = 0xFEEDFACE, 0xFEEDFACF, 0xA
LC_SEGMENT, LC_SEGMENT_64, LC_SYMTAB, LC_UUID = 0x1, 0x19, 0x2, 0x1B
FAT_MAGIC = 0xCAFEBABE


def read_object(data):
    """(is64, cputype, cpusubtype, sections, symbols, strings) of a thin Mach-O object."""
    magic = struct.unpack_from("<I", data)[0]
    if magic not in (MH_MAGIC, MH_MAGIC_64):
        sys.exit("not a little-endian thin Mach-O object")
    is64 = magic == MH_MAGIC_64
    cputype, cpusubtype, _, ncmds, _ = struct.unpack_from("<iiIII", data, 4)
    offset = 32 if is64 else 28
    sections, symbols, strings = [], [], b"\0"
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, offset)
        if cmd in (LC_SEGMENT, LC_SEGMENT_64):
            count = struct.unpack_from("<I", data, offset + (64 if is64 else 48))[0]
            at = offset + (72 if is64 else 56)
            for _ in range(count):
                name = data[at:at + 16].rstrip(b"\0")
                segment = data[at + 16:at + 32].rstrip(b"\0")
                if is64:
                    addr, size_, file_offset, align = struct.unpack_from("<QQII", data, at + 32)
                else:
                    addr, size_, file_offset, align = struct.unpack_from("<IIII", data, at + 32)
                flags = struct.unpack_from("<I", data, at + (64 if is64 else 56))[0]
                sections.append(dict(name=name, segment=segment, addr=addr, size=size_,
                                     bytes=data[file_offset:file_offset + size_], align=align, flags=flags))
                at += 80 if is64 else 68
        elif cmd == LC_SYMTAB:
            symoff, nsyms, stroff, strsize = struct.unpack_from("<IIII", data, offset + 8)
            strings = data[stroff:stroff + strsize]
            entry = 16 if is64 else 12
            for i in range(nsyms):
                at = symoff + i * entry
                if is64:
                    strx, ntype, nsect, ndesc, value = struct.unpack_from("<IBBHQ", data, at)
                else:
                    strx, ntype, nsect, ndesc, value = struct.unpack_from("<IBBhI", data, at)
                if ntype & 0xE0 == 0 and ntype & 0x0E == 0x0E and nsect != 0:  # defined in a section
                    symbols.append((strx, ntype, nsect, ndesc & 0xFFFF, value))
        offset += size
    return is64, cputype, cpusubtype, sections, symbols, strings


def section_header(is64, name, segment, addr, size, offset, align, flags):
    name, segment = name.ljust(16, b"\0"), segment.ljust(16, b"\0")
    if is64:
        return name + segment + struct.pack("<QQIIIIIIII", addr, size, offset, align, 0, 0, flags, 0, 0, 0)
    return name + segment + struct.pack("<IIIIIIIII", addr, size, offset, align, 0, 0, flags, 0, 0)


def segment_command(is64, name, vmaddr, vmsize, fileoff, filesize, sections):
    head = 72 if is64 else 56
    size = head + len(sections) * (80 if is64 else 68)
    name = name.ljust(16, b"\0")
    if is64:
        command = struct.pack("<II", LC_SEGMENT_64, size) + name + struct.pack(
            "<QQQQiiII", vmaddr, vmsize, fileoff, filesize, 7, 5, len(sections), 0)
    else:
        command = struct.pack("<II", LC_SEGMENT, size) + name + struct.pack(
            "<IIIIiiII", vmaddr, vmsize, fileoff, filesize, 7, 5, len(sections), 0)
    return command + b"".join(sections)


def dsym_slice(data):
    is64, cputype, cpusubtype, sections, symbols, strings = read_object(data)
    code = [s for s in sections if s["segment"] == b"__TEXT"]
    dwarf = [s for s in sections if s["segment"] == b"__DWARF"]
    # The code sections keep their object addresses; the __DWARF ones follow the load commands.
    text_end = max((s["addr"] + s["size"] for s in code), default=0)
    ncmds = 4
    header_size = 32 if is64 else 28
    commands_size = 24 + 24 + (72 if is64 else 56) * 2 + (80 if is64 else 68) * (len(code) + len(dwarf))
    offset = (header_size + commands_size + 15) & ~15
    placed = []
    for s in dwarf:
        placed.append((s, offset))
        offset += s["size"]
    symoff = (offset + 7) & ~7
    entry = 16 if is64 else 12
    stroff = symoff + entry * len(symbols)
    uuid = hashlib.sha256(data).digest()[:16]
    commands = struct.pack("<II", LC_UUID, 24) + uuid
    commands += struct.pack("<IIIIII", LC_SYMTAB, 24, symoff, len(symbols), stroff, len(strings))
    commands += segment_command(is64, b"__TEXT", 0, text_end, 0, 0, [
        section_header(is64, s["name"], s["segment"], s["addr"], s["size"], 0, s["align"], s["flags"]) for s in code])
    dwarf_start = placed[0][1] if placed else offset
    commands += segment_command(is64, b"__DWARF", text_end, offset - dwarf_start, dwarf_start, offset - dwarf_start, [
        section_header(is64, s["name"], b"__DWARF", text_end + (at - dwarf_start), s["size"], at, s["align"], 0)
        for s, at in placed])
    assert len(commands) == commands_size
    magic = MH_MAGIC_64 if is64 else MH_MAGIC
    header = struct.pack("<IiiIIII", magic, cputype, cpusubtype, MH_DSYM, ncmds, commands_size, 0)
    if is64:
        header += struct.pack("<I", 0)
    out = bytearray(header + commands)
    for s, at in placed:
        out += b"\0" * (at - len(out))
        out += s["bytes"]
    out += b"\0" * (symoff - len(out))
    for strx, ntype, nsect, ndesc, value in symbols:
        out += struct.pack("<IBBHQ" if is64 else "<IBBHI", strx, ntype, nsect, ndesc, value)
    out += strings
    return cputype, cpusubtype, bytes(out)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    slices = [dsym_slice(open(path, "rb").read()) for path in sys.argv[2:]]
    if len(slices) == 1:
        result = slices[0][2]
    else:
        # A universal file: the big-endian fat header, each slice aligned to 16 KiB.
        result = bytearray(struct.pack(">II", FAT_MAGIC, len(slices)))
        offset = 16384
        entries, bodies = b"", []
        for cputype, cpusubtype, body in slices:
            entries += struct.pack(">iiIII", cputype, cpusubtype, offset, len(body), 14)
            bodies.append((offset, body))
            offset = (offset + len(body) + 16383) & ~16383
        result += entries
        for at, body in bodies:
            result += b"\0" * (at - len(result))
            result += body
        result = bytes(result)
    with open(sys.argv[1], "wb") as f:
        f.write(result)


if __name__ == "__main__":
    main()
