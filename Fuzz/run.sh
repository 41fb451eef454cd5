#!/usr/bin/env bash
# Builds and runs fuzz targets: Fuzz/run.sh [--replay] [target...]
#   (default: every Fuzz/*.swift and Fuzz/*.c)
#
#   FUZZ_SECONDS  how long each target runs (default 60)
#   FUZZ_JOBS     how many targets run at once (default 2)
#
# Each target keeps its corpus in .build-fuzz/corpus/<target> from run to run; seeds are taken
# afresh from Fixtures/build and ../shared/corpus. Anything found (a crash, a broken promise,
# more than 2 GB of memory, an input taking over 10 s) lands in .build-fuzz/findings/<target>/
# and makes the script exit non-zero.
#
# --replay runs each target once over its kept regression inputs (Tests/FuzzRegressions/<target>)
# and its seeds, whole (no length limit) and without mutating them: the same inputs give the
# same verdict on every run, which is what CI wants. Open-ended fuzzing, which starts from a new
# random point each time and may find what no change made, is for before a change lands.
set -uo pipefail
cd "$(dirname "$0")/.."

REPLAY=0
if [ "${1:-}" = "--replay" ]; then
    REPLAY=1
    shift
fi

SECONDS_EACH=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-2}
OUT=.build-fuzz
SHARED=../shared/corpus
# Swift's own backtracer would take the crash signal before libFuzzer and AddressSanitizer do.
export SWIFT_BACKTRACE=enable=no
# A smaller quarantine: with the default 256 MB, every large output buffer lands on fresh pages
# and the kernel's page clearing took more time than the code under test.
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=16}

