#!/usr/bin/env bash
# bench/same_output.sh OLD NEW: whether two symbolicate binaries write the same bytes on the
# bench workloads (bench/build/work, made by `make bench`): every report of each input in the
# text, json and frames formats, and every app address through `atos -i`; standard error
# compared as a set of lines less the report each names (which report first meets a module
# without a debug file depends on the workers). Each binary gets a cache folder of its own,
# built by its first run. Exit status 0 when everything is the same.
#
#   git stash; make build; cp .build/release/symbolicate /tmp/before; git stash pop; make build
#   bench/same_output.sh /tmp/before .build/release/symbolicate
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[[ $# -eq 2 && -x "$1" && -x "$2" ]] || die "usage: $0 OLD-BINARY NEW-BINARY"
OLD="$(realpath "$1")" NEW="$(realpath "$2")"
WORK="$BUILD/work"
[[ -d "$WORK" ]] || die "no $WORK: run 'make bench' first"
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
field() { python3 -c "import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(' '.join(v) if isinstance(v, list) else v)" "$1" "$2"; }
errors() { sed -E 's/^symbolicate: [^:]*reports\/[^:]*: /symbolicate: /' "$1" | sort; }
status=0
for dir in "$WORK"/*/; do
    name="$(basename "$dir")" spec="$dir/workload.json"
    [[ -f "$spec" ]] || continue
    debug_dir="$(field "$spec" debug_dir)" debug_file="$(field "$spec" debug_file)" atos_args="$(field "$spec" atos_args)"
    for format in text json frames atos; do
        for which in OLD NEW; do
            binary="${!which}" out="$SCRATCH/$name-$format-$which"
            if [[ "$format" == atos ]]; then
                # shellcheck disable=SC2086
                XDG_CACHE_HOME="$SCRATCH/cache-$which" "$binary" atos -o "$debug_file" $atos_args -i \
                    < "$dir/oracle/all.txt" > "$out.out" 2> "$out.err" || true
            else
                XDG_CACHE_HOME="$SCRATCH/cache-$which" "$binary" --format "$format" -d "$debug_dir" "$dir"/reports/* \
                    > "$out.out" 2> "$out.err" || true
            fi
        done
        a="$SCRATCH/$name-$format-OLD" b="$SCRATCH/$name-$format-NEW"
        if cmp -s "$a.out" "$b.out" && cmp -s <(errors "$a.err") <(errors "$b.err"); then
            log "$name $format: the same ($(wc -c < "$b.out") bytes)"
        else
            log "$name $format: DIFFERENT"
            status=1
        fi
    done
done
exit $status
