"""The speed targets (issue 24: "a cold run ahead again, an index smaller than GSYM, two cores
that pay, and system caches in seconds"), measured by measure.py in the same run as everything
else, and printed at the end of `make bench` as one table: each target, what it is now, the
figure the issue measured, the target value and whether it is met.

Per input, after measure.py's workloads:
  floor        bench/build/floor (floor.c): reads every report file, writes as many bytes as
               the symbolicated output has (to a file, as ours is written); started through
               /usr/bin/time like every other process
  warm -j 2, warm -j 1
               all reports in one run, the warm cache, two jobs and one
  nothing to resolve
               the same reports with `-d` an empty folder: no image has a debug file, so the
               run reads, parses and writes every report back, and looks nothing up
  these five alternate, run after run, so that a change in the machine's load falls on all
  of them alike; each floor writes as many bytes as the run it stands for wrote
  atos batch   `symbolicate atos -o FILE -i` with the workload's app addresses on standard
               input (32,000; on a universal dSYM, those of the first slice), warm cache,
               alternating with llvm-symbolizer on the same addresses
  index size   the index file(s) in the cache after measure.py's cold `atos` runs, against
               the size of llvm-gsymutil-14 --convert's output for the same file (and slice)
  SymCache     Sentry's symbolic (a venv, bench/build/symbolic-venv): a SymCache built from
               the same file and slice by symcache.py, one process per build; its build time
               (measured inside the process: open, build, write) and its size
"""

import glob
import hashlib
import json
import os
import platform
import statistics
import time

# The figures the issue measured (an 85 MB synthetic iOS dSYM: macho-thin; 1,000 reports x 40
# frames, 2 cores). Its batch figures are macho-thin's too.
ISSUE = {
    "cold_ratio": {"macho-thin": "0.46-0.57 / 0.90 s = 0.56x"},
    "warm_floor": {"macho-thin": "0.095-0.108 / 0.024-0.028 s = 3.9-4.5x"},
    "speedup": {"macho-thin": "1.25-1.58x"},
    "index_mb": {"macho-thin": 20.7},
    "gsym_mb": {"macho-thin": 12.6},
    "atos_ratio": {"macho-thin": "0.12-0.14x"},
    "rss_ratio": {"macho-thin": "0.50-0.53x (cold)"},
    "symcache_s": {"sqlite3": 0.30, "cppcheck": 1.97, "macho-thin": 5.27},
    "symcache_mb": {"sqlite3": 3, "cppcheck": 14, "macho-thin": 94},
}
COLD = 0.35             # cold batch <= 0.35x llvm-symbolizer
WARM_FLOOR = 2.0        # warm batch <= 2x the floor
NOTHING_FLOOR = 1.5     # a run with nothing to resolve <= 1.5x the floor (kept from the last round)
SPEEDUP = 1.8           # -j 2 at least 1.8x faster than -j 1
INDEX_GSYM = 1.0        # index size <= GSYM's
NO_SLOWER = 1.05        # warm lookups no slower than the baseline run's (5% for noise)
ATOS = 0.1              # atos batch <= 0.1x llvm-symbolizer
RSS = 0.45              # peak RSS <= 0.45x llvm-symbolizer's, every workload, cold included
DYLD_INDEX_S = 10.0     # every image of a real-size dyld cache indexed in under 10 s
DYLD_WARM = 1.0         # a warm system frame no slower than a warm app frame


def mb(n):
    return "%.1f MB" % (n / 1e6) if n is not None else "-"


