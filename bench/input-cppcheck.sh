#!/usr/bin/env bash
# Input 1: a large real C++ program, cppcheck from its Debian source package, built with
# -g -O2 (cmake, gcc). Result: bench/build/cppcheck/debug/cppcheck, an ELF executable with
# its DWARF and a GNU build-id (about 94 MB of DWARF; about 2 minutes on 2 cores).
# Skipped when bench/build/cppcheck/.stamp says the inputs and tools are unchanged.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OUT="$BUILD/cppcheck"
# The tools first (nothing happens when they are installed): their versions are in the stamp.
need_packages cmake gcc g++ make python3 dpkg-dev
STAMP="$(stamp_of "$(tool_versions gcc g++ cmake)" "$BENCH_DIR/input-cppcheck.sh")"
if up_to_date "$OUT" "$STAMP" debug/cppcheck; then
    log "cppcheck: up to date ($OUT/debug/cppcheck)"
    exit 0
fi
start=$SECONDS
rm -rf "$OUT"
mkdir -p "$OUT"

# 1. The source: `apt-get source cppcheck` (Debian's patches applied).
fetch_source cppcheck "$OUT/src"
log "cppcheck $(cat "$OUT/src.version"): configuring"

# 2. Configure: the command-line program only (no GUI, no tests), the bundled tinyxml2, the
#    match compiler on as Debian builds it, and exactly -g -O2 (RelWithDebInfo's flags replaced).
cmake -S "$OUT/src" -B "$OUT/obj" -G "Unix Makefiles" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-g -O2" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-g -O2" \
    -DBUILD_GUI=OFF -DBUILD_TESTS=OFF -DHAVE_RULES=OFF -DUSE_MATCHCOMPILER=ON \
    -DUSE_BUNDLED_TINYXML2=ON >"$OUT/cmake.log" 2>&1 || { tail -n 30 "$OUT/cmake.log"; die "cmake failed"; }

# 3. Build the cppcheck target on every core (about 2 minutes on 2 cores).
log "cppcheck: compiling with $(nproc) jobs (a few minutes; log in $OUT/build.log)"
cmake --build "$OUT/obj" --target cppcheck -j "$(nproc)" >"$OUT/build.log" 2>&1 \
    || { tail -n 30 "$OUT/build.log"; die "cppcheck build failed"; }

# 4. Keep the executable (with its DWARF and build-id) alone in a folder: the -d folder of
#    the benchmark. The object files stay in obj/ (not searched).
mkdir -p "$OUT/debug"
cp "$OUT/obj/bin/cppcheck" "$OUT/debug/cppcheck"
readelf -n "$OUT/debug/cppcheck" | grep -q 'Build ID' || die "cppcheck has no build-id"
echo "$STAMP" > "$OUT/.stamp"
log "cppcheck: built in $((SECONDS - start)) s: $(du -h "$OUT/debug/cppcheck" | cut -f1)"
