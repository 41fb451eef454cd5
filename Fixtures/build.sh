#!/usr/bin/env bash
# Builds the symbolication fixtures from Fixtures/src into Fixtures/build:
# Mach-O executables, a dylib and their dSYMs, ELF executables, a shared object
# and separate debug files, then classic crash reports that point into them
# (make_reports.py). See Fixtures/README.md.
#
# Usage: Fixtures/build.sh [--force]
# Re-running is cheap: if neither the inputs nor the tools changed, nothing is rebuilt.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$HERE/src"
OUT="$HERE/build"

# Tools (override through the environment).
APPLE_CC="${APPLE_CC:-/opt/swift/usr/bin/clang}"   # any clang that can target Apple platforms
ELF_CLANG="${ELF_CLANG:-$APPLE_CC}"
ELF_CLANGXX="${ELF_CLANGXX:-${ELF_CLANG}++}"
GCC="${GCC:-gcc}"
GXX="${GXX:-g++}"
LD64="${LD64:-ld64.lld-14}"
ELF_LLD="${ELF_LLD:-ld.lld-14}"
DSYMUTIL="${DSYMUTIL:-dsymutil}"
# dsymutil 14 mistranslates DWARF 5; LLVM 19's linker and dsymutil make the DWARF 5 dSYM.
DSYMUTIL19="${DSYMUTIL19:-dsymutil-19}"
LD64_19="${LD64_19:-ld64.lld-19}"
LIPO="${LIPO:-llvm-lipo-14}"
OBJCOPY="${OBJCOPY:-objcopy}"
READELF="${READELF:-readelf}"
LLVM_OBJDUMP="${LLVM_OBJDUMP:-llvm-objdump}"
LLVM_DWARFDUMP="${LLVM_DWARFDUMP:-llvm-dwarfdump}"
PYTHON="${PYTHON:-python3}"
SWIFTC="${SWIFTC:-swiftc}"
# Debian's rustc (make setup installs it), so that every machine builds the same Rust fixtures.
RUSTC="${RUSTC:-/usr/bin/rustc}"
export LLVM_OBJDUMP LLVM_DWARFDUMP LIPO

FORCE=0
if [[ "${1:-}" == "--force" ]]; then FORCE=1; fi

for tool in "$APPLE_CC" "$ELF_CLANG" "$ELF_CLANGXX" "$GCC" "$GXX" "$LD64" "$ELF_LLD" "$DSYMUTIL" "$DSYMUTIL19" "$LD64_19" "$SWIFTC" "$RUSTC" "$LIPO" "$OBJCOPY" \
            "$READELF" "$LLVM_OBJDUMP" "$LLVM_DWARFDUMP" "$PYTHON"; do
    command -v "$tool" >/dev/null || { echo "build.sh: missing tool: $tool" >&2; exit 1; }
done