def directory_bytes(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def read_tsv(path):
    """{(input, workload, metric): ours} of a results.tsv, or {} when there is none."""
    values = {}
    if not path or not os.path.exists(path):
        return values
    with open(path) as f:
        for line in f.read().splitlines()[1:]:
            fields = line.split("\t")
            if len(fields) >= 4:
                try:
                    values[tuple(fields[:3])] = float(fields[3])
                except ValueError:
                    pass
    return values


class Issue13:
    def __init__(self, bench, measure):
        """bench: measure.py's Bench; measure: the measure module (run, repeat, fmt_time...)."""
        self.bench, self.m = bench, measure
        self.args = bench.args
        self.results = {}  # input -> {name: value}
        self.baseline = read_tsv(self.args.baseline)
        self.load_start = os.getloadavg()[0]

    # ----------------------------------------------------------------------
    # Measuring one input

    def input(self, name, spec, c):
        """c: what measure.py knows of this input (a dict: out, errors, reports, names,
        report_args, warm, cold, index, index_caches, gsym_bytes)."""
        m, b, a = self.m, self.bench, self.args
        r = self.results.setdefault(name, {})
        out, errors = c["out"], c["errors"]
        files = [os.path.join(c["reports"], n) for n in c["names"]]
        empty = b.cache_dir()  # an empty folder: the -d of the run with nothing to resolve
        ours = [b.bin, "-d", spec["debug_dir"]]
        commands = {
            "warm-j2": (ours + ["-j", "2"] + c["report_args"], "ours-t-warm-j2.txt"),
            "warm-j1": (ours + ["-j", "1"] + c["report_args"], "ours-t-warm-j1.txt"),
            "nothing": ([b.bin, "-d", empty] + c["report_args"], "ours-t-nothing.txt"),
        }
        env = b.env(c["warm"])
        for key, (argv, output) in commands.items():  # once untimed: the output sizes
            m.run(argv, stdout=os.path.join(out, output), env=env, stderr=errors)
        size = {k: os.path.getsize(os.path.join(out, o)) for k, (_, o) in commands.items()}
        r["j1_same_output"] = size["warm-j1"] == size["warm-j2"] and \
            open(os.path.join(out, "ours-t-warm-j1.txt"), "rb").read() == \
            open(os.path.join(out, "ours-t-warm-j2.txt"), "rb").read()
        floors = {"floor-warm": size["warm-j2"], "floor-nothing": size["nothing"]}
        runs = {k: [] for k in list(commands) + list(floors)}
        statuses = {k: 0 for k in runs}
        spent, started = 0.0, time.perf_counter()
        for i in range(a.runs_targets):
            for key in ["warm-j2", "floor-warm", "warm-j1", "nothing", "floor-nothing"]:
                if key in commands:
                    argv, output = commands[key]
                    res = m.run(argv, stdout=os.path.join(out, output), env=env, stderr=errors)
                else:
                    res = m.run([a.floor, str(floors[key])] + files, stdout=os.path.join(out, "floor.txt"),
                                stderr=errors)
                runs[key].append(res)
                statuses[key] += res[2] != 0
            spent = time.perf_counter() - started
            if spent > a.budget and i >= 2:
                break
        for key, results in runs.items():
            r[key] = statistics.median(x[0] for x in results)
            r[key + "-rss"] = max(x[1] for x in results)
            r[key + "-status"] = statuses[key]
            m.progress("%-34s %9s  %9s  (median of %d%s)" % (
                "targets: " + key, m.fmt_time(r[key]), m.fmt_kb(r[key + "-rss"]), len(results),
                ", exit status != 0 in %d" % statuses[key] if statuses[key] else ""))
        r["bytes-warm"], r["bytes-nothing"] = size["warm-j2"], size["nothing"]
        r["frames"] = spec["reports"] * spec["frames_per_report"]
        r["cold-cores"] = c["cold"].cores
        r["cold-wall"] = c["cold"].wall

        # The atos batch, warm, alternating with llvm-symbolizer on the same addresses.
        addresses = os.path.join(out, "atos-addresses.txt")
        first_arch = spec["atos_args"][1] if spec["atos_args"] else None
        with open(os.path.join(c["oracle"], "all.txt")) as f, open(addresses, "w") as g:
            for line in f:
                words = line.split()
                if not words or (len(words) > 1 and not words[0].endswith(":" + str(first_arch))):
                    continue
                g.write(words[-1] + "\n")
        r["atos-addresses"] = sum(1 for _ in open(addresses))
        atos = [b.bin, "atos", "-o", spec["debug_file"]] + spec["atos_args"] + ["-i"]
        sym = [b.symbolizer] + spec.get("one_address_symbolizer_args", spec["symbolizer_args"]) + ["-i", "-f", "-C"]
        m.run(atos, stdin=addresses, env=env, stderr=errors)  # the cache of this slice, if not yet there
        pair = {"ours": [], "llvm": []}
        for i in range(a.runs):
            pair["ours"].append(m.run(atos, stdin=addresses, stdout=os.path.join(out, "ours-t-atos.txt"),
                                      env=env, stderr=errors))
            pair["llvm"].append(m.run(sym, stdin=addresses, stdout=os.path.join(out, "llvm-symbolizer-t-atos.txt"),
                                      stderr=errors))
            if sum(x[0] for x in pair["ours"] + pair["llvm"]) > a.budget:
                break
        measured = {}
        for who, results in pair.items():
            note = "median of %d" % len(results)
            failures = sum(1 for x in results if x[2] != 0)
            if failures:
                note += ", exit status != 0 in %d" % failures
            measured[who] = m.Measurement([x[0] for x in results], max(x[1] for x in results), note,
                                          [x[3] for x in results])
            m.progress("%-34s %9s  %9s  (%s)" % ("targets: atos batch, " + who, m.fmt_time(measured[who].wall),
                                                 m.fmt_kb(measured[who].rss), note))
        r["atos"], r["atos-llvm"] = measured["ours"].wall, measured["llvm"].wall
        b.rows.append((name, "atos-batch", "atos batch, %d addresses, warm" % r["atos-addresses"],
                       measured["ours"], measured["llvm"]))

        # Index size against GSYM's.
        r["index-bytes"] = max(directory_bytes(os.path.join(d, "symbolicate", "indexes")) for d in c["index_caches"])
        r["gsym-bytes"] = c["gsym_bytes"]
        r["index-wall"], r["index-cores"] = c["index"].wall, c["index"].cores

        # The anchor: Sentry's symbolic builds a SymCache of the same file and slice.
        if a.symcache_python:
            self.symcache(name, spec, c, r, first_arch)

    def symcache(self, name, spec, c, r, first_arch):
        m, a = self.m, self.args
        arch = first_arch or ("arm64" if spec["kind"] == "macho" else platform.machine())
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "symcache.py")
        target = os.path.join(self.bench.scratch, "out.symcache")
        report = os.path.join(c["out"], "symcache.json")
        seconds, rss, spent = [], 0, 0.0
        for i in range(a.runs):
            wall, peak, status, _ = m.run([a.symcache_python, script, spec["debug_file"], arch, target],
                                          stdout=report, stderr=c["errors"])
            spent += wall
            if status != 0:
                m.progress("targets: symbolic failed on %s (see %s)" % (name, c["errors"]))
                return
            facts = json.load(open(report))
            seconds.append(facts["seconds"])
            rss = max(rss, peak)
            if spent > a.budget:
                break
        r["symcache-s"], r["symcache-bytes"], r["symcache-rss"] = statistics.median(seconds), facts["bytes"], rss
        r["symcache-version"] = "symbolic %s, SymCache v%s" % (facts["symbolic"], facts["version"])
        m.progress("%-34s %9s  %9s  (median of %d, %s)" % (
            "targets: SymCache build (%s)" % arch, m.fmt_time(r["symcache-s"]), m.fmt_kb(rss), len(seconds), mb(facts["bytes"])))
        os.remove(target)

    # ----------------------------------------------------------------------
    # The table

    def rows(self):
        """(target, input, measured now, issue's figure, target value, met, tsv fields) per row."""
        m, rows = self.m, []
        cores = os.cpu_count() or 1
        for name in self.results:
            cold = next(((ours, theirs) for n, key, _, ours, theirs in self.bench.rows
                         if n == name and key == "a-cold" and ours.wall and theirs.wall), None)
            rows.append(("1 cold batch / llvm-symbolizer", name,
                         ratio_text(cold[0].wall, cold[1].wall, m) if cold else "-",
                         ISSUE["cold_ratio"].get(name, ""), "<= %gx" % COLD,
                         cold is not None and cold[0].wall / cold[1].wall <= COLD,
                         ("cold_over_symbolizer", cold[0].wall if cold else None, cold[1].wall if cold else None)))
        for name, r in self.results.items():
            used = r["cold-cores"]
            rows.append(("1 cold batch: cores used", name,
                         "%.2f of %d (CPU / wall, %s)" % (used, cores, m.fmt_time(r["cold-wall"])) if used else "-",
                         "", "(how)", None, ("cold_cores_used", used, cores)))
        for name, r in self.results.items():
            issue = ISSUE["index_mb"].get(name)
            rows.append(("2 index size / GSYM's", name, "%s / %s = %.2fx" % (
                mb(r["index-bytes"]), mb(r["gsym-bytes"]), r["index-bytes"] / r["gsym-bytes"]) if r["gsym-bytes"] else "-",
                "%.1fx (%g / %g MB)" % (issue / ISSUE["gsym_mb"][name], issue, ISSUE["gsym_mb"][name]) if issue else "",
                "<= %gx" % INDEX_GSYM, bool(r["gsym-bytes"]) and r["index-bytes"] / r["gsym-bytes"] <= INDEX_GSYM,
                ("index_over_gsym", r["index-bytes"], r["gsym-bytes"])))
        for name, r in self.results.items():
            base_warm = self.baseline.get((name, "t-warm-j2", "wall_s"))
            base_atos = self.baseline.get((name, "t-atos", "wall_s"))
            if base_warm and base_atos:
                worst = max(r["warm-j2"] / base_warm, r["atos"] / base_atos)
                text = "warm %.2fx, atos %.2fx of the baseline" % (r["warm-j2"] / base_warm, r["atos"] / base_atos)
                met = worst <= NO_SLOWER
            else:
                worst, met = None, None
                text = "no baseline yet: this run's becomes it" if not os.path.exists(self.args.baseline or "") \
                    else "not in the baseline"
            rows.append(("2 lookups / baseline's", name, text, "", "<= %gx" % NO_SLOWER, met,
                         ("warm_over_baseline", worst, 1.0)))
        for name, r in self.results.items():
            rows.append(("3 warm batch / floor", name, ratio_text(r["warm-j2"], r["floor-warm"], m),
                         ISSUE["warm_floor"].get(name, ""), "<= %gx" % WARM_FLOOR,
                         r["warm-j2"] / r["floor-warm"] <= WARM_FLOOR,
                         ("warm_over_floor", r["warm-j2"], r["floor-warm"])))
        for name, r in self.results.items():
            rows.append(("3 warm -j 1 / -j 2 (speed-up)", name, ratio_text(r["warm-j1"], r["warm-j2"], m),
                         ISSUE["speedup"].get(name, ""), ">= %gx" % SPEEDUP, r["warm-j1"] / r["warm-j2"] >= SPEEDUP,
                         ("speedup_j2", r["warm-j1"], r["warm-j2"])))
        for name, r in self.results.items():
            rows.append(("3 nothing to resolve / floor", name, ratio_text(r["nothing"], r["floor-nothing"], m),
                         "", "<= %gx" % NOTHING_FLOOR, r["nothing"] / r["floor-nothing"] <= NOTHING_FLOOR,
                         ("nothing_over_floor", r["nothing"], r["floor-nothing"])))
        for name, r in self.results.items():
            rows.append(("4 atos batch / llvm-symbolizer", name, ratio_text(r["atos"], r["atos-llvm"], m),
                         ISSUE["atos_ratio"].get(name, ""), "<= %gx" % ATOS, r["atos"] / r["atos-llvm"] <= ATOS,
                         ("atos_over_symbolizer", r["atos"], r["atos-llvm"])))
        for name in self.results:
            worst = None
            for input_name, key, label, ours, theirs in self.bench.rows:
                if input_name == name and key != "index" and ours.rss and theirs.rss:
                    if worst is None or ours.rss / theirs.rss > worst[0]:
                        worst = (ours.rss / theirs.rss, key, ours.rss, theirs.rss)
            rows.append(("5 peak RSS / llvm-symbolizer's", name, "%.2fx in %s (%s / %s)" % (
                worst[0], worst[1], m.fmt_kb(worst[2]), m.fmt_kb(worst[3])) if worst else "-",
                ISSUE["rss_ratio"].get(name, ""), "<= %gx" % RSS, worst is not None and worst[0] <= RSS,
                ("rss_worst_over_symbolizer", worst[2] if worst else None, worst[3] if worst else None)))
        dyld = read_dyld(self.args)
        if dyld and dyld["binary"] != sha256_of(self.bench.bin):
            # Figures of another program: bench/dyld_cache.sh last ran before this one was built.
            rows.append(("6 dyld cache", "dyld-ios16", "of another build: run bench/dyld_cache.sh", "",
                         "< %g s" % DYLD_INDEX_S, None, ("dyld_index_s", None, DYLD_INDEX_S)))
            dyld = None
        if dyld:
            rows.append(("6 dyld cache: every image indexed", "dyld-ios16", "%.2f s (-j 2, %s)" % (
                dyld["index_s"], m.fmt_kb(dyld["index_kb"])), "", "< %g s" % DYLD_INDEX_S,
                dyld["index_s"] < DYLD_INDEX_S, ("dyld_index_s", dyld["index_s"], DYLD_INDEX_S)))
            apps = [r for n, r in self.results.items() if n.startswith("macho") and r.get("frames")]
            app = apps[0]["warm-j2"] / apps[0]["frames"] if apps else None
            # Past the run's start: ten copies of the report against one.
            system = max(dyld["warm10_s"] - dyld["warm_s"], 0.0) / (9 * dyld["frames"])
            rows.append(("6 warm system frame / app frame", "dyld-ios16", "%.1f / %.1f us a frame%s" % (
                system * 1e6, app * 1e6 if app else 0, " = %.2fx" % (system / app) if app else ""), "",
                "<= %gx" % DYLD_WARM, None if app is None else system / app <= DYLD_WARM,
                ("dyld_warm_frame_over_app", system, app)))
        for name, r in self.results.items():
            if "symcache-s" not in r:
                continue
            issue = ISSUE["symcache_s"].get(name)
            rows.append(("6 index build / SymCache build", name, "%s (%.1f cores) / %s = %.2fx" % (
                m.fmt_time(r["index-wall"]), r["index-cores"] or 0, m.fmt_time(r["symcache-s"]),
                r["index-wall"] / r["symcache-s"]), "SymCache %g s" % issue if issue else "", "(anchor)", None,
                ("index_build_over_symcache", r["index-wall"], r["symcache-s"])))
        for name, r in self.results.items():
            if "symcache-s" not in r:
                continue
            issue = ISSUE["symcache_mb"].get(name)
            rows.append(("6 index size / SymCache size", name, "%s / %s = %.2fx" % (
                mb(r["index-bytes"]), mb(r["symcache-bytes"]), r["index-bytes"] / r["symcache-bytes"]),
                "SymCache %g MB" % issue if issue else "", "(anchor)", None,
                ("index_size_over_symcache", r["index-bytes"], r["symcache-bytes"])))
        return rows

    def report(self):
        """Prints the table (unless --no-targets-print) and writes it to --targets-file;
        returns the lines for results.tsv."""
        m, rows = self.m, self.rows()
        if not rows:
            return []
        text = []

        def say(line=""):
            text.append(line)
        say()
        say("Targets (issue 24), %d cores; load average %.2f when measuring began, %.2f now" % (
            os.cpu_count() or 1, self.load_start, os.getloadavg()[0]))
        header = "%-32s %-15s %-46s %-24s %-8s %s" % ("target", "input", "measured now", "issue's figure", "target", "met")
        say(header)
        say("-" * len(header))
        for target, name, now, issue, value, met, _ in rows:
            say("%-32s %-15s %-46s %-24s %-8s %s" % (
                target, name, now, issue, value, "-" if met is None else "yes" if met else "NO"))
        say("  the issue's figures are of macho-thin (its 85 MB synthetic iOS dSYM); warm frames (6) are per frame"
            " of a whole warm run, process start included (the dyld row: bench/dyld_cache.sh's report).")
        say("  floor: bench/floor.c reads every report and writes as many bytes as the run it stands for"
            " (warm: %s; nothing to resolve: %s)." % (
                ", ".join("%s %s" % (n, mb(r["bytes-warm"])) for n, r in self.results.items()),
                ", ".join("%s %s" % (n, mb(r["bytes-nothing"])) for n, r in self.results.items())))
        say("  batch times: medians of alternating runs (warm -j 2, floor, warm -j 1, nothing to resolve, floor);"
            " RSS: the largest of the runs.")
        for name, r in self.results.items():
            warnings = [k[:-len("-status")] for k, v in r.items() if k.endswith("-status") and v]
            if warnings:
                say("  warning: %s: exit status != 0 in %s" % (name, ", ".join(warnings)))
            if not r["j1_same_output"]:
                say("  warning: %s: -j 1 and -j 2 wrote different output" % name)
        anchors = {r["symcache-version"] for r in self.results.values() if "symcache-version" in r}
        if anchors:
            say("  anchor: %s, one process per build, single-threaded, timed inside the process;"
                " ours: `symbolicate atos` with an empty cache, the whole process." % ", ".join(sorted(anchors)))
        elif not self.args.symcache_python:
            say("  anchor: Sentry's symbolic is not installed (no venv): the SymCache rows are left out.")
        met = [x[5] for x in rows if x[5] is not None]
        say("Met %d of %d targets of issue 24." % (sum(met), len(met)))
        if self.args.targets_file:
            with open(self.args.targets_file, "w") as f:
                f.write("\n".join(text) + "\n")
        if self.args.print_targets:
            print("\n".join(text))
        lines = []
        for target, name, now, issue, value, met_, (metric, ours, reference) in rows:
            lines.append("\t".join(str(x) for x in [
                name, "issue24", metric, "" if ours is None else ours, "" if reference is None else reference,
                "%.4f" % (ours / reference) if ours is not None and reference else "", value,
                "" if met_ is None else met_, "", target]))
        for name, r in self.results.items():  # the raw times, for the next run's baseline
            for key, metric in [("warm-j2", "wall_s"), ("warm-j1", "wall_s"), ("nothing", "wall_s"),
                                ("floor-warm", "wall_s"), ("floor-nothing", "wall_s"), ("atos", "wall_s")]:
                lines.append("\t".join(str(x) for x in [name, "t-" + key, metric, "%.6f" % r[key], "", "", "", "", "",
                                                        "issue 24 targets: " + key]))
        return lines


def read_dyld(args):
    """bench/dyld_cache.sh's figures (index_s, index_kb, warm_s, warm10_s, frames), when it has run."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "build", "dyld", "times.tsv")
    try:
        values = dict(line.rstrip("\n").split("\t") for line in open(path) if "\t" in line)
        return {"index_s": float(values["index_s"]), "index_kb": int(values["index_kb"]),
                "warm_s": float(values["warm_s"]), "warm10_s": float(values["warm10_s"]), "frames": int(values["frames"]),
                "binary": values.get("binary_sha256")}
    except (OSError, KeyError, ValueError):
        return None


def sha256_of(path):
    """The SHA-256 of the file at `path`, in hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def ratio_text(a, b, m):
    return "%s / %s = %.2fx" % (m.fmt_time(a), m.fmt_time(b), a / b) if a is not None and b else "-"