if [ $# -gt 0 ]; then
    targets=("$@")
else
    targets=($(ls Fuzz/*.swift Fuzz/*.c 2>/dev/null | xargs -n1 basename | sed 's/\.[a-z]*$//' | sort -u))
fi

started=$(date +%s)
for target in "${targets[@]}"; do
    Fuzz/build.sh "$target" || { echo "fuzz: building $target failed" >&2; exit 2; }
done
echo "fuzz: built ${#targets[@]} targets in $(( $(date +%s) - started ))s"

# Seeds, by the kind of input a target reads.
seeds="$OUT/seeds"
rm -rf "$seeds" && mkdir -p "$seeds"/{reports,objects,indexes,caches}
copy_seeds() {  # kind, files...
    local kind=$1; shift
    for file in "$@"; do
        [ -f "$file" ] && [ "$(stat -c %s "$file")" -le 1048576 ] || continue
        cp "$file" "$seeds/$kind/$(echo "$file" | sed 's|^[./]*||' | tr '/' '_')"
    done
}
if [ -d Fixtures/build ]; then
    copy_seeds reports Fixtures/build/reports/*.crash Fixtures/build/ips/* Fixtures/build/metrickit/* Fixtures/build/kscrash/*
    copy_seeds objects $(find Fixtures/build/macho Fixtures/build/elf Fixtures/build/debuglink Fixtures/build/obj -type f)
    # The generated dyld shared caches' main files (the single-file one holds every part).
    copy_seeds caches $(find Fixtures/build/dyld -maxdepth 2 -type f -name 'dyld_shared_cache_*' ! -name '*.*')
else
    echo "fuzz: Fixtures/build is absent (make fixtures builds it): no seeds from the fixtures"
fi
if [ -d "$SHARED" ]; then
    copy_seeds reports "$SHARED"/reports/*
    copy_seeds objects $(find "$SHARED/debug" -type f ! -name '*.plist')
else
    echo "fuzz: $SHARED is absent: no seeds from the shared corpus"
fi
# Linux logs: a glibc backtrace and a sanitizer report, the two shapes the parser reads.
printf '%s\n' 'Obtained 3 stack frames.' './app(crash_here+0x1d)[0x55d0c0a011a9]' \
    '/lib/x86_64-linux-gnu/libc.so.6(+0x271ca)[0x7f3a2b8271ca]' './app(+0x1155)[0x55d0c0a01155]' \
    >"$seeds/reports/glibc-backtrace.log"
printf '%s\n' '==4242==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000014' \
    '    #0 0x4c5e2f in parse_record /src/parser.c:31:5' '    #1 0x4c6001 in main (/build/app+0x4c6001)' \
    '    #2 0x7f1e2a229d8f  (/lib/x86_64-linux-gnu/libc.so.6+0x29d8f) (BuildId: 4f7b0c955c3f81b5)' \
    >"$seeds/reports/asan.log"
# Android tombstones: a crash dump with a second thread and a stack section, and the same crash
# behind logcat's threadtime prefixes.
printf '%s\n' '*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***' "ABI: 'arm64'" \
    'pid: 4242, tid: 4242, name: example  >>> com.example <<<' \
    'signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0000000000000000' 'backtrace:' \
    '      #00 pc 000000000000433c  /data/app/~~x==/com.example-y==/lib/arm64/libcrashy.so (cart_total+36) (BuildId: 5f0e3a1c)' \
    '      #01 pc 000000000000c8c8  /data/app/~~x==/com.example-y==/base.apk!libcrashy.so (offset 0x4000) (Foo::bar(int) const+24)' \
    'stack:' '    #00  0000007fd2c1a0f0  000000000000433c  /data/app/lib/arm64/libcrashy.so' \
    '--- --- --- --- --- --- --- --- --- --- --- --- --- --- --- ---' 'pid: 4242, tid: 4250, name: RenderThread  >>> com.example <<<' \
    'backtrace:' '      #00 pc 00000000000044c0  /data/app/lib/arm64/libcrashy.so (worker_wait+12) in worker_wait /src/a.c:41:15' \
    >"$seeds/reports/tombstone.txt"
printf '%s\r\n' '11-20 10:00:00.456  4242  4242 F DEBUG   : pid: 4242, tid: 4242, name: example  >>> com.example <<<' \
    'I/DEBUG   (  135):     #00 pc 0000433c  /system/lib/libc.so (tgkill+12)' \
    '11-20 10:00:00.457   500   520 I ActivityManager: Process com.example has died' \
    '11-20 10:00:00.456  4242  4242 A DEBUG   :     #01 pc 00001234  /data/app/com.example-1/base.apk (offset 0x2a4000)' \
    >"$seeds/reports/tombstone-logcat.txt"
# Protobuf reports (an Android protobuf tombstone, a .plcrash report): binary, written by
# Fuzz/make_protobuf_seeds.py and kept in Fuzz/seeds.
cp Fuzz/seeds/* "$seeds/reports/"
# Swift runtime backtraces: the text and the JSON crash log.
printf '%s\n' '*** Program crashed: Illegal instruction at 0x00007ffff796df7f ***' '' 'Thread 0 "app" crashed:' '' \
    '0      0x00007ffff796df7f' '1 [ra] 0x00005555555557e4' '2 [async] 0x0000555555555900' '3      ...' '' 'Registers:' '' \
    'Images (2 omitted):' '' '0x0000555555554000–0x0000555555555e90 fdeb5b5d06b673c5 app /tmp/app' \
    >"$seeds/reports/swift-backtrace.log"
printf '%s\n' '{ "kind": "crashReport", "threads": [ { "name": "app", "crashed": true, "frames": [ { "kind": "programCounter", "address": "0x00005555555557e4" }, { "kind": "returnAddress", "address": "0x0000555555555721" }, { "kind": "truncated" } ] } ], "images": [ { "name": "app", "buildId": "fdeb5b5d", "path": "/tmp/app", "baseAddress": "0x0000555555554000", "endOfText": "0x0000555555555e90" } ] }' \
    >"$seeds/reports/swift-backtrace.json"
# Call trees: a microstackshot report (spindump layout) and a sample call graph.
printf '%s\n' 'Data Source:      Microstackshots' '' 'Heaviest stack for the target process:' \
    '  16  ??? (App + 16900) [0x104a34204]' '' 'Powerstats for:   App [1234]' \
    '  20  ??? (libdyld.dylib + 5512) [0x1a6d7a588]' '    16  main + 100 (main.c:77,12 in App + 16856) [0x104a341d8] 1-16' \
    '      4   ??? (<4C4C4408-5555-3144-A1C2-93818143D9EB> + 17068) [0x1051c42ac]' '       *4   ??? (kernel + 1234)' \
    '        4    <on behalf of App [1234]>' '' '  Binary Images:' \
    '         0x104a30000 -        ???  com.example.App 1.0 (1) <4C4C44C3-5555-3144-A19B-AF60D4F21F14>  /App.app/App' \
    >"$seeds/reports/microstackshot.diag"
printf '%s\n' 'Call graph:' '    2757 Thread_1166804   DispatchQueue_1: com.apple.main-thread  (serial)' \
    '    + 2757 start  (in libdyld.dylib) + 1  [0x7fff6842a085]' \
    '    +   2757 ???  (in App)  load address 0x10a2f1000 + 0x8ab  [0x10a2f18ab]' \
    '    +     2757 main  (in App) + 75  [0x10a2f18ab]  main.c:80' '' 'Binary Images:' \
    '       0x10a2f1000 -        0x10a2f3fff +App (1.0 - 1) <4C4C442E-5555-3144-A1DC-44E002619AFD> /App' \
    >"$seeds/reports/sample.txt"
# Reports copied into one file: two classic reports, an .ips one and text after it.
if [ -f Fixtures/build/reports/App-arm64.crash ] && [ -f Fixtures/build/ips/App-arm64.ips ]; then
    cat Fixtures/build/reports/App-arm64.crash Fixtures/build/reports/App-x86_64.crash Fixtures/build/ips/App-arm64.ips \
        >"$seeds/reports/several-reports.crash"
    printf '\n-- exported --\n' >>"$seeds/reports/several-reports.crash"
fi
# Index files: written by the tool itself into a cache of its own, when it has been built.
tool=""
for candidate in .build/release/symbolicate .build/debug/symbolicate; do
    [ -x "$candidate" ] && { tool=$candidate; break; }
done
if [ -n "$tool" ] && [ -d Fixtures/build ]; then
    cache="$OUT/index-cache"
    rm -rf "$cache"
    for pair in macho:Fixtures/build/reports/App-x86_64.crash macho:Fixtures/build/reports/App-arm64.crash; do
        XDG_CACHE_HOME="$PWD/$cache" "$tool" -d "Fixtures/build/${pair%%:*}" "${pair#*:}" >/dev/null 2>&1
    done
    # More indexes through atos: Swift names, and C++ with inlining over several checksum blocks
    # (64 KiB each), so that a damaged block can be found by a lookup, not only when opened.
    for object in Fixtures/build/elf/swift-shapes "$SHARED/debug/macos/crash.dSYM"; do
        [ -e "$object" ] && XDG_CACHE_HOME="$PWD/$cache" "$tool" atos -o "$object" 0x1000 >/dev/null 2>&1
    done
    copy_seeds indexes $(find "$cache" -name '*.index' 2>/dev/null)
else
    echo "fuzz: no built symbolicate or no fixtures: index_file starts without stored index files"
fi

# The dwarf_sections target reads DWARF sections in a layout of its own (Fuzz/dwarf_sections.c),
# made from the same object files.
mkdir -p "$seeds/sections"
python3 Fuzz/make_dwarf_seeds.py "$seeds/sections" "$seeds"/objects/* >/dev/null 2>&1 \
    || echo "fuzz: no section seeds for dwarf_sections (make_dwarf_seeds.py failed)"

# Symbol names for the demangler: the mangled names of the fixtures' symbol tables (C++, Swift,
# Rust legacy and v0), one file each, every third of them, and the hostile names kept as
# regression inputs.
mkdir -p "$seeds/names"
if [ -d Fixtures/build/elf ]; then
    find Fixtures/build/elf -type f -exec llvm-nm --just-symbol-name {} + 2>/dev/null \
        | grep -E '^(_Z|_R|\$s|_D[0-9])' | LC_ALL=C sort -u | awk 'NR % 3 == 0' | head -n 4000 \
        | awk -v dir="$seeds/names" '{ printf "%s", $0 > (dir "/" NR); close(dir "/" NR) }'
fi
cp Tests/FuzzRegressions/demangle/* "$seeds/names/" 2>/dev/null

# Zip archives for zip_archive: the fixtures' Android libraries in small APKs, stored and
# deflated, and an app bundle's layout.
mkdir -p "$seeds/archives"
python3 - "$seeds/archives" Fixtures/build/android/*/libcrashy.so <<'PY' \
    || echo "fuzz: no archive seeds for zip_archive"
import os, sys, zipfile
out, libraries = sys.argv[1], sys.argv[2:]
for i, library in enumerate(libraries):
    abi = library.split("/")[-2]
    for name, method, prefix in [("stored", zipfile.ZIP_STORED, "lib/"), ("deflated", zipfile.ZIP_DEFLATED, "lib/"),
                                 ("bundle", zipfile.ZIP_DEFLATED, "base/lib/")]:
        with zipfile.ZipFile(os.path.join(out, f"{abi}-{name}.apk"), "w", method) as z:
            z.writestr("AndroidManifest.xml", b"<manifest/>")
            z.write(library, f"{prefix}{abi}/libcrashy.so")
PY

seed_kind() {
    case $1 in
        zip_archive) echo archives ;;
        demangle) echo names ;;
        dwarf_sections|dwarf_tables) echo sections ;;
        object_identity|dwarf_*) echo objects ;;
        index_file) echo indexes ;;
        dyld_cache) echo caches ;;
        *) echo reports ;;
    esac
}

