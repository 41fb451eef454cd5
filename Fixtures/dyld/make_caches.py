#!/usr/bin/env python3
"""Builds dyld shared caches in the layouts Apple ships, from dylibs compiled here, and crash
reports that point into them.

    make_caches.py --out Fixtures/build/dyld [--clang CLANG] [--ld LD64_LLD] [--nm LLVM_NM]

Each cache gets its own release of the same sources (constants differ, so every dylib has
its own UUID, as a new OS build gives), linked with ld64.lld at 0 and moved to its place in
the cache (`__TEXT`, symbols; the exports trie and function starts count from the header):

    ios14/    dyld_shared_cache_arm64                   one file, header of 312 bytes; local
                                                        symbols in it (32-bit entries, file offsets)
    ios15/    dyld_shared_cache_arm64, .1, .2, .symbols  sub-caches without suffixes
                                                        (dyld_subcache_entry_v1), code in the main
                                                        file and .1, every __LINKEDIT in .2, local
                                                        symbols taken out of the images into
                                                        .symbols (64-bit entries, VM offsets)
    macos13/  dyld_shared_cache_x86_64, .01, .02         suffixed sub-caches (dyld_subcache_entry),
                                                        imagesOffset, symbols left in the images
    ios16e/   dyld_shared_cache_arm64e, .1, .2, .symbols  as ios15, its images arm64e
                                                        (CPU_SUBTYPE_ARM64E), its reports' too
    iossim17/ dyld_shared_cache_arm64, .01, .02         an iOS simulator runtime's: platform 7,
                                                        the simulator bit, laid out as macos13

and, per cache, `Symbols/` (the dylibs as `ipsw dyld split` or Xcode's DeviceSupport give them:
at their cache addresses, with every symbol), `system.crash`, `system.ips` and
`system.metrickit.json` (frames left as `0x… + offset` in the cache's images, one already
named, except in MetricKit, which names none) and `system.expect.tsv`: for each
raw frame, the function llvm-nm names at its call site in the dylib before it went into the
cache, and the offset Apple's tools print. The expectations never come from the cache.
"""

import argparse
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from macho import Dylib  # noqa: E402

# name, install path, C++?
IMAGES = [
    ("libsystem_fixture_kernel.dylib", "/usr/lib/system/libsystem_fixture_kernel.dylib", False),
    ("libsystem_fixture_c.dylib", "/usr/lib/system/libsystem_fixture_c.dylib", False),
    ("CoreFixture", "/System/Library/Frameworks/CoreFixture.framework/CoreFixture", False),
    ("UIFixtureCore", "/System/Library/PrivateFrameworks/UIFixtureCore.framework/UIFixtureCore", False),
    ("libfixture++.1.dylib", "/usr/lib/libfixture++.1.dylib", True),
    ("FixtureUI", "/System/Library/Frameworks/FixtureUI.framework/FixtureUI", False),
]

