#!/usr/bin/env python3
"""Builds one SymCache with Sentry's symbolic (the anchor of `make bench`) and says how long
the build took, without Python's start and the import.

    symcache.py DEBUG_FILE ARCH OUT_FILE

Run by the Python of the venv that holds `symbolic` (bench/build/symbolic-venv). Prints one
JSON line: {"seconds": the time from opening the file to the SymCache written and closed,
"bytes": its size, "version": the SymCache format version, "symbolic": the package version}.
"""

import json
import os
import sys
import time

from importlib.metadata import version

from symbolic.debuginfo import Archive
from symbolic.symcache import SymCache


def main():
    path, arch, out = sys.argv[1:4]
    start = time.perf_counter()
    obj = Archive.open(path).get_object(arch=arch)
    cache = SymCache.from_object(obj)
    with open(out, "wb") as f:
        cache.dump_into(f)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "bytes": os.path.getsize(out), "version": cache.version,
                      "symbolic": version("symbolic")}))


if __name__ == "__main__":
    main()
