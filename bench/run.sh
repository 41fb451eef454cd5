#!/usr/bin/env bash
# `make bench`: symbolicate's wall time and peak RSS against llvm-symbolizer's on the same
# addresses, in one run, on inputs built from source:
#   cppcheck         a large C++ program (Debian source package, gcc -g -O2): ELF, sanitizer logs
#   sqlite3          a small C program (Debian source package, gcc -g -O2): ELF, sanitizer logs
#   macho-thin       a large generated iOS arm64 app's dSYM: classic .crash reports
#   macho-universal  the same app with an x86_64 slice: universal dSYM, reports of both slices
# Everything heavy goes to bench/build/ once and is reused while its inputs and tools are
# unchanged (stamps), so a second run starts measuring at once. See bench/README.md.
#
# Environment:
#   SYMBOLICATE=PATH     the binary to measure (default .build/release/symbolicate)
#   BENCH_INPUTS="..."   a subset of the inputs above (default: all four)
#   BENCH_RUNS=N         runs per measurement of (a) and the index build (default 3)
#   BENCH_BUDGET=S       seconds after which a measurement stops repeating (default 90)
#   BENCH_MEASURE=0      skip the comparison with llvm-symbolizer
#   BENCH_SHARED=0       skip the shared-cache measurement (bench/shared_cache.py)
#   BENCH_TARGET_RUNS=N  alternating runs of the issue 24 batch measurements (default 5)
#   BENCH_BASELINE=TSV   the results.tsv "warm lookups no slower than" compares with (default
#                        bench/build/baseline.tsv, written from the first run's results)
#   SYMBOLIC_VERSION=V   the version of Sentry's symbolic, the anchor (default 13.9.0)
#   BENCH_TARGETS_LAST=1 do not print the targets table (bench/build/targets.txt): `make bench`
#                        prints it after bench/group.sh, as its last words
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

SYMBOLICATE="${SYMBOLICATE:-$ROOT/.build/release/symbolicate}"
INPUTS="${BENCH_INPUTS:-cppcheck sqlite3 macho-thin macho-universal}"
[[ -x "$SYMBOLICATE" ]] || die "no $SYMBOLICATE: run 'make build' first"
mkdir -p "$BUILD"

# The binary is copied first and the copy measured: a rebuild of .build/release while the
# inputs are built or the runs go on must not change the program half-way.
UNDER_TEST="$BUILD/symbolicate-under-test"
cp "$SYMBOLICATE" "$UNDER_TEST"
REVISION="$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?')"
log "measuring a copy of $SYMBOLICATE (built $(date -r "$SYMBOLICATE" '+%F %T'), tree $REVISION)"

# 0. Tools the measurements need: GNU time for peak RSS, LLVM 14 for gsymutil, dsymutil, lld;
#    the floor program; Sentry's symbolic in a venv (the anchor; left out when pip fails).
need_packages time python3 llvm-14 lld-14
for tool in "$TOOLCHAIN/llvm-symbolizer" "$TOOLCHAIN/llvm-objdump" "$TOOLCHAIN/clang" llvm-gsymutil-14; do
    command -v "$tool" >/dev/null || die "missing tool: $tool"
done
FLOOR="$BUILD/floor"
build_floor "$FLOOR"
SYMBOLIC_PYTHON="$(symbolic_venv "$BUILD/symbolic-venv" "${SYMBOLIC_VERSION:-13.9.0}")"

# 1. The inputs, each built by its own script (skipped when up to date).
prepare_start=$SECONDS
wants() { [[ " $INPUTS " == *" $1 "* ]]; }
wants cppcheck && "$BENCH_DIR/input-cppcheck.sh"
wants sqlite3 && "$BENCH_DIR/input-sqlite.sh"
if wants macho-thin || wants macho-universal; then "$BENCH_DIR/input-macho.sh"; fi