CACHES = [
    dict(name="ios14", arch="arm64", cputype=0x0100000C, triple="arm64-apple-ios14.0", platform=("ios", "14.0"),
         chained=False, header_size=312, files=1, suffixed=False, symbols_file=False, strip_locals=True,
         base=0x180000000, page=0x4000, platform_number=2, os_version=0x000E0000, slide=0x2C48000,
         os_line="iPhone OS 14.0 (18A373)", train="iPhone OS 14.0", build="18A373", model="iPhone10,3",
         code_type="ARM-64 (Native)", cpu_type="ARM-64"),
    dict(name="ios15", arch="arm64", cputype=0x0100000C, triple="arm64-apple-ios15.0", platform=("ios", "15.0"),
         chained=True, header_size=448, files=3, suffixed=False, symbols_file=True, strip_locals=True,
         base=0x180000000, page=0x4000, platform_number=2, os_version=0x000F0000, slide=0x8F0C000,
         os_line="iPhone OS 15.0 (19A346)", train="iPhone OS 15.0", build="19A346", model="iPhone10,3",
         code_type="ARM-64 (Native)", cpu_type="ARM-64"),
    dict(name="macos13", arch="x86_64", cputype=0x01000007, triple="x86_64-apple-macos13.0", platform=("macos", "13.0"),
         chained=True, header_size=512, files=3, suffixed=True, symbols_file=False, strip_locals=False,
         base=0x7FF800000000, page=0x1000, platform_number=1, os_version=0x000D0000, slide=0x1A2B000,
         os_line="macOS 13.0 (22A380)", train="macOS 13.0", build="22A380", model="MacBookPro16,1",
         code_type="X86-64 (Native)", cpu_type="X86-64"),
    # An arm64e cache (A12 and later devices): linked as arm64, each image's cpusubtype then
    # made CPU_SUBTYPE_ARM64E with its ABI version bits, as Apple's are; the cache and the
    # reports call the architecture arm64e.
    dict(name="ios16e", arch="arm64", cache_arch="arm64e", cpusubtype=0x80000002, cputype=0x0100000C,
         triple="arm64-apple-ios16.0", platform=("ios", "16.0"),
         chained=True, header_size=448, files=3, suffixed=False, symbols_file=True, strip_locals=True,
         base=0x180000000, page=0x4000, platform_number=2, os_version=0x00100000, slide=0x11D8C000,
         os_line="iPhone OS 16.0 (20A362)", train="iPhone OS 16.0", build="20A362", model="iPhone14,5",
         code_type="ARM-64 (Native)", cpu_type="ARM-64"),
    # An iOS simulator runtime's cache: platform 7, the header's simulator bit set, suffixed
    # sub-caches and symbols left in the images, as macOS's.
    dict(name="iossim17", arch="arm64", cputype=0x0100000C, triple="arm64-apple-ios17.0-simulator",
         platform=("ios-simulator", "17.0"), simulator=True,
         chained=True, header_size=512, files=3, suffixed=True, symbols_file=False, strip_locals=False,
         base=0x180000000, page=0x4000, platform_number=7, os_version=0x00110000, slide=0x3E1C000,
         os_line="iPhone OS 17.0 (21A328)", train="iPhone OS 17.0", build="21A328", model="iPhone15,2",
         code_type="ARM-64 (Native)", cpu_type="ARM-64"),
]


def cache_arch(cache):
    """The architecture the cache and the reports name: arm64e for an arm64e cache."""
    return cache.get("cache_arch", cache["arch"])


def align(value, to):
    return (value + to - 1) // to * to


def uuid_of(*parts):
    return hashlib.md5("\0".join(parts).encode()).digest()


def dashed(uuid):
    h = uuid.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


# ---------------------------------------------------------------------------------------------
# The dylibs.

def source(image_index, release, cxx):
    """Exported and static functions of many sizes; each export calls a static one, so none is
    dropped, and `release` changes every constant (another build, another UUID)."""
    exports, locals_ = 24 + 6 * image_index, 18 + 5 * image_index
    stem = f"fix{image_index}"
    lines = ["/* Generated by Fixtures/dyld/make_caches.py. */"]
    if cxx:
        lines.append("namespace fixture {")
    for i in range(locals_):
        body = "".join(f"    y = y * {release * 7 + i + k} + {k};\n" for k in range(1 + (i * 5) % 9))
        lines.append(f"static __attribute__((noinline)) int {stem}_local_{i}(int x) {{\n"
                     f"    volatile int y = x;\n{body}    return y;\n}}")
    for i in range(exports):
        callee = f"{stem}_local_{i % locals_}"
        body = "".join(f"    v = v ^ ({release * 13 + i * 3 + k});\n" for k in range(1 + (i * 3) % 7))
        name = f"{stem}_export_{i}" if not cxx else f"compute{i}"
        lines.append(f"__attribute__((noinline)) int {name}(int x) {{\n"
                     f"    volatile int v = {callee}(x);\n{body}    return v;\n}}")
    if cxx:
        lines.append("}")
    return "\n".join(lines) + "\n"


