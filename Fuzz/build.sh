#!/usr/bin/env bash
# Builds one fuzz target: Fuzz/build.sh <target>  ->  .build-fuzz/<target>
#
# Fuzz/<target>.c is compiled with every Sources/CDwarf/*.c and Sources/CDyldCache/*.c under libFuzzer, AddressSanitizer
# and UndefinedBehaviorSanitizer. Fuzz/<target>.swift is linked against the project's modules
# (Platform, CrashReport with swift-protobuf's runtime, DebugInfo and the CDwarf and CDemangle code under it), each compiled here with
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
dyld_cache_sources=(Sources/CDyldCache/*.c)
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
    if stale "$OUT/$target" "Fuzz/$target.c" Fuzz/*.h Sources/CDwarf Sources/CDyldCache; then
        echo "fuzz: building $target (C)"
        "$CLANG" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
            -ISources/CDwarf/include -ISources/CDyldCache/include "Fuzz/$target.c" "${cdwarf_sources[@]}" \
            "${dyld_cache_sources[@]}" \
            "${c_libs[@]}" -fuse-ld=lld -o "$OUT/$target"
    fi
    exit 0
fi
[ -f "Fuzz/$target.swift" ] || { echo "fuzz: no Fuzz/$target.swift or Fuzz/$target.c" >&2; exit 2; }

# The C and C++ modules under DebugInfo: instrumented objects in one library each, and a module
# map so that `import CDwarf` / `import CDemangle` / `import CFaultGuard` find their headers.
# CDemangle's C++ is built against Debian's LLVM 19 headers and links its demangler library.
c_modules=(CDwarf CDyldCache CDemangle CFaultGuard)
module_maps=()
c_archives=()
for c_module in "${c_modules[@]}"; do
    lower=$(echo "$c_module" | tr 'A-Z' 'a-z')
    archive="$MODULES/lib$c_module.a"
    map="$MODULES/$lower/include/module.modulemap"
    module_maps+=(-Xcc -fmodule-map-file="$map")
    c_archives+=("$archive")
    stale "$archive" "Sources/$c_module" || continue
    echo "fuzz: building $c_module"
    rm -rf "$MODULES/$lower" && mkdir -p "$MODULES/$lower/include"
    for source in Sources/"$c_module"/*.c Sources/"$c_module"/*.cpp; do
        [ -e "$source" ] || continue
        case $source in
            *.cpp) compiler=("$CLANG++" -std=c++17 -I/usr/lib/llvm-19/include) ;;
            *) compiler=("$CLANG") ;;
        esac
        "${compiler[@]}" -c -g -O1 -fsanitize=fuzzer-no-link,address -I"Sources/$c_module/include" \
            "$source" -o "$MODULES/$lower/$(basename "${source%.*}").o"
    done
    rm -f "$archive"
    "$TOOLCHAIN/llvm-ar" rcs "$archive" "$MODULES/$lower"/*.o
    printf 'module %s {\n    header "%s"\n    export *\n}\n' \
        "$c_module" "$PWD/Sources/$c_module/include/$c_module.h" >"$map"
done
demangle_libs=(-L/usr/lib/llvm-19/lib -lLLVMDemangle)

# The Swift modules, in dependency order. -sanitize=fuzzer on a module compiled with -c
# instruments it for coverage (libFuzzer itself is linked only into the harness);
# -enable-testing lets harnesses reach internal API through @testable import, as tests do.
swift_flags=(-O -g -enable-testing -sanitize=fuzzer,address -parse-as-library
             -I "$MODULES" "${module_maps[@]}")
# swift-protobuf's runtime (CrashReport's protobuf reports), from the package's checkout:
# Swift 6 mode and its package name, as its Package.swift builds it.
protobuf=.build/checkouts/swift-protobuf/Sources/SwiftProtobuf
[ -d "$protobuf" ] || swift package resolve >/dev/null
built_one=""
for module in SwiftProtobuf Platform CrashReport DebugInfo; do
    object="$MODULES/$module.o"
    sources="Sources/$module" extra=()
    [ "$module" = SwiftProtobuf ] && sources=$protobuf extra=(-swift-version 6 -package-name swift_protobuf)
    if [ -n "$built_one" ] || stale "$object" "$sources"; then
        echo "fuzz: building $module"
        "$SWIFTC" "${swift_flags[@]}" "${extra[@]}" -module-name "$module" -wmo -num-threads 0 \
            -emit-module -emit-module-path "$MODULES/$module.swiftmodule" \
            -c -o "$object" $(find "$sources" -name '*.swift' | sort)
        built_one=yes
    fi
done

# A harness names the files it shares with the replay tests on "// fuzz-support: PATH" lines.
support=($(sed -n 's|^// fuzz-support: *||p' "Fuzz/$target.swift"))
objects=("$MODULES"/{SwiftProtobuf,Platform,CrashReport,DebugInfo}.o)
if stale "$OUT/$target" "Fuzz/$target.swift" "${support[@]}" "${c_archives[@]}" "${objects[@]}"; then
    echo "fuzz: building $target (Swift)"
    "$SWIFTC" "${swift_flags[@]}" -module-name "FuzzTarget" "Fuzz/$target.swift" "${support[@]}" \
        "${objects[@]}" "${c_archives[@]}" \
        "${c_libs[@]}" "${demangle_libs[@]}" -use-ld=lld -o "$OUT/$target"
fi
