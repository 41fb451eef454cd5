#!/usr/bin/env bash
# `symbolicate group` against symbolicating the same 1,000 reports (`make bench` runs it last;
# it also runs alone): wall time and peak RSS of
#   symbolicate -d DEBUG REPORTS > /dev/null          (text, the default)
#   symbolicate group -d DEBUG REPORTS > /dev/null    (the table)
# with a warm cache, alternating, median of BENCH_RUNS (default 5), and their ratio; the target
# is at most 1.10 (grouping costs at most 10% more than symbolicating).
#
# Workloads: "fixtures", 1,000 reports copied from Fixtures/build/group (.crash and .ips, six
# groups; the debug files are small, so symbolication is cheap and grouping's share of the
# time is at its largest), and each workload of bench/build/work/ that `make bench` built
# (macho-thin, macho-universal: .crash reports; cppcheck, sqlite3: sanitizer logs).
#
# Environment: SYMBOLICATE=PATH (default .build/release/symbolicate), BENCH_RUNS=N.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

SYMBOLICATE="${SYMBOLICATE:-$ROOT/.build/release/symbolicate}"
RUNS="${BENCH_RUNS:-5}"
[[ -x "$SYMBOLICATE" ]] || die "no $SYMBOLICATE: run 'make build' first"
[[ -f Fixtures/build/group/groups.tsv ]] || die "no Fixtures/build/group: run 'make fixtures' first"
need_packages time
WORK="$BUILD/group"
rm -rf "$WORK"
mkdir -p "$WORK/fixtures/reports" "$WORK/cache"
UNDER_TEST="$WORK/symbolicate-under-test"
cp "$SYMBOLICATE" "$UNDER_TEST"
export XDG_CACHE_HOME="$WORK/cache"
unset SYMBOLICATE_PATH

# The fixture workload: the group reports, copied round-robin under new names.
mapfile -t sources < <(find Fixtures/build/group -name '*.crash' -o -name '*.ips' | LC_ALL=C sort)
for ((i = 0; i < 1000; i++)); do
    source_path="${sources[i % ${#sources[@]}]}"
    cp "$source_path" "$WORK/fixtures/reports/$(printf '%04d' "$i")-$(basename "$source_path")"
done

# measure NAME DEBUG REPORT-ARGS...: prints one result line.
measure() {
    local name="$1" debug="$2"; shift 2
    local reports=("$@") kind r
    "$UNDER_TEST" -q -d "$debug" "${reports[@]}" > /dev/null 2>&1 || true   # warm the cache
    : > "$WORK/$name.times"
    for ((r = 0; r < RUNS; r++)); do
        for kind in symbolicate group; do
            local argv=("$UNDER_TEST")
            [[ $kind == group ]] && argv+=(group)
            argv+=(-q -d "$debug" "${reports[@]}")
            /usr/bin/time -f "$kind %e %M" -a -o "$WORK/$name.times" "${argv[@]}" > /dev/null 2> "$WORK/$name.$kind.stderr" || true
        done
    done
    python3 - "$name" "$WORK/$name.times" "${#reports[@]}" <<'PY'
import statistics, sys
name, path = sys.argv[1], sys.argv[2]
walls, rss = {}, {}
for line in open(path):
    kind, wall, kb = line.split()
    walls.setdefault(kind, []).append(float(wall))
    rss[kind] = max(rss.get(kind, 0), int(kb))
s, g = statistics.median(walls["symbolicate"]), statistics.median(walls["group"])
ratio = g / s if s > 0 else float("inf")
print("%-16s symbolicate %6.2f s %7.1f MB | group %6.2f s %7.1f MB | group/symbolicate %.3f (target <= 1.10: %s)" % (
    name, s, rss["symbolicate"] / 1024, g, rss["group"] / 1024, ratio, "met" if ratio <= 1.10 else "NOT met"))
PY
}

log "group: $RUNS runs each, warm cache"
measure fixtures Fixtures/build/macho "$WORK/fixtures/reports"
for dir in "$BUILD"/work/*/; do
    [[ -f "$dir/workload.json" ]] || continue
    name="$(basename "$dir")"
    debug="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["debug_dir"])' "$dir/workload.json")"
    suffix="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["report_suffix"])' "$dir/workload.json")"
    if [[ "$suffix" == .crash || "$suffix" == .ips ]]; then
        measure "$name" "$debug" "$dir/reports"
    else
        mapfile -t logs < <(find "$dir/reports" -type f | LC_ALL=C sort)
        measure "$name" "$debug" "${logs[@]}"
    fi
done