def build_dylibs(cache, out, tools):
    folder = os.path.join(out, "work", cache["name"])
    os.makedirs(folder, exist_ok=True)
    release = CACHES.index(cache) + 1
    dylibs = []
    for index, (name, install, cxx) in enumerate(IMAGES):
        src = os.path.join(folder, f"image{index}.{'cpp' if cxx else 'c'}")
        with open(src, "w") as f:
            f.write(source(index, release, cxx))
        obj, linked = src + ".o", os.path.join(folder, f"image{index}.dylib")
        compiler = [tools.clang + ("++" if cxx else "")] + (["-fno-exceptions", "-fno-rtti"] if cxx else [])
        subprocess.run(compiler + ["-target", cache["triple"], "-O1", "-c", src, "-o", obj], check=True)
        flags = [] if cache["chained"] else ["-no_fixup_chains"]
        subprocess.run([tools.ld, "-dylib", "-arch", cache["arch"], "-platform_version", cache["platform"][0],
                        cache["platform"][1], cache["platform"][1], "-install_name", install, "-no_adhoc_codesign",
                        *flags, obj, "-o", linked], check=True)
        with open(linked, "rb") as f:
            data = bytearray(f.read())
        if "cpusubtype" in cache:
            struct.pack_into("<I", data, 8, cache["cpusubtype"])
        dylibs.append(Dylib(bytes(data), install))
    return dylibs


# ---------------------------------------------------------------------------------------------
# The cache.

def magic(arch):
    text = "dyld_v1" + arch.rjust(8)
    return text.encode().ljust(16, b"\0")


class CacheFile:
    """One file of the cache: its header fields, its mappings and its bytes."""

    def __init__(self, uuid, header_size):
        self.uuid = uuid
        self.header_size = header_size
        self.mappings = []  # (address, size, file offset, prot)
        self.data = bytearray()

    def place(self, at, payload):
        if len(self.data) < at + len(payload):
            self.data.extend(b"\0" * (at + len(payload) - len(self.data)))
        self.data[at:at + len(payload)] = payload


def write_header(file, cache, fields):
    """Writes the header fields that fit in `file.header_size` bytes and the mapping tables."""
    h = bytearray(file.header_size)
    fields = dict(fields)
    fields.setdefault("mappingOffset", file.header_size)
    fields.setdefault("mappingCount", len(file.mappings))
    layout = [("mappingOffset", 16, "I"), ("mappingCount", 20, "I"), ("imagesOffsetOld", 24, "I"),
              ("imagesCountOld", 28, "I"), ("localSymbolsOffset", 72, "Q"), ("localSymbolsSize", 80, "Q"),
              ("cacheType", 104, "Q"), ("imagesTextOffset", 136, "Q"), ("imagesTextCount", 144, "Q"),
              ("platform", 216, "I"), ("formatVersion", 220, "I"), ("sharedRegionStart", 224, "Q"),
              ("sharedRegionSize", 232, "Q"), ("maxSlide", 240, "Q"), ("mappingWithSlideOffset", 312, "I"),
              ("mappingWithSlideCount", 316, "I"), ("osVersion", 364, "I"), ("subCacheArrayOffset", 392, "I"),
              ("subCacheArrayCount", 396, "I"), ("imagesOffset", 448, "I"), ("imagesCount", 452, "I")]
    h[0:16] = magic(cache_arch(cache))
    if file.header_size >= 104:
        h[88:104] = file.uuid
    for name, offset, kind in layout:
        if name in fields and offset + struct.calcsize(kind) <= file.header_size:
            struct.pack_into("<" + kind, h, offset, fields[name])
    if "symbolFileUUID" in fields and file.header_size >= 416:
        h[400:416] = fields["symbolFileUUID"]
    file.place(0, h)
    at = file.header_size
    for address, size, offset, prot in file.mappings:
        file.place(at, struct.pack("<QQQII", address, size, offset, prot, prot))
        at += 32
    if "mappingWithSlideOffset" in fields and file.header_size >= 320:
        at = fields["mappingWithSlideOffset"]
        for address, size, offset, prot in file.mappings:
            file.place(at, struct.pack("<QQQQQQII", address, size, offset, 0, 0, 0, prot, prot))
            at += 56