# Up-to-date check: a hash of every input and of the tool versions.
stamp() {
    {
        cd "$HERE"
        find src -type f | LC_ALL=C sort | xargs sha256sum
        sha256sum build.sh make_reports.py make_metrickit.py make_kscrash.py make_group_reports.py \
            build_group_set.sh make_group_set.py
        for tool in "$APPLE_CC" "$ELF_CLANG" "$GCC" "$LD64" "$DSYMUTIL" "$DSYMUTIL19" "$LIPO" "$OBJCOPY" "$LLVM_OBJDUMP" "$RUSTC" "$SWIFTC"; do
            { "$tool" --version 2>/dev/null || true; } | head -n 1 || true
        done
    } | sha256sum | cut -d' ' -f1
}
OUTPUTS=(
    manifest.txt
    macho/App-arm64 macho/App-arm64.dSYM/Contents/Resources/DWARF/App-arm64
    macho/App-x86_64 macho/App-x86_64.dSYM/Contents/Resources/DWARF/App-x86_64
    macho/libGreeter.dylib macho/libGreeter.dylib.dSYM/Contents/Resources/DWARF/libGreeter.dylib
    macho/App-universal macho/App-universal.dSYM/Contents/Resources/DWARF/App-universal
    macho/App-arm64_32 macho/App-arm64_32.dSYM/Contents/Resources/DWARF/App-arm64_32
    macho/App-arm64-dwarf5 macho/App-arm64-dwarf5.dSYM/Contents/Resources/DWARF/App-arm64-dwarf5
    macho/App-arm64-v2 macho/App-arm64-v2.dSYM/Contents/Resources/DWARF/App-arm64-v2
    elf/app-gcc-dwarf4 elf/app-gcc-dwarf4.debug elf/app-zlib.debug elf/app-clang-dwarf5
    elf/app-gcc-dwarf2 elf/app-gcc-dwarf3 elf/app-armv7-thumb elf/swift-shapes
    elf/app-nopie elf/libgreeter.so elf/app-zstd.debug elf/relative-compdir-gcc elf/relative-compdir-clang
    debuglink/app debuglink/app.debug debuglink/app-nobuildid debuglink/app-nobuildid.debug
    reports/App-arm64.crash reports/App-arm64.expect.tsv
    reports/App-x86_64.crash reports/App-x86_64.expect.tsv
    reports/App-universal-arm64.crash reports/App-universal-arm64.expect.tsv
    reports/App-arm64-dwarf5.crash reports/App-arm64-dwarf5.expect.tsv
    ips/App-arm64.ips ips/App-x86_64.ips ips/App-universal-arm64.ips ips/App-arm64-dwarf5.ips
    ips/App-arm64-exception.ips ips/App-x86_64-109.ips
    metrickit/App-arm64.json metrickit/App-x86_64.json metrickit/App-universal-arm64.json
    metrickit/App-arm64-dwarf5.json metrickit/App-arm64-diagnostics.json
    metrickit/App-arm64-crash-diagnostic.json metrickit/App-arm64-payloads.json
    kscrash/App-arm64.json kscrash/App-x86_64.json kscrash/App-universal-arm64.json
    kscrash/App-arm64-dwarf5.json kscrash/App-arm64-exception.json kscrash/App-arm64-reports.json
    group/groups.tsv group/null-deref-v2.crash group/null-deref-v2.ips
    group-set/kinds.tsv group-set/reports/null-deref-arm64e-O2-ips.ips group-set/bin/App-x86_64-O2
    android/arm64-v8a/libcrashy.so android/armeabi-v7a/libcrashy.so android/x86_64/libcrashy.so
    android/riscv64/libcrashy.so
)
up_to_date() {
    [[ -f "$OUT/.stamp" && "$(cat "$OUT/.stamp")" == "$STAMP" ]] || return 1
    local f
    for f in "${OUTPUTS[@]}"; do [[ -s "$OUT/$f" ]] || return 1; done
}
STAMP="$(stamp)"
# The dyld shared caches: their own script and stamp.
"$HERE/dyld/build.sh" ${1:+"$1"}
if [[ $FORCE == 0 ]] && up_to_date; then
    echo "Fixtures up to date in $OUT (use --force to rebuild)"
    exit 0
fi

rm -rf "$OUT/obj" "$OUT/macho" "$OUT/elf" "$OUT/debuglink" "$OUT/reports" "$OUT/ips" "$OUT/metrickit" "$OUT/kscrash" "$OUT/group" "$OUT/group-set" "$OUT/android" "$OUT/manifest.txt" "$OUT/.stamp"
mkdir -p "$OUT/obj" "$OUT/macho" "$OUT/elf" "$OUT/debuglink" "$OUT/reports"

# Deterministic output: no timestamps in the dSYMs or archives.
export ZERO_AR_DATE=1 SOURCE_DATE_EPOCH=0

COMMON_CFLAGS=(-O2 -g -Wall -Wextra -Wno-unused-parameter)
CXXFLAGS_EXTRA=(-fno-exceptions -fno-rtti -std=c++17)

# ---------------------------------------------------------------------------
# Mach-O (clang + ld64.lld-14 + dsymutil 14). Sources are compiled by absolute
# path, as Xcode does. DWARF 4 for everything dsymutil 14 links: it mistranslates
# DWARF 5 (DW_FORM_addrx, loclists), see README.md. The one DWARF 5 build,
# App-arm64-dwarf5, is linked and made a dSYM by LLVM 19's tools instead.

