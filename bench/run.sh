#!/usr/bin/env bash
# Wall time of symbolicate against llvm-symbolizer on the same addresses, in one run.
# Inputs come from Fixtures/build (Fixtures/build.sh makes them). Prints ratios ours/theirs.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.build/release/symbolicate
ORACLE=/opt/swift/usr/bin/llvm-symbolizer
[ -x "$ORACLE" ] || ORACLE=$(command -v llvm-symbolizer)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

now() { date +%s%N; }
measure() {  # best of 5, in milliseconds
    local best=""
    for _ in 1 2 3 4 5; do
        local start; start=$(now)
        "$@" >/dev/null 2>&1
        local took=$(( ($(now) - start) / 1000 ))
        if [ -z "$best" ] || [ "$took" -lt "$best" ]; then best=$took; fi
    done
    echo "$best"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

DSYM=Fixtures/build/macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64
# Every 4th address of the text section, 0x100004000 on.
python3 -c 'print("\n".join(hex(0x100004000 + 4 * i) for i in range(5000)))' > "$WORK/addresses"

echo "benchmark: $(wc -l < "$WORK/addresses") addresses in $DSYM"
ours=$(measure sh -c "$BIN atos -o $DSYM -i < $WORK/addresses")
theirs=$(measure sh -c "$ORACLE --obj=$DSYM -i -f -C < $WORK/addresses")
echo "  addresses on stdin:   symbolicate ${ours} us, llvm-symbolizer ${theirs} us, ratio $(ratio "$ours" "$theirs")"

ours=$(measure "$BIN" atos -o "$DSYM" 0x100004204)
theirs=$(measure "$ORACLE" --obj="$DSYM" -i -f -C 0x100004204)
echo "  one address:          symbolicate ${ours} us, llvm-symbolizer ${theirs} us, ratio $(ratio "$ours" "$theirs")"

ours=$(measure "$BIN" -d Fixtures/build/macho Fixtures/build/reports/App-arm64.crash)
echo "  one report (App-arm64.crash): symbolicate ${ours} us"