def table_space(cache, file_count):
    """Bytes the main file's tables take after its header."""
    n = len(IMAGES)
    paths = sum(len(p) + 1 for _, p, _ in IMAGES)
    mappings = 4 * (32 + 56)
    subcaches = (file_count - 1) * (56 if cache["suffixed"] else 24)
    return mappings + 2 * n * 32 + paths + subcaches + 64


def build_cache(cache, dylibs, out):
    """Lays out the cache and writes its files; returns each image's address."""
    page, base, header_size = cache["page"], cache["base"], cache["header_size"]
    folder = os.path.join(out, cache["name"])
    os.makedirs(folder, exist_ok=True)
    stem = f"dyld_shared_cache_{cache_arch(cache)}"
    cache_uuid = uuid_of(cache["name"], "cache")
    split = cache["files"] > 1
    n = len(dylibs)
    in_main = n // 2 if split else n

    main = CacheFile(cache_uuid, header_size)
    subs = [CacheFile(uuid_of(cache["name"], f"sub{i}"), header_size) for i in range(cache["files"] - 1)]
    # Which file holds each region: code of the first images in the main file, the others'
    # code and the data in the first sub-cache, every __LINKEDIT in the last one.
    text_file_b = subs[0] if split else main
    data_file = subs[0] if split else main
    linkedit_file = subs[-1] if split else main

    # __TEXT of each image, in order, page-aligned, from just after the main file's tables.
    images_addresses = []
    header_area = align(header_size + table_space(cache, cache["files"]), page)
    cursor = {id(main): header_area}
    for f in subs:
        cursor[id(f)] = align(header_size + 4 * 88, page)

    # main file's text region starts at the base, at file offset 0 (the header is its first bytes).
    text_regions = []
    text_start = base
    offset = header_area
    for i, dylib in enumerate(dylibs):
        if i == in_main:
            text_regions.append((main, text_start, 0, offset))
            text_start = align(text_start + offset, page)
            offset = cursor[id(text_file_b)]
        _, _, vmsize = dylib.text
        images_addresses.append(text_start + offset)
        offset += align(vmsize, page)
    if split:
        text_regions.append((text_file_b, text_start, 0, offset))
        next_address = align(text_start + offset, page)
        data_region = (data_file, next_address, offset, page)  # file offset after the text
        next_address += page
    else:
        text_regions.append((main, base, 0, offset))
        next_address = align(base + offset, page)
        data_region = (main, next_address, offset, page)
        next_address += page
        offset += page

    # __LINKEDIT: every image's tables, with its local symbols taken out where the cache keeps
    # them elsewhere.
    linkedit = bytearray()
    local_nlists, local_strings, local_entries = bytearray(), bytearray(b"\0"), []
    per_image = []
    for i, dylib in enumerate(dylibs):
        dylib.rebase(images_addresses[i] - dylib.text[1])
        nlists, strings = dylib.nlists(), dylib.strings()
        dys_at, dys = dylib.dysymtab()
        ilocal, nlocal = dys[0], dys[1]
        assert dys[13] == 0, "indirect symbols: the fixtures call nothing outside their image"
        if cache["strip_locals"]:
            start = len(local_nlists) // 16
            for entry in nlists[ilocal:ilocal + nlocal]:
                strx, = struct.unpack_from("<I", entry, 0)
                name = strings[strx:strings.index(b"\0", strx)]
                moved = bytearray(entry)
                struct.pack_into("<I", moved, 0, len(local_strings))
                local_strings.extend(name + b"\0")
                local_nlists.extend(moved)
            local_entries.append((i, start, nlocal))
            kept = nlists[:ilocal] + nlists[ilocal + nlocal:]
            fields = list(dys)
            fields[0], fields[1] = 0, 0
            fields[2] -= nlocal
            fields[4] -= nlocal
            struct.pack_into("<18I", dylib.data, dys_at + 8, *fields)
        else:
            kept = nlists
        placed = {}
        linkedit.extend(b"\0" * (align(len(linkedit), 8) - len(linkedit)))
        placed["symbols"] = (len(linkedit), len(kept))
        for entry in kept:
            linkedit.extend(entry)
        placed["strings"] = (len(linkedit), len(strings))
        linkedit.extend(strings)
        tables = []
        for field_at, off, size in dylib.linkedit_tables():
            if size == 0:
                tables.append((field_at, None, 0))
                continue
            linkedit.extend(b"\0" * (align(len(linkedit), 8) - len(linkedit)))
            tables.append((field_at, len(linkedit), size))
            linkedit.extend(dylib.data[off:off + size])
        per_image.append((placed, tables))
    linkedit.extend(b"\0" * (align(len(linkedit), page) - len(linkedit)))
    linkedit_address = next_address
    if split:
        linkedit_file_offset = cursor[id(linkedit_file)] if linkedit_file is not data_file else data_region[2] + page
    else:
        linkedit_file_offset = offset
    linkedit_region = (linkedit_file, linkedit_address, linkedit_file_offset, len(linkedit))

    # Each image's load commands now point into the shared __LINKEDIT.
    for i, dylib in enumerate(dylibs):
        placed, tables = per_image[i]
        symtab_at = next(at for at, cmd, _ in dylib.commands if cmd == 0x2)
        struct.pack_into("<IIII", dylib.data, symtab_at + 8, linkedit_file_offset + placed["symbols"][0],
                         placed["symbols"][1], linkedit_file_offset + placed["strings"][0], placed["strings"][1])
        for field_at, position, size in tables:
            struct.pack_into("<II", dylib.data, field_at, 0 if position is None else linkedit_file_offset + position, size)
        seg_at = dylib.segments["__LINKEDIT"][0]
        struct.pack_into("<QQQQ", dylib.data, seg_at + 24, linkedit_address, len(linkedit), linkedit_file_offset,
                         len(linkedit))

    # The bytes: each image's __TEXT (its header rewritten) at its place.
    for f, start, _, size in text_regions:
        f.mappings.append((start, size, 0, 5))
    for i, dylib in enumerate(dylibs):
        f = main if (i < in_main or not split) else text_file_b
        region_start = base if f is main else text_regions[-1][1]
        data, _, _ = dylib.text
        f.place(images_addresses[i] - region_start, data)
    f, start, at, size = data_region
    f.mappings.append((start, size, at, 3))
    f.place(at, b"\0" * size)
    f, start, at, size = linkedit_region
    f.mappings.append((start, size, at, 1))
    f.place(at, linkedit)
    region_end = start + size

    # The main file's tables: image list, image-text list, paths, sub-cache array.
    at = header_size + 4 * 32
    slide_at = at
    at += 4 * 56
    paths_at = at + 2 * n * 32
    subcache_at = paths_at + sum(len(p) + 1 for _, p, _ in IMAGES)
    subcache_at = align(subcache_at, 8)
    images_at, text_at = at, at + n * 32
    p = paths_at
    for i, (_, path, _) in enumerate(IMAGES):
        main.place(images_at + 32 * i, struct.pack("<QQQII", images_addresses[i], 0, 0, p, 0))
        _, _, vmsize = dylibs[i].text
        main.place(text_at + 32 * i, dylibs[i].uuid + struct.pack("<QII", images_addresses[i], vmsize, p))
        main.place(p, path.encode() + b"\0")
        p += len(path) + 1
    suffixes = []
    for s, sub in enumerate(subs):
        suffix = f".{s + 1:02d}" if cache["suffixed"] else f".{s + 1}"
        suffixes.append(suffix)
        sub_base = sub.mappings[0][0]
        entry = sub.uuid + struct.pack("<Q", sub_base - base)
        if cache["suffixed"]:
            entry += suffix.encode().ljust(32, b"\0")
        main.place(subcache_at + len(entry) * s, entry)
    assert subcache_at + 56 * len(subs) <= header_area, "the tables overflow the header area"

    symbols_uuid = uuid_of(cache["name"], "symbols")
    main_fields = dict(cacheType=1, imagesTextOffset=text_at, imagesTextCount=n, platform=cache["platform_number"],
                       sharedRegionStart=base, sharedRegionSize=region_end - base, maxSlide=0x20000000,
                       mappingWithSlideOffset=slide_at, mappingWithSlideCount=len(main.mappings),
                       osVersion=cache["os_version"], subCacheArrayOffset=subcache_at, subCacheArrayCount=len(subs),
                       formatVersion=(1 << 9) if cache.get("simulator") else 0)
    if header_size >= 456:
        main_fields.update(imagesOffset=images_at, imagesCount=n)
    else:
        main_fields.update(imagesOffsetOld=images_at, imagesCountOld=n)

    # Local symbols: in the main file of a one-file cache (32-bit entries, file offsets), in
    # .symbols since sub-caches came (64-bit entries, VM offsets from the base).
    def locals_blob(wide, key):
        entry_size = 16 if wide else 12
        info = 24
        nlist_offset = info
        strings_offset = nlist_offset + len(local_nlists)
        entries_offset = align(strings_offset + len(local_strings), 8)
        blob = bytearray(struct.pack("<6I", nlist_offset, len(local_nlists) // 16, strings_offset, len(local_strings),
                                     entries_offset, len(local_entries)))
        blob.extend(local_nlists)
        blob.extend(local_strings)
        blob.extend(b"\0" * (entries_offset - len(blob)))
        for i, start, count in local_entries:
            offset = key(i)
            blob.extend(struct.pack("<QII", offset, start, count) if wide else struct.pack("<III", offset, start, count))
        assert len(blob) == entries_offset + entry_size * len(local_entries)
        return blob

    files = [(stem, main)] + [(stem + s, sub) for s, sub in zip(suffixes, subs)]
    if cache["strip_locals"] and not cache["symbols_file"]:
        blob = locals_blob(header_size >= 400, lambda i: images_addresses[i] - base)  # = the file offset here
        at = align(len(main.data), page)
        main.place(at, blob)
        main_fields.update(localSymbolsOffset=at, localSymbolsSize=len(blob))
    if cache["symbols_file"]:
        main_fields["symbolFileUUID"] = symbols_uuid
        symbols = CacheFile(symbols_uuid, header_size)
        blob = locals_blob(header_size >= 400, lambda i: images_addresses[i] - base)
        at = align(header_size, page)
        symbols.place(at, blob)
        write_header(symbols, cache, dict(localSymbolsOffset=at, localSymbolsSize=len(blob), cacheType=1,
                                          platform=cache["platform_number"], osVersion=cache["os_version"]))
        files.append((stem + ".symbols", symbols))
    write_header(main, cache, main_fields)
    for sub in subs:
        write_header(sub, cache, dict(cacheType=1, platform=cache["platform_number"], osVersion=cache["os_version"],
                                      mappingWithSlideOffset=header_size + 4 * 32,
                                      mappingWithSlideCount=len(sub.mappings)))
    for name, f in files:
        with open(os.path.join(folder, name), "wb") as out_file:
            out_file.write(f.data)
    return images_addresses, cache_uuid, region_end - base