# compile_macho TARGET OBJDIR [extra clang flags...]
compile_macho() {
    local target="$1" objdir="$2"; shift 2
    mkdir -p "$objdir"
    "$APPLE_CC" -target "$target" "${COMMON_CFLAGS[@]}" "$@" -c "$SRC/app/main.c" -o "$objdir/main.o"
    "$APPLE_CC" -target "$target" "${COMMON_CFLAGS[@]}" "$@" -c "$SRC/app/parser.c" -o "$objdir/parser.o"
    "$APPLE_CC" -target "$target" "${COMMON_CFLAGS[@]}" "${CXXFLAGS_EXTRA[@]}" "$@" \
        -c "$SRC/app/engine.cpp" -o "$objdir/engine.o"
}

# make_dsym BINARY: BINARY.dSYM next to it.
make_dsym() {
    rm -rf "$1.dSYM"
    "$DSYMUTIL" "$1" -o "$1.dSYM"
}

M="$OUT/macho"
O="$OUT/obj"

# libGreeter.dylib, iOS arm64.
mkdir -p "$O/greeter-arm64"
"$APPLE_CC" -target arm64-apple-ios14.0 "${COMMON_CFLAGS[@]}" -gdwarf-4 \
    -c "$SRC/greeter/greeter.c" -o "$O/greeter-arm64/greeter.o"
"$LD64" -arch arm64 -platform_version ios 14.0 14.0 -dylib \
    -install_name @rpath/libGreeter.dylib -current_version 1.2 -compatibility_version 1.0 \
    -undefined dynamic_lookup -o "$M/libGreeter.dylib" "$O/greeter-arm64/greeter.o"
make_dsym "$M/libGreeter.dylib"

# App-arm64: iOS executable linked against libGreeter.dylib.
compile_macho arm64-apple-ios14.0 "$O/app-arm64" -gdwarf-4
"$LD64" -arch arm64 -platform_version ios 14.0 14.0 -e _main -undefined dynamic_lookup \
    -rpath @executable_path/Frameworks -o "$M/App-arm64" \
    "$O/app-arm64/main.o" "$O/app-arm64/parser.o" "$O/app-arm64/engine.o" "$M/libGreeter.dylib"
make_dsym "$M/App-arm64"

# App-x86_64: macOS executable, greeter linked in statically.
compile_macho x86_64-apple-macos11 "$O/app-x86_64" -gdwarf-4
"$APPLE_CC" -target x86_64-apple-macos11 "${COMMON_CFLAGS[@]}" -gdwarf-4 \
    -c "$SRC/greeter/greeter.c" -o "$O/app-x86_64/greeter.o"
"$LD64" -arch x86_64 -platform_version macos 11.0 11.0 -e _main -undefined dynamic_lookup \
    -o "$M/App-x86_64" \
    "$O/app-x86_64/main.o" "$O/app-x86_64/parser.o" "$O/app-x86_64/engine.o" "$O/app-x86_64/greeter.o"
make_dsym "$M/App-x86_64"

# App-universal: a macOS 12 build for arm64 and x86_64 (so both slices have
# UUIDs of their own, distinct from App-arm64 and App-x86_64), one fat
# executable and one dSYM whose DWARF file is fat as well.
for arch in x86_64 arm64; do
    obj="$O/universal-$arch"
    compile_macho "$arch-apple-macos12" "$obj" -gdwarf-4
    "$APPLE_CC" -target "$arch-apple-macos12" "${COMMON_CFLAGS[@]}" -gdwarf-4 \
        -c "$SRC/greeter/greeter.c" -o "$obj/greeter.o"
    "$LD64" -arch "$arch" -platform_version macos 12.0 12.0 -e _main -undefined dynamic_lookup \
        -o "$obj/App-universal" "$obj/main.o" "$obj/parser.o" "$obj/engine.o" "$obj/greeter.o"
    make_dsym "$obj/App-universal"
done
"$LIPO" -create "$O/universal-x86_64/App-universal" "$O/universal-arm64/App-universal" \
    -output "$M/App-universal"
rm -rf "$M/App-universal.dSYM"
mkdir -p "$M/App-universal.dSYM/Contents/Resources/DWARF"
cp "$O/universal-arm64/App-universal.dSYM/Contents/Info.plist" "$M/App-universal.dSYM/Contents/Info.plist"
"$LIPO" -create \
    "$O/universal-x86_64/App-universal.dSYM/Contents/Resources/DWARF/App-universal" \
    "$O/universal-arm64/App-universal.dSYM/Contents/Resources/DWARF/App-universal" \
    -output "$M/App-universal.dSYM/Contents/Resources/DWARF/App-universal"