# One run of `target` over every input of its regression folder and its seeds, each executed
# once (-runs=0 executes the inputs of the folders given and stops before any mutation).
replay_one() {
    local target=$1
    local findings="$OUT/findings/$target" inputs=("$seeds/$(seed_kind "$target")")
    mkdir -p "$findings"
    [ -d "Tests/FuzzRegressions/$target" ] && inputs=("Tests/FuzzRegressions/$target" "${inputs[@]}")
    "$OUT/$target" -runs=0 -seed=1 -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 \
        -print_final_stats=1 -artifact_prefix="$findings/" "${inputs[@]}" >"$OUT/$target.log" 2>&1
    local status=$?
    # A run that stopped without leaving its input (a crash of the runner itself) still fails.
    if [ $status -ne 0 ] && [ -z "$(find "$findings" -type f 2>/dev/null)" ]; then
        echo "exit status $status" >"$findings/run-failed-without-input"
    fi
    # So does a replay of nothing, or of fewer inputs than its folders hold: seeds that went
    # missing would otherwise pass unseen.
    local files executed
    files=$(find "${inputs[@]}" -type f 2>/dev/null | wc -l)
    executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/$target.log" | tail -n 1)
    if [ "$files" -eq 0 ] || [ "${executed:-0}" -lt "$files" ]; then
        echo "replayed ${executed:-0} of $files inputs" >"$findings/replay-missed-inputs"
    fi
}

