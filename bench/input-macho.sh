#!/usr/bin/env bash
# Input 3: a large Mach-O app with its dSYM, made on Linux from generated C
# (gen_macho_sources.py: tens of thousands of functions over chains of `static inline`
# helpers, so that most PCs lie in inlined code). Results in bench/build/macho/:
#   bin/App-arm64, bin/App-x86_64   the executables (iOS 14 arm64; macOS 11 x86_64)
#   bin/App-universal               both, as one universal executable
#   thin/App.dSYM                   the arm64 dSYM (about 85 MB of DWARF): the thin input
#   universal/App.dSYM              a dSYM whose DWARF file is universal (arm64 + x86_64)
# Skipped when bench/build/macho/.stamp says the inputs and tools are unchanged.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

UNITS="${MACHO_UNITS:-220}"          # translation units ...
FUNCS_PER_UNIT="${MACHO_FUNCS:-200}" # ... of this many exported functions: 44,000 in all
CC="$TOOLCHAIN/clang"
LD64=ld64.lld-14
DSYMUTIL=dsymutil-14
LIPO=llvm-lipo-14

OUT="$BUILD/macho"
# The tools first (nothing happens when they are installed): their versions are in the stamp.
need_packages lld-14 llvm-14 python3
[[ -x "$CC" ]] || die "no clang at $CC"
STAMP="$(stamp_of "units=$UNITS funcs=$FUNCS_PER_UNIT
$(tool_versions "$CC" "$LD64" "$DSYMUTIL" "$LIPO")" \
    "$BENCH_DIR/input-macho.sh" "$BENCH_DIR/gen_macho_sources.py")"
OUTPUTS=(bin/App-arm64 bin/App-x86_64 bin/App-universal
         thin/App.dSYM/Contents/Resources/DWARF/App universal/App.dSYM/Contents/Resources/DWARF/App)
if up_to_date "$OUT" "$STAMP" "${OUTPUTS[@]}"; then
    log "Mach-O app: up to date ($OUT)"
    exit 0
fi
start=$SECONDS
rm -rf "$OUT"
mkdir -p "$OUT/src" "$OUT/bin" "$OUT/thin" "$OUT/universal"
export ZERO_AR_DATE=1 SOURCE_DATE_EPOCH=0   # reproducible output, hence stable UUIDs

# 1. Generate the sources (deterministic).
log "Mach-O app: generating $UNITS units x $FUNCS_PER_UNIT functions"
python3 "$BENCH_DIR/gen_macho_sources.py" "$OUT/src" "$UNITS" "$FUNCS_PER_UNIT"

# 2. Compile every unit for both architectures, one clang per unit, $(nproc) at a time.
#    Sources by absolute path, as Xcode compiles them. DWARF 4: dsymutil 14 mistranslates
#    DWARF 5 (see Fixtures/build.sh).
compile() {  # compile TARGET OBJDIR
    local target="$1" objdir="$2"
    mkdir -p "$objdir"
    log "Mach-O app: compiling for $target with $(nproc) jobs"
    find "$OUT/src" -name '*.c' | LC_ALL=C sort | \
        xargs -P "$(nproc)" -I{} sh -c 'exec "$0" -target "$1" -O2 -g -gdwarf-4 -c "$3" -o "$2/$(basename "$3" .c).o"' \
            "$CC" "$target" "$objdir" {}
}
compile arm64-apple-ios14.0 "$OUT/obj/arm64"
compile x86_64-apple-macos11 "$OUT/obj/x86_64"

# 3. Link each architecture (nothing is ever run: undefined symbols are left to dyld).
log "Mach-O app: linking and running dsymutil"
"$LD64" -arch arm64 -platform_version ios 14.0 14.0 -e _main -undefined dynamic_lookup \
    -o "$OUT/bin/App-arm64" "$OUT"/obj/arm64/*.o
"$LD64" -arch x86_64 -platform_version macos 11.0 11.0 -e _main -undefined dynamic_lookup \
    -o "$OUT/bin/App-x86_64" "$OUT"/obj/x86_64/*.o

# 4. One dSYM per architecture (dsymutil links the DWARF of the object files).
"$DSYMUTIL" "$OUT/bin/App-arm64" -o "$OUT/obj/App-arm64.dSYM"
"$DSYMUTIL" "$OUT/bin/App-x86_64" -o "$OUT/obj/App-x86_64.dSYM"

# 5. The thin input: the arm64 dSYM, named App.dSYM as Xcode names it.
cp -r "$OUT/obj/App-arm64.dSYM" "$OUT/thin/App.dSYM"
mv "$OUT/thin/App.dSYM/Contents/Resources/DWARF/App-arm64" "$OUT/thin/App.dSYM/Contents/Resources/DWARF/App"

# 6. The universal input: one executable and one dSYM DWARF file with both slices.
"$LIPO" -create "$OUT/bin/App-arm64" "$OUT/bin/App-x86_64" -output "$OUT/bin/App-universal"
mkdir -p "$OUT/universal/App.dSYM/Contents/Resources/DWARF"
cp "$OUT/obj/App-arm64.dSYM/Contents/Info.plist" "$OUT/universal/App.dSYM/Contents/Info.plist"
"$LIPO" -create "$OUT/obj/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64" \
    "$OUT/obj/App-x86_64.dSYM/Contents/Resources/DWARF/App-x86_64" \
    -output "$OUT/universal/App.dSYM/Contents/Resources/DWARF/App"

# The object files are no longer needed (about as large as the dSYMs).
rm -rf "$OUT/obj/arm64" "$OUT/obj/x86_64"
echo "$STAMP" > "$OUT/.stamp"
log "Mach-O app: built in $((SECONDS - start)) s: thin DWARF $(du -h "$OUT/thin/App.dSYM/Contents/Resources/DWARF/App" | cut -f1), universal $(du -h "$OUT/universal/App.dSYM/Contents/Resources/DWARF/App" | cut -f1)"
