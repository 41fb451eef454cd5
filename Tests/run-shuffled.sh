#!/usr/bin/env bash
# Runs every XCTest test in a random order, to show tests that depend on the order they run in:
# on what another test left behind (in the process, the cache folders, temporary files) or on
# its not having run yet.
#
#   Tests/run-shuffled.sh [SEED]        a seed is drawn and printed when none is given
#
# The tests are listed from the test bundle, shuffled with SEED, and cut into groups of 1 to
# SHUFFLE_GROUP_SIZE tests (default 40; also drawn from SEED); each group runs in a process of
# its own, one group after another, in the shuffled order of the groups. XCTest on Linux runs
# the tests of one process in their declaration order whatever order they are named in, so
# what the seed decides is which tests share a process (a test often runs without the tests
# declared before it, or alone), which runs first in a fresh process, and the order in which
# the processes leave files for each other. The same SEED gives the same groups in the same
# order, on any machine with the same tests.
#
#   SHUFFLE_GROUP_SIZE=N  the most tests in one process (1 runs every test alone)
#   SHUFFLE_JOBS=N        groups run at once (default 1); more than 1 also shows tests of two
#                         processes that share a file, a folder or a port
#   SHUFFLE_ONLY=K[,K]    runs only these groups of the seed's plan (to reproduce a failure)
#   SHUFFLE_SKIP_BUILD=1  uses the test bundle and the tool as they are built
#   SHUFFLE_GROUP_TIMEOUT=S  seconds a group's process may take before it is stopped and its
#                         unfinished tests count as failed (default 1800)
#
# Each group's log is kept in .build/shuffled/SEED/group-K.log. Ends with "shuffled: N passed,
# N failed, N skipped" and exits 1 when a test failed (or a group's process died), after the
# command that runs the failing groups again.
set -euo pipefail
cd "$(dirname "$0")/.."

seed=${1:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
case $seed in '' | *[!0-9]*) echo "run-shuffled: the seed is a number, not '$seed'" >&2; exit 2 ;; esac
group_size=${SHUFFLE_GROUP_SIZE:-40}
jobs=${SHUFFLE_JOBS:-1}
only=${SHUFFLE_ONLY:-}
group_timeout=${SHUFFLE_GROUP_TIMEOUT:-1800}
echo "run-shuffled: seed $seed (again: Tests/run-shuffled.sh $seed), at most $group_size tests a process, $jobs at once"

if [ "${SHUFFLE_SKIP_BUILD:-}" != 1 ]; then
    # The test bundle alone, as make test builds it: building every target would also build
    # the C++ protoc of the protobuf package, which nothing here uses.
    swift build --product symbolicatePackageTests
fi
bundle=$(swift build --show-bin-path)/symbolicatePackageTests.xctest
[ -x "$bundle" ] || { echo "run-shuffled: no test bundle at $bundle" >&2; exit 2; }

out=.build/shuffled/$seed
rm -rf "$out"
mkdir -p "$out"
"$bundle" --list-tests | { grep -E '^[A-Za-z0-9_]+\.[A-Za-z0-9_]+/[A-Za-z0-9_]+$' || true; } > "$out/tests.txt"
[ -s "$out/tests.txt" ] || { echo "run-shuffled: the test bundle lists no test" >&2; exit 2; }

# The plan, one line per group: "K<TAB>test,test,...". Python's Random with an integer seed
# gives the same sequence on every version and machine.
python3 - "$seed" "$group_size" "$out/tests.txt" > "$out/plan.txt" <<'EOF'
import random, sys
seed, most, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
tests = [line.strip() for line in open(path) if line.strip()]
tests.sort()  # the plan depends on the seed and the set of tests, not on the listing's order
rng = random.Random(seed)
rng.shuffle(tests)
k, i = 1, 0
while i < len(tests):
    n = rng.randint(1, max(1, most))
    print(f"{k}\t{','.join(tests[i:i + n])}")
    i += n
    k += 1
EOF
groups=$(wc -l < "$out/plan.txt")
echo "run-shuffled: $(wc -l < "$out/tests.txt") tests in $groups groups (plan: $out/plan.txt)"

# Runs group K of the plan in a process of its own; its log in $out/group-K.log.
run_group() {
    local k=$1 tests
    tests=$(awk -F'\t' -v k="$k" '$1 == k { print $2 }' "$out/plan.txt")
    timeout -k 10 "$group_timeout" "$bundle" "$tests" > "$out/group-$k.log" 2>&1
    echo $? > "$out/group-$k.status"
}
export -f run_group
export out bundle group_timeout

if [ -n "$only" ]; then
    selected=$(tr ',' '\n' <<< "$only")
    for k in $selected; do
        [[ $k =~ ^[0-9]+$ ]] && [ "$k" -ge 1 ] && [ "$k" -le "$groups" ] \
            || { echo "run-shuffled: SHUFFLE_ONLY names group '$k'; the plan has groups 1 to $groups" >&2; exit 2; }
    done
else
    selected=$(cut -f1 "$out/plan.txt")
fi
# xargs keeps at most $jobs groups running; a group's failure does not stop the others.
printf '%s\n' $selected | xargs -P "$jobs" -I{} bash -c 'run_group {}; s=$(cat "$out/group-{}.status"); [ "$s" = 0 ] && r=ok || r="FAILED (exit $s)"; echo "group {}: $r"' || true

passed=0 failed=0 skipped=0 failing=()
for k in $selected; do
    log=$out/group-$k.log
    p=$(grep -cE "^Test Case '.*' passed" "$log" || true)
    f=$(grep -cE "^Test Case '.*' failed" "$log" || true)
    s=$(grep -cE "^Test Case '.*' skipped" "$log" || true)
    expected=$(awk -F'\t' -v k="$k" '$1 == k { print split($2, a, ",") }' "$out/plan.txt")
    status=$(cat "$out/group-$k.status" 2>/dev/null || echo "?")
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
    if [ "$status" != 0 ] || [ "$f" != 0 ] || [ $((p + f + s)) != "$expected" ]; then
        failing+=("$k")
        # A process that died counts the tests it did not finish as failed.
        if [ $((p + f + s)) -lt "$expected" ]; then failed=$((failed + expected - p - f - s)); fi
        echo
        echo "=== group $k (exit $status): $(awk -F'\t' -v k="$k" '$1 == k { print $2 }' "$out/plan.txt")"
        grep -E "error: |^Test Case '.*' failed|Fatal error|Crash|Illegal instruction|Segmentation" "$log" | head -20 || true
        echo "    (the whole log: $log)"
    fi
done

echo
if [ ${#failing[@]} -gt 0 ]; then
    list=$(IFS=,; echo "${failing[*]}")
    echo "run-shuffled: seed $seed: groups $list failed; again: SHUFFLE_GROUP_SIZE=$group_size SHUFFLE_ONLY=$list Tests/run-shuffled.sh $seed"
fi
echo "shuffled: $passed passed, $failed failed, $skipped skipped"
[ ${#failing[@]} -eq 0 ]