# App-arm64-dwarf5: the iOS build with DWARF 5 (Xcode's default for new targets), linked and
# turned into a dSYM by LLVM 19's tools.
compile_macho arm64-apple-ios14.0 "$O/app-arm64-dwarf5" -gdwarf-5
"$LD64_19" -arch arm64 -platform_version ios 14.0 14.0 -e _main -undefined dynamic_lookup \
    -rpath @executable_path/Frameworks -o "$M/App-arm64-dwarf5" \
    "$O/app-arm64-dwarf5/main.o" "$O/app-arm64-dwarf5/parser.o" "$O/app-arm64-dwarf5/engine.o" "$M/libGreeter.dylib"
rm -rf "$M/App-arm64-dwarf5.dSYM"
"$DSYMUTIL19" "$M/App-arm64-dwarf5" -o "$M/App-arm64-dwarf5.dSYM"

# App-arm64-v2: the iOS build of sources with three lines added at the top of main.c and
# parser.c, so that every line number of the crash moved (for the grouping reports).
V2_SRC="$O/app-v2-src"
rm -rf "$V2_SRC"
mkdir -p "$V2_SRC"
cp -R "$SRC/app" "$SRC/greeter" "$V2_SRC/"
for f in main.c parser.c; do
    { printf '/* Version 2.0:\n * the same code, three lines lower.\n */\n'; cat "$SRC/app/$f"; } > "$V2_SRC/app/$f"
done
(SRC="$V2_SRC" compile_macho arm64-apple-ios14.0 "$O/app-arm64-v2" -gdwarf-4)
"$LD64" -arch arm64 -platform_version ios 14.0 14.0 -e _main -undefined dynamic_lookup \
    -rpath @executable_path/Frameworks -o "$M/App-arm64-v2" \
    "$O/app-arm64-v2/main.o" "$O/app-arm64-v2/parser.o" "$O/app-arm64-v2/engine.o" "$M/libGreeter.dylib"
make_dsym "$M/App-arm64-v2"

# App-arm64_32: a watchOS build, so a 32-bit Mach-O (LC_SEGMENT, 32-bit nlist).
compile_macho arm64_32-apple-watchos7.0 "$O/app-arm64_32" -gdwarf-4
"$APPLE_CC" -target arm64_32-apple-watchos7.0 "${COMMON_CFLAGS[@]}" -gdwarf-4 \
    -c "$SRC/greeter/greeter.c" -o "$O/app-arm64_32/greeter.o"
"$LD64" -arch arm64_32 -platform_version watchos 7.0 7.0 -e _main -undefined dynamic_lookup \
    -o "$M/App-arm64_32" \
    "$O/app-arm64_32/main.o" "$O/app-arm64_32/parser.o" "$O/app-arm64_32/engine.o" "$O/app-arm64_32/greeter.o"
make_dsym "$M/App-arm64_32"

# ---------------------------------------------------------------------------
# ELF (gcc and clang, GNU ld). Sources are compiled by relative path from src/,
# so the DWARF names are relative to DW_AT_comp_dir.
E="$OUT/elf"

# build_elf OUTPUT CC CXX "COMPILE FLAGS" "LINK FLAGS"
build_elf() {
    local output="$1" cc="$2" cxx="$3"
    local -a cflags ldflags
    read -r -a cflags <<< "$4"
    read -r -a ldflags <<< "$5"
    local objdir="$O/elf-$(basename "$output")"
    mkdir -p "$objdir"
    (
        cd "$SRC"
        "$cc" "${COMMON_CFLAGS[@]}" "${cflags[@]}" -c app/main.c -o "$objdir/main.o"
        "$cc" "${COMMON_CFLAGS[@]}" "${cflags[@]}" -c app/parser.c -o "$objdir/parser.o"
        "$cxx" "${COMMON_CFLAGS[@]}" "${CXXFLAGS_EXTRA[@]}" "${cflags[@]}" -c app/engine.cpp -o "$objdir/engine.o"
    )
    "$cc" "${ldflags[@]}" -Wl,--build-id -o "$output" "$objdir/main.o" "$objdir/parser.o" "$objdir/engine.o" \
        -L"$E" -lgreeter -Wl,-rpath,'$ORIGIN'
}

