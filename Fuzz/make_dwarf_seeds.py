#!/usr/bin/env python3
"""Seeds for the dwarf_sections fuzz target: the DWARF sections of Mach-O (thin or universal)
and ELF files, written in the target's input layout (see Fuzz/dwarf_sections.c):

    byte 0          flags: bit 0 big-endian, bit 1 4-byte addresses
    then records    1-byte section number (an index into the harness's name table),
                    4-byte little-endian length, that many bytes

Usage: make_dwarf_seeds.py OUTPUT_DIR FILE...  (compressed ELF sections are skipped)."""
import hashlib
import os
import struct
import sys

NAMES = [".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_line_str",
         ".debug_ranges", ".debug_rnglists", ".debug_addr", ".debug_str_offsets",
         ".debug_loclists", ".debug_loc", ".debug_types", ".debug_aranges"]


def macho_slices(data):
    magic = struct.unpack_from(">I", data, 0)[0]
    if magic in (0xCAFEBABE, 0xCAFEBABF):
        wide = magic == 0xCAFEBABF
        count = struct.unpack_from(">I", data, 4)[0]
        for i in range(min(count, 16)):
            if wide:
                _, _, offset, size, _, _ = struct.unpack_from(">iiQQII", data, 8 + 32 * i)
            else:
                _, _, offset, size, _ = struct.unpack_from(">iiIII", data, 8 + 20 * i)
            yield data[offset:offset + size]
    else:
        yield data


def macho_sections(data):
    magic = struct.unpack_from("<I", data, 0)[0]
    if magic not in (0xFEEDFACE, 0xFEEDFACF):
        return None
    is64 = magic == 0xFEEDFACF
    ncmds = struct.unpack_from("<I", data, 16)[0]
    offset = 32 if is64 else 28
    sections = {}
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, offset)
        if cmd in (0x19, 0x1):
            nsects = struct.unpack_from("<I", data, offset + (64 if is64 else 48))[0]
            at = offset + (72 if is64 else 56)
            for _ in range(nsects):
                name = data[at:at + 16].split(b"\0")[0].decode()
                segment = data[at + 16:at + 32].split(b"\0")[0].decode()
                if is64:
                    size_, file_offset = struct.unpack_from("<QI", data, at + 40)
                else:
                    size_, file_offset = struct.unpack_from("<II", data, at + 36)
                if segment == "__DWARF" and ("." + name[2:] in NAMES or name == "__debug_str_offs"):
                    spelled = "." + ("debug_str_offsets" if name == "__debug_str_offs" else name[2:])
                    sections[spelled] = data[file_offset:file_offset + size_]
                at += 80 if is64 else 68
        offset += size
    return sections, (0 if is64 else 2)


def elf_sections(data):
    if data[:4] != b"\x7fELF":
        return None
    is64 = data[4] == 2
    end = "<" if data[5] == 1 else ">"
    if is64:
        shoff, = struct.unpack_from(end + "Q", data, 40)
        shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", data, 58)
    else:
        shoff, = struct.unpack_from(end + "I", data, 32)
        shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", data, 46)
    headers = []
    for i in range(shnum):
        at = shoff + i * shentsize
        if is64:
            name, kind, flags, _, offset, size = struct.unpack_from(end + "IIQQQQ", data, at)
        else:
            name, kind, flags, _, offset, size = struct.unpack_from(end + "IIIIII", data, at)
        headers.append((name, kind, flags, offset, size))
    strtab = headers[shstrndx]
    sections = {}
    for name, kind, flags, offset, size in headers:
        spelled = data[strtab[3] + name:].split(b"\0")[0].decode(errors="replace")
        if spelled in NAMES and kind != 8 and not flags & 0x800:
            sections[spelled] = data[offset:offset + size]
    return sections, (1 if end == ">" else 0) | (0 if is64 else 2)


def layout(sections, flags):
    out = bytearray([flags])
    for name, data in sections.items():
        out += struct.pack("<BI", NAMES.index(name), len(data)) + data
    return bytes(out)


def main():
    output, files = sys.argv[1], sys.argv[2:]
    os.makedirs(output, exist_ok=True)
    made = 0
    for path in files:
        try:
            data = open(path, "rb").read()
        except OSError:
            continue
        if len(data) < 64:
            continue
        found = []
        if data[:4] == b"\x7fELF":
            found = [elf_sections(data)]
        else:
            found = [macho_sections(piece) for piece in macho_slices(data) if len(piece) >= 32]
        for k, result in enumerate(found):
            if not result or ".debug_info" not in result[0]:
                continue
            tag = hashlib.sha1(path.encode()).hexdigest()[:8]
            name = f"{os.path.basename(path)}-{tag}" + (f"-{k}" if len(found) > 1 else "")
            with open(os.path.join(output, name), "wb") as f:
                f.write(layout(*result))
            made += 1
    print(f"{made} seeds in {output}")


if __name__ == "__main__":
    main()
