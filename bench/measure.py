#!/usr/bin/env python3
"""Measures symbolicate against llvm-symbolizer on the workloads make_workload.py wrote, prints
a table per input with the ratios ours/theirs next to the targets, and writes every number to
a TSV file.

    measure.py --symbolicate BIN --out-dir bench/build/out --tsv bench/build/results.tsv NAME=WORKDIR ...

Workloads, per input:
  (a) all 1,000 reports in ONE `symbolicate -d DEBUGDIR REPORTDIR` run, against one
      llvm-symbolizer given every app address on standard input (its best case):
        cold      our persistent cache empty (XDG_CACHE_HOME: a new empty folder each run)
        warm      the cache folder of a cold run used again
        no-cache  with --no-cache, when the tool has that flag
  (b) one process per report, as a shell loop would run them, over the first 100 reports:
      ours with the warm cache, llvm-symbolizer with that report's addresses; mean per report
  (c) one address, one process: `symbolicate atos -o FILE -i ADDR` (warm cache) against
      `llvm-symbolizer --obj=FILE -i -f -C ADDR`
  index build: `symbolicate atos` on one address with an empty cache, against one
      `llvm-gsymutil-14 --convert FILE` (a full pass over the DWARF)
Wall time is the median of up to --runs runs (fewer when a measurement has used up --budget
seconds); peak RSS is the largest of those runs (GNU time's %M, in KB). The debug file is
read once before measuring, so that both tools find it in the page cache.

The correctness guard, so that a fast wrong answer cannot pass unnoticed: (a) cold must resolve
as many app frames as llvm-symbolizer does (to a function or a line), and on a sample (the first
100 reports, both with --no-demangle) the innermost function must
agree letter for letter on at least 99% of the frames; otherwise the (a) rows count as missed.
Demangled names, inline chains and lines are compared on all frames too, for the record.

Then the targets of issue 24 (targets.py: the floor, -j 1 against -j 2, a run with nothing to
resolve, an atos batch, index sizes, Sentry's SymCache as an anchor), as a last table.
"""

import argparse
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in bench/ for the module below
import targets  # noqa: E402

TARGETS = {  # wall target (kind, value), applied to the row's wall ratio or absolute time
    "a-cold": ("ratio", 1.0),
    "a-warm": ("ratio", 0.05),
    "b": ("ms", 15.0),
    "c": ("ms", 10.0),
    "index": ("ratio", 1.5),
    "atos-batch": ("ratio", 0.2),
}
RSS_TARGET = 0.5  # peak RSS ours/theirs, on every workload
TIME = "/usr/bin/time"  # GNU time (Debian package `time`)
SCRATCH = tempfile.mkdtemp(prefix="symbolicate-bench-")


