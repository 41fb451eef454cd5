#!/usr/bin/env bash
# Input 2: a small real C program, the sqlite3 shell from Debian's sqlite3 source package,
# built with -g -O2 (gcc): its configure script generates the amalgamation (sqlite3.c, with
# tclsh) and the shell, linked statically against the library. Result:
# bench/build/sqlite/debug/sqlite3, an ELF executable with its DWARF and a GNU build-id.
# Skipped when bench/build/sqlite/.stamp says the inputs and tools are unchanged.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OUT="$BUILD/sqlite"
# The tools first (nothing happens when they are installed): gcc's version is in the stamp.
# tclsh generates the amalgamation (a bench-only package).
need_packages gcc make tcl dpkg-dev
STAMP="$(stamp_of "$(tool_versions gcc)" "$BENCH_DIR/input-sqlite.sh")"
if up_to_date "$OUT" "$STAMP" debug/sqlite3; then
    log "sqlite3: up to date ($OUT/debug/sqlite3)"
    exit 0
fi
start=$SECONDS
rm -rf "$OUT"
mkdir -p "$OUT"

# 1. The source: `apt-get source sqlite3`.
fetch_source sqlite3 "$OUT/src"
log "sqlite3 $(cat "$OUT/src.version"): configuring"

# 2. Configure out of tree with exactly -g -O2; no readline and no Tcl extension, so that
#    nothing but the C library is needed; the shell links the library in (not a .so).
mkdir -p "$OUT/obj"
(cd "$OUT/obj" && CFLAGS="-g -O2" "$OUT/src/configure" --disable-tcl --disable-readline \
    --disable-editline --disable-shared --enable-static >"$OUT/configure.log" 2>&1) \
    || { tail -n 30 "$OUT/configure.log"; die "configure failed"; }

# 3. Build the sqlite3 shell (the amalgamation is one big file: mostly one core, ~1 minute).
log "sqlite3: compiling (log in $OUT/build.log)"
make -C "$OUT/obj" -j "$(nproc)" sqlite3 >"$OUT/build.log" 2>&1 \
    || { tail -n 30 "$OUT/build.log"; die "sqlite3 build failed"; }

# 4. The executable alone in a folder (the benchmark's -d folder). libtool may leave a
#    wrapper script: take the real ELF file.
mkdir -p "$OUT/debug"
bin="$OUT/obj/sqlite3"
[[ -f "$OUT/obj/.libs/sqlite3" ]] && bin="$OUT/obj/.libs/sqlite3"
cp "$bin" "$OUT/debug/sqlite3"
readelf -n "$OUT/debug/sqlite3" | grep -q 'Build ID' || die "sqlite3 has no build-id"
echo "$STAMP" > "$OUT/.stamp"
log "sqlite3: built in $((SECONDS - start)) s: $(du -h "$OUT/debug/sqlite3" | cut -f1)"
