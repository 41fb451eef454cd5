#!/usr/bin/env python3
"""Seeds for the dwarf_sections fuzz target: the DWARF sections of Mach-O (thin or universal)
and ELF files, written in the target's input layout (see Fuzz/dwarf_sections.c):

    byte 0          flags: bit 0 big-endian, bit 1 4-byte addresses
    then records    1-byte section number (an index into the harness's name table),
                    4-byte little-endian length, that many bytes

Usage: make_dwarf_seeds.py OUTPUT_DIR FILE...  (compressed ELF sections are skipped).
       make_dwarf_seeds.py --crafted OUTPUT_DIR [SCALE]: DWARF made for the classes of input
       that cost more than their size if read naively (parts many units or DIEs point at,
       abbreviations of huge codes or many attributes), small by default; SCALE multiplies
       their counts (for measuring)."""
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


def uleb(v):
    out = bytearray()
    while True:
        byte = v & 0x7F
        v >>= 7
        out.append(byte | (0x80 if v else 0))
        if not v:
            return bytes(out)


def abbrev(code, tag, children, specs):
    return uleb(code) + uleb(tag) + bytes([children]) + b"".join(uleb(a) + uleb(f) for a, f in specs) + b"\0\0"


def unit(dies, abbrev_offset=0):
    return struct.pack("<IHIB", 7 + len(dies), 4, abbrev_offset, 8) + dies


def line_table(program):
    header = bytes([1, 1, 1, 0xFB, 14, 13, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1]) + b"inc\0\0a.c\0\1\0\0\0"
    body = struct.pack("<HI", 4, len(header)) + header + program
    return struct.pack("<I", len(body)) + body


def crafted(scale):
    """name -> sections of DWARF that costs more than its size when read naively."""
    cu = abbrev(1, 0x11, 1, [(0x10, 0x17)])  # a compile unit with DW_AT_stmt_list
    bare = abbrev(1, 0x11, 1, [])
    n = 64 * scale
    seeds = {}
    program = b"\0\x09\x02" + struct.pack("<Q", 0x1000) + b"\x20" * n + b"\0\x01\x01"
    seeds["shared-line-program"] = {
        ".debug_info": b"".join(unit(b"\1" + struct.pack("<I", 0) + b"\0") for _ in range(n)),
        ".debug_abbrev": cu + b"\0", ".debug_line": line_table(program)}
    table = bare + b"".join(abbrev(3 + i, 0x24, 0, []) for i in range(n)) + b"\0"
    seeds["alternating-abbreviation-tables"] = {
        ".debug_info": b"".join(unit(b"\1\3\0", (i % 2) * len(table)) for i in range(n)),
        ".debug_abbrev": table + table}
    entry = abbrev(1, 0x11, 0, [])
    seeds["overlapping-abbreviation-tables"] = {
        ".debug_info": b"".join(unit(b"\1", i * len(entry)) for i in range(n)),
        ".debug_abbrev": entry * n + b"\0"}
    big = bare + b"".join(abbrev((1 << 20) + i, 0x24, 0, []) for i in range(n)) + b"\0"
    seeds["large-abbreviation-codes"] = {
        ".debug_info": unit(b"\1" + uleb((1 << 20) + n - 1) * (4 * n) + b"\0"), ".debug_abbrev": big}
    passed = [(0x3F, 0x19)] * n + [(0x03, 0x08)]
    seeds["attributes-of-no-bytes"] = {
        ".debug_info": unit(b"\1" + b"\2f\0\3f\0" * n + b"\0"),
        ".debug_abbrev": bare + abbrev(2, 0x2E, 0, passed) + abbrev(3, 0x34, 0, passed) + b"\0"}
    ranged = bare + abbrev(2, 0x2E, 0, [(0x55, 0x17)]) + b"\0"
    seeds["range-list-of-base-addresses"] = {
        ".debug_info": unit(b"\1" + b"\2\0\0\0\0" * n + b"\0"), ".debug_abbrev": ranged,
        ".debug_ranges": b"".join(struct.pack("<QQ", 2**64 - 1, i) for i in range(4 * n)) + bytes(16)}
    seeds["small-units-sharing-a-range-list"] = {
        ".debug_info": unit(b"\1\2\0\0\0\0\0") * n, ".debug_abbrev": ranged,
        ".debug_ranges": b"".join(struct.pack("<QQ", 16 * i, 16 * i + 8) for i in range(1, 4 * n)) + bytes(16)}
    seeds["strings-without-nul"] = {
        ".debug_info": unit(b"\1\2\0\0\0\0\0") * n,
        ".debug_abbrev": bare + abbrev(2, 0x2E, 0, [(0x03, 0x0E)]) + b"\0", ".debug_str": b"a" * (64 * n)}
    return seeds


def main():
    if sys.argv[1] == "--crafted":
        output = sys.argv[2]
        os.makedirs(output, exist_ok=True)
        for name, sections in crafted(int(sys.argv[3]) if len(sys.argv) > 3 else 1).items():
            with open(os.path.join(output, "crafted-" + name), "wb") as f:
                f.write(layout(sections, 0))
        return
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