# ---------------------------------------------------------------------------------------------
# Symbols/ (the dylibs as split from the cache) and the oracle.

def write_symbols_tree(cache, dylibs_unstripped, out):
    folder = os.path.join(out, cache["name"], "Symbols")
    for dylib in dylibs_unstripped:
        path = os.path.join(folder, dylib.path.lstrip("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(dylib.data)
    return folder


def nm_functions(nm, path):
    """(address, name) of every function symbol llvm-nm lists, by address."""
    text = subprocess.run([nm, "-n", "--defined-only", path], check=True, capture_output=True, text=True).stdout
    found = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tT":
            found.append((int(parts[0], 16), parts[2]))
    return found


# ---------------------------------------------------------------------------------------------
# Reports.

def frames_for(cache, dylibs, addresses, split_folder, nm):
    """Per image, a few frames inside its functions: (image index, symbol, address in cache,
    offset into the function). Chosen from llvm-nm's listing of the split-out dylib."""
    chosen = []
    for i, dylib in enumerate(dylibs):
        path = os.path.join(split_folder, dylib.path.lstrip("/"))
        functions = nm_functions(nm, path)
        text_end = addresses[i] + dylib.text[2]
        picks = [1, len(functions) // 3, len(functions) // 2, len(functions) - 2]
        for k in picks:
            start, name = functions[k]
            end = functions[k + 1][0] if k + 1 < len(functions) else text_end
            # A return address: past the call, inside the function.
            offset = min(8 + 4 * (k % 3), end - start - 1) & ~3
            if offset <= 0:
                continue
            chosen.append((i, name, start + offset, offset))
    return chosen


def expected_name(name):
    return name[1:] if name.startswith("_") else name


def write_reports(cache, dylibs, addresses, cache_uuid, cache_size, split_folder, out, nm):
    folder = os.path.join(out, cache["name"])
    frames = frames_for(cache, dylibs, addresses, split_folder, nm)
    slide = cache["slide"]
    arm = cache["arch"] == "arm64"
    image_arch = cache_arch(cache)
    # The oracle: the function holding each frame's call site, from llvm-nm of the dylib split
    # out, and the offset of the frame's address from its start.
    expect = ["# thread\tframe\timage\tfunction\toffset"]
    crash = [
        "Incident Identifier: 2E0F6C1A-7B3D-4C5E-9F8A-1B2C3D4E5F60",
        f"Hardware Model:      {cache['model']}",
        "Process:             FixtureApp [4242]",
        "Path:                /private/var/containers/Bundle/Application/0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9/FixtureApp.app/FixtureApp",
        "Identifier:          com.example.FixtureApp",
        "Version:             1 (1.0)",
        f"Code Type:           {cache['code_type']}",
        "Role:                Foreground",
        "Parent Process:      launchd [1]",
        "",
        "Date/Time:           2022-09-20 10:11:12.1314 +0200",
        f"OS Version:          {cache['os_line']}",
        "Report Version:      104",
        "",
        "Exception Type:  EXC_BAD_ACCESS (SIGSEGV)",
        "Exception Codes: KERN_INVALID_ADDRESS at 0x0000000000000010",
        "Triggered by Thread:  0",
        "",
        "Thread 0 Crashed:",
    ]
    ips_frames = []
    metrickit_frames = []
    named_frame = None
    for position, (i, name, address, offset) in enumerate(frames):
        image_name = IMAGES[i][0]
        load = addresses[i] + slide
        runtime = address + slide
        # MetricKit names no frame: every frame, the one the others name too, is raw there.
        metrickit_frames.append({"binaryUUID": dashed(dylibs[i].uuid).upper(),
                                 "offsetIntoBinaryTextSegment": address - addresses[i],
                                 "sampleCount": 1, "binaryName": image_name, "address": runtime})
        if position == 3:
            # One frame the report already names: it must come back as it is.
            crash.append(f"{position:<4}{image_name:<36}0x{runtime:016x} {expected_name(name)} + {offset}")
            ips_frames.append({"imageOffset": address - addresses[i], "symbol": expected_name(name),
                               "symbolLocation": offset, "imageIndex": i})
            named_frame = position
            continue
        crash.append(f"{position:<4}{image_name:<36}0x{runtime:016x} 0x{load:x} + {address - addresses[i]}")
        ips_frames.append({"imageOffset": address - addresses[i], "imageIndex": i})
        expect.append(f"0\t{position}\t{image_name}\t{expected_name(name)}\t{offset}")
    crash += ["", "Binary Images:"]
    used = []
    for i, dylib in enumerate(dylibs):
        load = addresses[i] + slide
        size = dylib.text[2]
        crash.append(f"{load:#18x} - {load + size - 1:#18x} {IMAGES[i][0]} {image_arch}  <{dylib.uuid.hex()}> {dylib.path}")
        used.append({"source": "P", "arch": image_arch, "base": load, "size": size, "uuid": dashed(dylib.uuid),
                     "path": dylib.path, "name": IMAGES[i][0]})
    crash += ["", "EOF", ""]
    with open(os.path.join(folder, "system.crash"), "w") as f:
        f.write("\n".join(crash))
    with open(os.path.join(folder, "system.expect.tsv"), "w") as f:
        f.write("\n".join(expect) + "\n")
    header = {"app_name": "FixtureApp", "timestamp": "2022-09-20 10:11:12.00 +0200", "app_version": "1.0",
              "slice_uuid": "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9", "build_version": "1", "platform": cache["platform_number"],
              "bundleID": "com.example.FixtureApp", "bug_type": "309", "os_version": cache["os_line"],
              "name": "FixtureApp", "incident_id": "2E0F6C1A-7B3D-4C5E-9F8A-1B2C3D4E5F60"}
    body = {"version": 2, "modelCode": cache["model"],
            "osVersion": {"train": cache["train"], "build": cache["build"], "releaseType": "User"},
            "captureTime": "2022-09-20 10:11:12.1314 +0200", "incident": "2E0F6C1A-7B3D-4C5E-9F8A-1B2C3D4E5F60",
            "pid": 4242, "cpuType": cache["cpu_type"], "bug_type": "309", "procName": "FixtureApp",
            "procPath": "/private/var/containers/Bundle/Application/0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9/FixtureApp.app/FixtureApp",
            "exception": {"type": "EXC_BAD_ACCESS", "signal": "SIGSEGV", "subtype": "KERN_INVALID_ADDRESS at 0x0000000000000010"},
            "faultingThread": 0,
            "threads": [{"triggered": True, "id": 1, "frames": ips_frames}],
            "usedImages": used,
            "sharedCache": {"base": cache["base"] + slide, "size": cache_size, "uuid": dashed(cache_uuid)}}
    with open(os.path.join(folder, "system.ips"), "w") as f:
        f.write(json.dumps(header) + "\n" + json.dumps(body, indent=2) + "\n")
    # The MetricKit payload of the same crash: frame 0 the root, each later frame the only
    # sub-frame of the one before, placed by binaryUUID and offsetIntoBinaryTextSegment.
    root = None
    for entry in reversed(metrickit_frames):
        if root is not None:
            entry["subFrames"] = [root]
        root = entry
    diagnostic = {"version": "1.0.0",
                  "callStackTree": {"callStackPerThread": True,
                                    "callStacks": [{"threadAttributed": True, "callStackRootFrames": [root]}]},
                  "diagnosticMetaData": {"appBuildVersion": "1", "appVersion": "1.0", "osVersion": cache["os_line"],
                                         "bundleIdentifier": "com.example.FixtureApp", "deviceType": cache["model"],
                                         "platformArchitecture": "arm64e" if arm else "x86_64",
                                         "exceptionType": 1, "exceptionCode": 0, "signal": 11}}
    payload = {"timeStampEnd": "2022-09-20 23:59:00 +0000", "timeStampBegin": "2022-09-20 00:00:00 +0000",
               "crashDiagnostics": [diagnostic]}
    with open(os.path.join(folder, "system.metrickit.json"), "w") as f:
        f.write(json.dumps(payload, indent=2, separators=(",", " : ")) + "\n")
    return named_frame


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--clang", default="/opt/swift/usr/bin/clang")
    parser.add_argument("--ld", default="ld64.lld-19")
    parser.add_argument("--nm", default="llvm-nm-19")
    tools = parser.parse_args()
    out = tools.out
    for cache in CACHES:
        shutil.rmtree(os.path.join(out, cache["name"]), ignore_errors=True)
        dylibs = build_dylibs(cache, out, tools)
        # The split-out copies keep every symbol: written after the move, before the locals go.
        unstripped = [Dylib(bytes(d.data), d.path) for d in dylibs]
        addresses, cache_uuid, cache_size = build_cache(cache, dylibs, out)
        for original, moved in zip(unstripped, dylibs):
            original.rebase(moved.segments["__TEXT"][1] - original.segments["__TEXT"][1])
        split_folder = write_symbols_tree(cache, unstripped, out)
        write_reports(cache, dylibs, addresses, cache_uuid, cache_size, split_folder, out, tools.nm)
        print(f"dyld fixtures: {cache['name']}: {len(dylibs)} images, cache {cache_uuid.hex()}")


if __name__ == "__main__":
    main()
