#!/usr/bin/env python3
"""The independent reading of a dyld shared cache that the tests compare the tool with.

    oracle.py [--only NAME,NAME] CACHE_MAIN_FILE OUT_FOLDER   prints one JSON object per image:
        {"path": …, "uuid": "32 hex digits", "text": __TEXT address, "symbols": [[address, "name"], …]}

With --only, just the images of those names are extracted (a real cache has thousands).

The cache is read by DyldExtractor (PyPI `dyldextractor`: a reader of dyld shared caches,
sub-caches and `.symbols` files in Python, written apart from this project), which extracts
every image as a Mach-O file of its own with its local symbols put back; each extracted file
is then read by LIEF (PyPI `lief`), whose public build reads Mach-O files (its dyld shared
cache reader is only in LIEF's commercial build). Symbols: those defined in a section
(N_SECT), not debugger entries, as the tool keeps them.

Exit status 3 when either package is missing and cannot be installed with pip.
"""

import json
import os
import subprocess
import sys


def ensure(module, package):
    try:
        return __import__(module)
    except ImportError:
        pass
    result = subprocess.run([sys.executable, "-m", "pip", "install", "-q", package], capture_output=True, text=True)
    if result.returncode != 0:
        print(f"cannot install {package} with pip: {result.stderr.strip()[-300:]}", file=sys.stderr)
        sys.exit(3)
    return __import__(module)


def main():
    arguments = sys.argv[1:]
    only = None
    if arguments[0] == "--only":
        only = arguments[1].split(",")
        arguments = arguments[2:]
    cache, out = arguments
    lief = ensure("lief", "lief==1.0.0")
    ensure("DyldExtractor", "dyldextractor==2.2.2")
    extractor = os.path.join(os.path.dirname(sys.executable), "dyldex_all")
    if not os.path.exists(extractor):
        extractor = "dyldex_all"
    if only is None:
        subprocess.run([extractor, "-o", out, "-j", "1", "-v", "0", cache], check=True, capture_output=True)
    else:
        single = os.path.join(os.path.dirname(extractor), "dyldex")
        for name in only:
            target = os.path.join(out, name)
            subprocess.run([single if os.path.exists(single) else "dyldex", "-e", name, "-o", target, "-v", "0", cache],
                           check=True, capture_output=True)
    lief.logging.disable()
    for root, _, files in os.walk(out):
        for name in sorted(files):
            path = os.path.join(root, name)
            binary = lief.MachO.parse(path)
            if binary is None:
                continue
            binary = binary.at(0)
            symbols = []
            for symbol in binary.symbols:
                kind = symbol.raw_type
                if kind & 0xE0 == 0 and kind & 0x0E == 0x0E and symbol.numberof_sections != 0:
                    symbols.append([symbol.value, symbol.name])
            uuid = bytes(binary.uuid.uuid).hex() if binary.has_uuid else None
            text = binary.get_segment("__TEXT")
            relative = "/" + os.path.relpath(path, out)
            print(json.dumps({"path": relative, "uuid": uuid, "text": text.virtual_address if text else None,
                              "symbols": symbols}))


if __name__ == "__main__":
    main()
