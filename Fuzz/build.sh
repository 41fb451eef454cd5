#!/usr/bin/env bash
# Builds one fuzz target: Fuzz/build.sh <target>  ->  .build-fuzz/<target>
#
# Fuzz/<target>.c is compiled with every Sources/CDwarf/*.c under libFuzzer, AddressSanitizer
# and UndefinedBehaviorSanitizer. Fuzz/<target>.swift is linked against the project's modules
# (Platform, CrashReport, DebugInfo and the CDwarf C code under it), each compiled here with
# swiftc/clang, coverage-instrumented and under AddressSanitizer; the modules are rebuilt only
# when their sources change. Why plain swiftc rather than SwiftPM: see Fuzz/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

TOOLCHAIN=${TOOLCHAIN:-/opt/swift/usr/bin}
SWIFTC="$TOOLCHAIN/swiftc"
CLANG="$TOOLCHAIN/clang"
OUT=.build-fuzz
MODULES="$OUT/modules"

target=${1:?usage: Fuzz/build.sh <target>}
[ -x "$SWIFTC" ] && [ -x "$CLANG" ] || { echo "fuzz: no Swift toolchain at $TOOLCHAIN (set TOOLCHAIN)" >&2; exit 2; }
mkdir -p "$MODULES"

cdwarf_sources=(Sources/CDwarf/*.c)
# libdwarf is linked only while the C sources still use it.
c_libs=(-lelf -lz -lzstd -lpthread -lstdc++)
if grep -qs '<libdwarf/' "${cdwarf_sources[@]}"; then c_libs=(-ldwarf "${c_libs[@]}"); fi

# Whether $1 is missing or older than any of the files after it.
stale() {
    local product=$1; shift
    [ -e "$product" ] || return 0
    [ -n "$(find "$@" -newer "$product" -print -quit 2>/dev/null)" ]
}

if [ -f "Fuzz/$target.c" ]; then
    if stale "$OUT/$target" "Fuzz/$target.c" Sources/CDwarf; then
        echo "fuzz: building $target (C)"
        "$CLANG" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
            -ISources/CDwarf/include "Fuzz/$target.c" "${cdwarf_sources[@]}" \
            "${c_libs[@]}" -fuse-ld=lld -o "$OUT/$target"
    fi
    exit 0
fi
[ -f "Fuzz/$target.swift" ] || { echo "fuzz: no Fuzz/$target.swift or Fuzz/$target.c" >&2; exit 2; }

# CDwarf: instrumented objects and a module map so that `import CDwarf` finds the header.
cdwarf_lib="$MODULES/libCDwarf.a"
if stale "$cdwarf_lib" Sources/CDwarf; then
    echo "fuzz: building CDwarf"
    rm -rf "$MODULES/cdwarf" && mkdir -p "$MODULES/cdwarf/include"
    for source in "${cdwarf_sources[@]}"; do
        "$CLANG" -c -g -O1 -fsanitize=fuzzer-no-link,address -ISources/CDwarf/include \
            "$source" -o "$MODULES/cdwarf/$(basename "$source" .c).o"
    done
    rm -f "$cdwarf_lib"
    "$TOOLCHAIN/llvm-ar" rcs "$cdwarf_lib" "$MODULES"/cdwarf/*.o
    printf 'module CDwarf {\n    header "%s"\n    export *\n}\n' \
        "$PWD/Sources/CDwarf/include/CDwarf.h" >"$MODULES/cdwarf/include/module.modulemap"
fi

# The Swift modules, in dependency order. -sanitize=fuzzer on a module compiled with -c
# instruments it for coverage (libFuzzer itself is linked only into the harness);
# -enable-testing lets harnesses reach internal API through @testable import, as tests do.
swift_flags=(-O -g -enable-testing -sanitize=fuzzer,address -parse-as-library
             -I "$MODULES" -Xcc -fmodule-map-file="$MODULES/cdwarf/include/module.modulemap")
built_one=""
for module in Platform CrashReport DebugInfo; do
    object="$MODULES/$module.o"
    if [ -n "$built_one" ] || stale "$object" "Sources/$module"; then
        echo "fuzz: building $module"
        "$SWIFTC" "${swift_flags[@]}" -module-name "$module" -wmo -num-threads 0 \
            -emit-module -emit-module-path "$MODULES/$module.swiftmodule" \
            -c -o "$object" "Sources/$module"/*.swift
        built_one=yes
    fi
done

# A harness names the files it shares with the replay tests on "// fuzz-support: PATH" lines.
support=($(sed -n 's|^// fuzz-support: *||p' "Fuzz/$target.swift"))
objects=("$MODULES"/{Platform,CrashReport,DebugInfo}.o)
if stale "$OUT/$target" "Fuzz/$target.swift" "${support[@]}" "$cdwarf_lib" "${objects[@]}"; then
    echo "fuzz: building $target (Swift)"
    "$SWIFTC" "${swift_flags[@]}" -module-name "FuzzTarget" "Fuzz/$target.swift" "${support[@]}" \
        "${objects[@]}" "$cdwarf_lib" \
        "${c_libs[@]}" -use-ld=lld -o "$OUT/$target"
fi