run_one() {
    local target=$1
    local corpus="$OUT/corpus/$target" findings="$OUT/findings/$target" limits=()
    mkdir -p "$corpus" "$findings"
    # Reports: mutations of small inputs run many times faster and reach the same code.
    [ "$(seed_kind "$target")" = reports ] && limits=(-max_len=32768)
    # Names: long enough for every bound (8 KiB), short enough to mutate quickly.
    [ "$(seed_kind "$target")" = names ] && limits=(-max_len=9000)
    "$OUT/$target" "${limits[@]}" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 \
        -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" "$seeds/$(seed_kind "$target")" \
        >"$OUT/$target.log" 2>&1
}

if [ "$REPLAY" = 1 ]; then
    echo "fuzz: replaying the kept inputs and seeds of ${#targets[@]} targets, $JOBS at a time"
    run=replay_one
else
    echo "fuzz: running ${#targets[@]} targets for ${SECONDS_EACH}s each, $JOBS at a time"
    run=run_one
fi
rm -rf "$OUT/findings"
running=0
for target in "${targets[@]}"; do
    if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
    "$run" "$target" &
    running=$((running + 1))
done
wait

failed=0
for target in "${targets[@]}"; do
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/$target.log" | tail -1)
    found=$(find "$OUT/findings/$target" -type f ! -name 'slow-unit-*' 2>/dev/null)
    if [ -z "$found" ]; then
        printf 'fuzz: %-16s %10s executions, nothing found\n' "$target" "${executions:-?}"
        continue
    fi
    failed=1
    printf 'fuzz: %-16s %10s executions, FOUND:\n' "$target" "${executions:-?}"
    grep -m1 -E 'ERROR:|Fatal error|runtime failure|out-of-memory|timeout' "$OUT/$target.log" | sed 's/^/      /'
    for file in $found; do
        echo "      $file"
        echo "      replay: $OUT/$target $file   (log: $OUT/$target.log)"
        echo "      keep it as a regression input: cp $file Tests/FuzzRegressions/$target/<what-it-exercises>"
    done
done
echo "fuzz: done in $(( $(date +%s) - started ))s"
exit $failed
