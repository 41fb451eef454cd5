#!/usr/bin/env python3
"""A second machine with the shared prebuilt cache, against a warm local run.

For each input (a workload folder of make_workload.py): `symbolicate index` builds a shared
cache of the input's debug files; then the 1,000 reports are symbolicated

  warm local    with the cache folder of an earlier (cold) run of this machine
  shared        as a second machine would: a new, empty cache folder of its own each run
                (--cache-dir) and the shared one (--shared-cache), mounted read-only in a
                private mount namespace when that can be done (root), as an NFS or
                object-store mount would be

and the median wall times of BENCH_RUNS runs are printed with their ratio (shared / warm).
Both outputs must be the same, byte for byte. The numbers also go to a TSV file.

    shared_cache.py --symbolicate BIN --out-dir DIR --tsv FILE [--runs N] NAME=WORKDIR...
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def progress(message):
    print("[shared-cache %s] %s" % (time.strftime("%H:%M:%S"), message), file=sys.stderr, flush=True)


def timed(argv, out, env):
    start = time.monotonic()
    with open(out, "wb") as stdout:
        result = subprocess.run(argv, stdout=stdout, stderr=subprocess.PIPE, env=env)
    wall = time.monotonic() - start
    if result.returncode not in (0, 2):
        raise SystemExit("%s exited %d: %s" % (" ".join(argv[:6]), result.returncode, result.stderr.decode()[-2000:]))
    return wall


def read_only_wrapper(folder):
    """The argv prefix that runs a command with `folder` mounted read-only, or [] when that
    cannot be done here."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return []
    script = 'mount --bind -o ro "$1" "$1" && ! touch "$1/.probe" 2>/dev/null && shift && exec "$@"'
    probe = subprocess.run(["unshare", "-m", "/bin/sh", "-c", script, "sh", folder, "true"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return ["unshare", "-m", "/bin/sh", "-c", script, "sh", folder] if probe.returncode == 0 else []


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--symbolicate", required=True)
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--tsv", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("inputs", nargs="+")
    a = parser.parse_args()
    binary = os.path.abspath(a.symbolicate)
    scratch = tempfile.mkdtemp(prefix="symbolicate-shared-bench-")
    base_env = dict(os.environ)
    base_env.pop("SYMBOLICATE_PATH", None)
    base_env.pop("SYMBOLICATE_CACHE_DIR", None)
    base_env.pop("SYMBOLICATE_SHARED_CACHE", None)
    rows = []
    try:
        for item in a.inputs:
            name, workdir = item.split("=", 1)
            spec = json.load(open(os.path.join(workdir, "workload.json")))
            reports = os.path.join(workdir, "reports")
            names = sorted(os.listdir(reports))
            report_args = [reports] if spec["report_suffix"] in (".crash", ".ips") else \
                [os.path.join(reports, n) for n in names]
            out = os.path.join(a.out_dir, name)
            os.makedirs(out, exist_ok=True)
            debug_dir = spec["debug_dir"]
            subprocess.run(["cat", spec["debug_file"]], stdout=subprocess.DEVNULL)  # into the page cache

            shared = os.path.join(scratch, name + "-shared")
            progress("%s: symbolicate index -d %s --cache-dir %s" % (name, debug_dir, shared))
            index_wall = timed([binary, "index", "-d", debug_dir, "--cache-dir", shared],
                               os.path.join(out, "index.txt"), base_env)

            # Warm local: a cold run fills the cache, the measured runs use it.
            env = dict(base_env, XDG_CACHE_HOME=os.path.join(scratch, name + "-local"))
            command = [binary, "-q", "-d", debug_dir] + report_args
            timed(command, os.path.join(out, "warm-prime.txt"), env)
            warm = [timed(command, os.path.join(out, "warm.txt"), env) for _ in range(a.runs)]

            # The second machine: a fresh own cache each run, the shared one read-only.
            wrapper = read_only_wrapper(shared)
            shared_walls = []
            for i in range(a.runs):
                own = os.path.join(scratch, "%s-fresh-%d" % (name, i))
                shared_walls.append(timed(wrapper + [binary, "-q", "--cache-dir", own, "--shared-cache", shared,
                                                     "-d", debug_dir] + report_args,
                                          os.path.join(out, "shared.txt"), base_env))
                built = [f for f in os.listdir(os.path.join(own, "indexes"))] if os.path.isdir(os.path.join(own, "indexes")) else []
                if built:
                    raise SystemExit("%s: the second machine built %d indexes: %s" % (name, len(built), built[:3]))
            same = open(os.path.join(out, "warm.txt"), "rb").read() == open(os.path.join(out, "shared.txt"), "rb").read()
            if not same:
                raise SystemExit("%s: the shared-cache output differs from the warm local one" % name)
            w, s = statistics.median(warm), statistics.median(shared_walls)
            rows.append((name, spec["reports"], index_wall, w, s, s / w, "read-only mount" if wrapper else "writable folder"))
            progress("%s: warm local %.3f s, shared %.3f s (%.2fx)" % (name, w, s, s / w))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    print()
    print("A second machine with the shared prebuilt cache vs a warm local run (median of %d runs each)" % a.runs)
    print("%-16s %8s %12s %12s %12s %8s  %s" % ("input", "reports", "index build", "warm local", "shared", "ratio",
                                              "shared cache"))
    for name, count, index_wall, w, s, r, how in rows:
        print("%-16s %8d %11.2fs %11.3fs %11.3fs %7.2fx  %s" % (name, count, index_wall, w, s, r, how))
    print("Target: shared <= warm local (ratio about 1); both outputs identical byte for byte.")
    with open(a.tsv, "w") as tsv:
        tsv.write("input\treports\tindex_build_s\twarm_local_s\tshared_s\tratio\tshared_cache\n")
        for row in rows:
            tsv.write("%s\t%d\t%.3f\t%.4f\t%.4f\t%.3f\t%s\n" % row)


if __name__ == "__main__":
    main()
