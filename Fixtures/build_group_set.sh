#!/usr/bin/env bash
# Builds build/group-set/: the app of src/groupset/app.c for every build of make_group_set.py's
# BUILDS (iOS arm64 and arm64e, macOS x86_64, the iOS simulator's arm64 and x86_64; -O0 and -O2),
# each with its dSYM, in build/group-set/bin/, then the measurement set's reports and their
# kinds (make_group_set.py). Run by build.sh; runnable alone: Fixtures/build_group_set.sh
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$HERE/src"
OUT="${OUT:-$HERE/build}"
APPLE_CC="${APPLE_CC:-/opt/swift/usr/bin/clang}"
LD64="${LD64:-ld64.lld-14}"
DSYMUTIL="${DSYMUTIL:-dsymutil}"
PYTHON="${PYTHON:-python3}"
export ZERO_AR_DATE=1 SOURCE_DATE_EPOCH=0

BIN="$OUT/group-set/bin"
rm -rf "$OUT/group-set"
mkdir -p "$BIN" "$OUT/obj/group-set"
# name:clang-target:ld64-arch:platform (the names are make_group_set.py's BUILDS).
for build in arm64:arm64-apple-ios14.0:arm64:ios arm64e:arm64e-apple-ios14.0:arm64e:ios \
             x86_64:x86_64-apple-macos11:x86_64:macos sim-arm64:arm64-apple-ios14.0-simulator:arm64:ios-simulator \
             sim-x86_64:x86_64-apple-ios14.0-simulator:x86_64:ios-simulator; do
    IFS=: read -r name target arch platform <<< "$build"
    version=14.0
    [[ $platform == macos ]] && version=11.0
    for opt in O0 O2; do
        obj="$OUT/obj/group-set/$name-$opt.o"
        # The division check is Swift's (a trap), whatever the architecture would do by itself.
        "$APPLE_CC" -target "$target" -"$opt" -g -gdwarf-4 -Wall -Wno-unused-parameter \
            -fsanitize=integer-divide-by-zero -fsanitize-trap=integer-divide-by-zero \
            -c "$SRC/groupset/app.c" -o "$obj"
        "$LD64" -arch "$arch" -platform_version "$platform" "$version" "$version" -e _main \
            -undefined dynamic_lookup -o "$BIN/App-$name-$opt" "$obj"
        # ld64.lld-14 writes an arm64e executable's CPU subtype as ALL (arm64): set it to arm64e's,
        # as Apple's linker writes it, or dsymutil finds no arm64e object for it.
        [[ $arch == arm64e ]] && "$PYTHON" -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(8); f.write((0x80000002).to_bytes(4, "little"))' "$BIN/App-$name-$opt"
        "$DSYMUTIL" "$BIN/App-$name-$opt" -o "$BIN/App-$name-$opt.dSYM"
    done
done
"$PYTHON" "$HERE/make_group_set.py" --build "$OUT" --src "$SRC"
