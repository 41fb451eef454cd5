#!/usr/bin/env bash
# `make bench`, dyld shared caches: a generated cache of an iOS release's size (2,500 images,
# 5 million function symbols, 4 million of them local in `.symbols`, 1.2 GB of __TEXT;
# bench/make_dyld_cache.py)
# and a report of 2,000 raw frames in 200 of its images. Measures, with wall time and peak RSS:
#   index   every image indexed into an empty cache folder (-j 2)
#   cold    the report with --no-cache: the 200 images' indexes built in memory
#   warm    the report against the indexes `index` built: mapped, nothing of the cache read
#   warm10  the same report ten times in one warm run (a frame's cost past the run's start)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
SYMBOLICATE="${SYMBOLICATE:-$ROOT/.build/release/symbolicate}"
[[ -x "$SYMBOLICATE" ]] || die "no $SYMBOLICATE: run 'make build' first"
OUT="$ROOT/bench/build/dyld"
stamp=$(sha256sum bench/make_dyld_cache.py | cut -d' ' -f1)
if [[ ! -f "$OUT/.stamp" || "$(cat "$OUT/.stamp")" != "$stamp" ]]; then
    rm -rf "$OUT" && mkdir -p "$OUT"
    python3 bench/make_dyld_cache.py --out "$OUT"
    echo "$stamp" > "$OUT/.stamp"
fi
cache="$OUT/dyld_shared_cache_arm64e"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
measure() {  # name, command...
    local name=$1; shift
    /usr/bin/time -f "%e %M" -o "$scratch/time" "$@" > "$scratch/out" 2> "$scratch/err" || { cat "$scratch/err" >&2; die "$name failed"; }
    read -r seconds kb < "$scratch/time"
    printf '%-8s %8ss %8s MiB\n' "$name" "$seconds" "$((kb / 1024))"
    printf '%s_s\t%s\n%s_kb\t%s\n' "$name" "$seconds" "$name" "$kb" >> "$OUT/times.tsv.new"
}
rm -f "$OUT/times.tsv.new"
echo "dyld shared cache: $(du -sh --apparent-size "$OUT" | cut -f1) in $OUT"
measure index "$SYMBOLICATE" index -j 2 -d "$cache" --cache-dir "$scratch/cache"
echo "         $(tail -n 1 "$scratch/err")"
measure cold "$SYMBOLICATE" --no-cache -d "$cache" --format frames "$OUT/report.crash"
resolved=$(awk -F'\t' '$6 != ""' "$scratch/out" | wc -l)
echo "         $resolved of 2000 frames named"
# The report's frames are return addresses past each function's start: a few fall before the
# first function of their image. A run that names far fewer measures nothing.
[ "$resolved" -ge 1900 ] || die "only $resolved of 2000 frames named"
measure warm "$SYMBOLICATE" --cache-dir "$scratch/own" --shared-cache "$scratch/cache" -d "$cache" --format frames "$OUT/report.crash"
# The same report ten times in one warm run: what a frame costs past the run's start (opening
# the cache, mapping its indexes), for the targets table's system frame against an app frame.
reports=(); for _ in 1 2 3 4 5 6 7 8 9 10; do reports+=("$OUT/report.crash"); done
measure warm10 "$SYMBOLICATE" -q --cache-dir "$scratch/own" --shared-cache "$scratch/cache" -d "$cache" --format frames "${reports[@]}"
# For the targets table (bench/targets.py): the times above and the report's frame count.
printf 'frames\t2000\n' >> "$OUT/times.tsv.new"
# Which program these figures are of: the targets table leaves them out for another.
printf 'binary_sha256\t%s\n' "$(sha256sum < "$SYMBOLICATE" | cut -d' ' -f1)" >> "$OUT/times.tsv.new"
mv "$OUT/times.tsv.new" "$OUT/times.tsv"