def progress(message):
    print("  " + message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# Running and timing one process


def run(argv, stdin=None, stdout=None, env=None, stderr=None):
    """Runs argv to completion: (wall seconds, peak RSS in KB, exit status, CPU seconds).

    The peak RSS and the CPU time (user + system, of the process and the children it waited
    for) come from GNU time (`/usr/bin/time -f "%M %U %S"`), which forks and execs the command:
    a process this script started directly would report this (much larger) Python process's
    RSS when that is larger, as Linux carries ru_maxrss across exec. The wall time is taken
    here, around /usr/bin/time, so it includes its start (about a millisecond; see
    `overhead` in the output), for both tools alike."""
    rss_file = os.path.join(SCRATCH, "rss")
    with open(stdin or os.devnull, "rb") as i, open(stdout or os.devnull, "wb") as o, \
            open(stderr or os.devnull, "ab") as e:
        start = time.perf_counter()
        status = subprocess.call([TIME, "-f", "%M %U %S", "-o", rss_file, "--"] + list(argv),
                                 stdin=i, stdout=o, stderr=e, env=env)
        wall = time.perf_counter() - start
    with open(rss_file) as f:
        lines = f.read().strip().splitlines()
    fields = lines[-1].split() if lines else []
    try:
        rss, cpu = int(fields[0]), float(fields[1]) + float(fields[2])
    except (IndexError, ValueError):
        rss, cpu = 0, 0.0
    return wall, rss, status, cpu


class Measurement:
    def __init__(self, walls, rss, note, cpus=()):
        self.wall = statistics.median(walls) if walls else None
        self.rss = rss
        self.runs = len(walls)
        self.note = note
        # Cores used: CPU time over wall time, the median over the runs.
        self.cores = statistics.median(c / w for c, w in zip(cpus, walls) if w > 0) if cpus else None


def repeat(label, make_run, runs, budget):
    """Runs make_run(i) -> (wall, rss, status, cpu) up to `runs` times, fewer once `budget`
    seconds are spent (at least once). Median wall, largest RSS, median cores used."""
    walls, cpus, rss, spent, failures = [], [], 0, 0.0, 0
    for i in range(runs):
        wall, peak, status, cpu = make_run(i)
        walls.append(wall)
        cpus.append(cpu)
        rss = max(rss, peak)
        spent += wall
        failures += status != 0
        if spent > budget and i + 1 < runs:
            break
    note = "median of %d" % len(walls) if len(walls) > 1 else "1 run"
    if failures:
        note += ", exit status != 0 in %d" % failures
    progress("%-34s %9s  %9s  (%s)" % (label, fmt_time(statistics.median(walls)), fmt_kb(rss), note))
    return Measurement(walls, rss, note, cpus)


def loop(label, argvs, budget, env=None, minimum=3):
    """One process per item of argvs ((argv, stdin) pairs), one after the other, as a shell
    loop runs them; stops early once `budget` seconds are spent (after `minimum` processes).
    Mean wall per process, largest RSS."""
    total, rss, done, failures = 0.0, 0, 0, 0
    for argv, stdin in argvs:
        wall, peak, status, _ = run(argv, stdin=stdin, env=env)
        total += wall
        rss = max(rss, peak)
        done += 1
        failures += status != 0
        if total > budget and done >= minimum:
            break
    note = "mean of %d processes" % done
    if failures:
        note += ", exit status != 0 in %d" % failures
    progress("%-34s %9s  %9s  (%s)" % (label, fmt_time(total / done), fmt_kb(rss), note))
    m = Measurement([total / done], rss, note)
    m.runs = done
    return m


# --------------------------------------------------------------------------
# Formatting


def fmt_time(seconds):
    if seconds is None:
        return "-"
    if seconds >= 10:
        return "%.1f s" % seconds
    if seconds >= 1:
        return "%.2f s" % seconds
    return "%.1f ms" % (seconds * 1000)


def fmt_kb(kb):
    if not kb:
        return "-"
    if kb >= 1024 * 1024:
        return "%.2f GB" % (kb / 1024 / 1024)
    if kb >= 1024:
        return "%.0f MB" % (kb / 1024)
    return "%d KB" % kb


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt_ratio(r):
    if r is None:
        return "-"
    return "%.3f" % r if r < 0.1 else "%.2f" % r


# --------------------------------------------------------------------------
# The correctness guard: our text output against llvm-symbolizer's


def symbolizer_frames(path):
    """llvm-symbolizer -i -f output: per address, the list of (function, location), innermost first."""
    with open(path, errors="replace") as f:
        blocks = f.read().strip("\n").split("\n\n")
    frames = []
    for block in blocks:
        lines = block.split("\n")
        frames.append([(lines[i], lines[i + 1] if i + 1 < len(lines) else "") for i in range(0, len(lines), 2)])
    return frames


SANITIZER_LINE = re.compile(r"^\s+#(\d+) (0x[0-9a-f]+) (.*)$")
CRASH_LINE = re.compile(r"^(\d+)\s+(\S+)\s+(0x[0-9a-f]+) (.*)$")


def sanitizer_name(rest):
    """(function, line) of a resolved sanitizer line's text `in FUNC FILE:LINE:COL`, or None."""
    if not rest.startswith("in "):
        return None
    rest = rest[3:]
    m = re.match(r"^(.*) (\S+?):(\d+)(?::\d+)?$", rest)          # FILE:LINE[:COLUMN]
    if m:
        return m.group(1), int(m.group(3))
    m = re.match(r"^(.*?) \(\S+\+0x[0-9a-f]+\)(?: \(BuildId: [0-9a-f]+\))?$", rest)  # no source
    if m:
        return m.group(1), 0
    m = re.match(r"^(.*) \S+\.(?:c|cc|cpp|cxx|h|hh|hpp|S|s|m|mm|swift)$", rest)  # a file but no line
    return (m.group(1) if m else rest), 0


def crash_name(rest):
    """(function, line) of a resolved .crash frame's text `FUNC + OFF (File.c:LINE)`, or None."""
    if re.match(r"^0x[0-9a-f]+ \+ \d+$", rest):
        return None
    m = re.match(r"^(.*) \+ \d+(?: \(([^()]*?)(?::(\d+))?\))?(?: \[inlined\])?$", rest)
    if not m:
        return rest, 0
    return m.group(1), int(m.group(3) or 0)


def our_frames(path, kind, module_marker):
    """Our (a) output: per app frame in order, the list of (function, line) innermost first,
    or None when the frame was left unresolved."""
    frames = []
    current_key = None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if kind == "elf":
                m = SANITIZER_LINE.match(line)
                if not m:
                    current_key = None
                    continue
                number, address, rest = m.groups()
                resolved = sanitizer_name(rest)
                if resolved is None and module_marker not in rest:
                    current_key = None
                    continue  # a frame of an image without a debug file
            else:
                m = CRASH_LINE.match(line)
                if not m or m.group(2) != "App":
                    current_key = None
                    continue
                number, _, address, rest = m.groups()
                resolved = crash_name(rest)
            key = (number, address)
            if key == current_key and frames[-1] is not None and resolved is not None:
                frames[-1].append(resolved)  # the next frame of the same inline chain
            else:
                frames.append([resolved] if resolved is not None else None)
            current_key = key
    return frames


def same_name(ours, theirs):
    """Demangled names compared as the same function: the GNU-style and LLVM demanglers differ in
    blanks (`> >` or `>>`, `operator<< <T>` or `operator<<<T>`), clone suffixes and lambdas."""
    if ours == theirs:
        return True
    # GNU's `[clone .isra.0] [clone .cold]` is LLVM's `(.isra.0.cold)`.
    ours = re.sub(r"( \[clone [^\]]*\])+$",
                  lambda m: " (" + "".join(re.findall(r"\[clone ([^\]]*)\]", m.group(0))) + ")", ours)
    # GNU's `{lambda(int)#1}`, `{lambda(int)#2}` are LLVM's `'lambda'(int)`, `'lambda0'(int)`.
    ours = re.sub(r"\{lambda\(([^{}]*?)\)#(\d+)\}",
                  lambda m: "'lambda%s'(%s)" % ("" if m.group(2) == "1" else int(m.group(2)) - 2, m.group(1)), ours)
    return ours.replace(" ", "") == theirs.replace(" ", "")


def resolved(symbolizer_frame):
    """Whether llvm-symbolizer found a function or a source line ("??" and "??:0:0" otherwise)."""
    function, location = symbolizer_frame[0]
    return function != "??" or not location.startswith("??")


def compare(ours_path, theirs_path, kind, module_marker):
    """Our text output against llvm-symbolizer's for the same app frames, in the same order."""
    ours = our_frames(ours_path, kind, module_marker)
    theirs = symbolizer_frames(theirs_path)
    result = {"ours_frames": len(ours), "theirs_frames": len(theirs)}
    result["ours_resolved"] = sum(1 for f in ours if f is not None)
    result["theirs_resolved"] = sum(1 for f in theirs if resolved(f))
    result["inlined"] = sum(1 for f in theirs if len(f) > 1)
    both = name = exact = chain = exact_chain = line = 0
    examples = []
    for o, t in zip(ours, theirs):
        if o is None or not resolved(t):
            continue
        both += 1
        t_line = int(t[0][1].split(":")[-2]) if t[0][1].count(":") >= 2 else 0
        exact += o[0][0] == t[0][0]
        name += same_name(o[0][0], t[0][0])
        exact_chain += [n for n, _ in o] == [n for n, _ in t]
        chain += len(o) == len(t) and all(same_name(a, b) for (a, _), (b, _) in zip(o, t))
        line += o[0][1] == t_line
        if o[0][0] != t[0][0] and len(examples) < 2:
            examples.append("ours %r, llvm-symbolizer %r" % (o[0][0], t[0][0]))
    result.update(both=both, name=name, exact=exact, chain=chain, exact_chain=exact_chain, line=line,
                  examples=examples)
    return result


def guard(full, sample):
    """The verdict: the same frames resolved in (a), and the functions (mangled names, letter for
    letter) of at least 99% of the sample's frames agree."""
    return (full["ours_frames"] == full["theirs_frames"] and full["ours_resolved"] == full["theirs_resolved"]
            and full["both"] > 0 and sample["both"] > 0 and sample["exact"] >= 0.99 * sample["both"])


# --------------------------------------------------------------------------
# One input


def dwarf_bytes(path, arch=None):
    args = ["/opt/swift/usr/bin/llvm-objdump", "--section-headers", path]
    if arch:
        args.insert(2, "--arch=" + arch)
    total = 0
    out = subprocess.run(args, stdout=subprocess.PIPE, universal_newlines=True).stdout
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[0].isdigit() and "debug" in fields[1]:
            total += int(fields[2], 16)
    return total


class Bench:
    def __init__(self, args):
        self.args = args
        self.bin = os.path.abspath(args.symbolicate)
        self.symbolizer = args.symbolizer
        self.gsymutil = args.gsymutil
        # The root's help lists the subcommands; the report command's (`reports --help`) its flags.
        help_text = "".join(subprocess.run([self.bin] + words + ["--help"], stdout=subprocess.PIPE,
                                           stderr=subprocess.STDOUT, universal_newlines=True).stdout
                            for words in ([], ["reports"]))
        self.has_no_cache = "--no-cache" in help_text
        # What starting a process through /usr/bin/time costs: `true`, median of 20.
        self.overhead = statistics.median(run(["true"])[0] for _ in range(20))
        self.scratch = SCRATCH
        self.rows = []     # (input, key, label, ours, theirs)
        self.guards = {}
        self.issue = targets.Issue13(self, sys.modules[__name__])

    def cache_dir(self):
        """A new, empty XDG_CACHE_HOME."""
        return tempfile.mkdtemp(dir=self.scratch, prefix="cache-")

    def env(self, cache):
        env = dict(os.environ)
        env["XDG_CACHE_HOME"] = cache
        # Nothing from the caller's setup: no other debug-file path, cache or symbol server.
        for name in ("SYMBOLICATE_PATH", "SYMBOLICATE_CACHE_DIR", "SYMBOLICATE_SHARED_CACHE", "DEBUGINFOD_URLS"):
            env.pop(name, None)
        return env

    def input(self, name, workdir):
        a = self.args
        spec = json.load(open(os.path.join(workdir, "workload.json")))
        out = os.path.join(a.out_dir, name)
        os.makedirs(out, exist_ok=True)
        reports = os.path.join(workdir, "reports")
        oracle = os.path.join(workdir, "oracle")
        debug_dir, debug_file = spec["debug_dir"], spec["debug_file"]
        errors = os.path.join(out, "stderr.txt")
        open(errors, "w").close()
        arch = (spec.get("atos_args") or [None, None])[1]
        spec["dwarf_bytes"] = dwarf_bytes(debug_file, arch)
        print("", file=sys.stderr)
        progress("%s: %d reports, %d app frames, %.1f MB of DWARF in %s" % (
            name, spec["reports"], spec["app_frames"], spec["dwarf_bytes"] / 1e6, debug_file))
        run(["cat", debug_file])  # into the page cache, for both tools alike
        sym = [self.symbolizer] + spec["symbolizer_args"] + ["-i", "-f", "-C"]
        ours_cmd = [self.bin, "-d", debug_dir]
        # A folder argument reads the folder's *.crash and *.ips files; Linux logs are named one by one.
        names = sorted(os.listdir(reports))
        report_args = [reports] if spec["report_suffix"] in (".crash", ".ips") else \
            [os.path.join(reports, n) for n in names]

        def row(key, label, ours, theirs):
            self.rows.append((name, key, label, ours, theirs))

        # (a) llvm-symbolizer: all app addresses in one process.
        theirs_a = repeat("(a) llvm-symbolizer", lambda i: run(
            sym, stdin=os.path.join(oracle, "all.txt"), stdout=os.path.join(out, "llvm-symbolizer-a.txt"),
            stderr=errors), a.runs, a.budget)

        # (a) cold: a new empty cache folder for every run; the last one is kept for warm runs.
        caches = []

        def cold(i):
            caches.append(self.cache_dir())
            return run(ours_cmd + report_args, stdout=os.path.join(out, "ours-a-cold.txt"),
                       env=self.env(caches[-1]), stderr=errors)
        ours_cold = repeat("(a) symbolicate, cold cache", cold, a.runs, a.budget)
        warm = caches[-1]
        row("a-cold", "(a) %d reports, cold" % spec["reports"], ours_cold, theirs_a)

        # (a) warm: the cache folder a cold run filled.
        ours_warm = repeat("(a) symbolicate, warm cache", lambda i: run(
            ours_cmd + report_args, stdout=os.path.join(out, "ours-a-warm.txt"), env=self.env(warm),
            stderr=errors), a.runs, a.budget)
        row("a-warm", "(a) %d reports, warm" % spec["reports"], ours_warm, theirs_a)

        if self.has_no_cache:
            ours_none = repeat("(a) symbolicate --no-cache", lambda i: run(
                [self.bin, "--no-cache", "-d", debug_dir] + report_args, stdout=os.path.join(out, "ours-a-no-cache.txt"),
                env=self.env(self.cache_dir()), stderr=errors), a.runs, a.budget)
            row("a-nocache", "(a) %d reports, --no-cache" % spec["reports"], ours_none, theirs_a)

        # The correctness guard. On the whole output of a cold run: how many app frames each
        # tool resolves, and the demangled names (demanglers differ in spelling, so compared
        # blanks aside). On a sample, the first 100 reports, run again untimed with
        # --no-demangle, both tools: the mangled names letter for letter.
        module = "/%s+0x" % os.path.basename(debug_file)
        full = compare(os.path.join(out, "ours-a-cold.txt"), os.path.join(out, "llvm-symbolizer-a.txt"),
                       spec["kind"], module)
        sample_names = names[:spec["per_report_files"]]
        sample_addresses = os.path.join(out, "sample-addresses.txt")
        with open(sample_addresses, "w") as f:
            for k in range(len(sample_names)):
                f.write(open(os.path.join(oracle, "%04d.txt" % k)).read())
        run([self.bin, "--no-demangle", "-d", debug_dir] + [os.path.join(reports, n) for n in sample_names],
            stdout=os.path.join(out, "ours-sample-mangled.txt"), env=self.env(self.cache_dir()), stderr=errors)
        run([self.symbolizer] + spec["symbolizer_args"] + ["-i", "-f", "--no-demangle"], stdin=sample_addresses,
            stdout=os.path.join(out, "llvm-symbolizer-sample-mangled.txt"), stderr=errors)
        sample = compare(os.path.join(out, "ours-sample-mangled.txt"),
                         os.path.join(out, "llvm-symbolizer-sample-mangled.txt"), spec["kind"], module)
        self.guards[name] = (full, sample, guard(full, sample))
        progress("guard: resolved %d (ours) / %d (llvm-symbolizer) of %d frames; mangled names agree on %d of %d"
                 % (full["ours_resolved"], full["theirs_resolved"], full["theirs_frames"], sample["exact"],
                    sample["both"]))

        # (b) one process per report: ours with the warm cache, llvm-symbolizer per report.
        names = sample_names
        ours_b = loop("(b) symbolicate, one per report", [
            (ours_cmd + [os.path.join(reports, n)], None) for n in names], a.budget, env=self.env(warm))
        theirs_b = loop("(b) llvm-symbolizer, one per report", [
            (sym, os.path.join(oracle, "%04d.txt" % k)) for k in range(len(names))], a.budget)
        row("b", "(b) one process per report", ours_b, theirs_b)

        # (c) one address, one process each, with the warm cache (primed once by this very command).
        atos = [self.bin, "atos", "-o", debug_file] + spec["atos_args"] + ["-i", spec["one_address"]]
        run(atos, env=self.env(warm), stderr=errors)
        ours_c = repeat("(c) symbolicate atos, warm", lambda i: run(
            atos, stdout=os.path.join(out, "ours-c.txt"), env=self.env(warm), stderr=errors), a.runs_c, a.budget)
        one_sym = [self.symbolizer] + spec.get("one_address_symbolizer_args", spec["symbolizer_args"]) + \
            ["-i", "-f", "-C", spec["one_address"]]
        theirs_c = repeat("(c) llvm-symbolizer", lambda i: run(
            one_sym, stdout=os.path.join(out, "llvm-symbolizer-c.txt"), stderr=errors), a.runs_c, a.budget)
        row("c", "(c) one address", ours_c, theirs_c)

        # Index build: the same atos with an empty cache, against one full llvm-gsymutil pass.
        index_caches = []

        def index(i):
            index_caches.append(self.cache_dir())
            return run(atos, env=self.env(index_caches[-1]), stderr=errors)
        ours_index = repeat("index: symbolicate atos, cold", index, a.runs, a.budget)
        gsym_out = os.path.join(self.scratch, "out.gsym")
        gsym = repeat("index: llvm-gsymutil --convert", lambda i: run(
            [self.gsymutil, "--quiet", "--convert", debug_file, "--out-file", gsym_out] + spec.get("gsymutil_args", []),
            stderr=errors), a.runs, a.budget)
        row("index", "index build vs gsymutil", ours_index, gsym)
        # gsymutil names the output of one slice of a universal file after its architecture.
        gsym_files = glob.glob(gsym_out + "*")
        gsym_bytes = sum(os.path.getsize(f) for f in gsym_files)
        for f in gsym_files:
            os.remove(f)

        # The targets of issue 24 (targets.py): floor, parallelism, atos batch, sizes, anchor.
        self.issue.input(name, spec, {
            "out": out, "errors": errors, "reports": reports, "oracle": oracle, "names": names,
            "report_args": report_args, "warm": warm, "cold": ours_cold, "index": ours_index,
            "index_caches": index_caches, "gsym_bytes": gsym_bytes})
        for cache in index_caches:
            shutil.rmtree(cache, ignore_errors=True)
        spec["name"] = name
        self.specs = getattr(self, "specs", {})
        self.specs[name] = spec
        for cache in caches[:-1]:
            shutil.rmtree(cache, ignore_errors=True)

    # ----------------------------------------------------------------------

    def verdicts(self, key, ours, theirs):
        """(wall value, wall target text, met?, rss ratio, met?) of one row."""
        kind, limit = TARGETS.get(key, (None, None))
        if kind == "ratio":
            value = ratio(ours.wall, theirs.wall)
            wall = ("<= %gx" % limit, value is not None and value <= limit)
        elif kind == "ms":
            value = ours.wall * 1000 if ours.wall is not None else None
            wall = ("<= %g ms" % limit, value is not None and value <= limit)
        else:
            wall = ("", None)
        r = ratio(ours.rss, theirs.rss)
        return wall, (r, r is not None and r <= RSS_TARGET)

    def report(self):
        a = self.args
        # results.tsv, one measured value per line: input, workload, metric (wall_s, rss_kb, or
        # a count of the correctness guard), ours, llvm's, the ratio, the target, whether it is met.
        tsv = ["\t".join(["input", "workload", "metric", "ours", "llvm", "ratio", "target", "met", "runs", "note"])]
        summary = []
        for name, spec in self.specs.items():
            full, sample, ok = self.guards[name]
            print()
            print("== %s: %s, %.1f MB of DWARF%s; %d reports x %d frames, %d app frames (%.0f%% in inlined code)" % (
                name, os.path.relpath(spec["debug_file"]), spec["dwarf_bytes"] / 1e6,
                " in its %s slice" % spec["atos_args"][1] if spec["atos_args"] else "", spec["reports"],
                spec["frames_per_report"], spec["app_frames"], 100.0 * full["inlined"] / max(1, full["theirs_frames"])))
            header = "%-30s %10s %10s %7s  %9s %9s %6s   %-12s %s" % (
                "workload", "ours", "llvm", "ratio", "ours RSS", "llvm RSS", "ratio", "wall target", "met (wall, RSS <= 0.5x)")
            print(header)
            print("-" * len(header))
            for input_name, key, label, ours, theirs in self.rows:
                if input_name != name:
                    continue
                (wall_target, wall_met), (rss_ratio, rss_met) = self.verdicts(key, ours, theirs)
                if key.startswith("a-") and wall_target and not ok:
                    wall_met = False  # a fast wrong answer does not count
                met = ["(no target)" if not wall_target else "yes" if wall_met else "NO", "yes" if rss_met else "NO"]
                print("%-30s %10s %10s %7s  %9s %9s %6s   %-12s %s" % (
                    label, fmt_time(ours.wall), fmt_time(theirs.wall), fmt_ratio(ratio(ours.wall, theirs.wall)),
                    fmt_kb(ours.rss), fmt_kb(theirs.rss), fmt_ratio(rss_ratio), wall_target or "-", ", ".join(met)))
                runs = "%d/%d" % (ours.runs, theirs.runs)
                note = "ours: %s; llvm: %s" % (ours.note, theirs.note)
                tsv.append("\t".join(str(x) for x in [
                    name, key, "wall_s", "%.6f" % ours.wall, "%.6f" % theirs.wall, "%.6f" % ratio(ours.wall, theirs.wall),
                    wall_target, "" if not wall_target else wall_met, runs, note]))
                tsv.append("\t".join(str(x) for x in [
                    name, key, "rss_kb", ours.rss, theirs.rss, "%.4f" % rss_ratio, "<= %gx" % RSS_TARGET, rss_met,
                    runs, note]))
                summary.append((name, label, wall_met if wall_target else None, rss_met))
            for input_name, key, label, ours, theirs in self.rows:
                if input_name == name and ("exit status" in ours.note or "exit status" in theirs.note):
                    print("  warning: %s: %s (see %s)" % (label, "; ".join(
                        who + " " + m.note for who, m in (("ours:", ours), ("llvm:", theirs)) if "exit status" in m.note),
                        os.path.relpath(os.path.join(a.out_dir, name, "stderr.txt"))))
            print("  wall: (a), (c) and index: median of the runs; (b): mean per report over a loop of processes."
                  " RSS: the largest of the runs.")
            print("  (b) and (c) targets are absolute: (b) <= 15 ms per report with a warm cache, (c) start-up <= 10 ms.")
            pct = lambda g, k: "%d of %d (%.2f%%)" % (g[k], g["both"], 100.0 * g[k] / max(1, g["both"]))
            print("  correctness -> %s: frames resolved (a function or a line) in (a): ours %d, llvm-symbolizer %d,"
                  " of %d app frames%s" % (
                      "OK" if ok else "MISMATCH", full["ours_resolved"], full["theirs_resolved"], full["theirs_frames"],
                      "" if full["ours_frames"] == full["theirs_frames"] else
                      " (but ours has %d app frames)" % full["ours_frames"]))
            print("    sample (first %d reports, both with --no-demangle): innermost function"
                  " agrees on %s, whole inline chain on %s" % (
                      spec["per_report_files"], pct(sample, "exact"), pct(sample, "exact_chain")))
            print("    all frames, demangled: innermost function agrees on %s letter for letter, %s blanks and"
                  " clone suffixes aside; inline chains on %s; innermost line on %s" % (
                      pct(full, "exact"), pct(full, "name"), pct(full, "chain"), pct(full, "line")))
            for example in sample["examples"] or full["examples"][:1]:
                print("    e.g. " + example)
            for metric, g, key, target, met in [
                    ("resolved_frames", full, None, "equal", full["ours_resolved"] == full["theirs_resolved"]),
                    ("sample_mangled_names_agree", sample, "exact", ">= 99%", sample["exact"] >= 0.99 * sample["both"]),
                    ("sample_mangled_chains_agree", sample, "exact_chain", "", ""),
                    ("demangled_names_agree_exactly", full, "exact", "", ""),
                    ("demangled_names_agree_blanks_aside", full, "name", "", ""),
                    ("demangled_chains_agree_blanks_aside", full, "chain", "", ""),
                    ("innermost_lines_agree", full, "line", "", "")]:
                if key is None:
                    row = [full["ours_resolved"], full["theirs_resolved"],
                           "%.4f" % ratio(full["ours_resolved"], full["theirs_resolved"])]
                    note = "app frames resolved to a function or a line, of %d" % full["theirs_frames"]
                else:
                    row = [g[key], g["both"], "%.4f" % ratio(g[key], g["both"])]
                    note = "frames that agree (ours column) of the frames both tools resolve (llvm column)"
                tsv.append("\t".join(str(x) for x in [name, "correctness", metric] + row + [target, met, "", note]))
        print()
        print("Each wall time includes starting the process through /usr/bin/time: %.1f ms for `true`."
              % (self.overhead * 1000))
        print("Targets: (a) cold <= 1.0x and warm <= 0.05x llvm-symbolizer's wall time; (b) <= 15 ms per report (warm);"
              " (c) <= 10 ms; peak RSS <= 0.5x llvm-symbolizer's on every workload; index build <= 1.5x one"
              " llvm-gsymutil-14 --convert.")
        missed = [(n, l, w, r) for n, l, w, r in summary if w is False or not r]
        print("Met %d of %d wall targets and %d of %d RSS targets; numbers in %s" % (
            sum(1 for _, _, w, _ in summary if w), sum(1 for _, _, w, _ in summary if w is not None),
            sum(1 for _, _, _, r in summary if r), len(summary), os.path.relpath(a.tsv)))
        if not self.has_no_cache:
            print("(this symbolicate has no --no-cache flag: that row is left out)")
        tsv += self.issue.report()
        with open(a.tsv, "w") as f:
            f.write("\n".join(tsv) + "\n")
        shutil.rmtree(self.scratch, ignore_errors=True)
        return missed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--symbolicate", required=True)
    parser.add_argument("--symbolizer", default="/opt/swift/usr/bin/llvm-symbolizer")
    parser.add_argument("--gsymutil", default="llvm-gsymutil-14")
    parser.add_argument("--out-dir", required=True, help="outputs of the runs, kept for inspection")
    parser.add_argument("--tsv", required=True)
    parser.add_argument("--runs", type=int, default=3, help="runs per measurement of (a) and the index build")
    parser.add_argument("--runs-c", type=int, default=10, help="runs per measurement of (c)")
    parser.add_argument("--budget", type=float, default=90.0,
                        help="seconds after which a measurement stops repeating (it runs at least once)")
    parser.add_argument("--runs-targets", type=int, default=5,
                        help="runs of each alternating batch measurement of the issue 24 targets")
    parser.add_argument("--floor", required=True, help="the floor program (floor.c), built")
    parser.add_argument("--symcache-python", help="the Python of a venv holding Sentry's symbolic (the anchor)")
    parser.add_argument("--baseline", help="a results.tsv of an earlier run: 'warm lookups no slower than today'")
    parser.add_argument("--targets-file", help="where the table of the issue 24 targets is written too")
    parser.add_argument("--no-targets-print", dest="print_targets", action="store_false",
                        help="write the targets table to --targets-file only (make bench prints it last)")
    parser.add_argument("inputs", nargs="+", help="NAME=WORKDIR")
    args = parser.parse_args()
    bench = Bench(args)
    for item in args.inputs:
        name, workdir = item.split("=", 1)
        bench.input(name, workdir)
    bench.report()


if __name__ == "__main__":
    main()
