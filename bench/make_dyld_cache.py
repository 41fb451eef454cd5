#!/usr/bin/env python3
"""A large dyld shared cache for `make bench`, in the iOS 16 layout: a main file whose __TEXT
holds thousands of images (sparse: only their headers are written), a `.01` sub-cache holding
the shared __LINKEDIT (each image's exported symbols, function starts), and a `.symbols` file
holding their local symbols — the sizes of a real iOS cache (about 1.2 GB of __TEXT, 80 MB of
local nlist entries, a string pool of 250 MB: Swift's mangled names are long), scaled by
--images.

    make_dyld_cache.py --out DIR [--images 2500] [--symbols 2000]

Also writes DIR/report.crash: 2,000 frames spread over 200 of the images, raw.
"""

import argparse
import hashlib
import os
import random
import struct

BASE = 0x180000000
PAGE = 0x4000
HEADER = 512


def uleb(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--images", type=int, default=2500)
    parser.add_argument("--symbols", type=int, default=2000, help="average function symbols per image")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(21)
    n = args.images
    stem = os.path.join(args.out, "dyld_shared_cache_arm64e")
    paths = [f"/System/Library/PrivateFrameworks/Bench{i}.framework/Bench{i}" for i in range(n)]
    tables = HEADER + 32 + 2 * n * 32 + sum(len(p) + 1 for p in paths) + 56 + 64
    text_start = BASE + (tables + PAGE - 1) // PAGE * PAGE
    images, address = [], text_start
    for i in range(n):
        count = max(16, int(rng.expovariate(1 / args.symbols)))
        size = (count * 240 + 0x1000 + PAGE - 1) // PAGE * PAGE
        images.append((address, size, count, hashlib.md5(f"bench{i}".encode()).digest()))
        address += size
    text_end = address
    linkedit_address = text_end
    # __LINKEDIT: per image its exported nlists, its strings, its function starts.
    linkedit = bytearray()
    locals_nlists, locals_strings, entries = bytearray(), bytearray(b"\0"), []
    layouts = []
    for i, (addr, size, count, uuid) in enumerate(images):
        offsets = sorted(rng.sample(range(0x1000 // 4, size // 4), count))
        starts = [addr + 4 * o for o in offsets]
        exported = set(rng.sample(range(count), max(1, count // 5)))
        strings = bytearray(b"\0")
        nlists = bytearray()
        first_local = len(locals_nlists) // 16
        for k, start in enumerate(starts):
            name = (f"_$s5Bench{i}C{k}method_{rng.getrandbits(40):x}"
                    f"10Foundation4DataVSgtF{k % 97}yyF").encode()
            if k in exported:
                nlists += struct.pack("<IBBHQ", len(strings), 0x0F, 1, 0, start)
                strings += name + b"\0"
            else:
                locals_nlists += struct.pack("<IBBHQ", len(locals_strings), 0x0E, 1, 0, start)
                locals_strings += name + b"\0"
        entries.append((addr - BASE, first_local, len(locals_nlists) // 16 - first_local))
        function_starts = bytearray()
        previous = addr
        for start in starts:
            function_starts += uleb(start - previous)
            previous = start
        function_starts += b"\0"
        layout = {}
        layout["sym"] = (len(linkedit), len(nlists) // 16)
        linkedit += nlists
        layout["str"] = (len(linkedit), len(strings))
        linkedit += strings
        linkedit += b"\0" * (-len(linkedit) % 8)
        layout["starts"] = (len(linkedit), len(function_starts))
        linkedit += function_starts
        linkedit += b"\0" * (-len(linkedit) % 8)
        layouts.append(layout)
    linkedit += b"\0" * (-len(linkedit) % PAGE)
    sub_header = (HEADER + 32 + PAGE - 1) // PAGE * PAGE
    linkedit_fileoff = sub_header

    with open(stem, "wb") as main:
        main.truncate(text_end - BASE)
        for i, (addr, size, count, uuid) in enumerate(images):
            layout = layouts[i]
            commands = bytearray()
            text = struct.pack("<II16sQQQQIIII", 0x19, 72 + 80, b"__TEXT", addr, size, addr - BASE, size, 5, 5, 1, 0)
            section = struct.pack("<16s16sQQIIIIIIII", b"__text", b"__TEXT", addr + 0x1000, size - 0x1000,
                                  addr - BASE + 0x1000, 2, 0, 0, 0x80000400, 0, 0, 0)
            commands += text + section
            commands += struct.pack("<II16sQQQQIIII", 0x19, 72, b"__LINKEDIT", linkedit_address, len(linkedit),
                                    linkedit_fileoff, len(linkedit), 1, 1, 0, 0)
            commands += struct.pack("<II", 0x1B, 24) + uuid
            commands += struct.pack("<IIIIII", 0x2, 24, linkedit_fileoff + layout["sym"][0], layout["sym"][1],
                                    linkedit_fileoff + layout["str"][0], layout["str"][1])
            commands += struct.pack("<IIII", 0x26, 16, linkedit_fileoff + layout["starts"][0], layout["starts"][1])
            header = struct.pack("<IiiIIIII", 0xFEEDFACF, 0x0100000C, 2, 6, 5, len(commands), 0x80000000, 0)
            main.seek(addr - BASE)
            main.write(header + commands)
        # The header and tables.
        sub_uuid = hashlib.md5(b"bench-sub").digest()
        symbols_uuid = hashlib.md5(b"bench-symbols").digest()
        h = bytearray(HEADER)
        h[0:16] = b"dyld_v1  arm64e\0"
        images_at = HEADER + 32
        text_at = images_at + n * 32
        paths_at = text_at + n * 32
        sub_at = (paths_at + sum(len(p) + 1 for p in paths) + 7) // 8 * 8
        struct.pack_into("<II", h, 16, HEADER, 1)
        h[88:104] = hashlib.md5(b"bench-cache").digest()
        struct.pack_into("<QQ", h, 136, text_at, n)
        struct.pack_into("<II", h, 216, 2, 0)
        struct.pack_into("<QQ", h, 224, BASE, linkedit_address + len(linkedit) - BASE)
        struct.pack_into("<I", h, 364, 0x00100000)
        struct.pack_into("<II", h, 392, sub_at, 1)
        h[400:416] = symbols_uuid
        struct.pack_into("<II", h, 448, images_at, n)
        table = bytearray(h)
        table += struct.pack("<QQQII", BASE, text_end - BASE, 0, 5, 5)
        blob_paths = bytearray()
        infos, texts = bytearray(), bytearray()
        for i, (addr, size, count, uuid) in enumerate(images):
            offset = paths_at + len(blob_paths)
            infos += struct.pack("<QQQII", addr, 0, 0, offset, 0)
            texts += uuid + struct.pack("<QII", addr, size, offset)
            blob_paths += paths[i].encode() + b"\0"
        table += infos + texts + blob_paths
        table += b"\0" * (sub_at - len(table))
        table += sub_uuid + struct.pack("<Q", linkedit_address - BASE) + b".01".ljust(32, b"\0")
        main.seek(0)
        main.write(table)
    with open(stem + ".01", "wb") as sub:
        h = bytearray(HEADER)
        h[0:16] = b"dyld_v1  arm64e\0"
        struct.pack_into("<II", h, 16, HEADER, 1)
        h[88:104] = sub_uuid
        sub.write(h + struct.pack("<QQQII", linkedit_address, len(linkedit), linkedit_fileoff, 1, 1))
        sub.seek(linkedit_fileoff)
        sub.write(linkedit)
    with open(stem + ".symbols", "wb") as symbols:
        h = bytearray(HEADER)
        h[0:16] = b"dyld_v1  arm64e\0"
        struct.pack_into("<II", h, 16, HEADER, 0)
        h[88:104] = symbols_uuid
        info_at = PAGE
        nlist_offset = 24
        strings_offset = nlist_offset + len(locals_nlists)
        entries_offset = (strings_offset + len(locals_strings) + 7) // 8 * 8
        blob = bytearray(struct.pack("<6I", nlist_offset, len(locals_nlists) // 16, strings_offset, len(locals_strings),
                                     entries_offset, len(entries)))
        blob += locals_nlists + locals_strings
        blob += b"\0" * (entries_offset - len(blob))
        for e in entries:
            blob += struct.pack("<QII", *e)
        struct.pack_into("<QQ", h, 72, info_at, len(blob))
        symbols.write(h)
        symbols.seek(info_at)
        symbols.write(blob)
    # A report: 2,000 raw frames in 200 images.
    chosen = rng.sample(range(n), 200)
    lines = ["Incident Identifier: 00000000-0000-0000-0000-000000000001", "Code Type:           ARM-64 (Native)",
             "OS Version:          iPhone OS 16.0 (20A362)", ""]
    # 20 threads of 100 frames, each frame in one of the chosen images.
    for thread in range(20):
        lines.append("Thread 0 Crashed:" if thread == 0 else f"Thread {thread}:")
        for frame in range(100):
            i = chosen[(thread * 100 + frame) // 10]
            addr, size, count, uuid = images[i]
            pc = addr + 0x1000 + rng.randrange(0, size - 0x1000) // 4 * 4
            lines.append(f"{frame:<4}Bench{i}   0x{pc + 0x8000000:016x} 0x{addr + 0x8000000:x} + {pc - addr}")
        lines.append("")
    lines += ["Binary Images:"]
    for i in chosen:
        addr, size, count, uuid = images[i]
        lines.append(f"0x{addr + 0x8000000:x} - 0x{addr + 0x8000000 + size - 1:x} Bench{i} arm64e  <{uuid.hex()}> {paths[i]}")
    with open(os.path.join(args.out, "report.crash"), "w") as f:
        f.write("\n".join(lines) + "\n")
    total = sum(c for _, _, c, _ in images)
    print(f"{n} images, {total} function symbols ({len(locals_nlists) // 16} local), __TEXT {(text_end - BASE) >> 20} MiB, "
          f"__LINKEDIT {len(linkedit) >> 20} MiB, local strings {len(locals_strings) >> 20} MiB")


if __name__ == "__main__":
    main()