(cd "$SRC" && "$GCC" "${COMMON_CFLAGS[@]}" -gdwarf-4 -fPIC -shared -Wl,--build-id \
    -Wl,-soname,libgreeter.so -o "$E/libgreeter.so" greeter/greeter.c)
build_elf "$E/app-gcc-dwarf4" "$GCC" "$GXX" "-gdwarf-4 -fPIE" "-pie"
build_elf "$E/app-clang-dwarf5" "$ELF_CLANG" "$ELF_CLANGXX" "-gdwarf-5 -fPIE" "-pie"
build_elf "$E/app-nopie" "$GCC" "$GXX" "-fno-pie" "-no-pie"
build_elf "$E/app-gcc-dwarf2" "$GCC" "$GXX" "-gdwarf-2 -gstrict-dwarf -fPIE" "-pie"
build_elf "$E/app-gcc-dwarf3" "$GCC" "$GXX" "-gdwarf-3 -fPIE" "-pie"

# relative-compdir-gcc, relative-compdir-clang: DWARF 5 built the way glibc is (libc6-dbg's debug
# file has the same shape, but is not always installed): each unit compiled from its own
# directory with -fdebug-prefix-map=<root>=., so DW_AT_comp_dir is the relative "./lib" and
# include_directories[0] repeats it; gcc's file 1 is a header, not the unit's source.
mkdir -p "$O/elf-relative-compdir"
for compiler in gcc clang; do
    if [[ $compiler == gcc ]]; then cc="$GCC"; else cc="$ELF_CLANG"; fi
    (cd "$SRC/relative/lib" && "$cc" "${COMMON_CFLAGS[@]}" -gdwarf-5 -fPIE -fdebug-prefix-map="$SRC/relative=." \
        -c start.c -o "$O/elf-relative-compdir/start-$compiler.o")
    "$cc" -pie -Wl,--build-id -o "$E/relative-compdir-$compiler" "$O/elf-relative-compdir/start-$compiler.o"
done