# 2. The workloads: 1,000 reports per input and the addresses llvm-symbolizer is asked
#    (make_workload.py), regenerated when the script, the tools or the input binaries change.
#    workload NAME KIND ARGS...
workload() {
    local name="$1"; shift
    local dir="$BUILD/work/$name" files=() arg
    for arg in "$@"; do
        [[ "$arg" == *=/* ]] && arg="${arg#*=}"
        [[ -f "$arg" ]] && files+=("$(stat -c '%n %s %Y' "$arg")")
    done
    local stamp
    stamp="$(stamp_of "$* ${files[*]}
$(tool_versions "$TOOLCHAIN/llvm-objdump")" "$BENCH_DIR/make_workload.py")"
    if up_to_date "$dir" "$stamp" workload.json oracle/all.txt; then
        log "$name: workload up to date ($dir)"
        return 0
    fi
    log "$name: writing the workload"
    rm -rf "$dir"
    python3 "$BENCH_DIR/make_workload.py" "$@" --out "$dir"
    echo "$stamp" > "$dir/.stamp"
}
M="$BUILD/macho"
wants cppcheck && workload cppcheck elf --binary "$BUILD/cppcheck/debug/cppcheck" --module-path /srv/app/bin/cppcheck
wants sqlite3 && workload sqlite3 elf --binary "$BUILD/sqlite/debug/sqlite3" --module-path /srv/app/bin/sqlite3
wants macho-thin && workload macho-thin macho --dsym "$M/thin/App.dSYM/Contents/Resources/DWARF/App" \
    --slice "arm64=$M/bin/App-arm64"
wants macho-universal && workload macho-universal macho --dsym "$M/universal/App.dSYM/Contents/Resources/DWARF/App" \
    --slice "arm64=$M/bin/App-universal" --slice "x86_64=$M/bin/App-universal"
log "inputs and workloads ready in $((SECONDS - prepare_start)) s"

# 3. Measure and print the tables (bench/build/results.tsv gets the same numbers).
#    The table of the issue 24 targets comes last; "warm lookups no slower than today" compares
#    with the baseline, which the first run writes (a copy of its results.tsv).
args=()
for name in $INPUTS; do args+=("$name=$BUILD/work/$name"); done
# Options of measure.py alone (shared_cache.py below takes the same inputs, not these).
targets=(--runs-targets "${BENCH_TARGET_RUNS:-5}" --floor "$FLOOR" --targets-file "$BUILD/targets.txt")
[[ -n "$SYMBOLIC_PYTHON" ]] && targets+=(--symcache-python "$SYMBOLIC_PYTHON")
[[ -n "${BENCH_TARGETS_LAST:-}" ]] && targets+=(--no-targets-print)
BASELINE="${BENCH_BASELINE:-$BUILD/baseline.tsv}"
rm -f "$BUILD/targets.txt"
if [[ "${BENCH_MEASURE:-1}" != 0 ]]; then
    python3 "$BENCH_DIR/measure.py" --symbolicate "$UNDER_TEST" --symbolizer "$TOOLCHAIN/llvm-symbolizer" \
        --gsymutil llvm-gsymutil-14 --out-dir "$BUILD/out" --tsv "$BUILD/results.tsv" \
        --runs "${BENCH_RUNS:-3}" --budget "${BENCH_BUDGET:-90}" --baseline "$BASELINE" "${targets[@]}" "${args[@]}"
    if [[ ! -e "$BASELINE" ]]; then
        cp "$BUILD/results.tsv" "$BASELINE"
        log "baseline for 'warm lookups no slower than today': $BASELINE (this run's results)"
    fi
fi

# 4. A second machine with the shared prebuilt cache against a warm local run
#    (bench/build/shared-cache.tsv gets the numbers).
if [[ "${BENCH_SHARED:-1}" != 0 ]]; then
    python3 "$BENCH_DIR/shared_cache.py" --symbolicate "$UNDER_TEST" --out-dir "$BUILD/out-shared" \
        --tsv "$BUILD/shared-cache.tsv" --runs "${BENCH_RUNS:-3}" "${args[@]}"
fi
