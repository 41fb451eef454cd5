#!/usr/bin/env python3
"""Writes packaging/symbol-order.txt: the functions a run executes, for the linker to put together.

A run touches about 1 MB of the program's 13 MB of code, spread over all of it; the kernel
maps the pages around each page a run touches (fault-around), so that a run started with
6 MB of code resident. Linked in the order of this file (lld's --symbol-ordering-file, with
every function in its own section), the code a run executes sits in one place, and a run
starts with about 2.5 MB less memory.

How the list is made: the release program is run under Valgrind's callgrind over the bundled
fixtures (Fixtures/build), in the ways the program is used: its start (--version), reports of
every bundled format with an empty cache (the DWARF reader and the index writer) and then
with the cache, ELF and Mach-O, text, JSON and frames output, atos and group. Every function
callgrind saw executed that the program defines is listed once, run after run (the start
first), in name order within a run.

    make symbol-order    # make build and make fixtures first; needs valgrind (apt-get install valgrind)

The list goes out of date as the code changes: functions that no longer exist are ignored by
the linker, new ones are placed after those listed. ShippedBinaryTests fails when fewer than
nine in ten of the names listed are in the release program; run make symbol-order then.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Fixtures", "build")


def defined_functions(binary):
    """The names of the functions `binary` defines (its symbol table, not its dynamic one)."""
    out = subprocess.run(["nm", "--defined-only", binary], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in "tTwWiI":
            names.add(parts[2])
    return names


def executed(callgrind_out):
    """The names of the functions a callgrind output says ran, in the order it names them."""
    names, seen = [], set()
    by_id = {}
    pattern = re.compile(r"^c?fn=\((\d+)\)(?: (.*))?$")
    with open(callgrind_out, errors="replace") as f:
        for line in f:
            m = pattern.match(line.rstrip("\n"))
            if not m:
                continue
            if m.group(2) is not None:
                by_id[m.group(1)] = m.group(2)
            name = by_id.get(m.group(1))
            if name and name not in seen:
                seen.add(name)
                names.append(name)
    return names


def asan_log(path, binary):
    """An AddressSanitizer-style log of frames in `binary`'s functions, with its build-id."""
    notes = subprocess.run(["readelf", "-n", binary], check=True, capture_output=True, text=True).stdout
    build_id = re.search(r"Build ID: ([0-9a-f]+)", notes).group(1)
    symbols = subprocess.run(["nm", "--defined-only", binary], check=True, capture_output=True, text=True).stdout
    functions = [int(l.split()[0], 16) for l in symbols.splitlines() if l.split()[1:2] in (["T"], ["t"])]
    lines = ["==4242==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000",
             "==4242==The signal is caused by a READ memory access."]
    for n, address in enumerate(sorted(functions)[:12]):
        offset = address + 4
        lines.append("    #%d 0x%x in f%d (%s+0x%x) (BuildId: %s)" % (n, 0x55d0c0de0000 + offset, n, binary,
                                                                       offset, build_id))
    lines.append("SUMMARY: AddressSanitizer: SEGV")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "symbolicate"))
    parser.add_argument("-o", "--output", default=os.path.join(ROOT, "packaging", "symbol-order.txt"))
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("symbol_order.py: valgrind is not installed (apt-get install valgrind)")
    if not os.path.exists(os.path.join(FIXTURES, "manifest.txt")):
        sys.exit("symbol_order.py: no fixtures in %s (make fixtures)" % FIXTURES)

    work = tempfile.mkdtemp(prefix="symbol-order.")
    try:
        # Valgrind 3.19's DWARF reader gives up on the program's debug information: it runs
        # a copy without it (the symbol table, which the names come from, stays).
        program = os.path.join(work, "symbolicate")
        subprocess.run(["strip", "--strip-debug", args.binary, "-o", program], check=True)
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache"), SYMBOLICATE_PATH="")
        env.pop("SYMBOLICATE_CACHE_DIR", None)
        fx = lambda *parts: os.path.join(FIXTURES, *parts)
        log = os.path.join(work, "asan.log")
        asan_log(log, fx("elf", "app-gcc-dwarf4"))
        macho, elf = ["-d", fx("macho")], ["-d", fx("elf")]
        crashes = sorted(os.path.join(fx("reports"), n) for n in os.listdir(fx("reports")) if n.endswith(".crash"))
        others = [fx("ips", "App-arm64.ips"), fx("ips", "App-x86_64-109.ips"), fx("kscrash", "App-arm64.json"),
                  fx("metrickit", "App-arm64.json")]
        runs = [
            ["--version"],                                   # the start: first in the list
            macho + crashes,                                 # empty cache: read the DWARF, write indexes
            macho + crashes,                                 # the cache
            macho + others,
            elf + [log],                                     # empty cache, ELF
            elf + [log],
            macho + ["--format", "json"] + crashes[:1],
            macho + ["--format", "frames"] + crashes[:1],
            ["atos", "-o", fx("macho", "App-arm64.dSYM"), "-i", "0x100003f2c", "0x100004000"],
            ["atos", "-o", fx("elf", "app-gcc-dwarf4"), "0x1494"],
            ["group"] + macho + [fx("reports")],
        ]
        order, seen = [], set()
        for n, run in enumerate(runs):
            out = os.path.join(work, "callgrind.%d" % n)
            subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no", "-q", "--callgrind-out-file=" + out,
                            program] + run, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if not os.path.exists(out):
                sys.exit("symbol_order.py: callgrind wrote nothing for: symbolicate %s" % " ".join(run))
            # In name order within a run: the order callgrind lists them in changes from one
            # run to the next (the threads), which would make every list differ from the last.
            new = sorted(set(executed(out)) - seen)
            seen.update(new)
            order += new
        defined = defined_functions(args.binary)
        order = [name for name in order if name in defined]
        with open(args.output, "w") as f:
            f.write("# The functions the release program executes, for lld's --symbol-ordering-file:\n"
                    "# written by packaging/symbol_order.py (make symbol-order), which says how.\n")
            f.write("\n".join(order) + "\n")
        print("%s: %d functions" % (os.path.relpath(args.output), len(order)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