# app-armv7-thumb: 32-bit ARM in Thumb mode, linked by lld alone (no ARM libc here:
# calls into it stay unresolved, which is fine for an image that is only read).
mkdir -p "$O/elf-armv7-thumb"
(
    cd "$SRC"
    for f in app/main.c app/parser.c greeter/greeter.c; do
        "$ELF_CLANG" -target armv7-linux-gnueabihf -mthumb "${COMMON_CFLAGS[@]}" -gdwarf-4 \
            -c "$f" -o "$O/elf-armv7-thumb/$(basename "$f" .c).o"
    done
    "$ELF_CLANGXX" -target armv7-linux-gnueabihf -mthumb "${COMMON_CFLAGS[@]}" "${CXXFLAGS_EXTRA[@]}" -gdwarf-4 \
        -c app/engine.cpp -o "$O/elf-armv7-thumb/engine.o"
)
"$ELF_LLD" -e main --build-id --unresolved-symbols=ignore-all -o "$E/app-armv7-thumb" "$O"/elf-armv7-thumb/*.o
"$OBJCOPY" --only-keep-debug "$E/app-gcc-dwarf4" "$E/app-gcc-dwarf4.debug"
"$OBJCOPY" --compress-debug-sections=zlib-gabi "$E/app-gcc-dwarf4.debug" "$E/app-zlib.debug"
# zstd (ELFCOMPRESS_ZSTD, binutils 2.40): libelf 0.188 cannot inflate it, the shim does.
"$OBJCOPY" --compress-debug-sections=zstd "$E/app-gcc-dwarf4.debug" "$E/app-zstd.debug"

# debuglink/: stripped binaries that name their debug file in .gnu_debuglink (name and
# CRC-32), one with a build-id and one without (found through the link's CRC alone).
D="$OUT/debuglink"
cp "$E/app-gcc-dwarf4.debug" "$D/app.debug"
"$OBJCOPY" --strip-debug --add-gnu-debuglink="$D/app.debug" "$E/app-gcc-dwarf4" "$D/app"
"$OBJCOPY" --remove-section=.note.gnu.build-id "$D/app.debug" "$D/app-nobuildid.debug"
"$OBJCOPY" --strip-debug --remove-section=.note.gnu.build-id --add-gnu-debuglink="$D/app-nobuildid.debug" \
    "$E/app-gcc-dwarf4" "$D/app-nobuildid"

# swift-shapes: Swift's own DWARF (mangled $s names, generics, closures), optimized.
"$SWIFTC" -O -g -module-name Shapes -Xlinker --build-id -o "$E/swift-shapes" "$SRC/swift/main.swift"

# swift-async: the swiftcrash program (src/swiftcrash), optimized: its async functions are
# split into await resume partial functions (symbols ending in TQ<n>_), which the names of
# its frames must show as the function they belong to.
"$SWIFTC" -O -g -module-name SwiftCrash -Xlinker --build-id -o "$E/swift-async" "$SRC"/swiftcrash/*.swift

# rust-v0, rust-legacy: one Rust program (src/rust/main.rs) built with each of rustc's two
# manglings, optimized, with full debug information. The v0 build has v0 names for the
# program and for what it instantiates from std; the std code linked in as it was shipped
# keeps the mangling std was built with (legacy for Debian's).
for mangling in v0 legacy; do
    flags=()
    # legacy is the default; naming it needs -Z unstable-options since rustc 1.60.
    [[ $mangling == v0 ]] && flags=(-C symbol-mangling-version=v0)
    (cd "$SRC" && "$RUSTC" --edition 2021 --crate-name app -g -C opt-level=2 "${flags[@]}" \
        -C link-arg=-Wl,--build-id -o "$E/rust-$mangling" rust/main.rs)
done

# ---------------------------------------------------------------------------
# Android: libcrashy.so (src/android) for four ABIs, laid out as an NDK build's obj/local/<abi>/,
# the way an app's libraries are built: -fPIC, hidden visibility but for the JNI entry points,
# a SHA-1 build-id, linked by lld. -nostdlib -ffreestanding: no NDK sysroot is needed (the
# library calls nothing outside itself). The tombstones that point into them are written by
# the tests (Tests/CLITests/Formats/TombstoneWriter.swift), from llvm-nm and llvm-objdump.
for abi in arm64-v8a:aarch64-linux-android29 armeabi-v7a:armv7a-linux-androideabi29 \
           x86_64:x86_64-linux-android29 riscv64:riscv64-linux-android35; do
    name="${abi%%:*}" target="${abi#*:}"
    flags=(--target="$target" -fPIC -ffreestanding -fvisibility=hidden -g -O1 -Wall -Wextra)
    [[ $name == armeabi-v7a ]] && flags+=(-mthumb)
    mkdir -p "$O/android-$name" "$OUT/android/$name"
    (
        cd "$SRC"
        "$ELF_CLANG" "${flags[@]}" -c android/native-lib.c -o "$O/android-$name/native-lib.o"
        "$ELF_CLANGXX" "${flags[@]}" -fno-exceptions -fno-rtti -c android/ledger.cpp -o "$O/android-$name/ledger.o"
    )
    "$ELF_CLANG" --target="$target" -shared -nostdlib -fuse-ld=lld -Wl,--build-id=sha1 -Wl,-soname,libcrashy.so \
        -o "$OUT/android/$name/libcrashy.so" "$O/android-$name/native-lib.o" "$O/android-$name/ledger.o"
done

# ---------------------------------------------------------------------------
# Crash reports, expectations and the manifest.
"$PYTHON" "$HERE/make_reports.py" --build "$OUT" --src "$SRC" --readelf "$READELF"
"$PYTHON" "$HERE/make_group_reports.py" --build "$OUT" --src "$SRC" --v2-src "$V2_SRC"
# The grouping measurement set: its own app, built for five targets at -O0 and -O2.
OUT="$OUT" APPLE_CC="$APPLE_CC" LD64="$LD64" DSYMUTIL="$DSYMUTIL" PYTHON="$PYTHON" "$HERE/build_group_set.sh"

echo "$STAMP" > "$OUT/.stamp"
echo "Fixtures built in $OUT"
