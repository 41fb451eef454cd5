#!/usr/bin/env bash
# Builds the same small programs with every producer of DWARF on this machine, in the flag sets
# that make DWARF of unusual shapes, into Fixtures/build/producers/<producer>-<variant>/:
#
#   gcc 12, clang 14, clang 19, the Swift toolchain's clang: -O0 and -O2, DWARF 4 and 5,
#       hot/cold splitting and one section per basic block (range lists of hundreds of
#       entries), the command line recorded (-grecord-gcc-switches / -grecord-command-line)
#       with several hundred -D flags, every string inline (DW_FORM_string), compressed
#       sections, 32-bit Arm and AArch64 shared objects, namespaces nested 240-320 deep,
#       names of thousands of bytes;
#   swiftc: -g, -gline-tables-only, -O, and -debug-info-store-invocation (DW_AT_APPLE_flags of
#       the whole command line), two files in one module (several units);
#   rustc: debug and release;
#   Mach-O: clang for arm64 and x86_64 linked by ld64.lld, dSYMs by dsymutil 14 (DWARF 4) and
#       19 (DWARF 5); and dSYMs that keep a compiler's DWARF as it wrote it (arm64 + armv7,
#       C and Swift, inline strings: Fixtures/dsym_from_objects.py).
#
# Tests read every file here (ProducerTests): the DWARF reader must read each without damage
# and agree with llvm-symbolizer. A producer that is not installed is passed over, and says so.
set -euo pipefail
cd "$(dirname "$0")"
SRC="$PWD/src/producers"
OUT="$PWD/build/producers"
# Built again only when the script, the sources or a producer changed.
stamp=$({ sha256sum "$(basename "$0")" "$SRC"/* dsym_from_objects.py
          for tool in gcc clang-14 clang-19 /opt/swift/usr/bin/clang swiftc rustc ld64.lld-19 dsymutil-14 dsymutil-19; do
              command -v "$tool" >/dev/null 2>&1 && "$tool" --version 2>&1 | head -n 1
          done; } | sha256sum | cut -d' ' -f1)
if [[ "${1:-}" != "--force" && -f "$OUT/.stamp" && "$(cat "$OUT/.stamp")" == "$stamp" ]]; then
    echo "producers: up to date in $OUT"
    exit 0
fi
rm -rf "$OUT"
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

SWIFT_CLANG=/opt/swift/usr/bin/clang
have() { command -v "$1" >/dev/null 2>&1; }
skipped() { echo "producers: $1 is not installed: its builds are passed over"; }

# Names and a string of thousands of bytes, and several hundred -D flags for the command lines.
python3 - "$work/long_names.c" <<'EOF'
import sys
name = "a_function_whose_name_goes_on_" * 140  # 4,200 bytes
with open(sys.argv[1], "w") as f:
    f.write("unsigned long strlen(const char *);\n")
    f.write('static const char text[] = "%s";\n' % ("a long string literal " * 300))
    for i in range(3):
        f.write("__attribute__((noinline)) int %s%d(int x) { return x + (int)strlen(text + x); }\n" % (name, i))
    f.write("int long_names(int x) { return %s0(x) + %s1(x) + %s2(x); }\n" % (name, name, name))
EOF
DEFINES=()
for i in $(seq 1 400); do DEFINES+=("-DA_DEFINE_OF_THE_BUILD_SYSTEM_NUMBER_$i=1"); done

# c_family NAME CC CXX CLANG: the C and C++ programs in each flag set the compiler takes (CLANG:
# 0 for gcc, 1 for clang, 2 for a clang whose inline strings link: clang 14's do not, "Undefined
# temporary symbol"; nor do any with DWARF 5's string offsets).
c_family() {
    local name=$1 cc=$2 cxx=$3 clang=$4
    local variants=("O0:-O0 -g" "O2-dwarf4:-O2 -g -gdwarf-4" "O2-dwarf5:-O2 -g -gdwarf-5"
                    "O2-zlib:-O2 -g -gz=zlib")
    if [ "$clang" != 0 ]; then
        variants+=("bb-sections:-O2 -g -fbasic-block-sections=all"
                   "command-line:-O2 -g -grecord-command-line ${DEFINES[*]}"
                   "line-tables:-O2 -gline-tables-only")
    fi
    if [ "$clang" = 2 ]; then
        variants+=("inline-strings:-O2 -g -gdwarf-4 -grecord-command-line -mllvm -dwarf-inlined-strings=Enable ${DEFINES[*]}")
    fi
    if [ "$clang" = 0 ]; then
        variants+=("hot-cold:-O2 -g -freorder-blocks-and-partition"
                   "command-line:-O2 -g -grecord-gcc-switches ${DEFINES[*]}"
                   "dwarf4-strict:-O1 -g -gdwarf-4 -gstrict-dwarf")
    fi
    for variant in "${variants[@]}"; do
        local label=${variant%%:*} flags=${variant#*:}
        local dir="$OUT/$name-$label"
        mkdir -p "$dir"
        # shellcheck disable=SC2086
        "$cc" $flags -o "$dir/work" "$SRC/main.c" "$SRC/work.c" "$SRC/spread.c" "$work/long_names.c"
        local deep=()
        [ "$clang" != 0 ] && deep=(-fbracket-depth=1024)  # clang's default: 256
        # shellcheck disable=SC2086
        "$cxx" $flags "${deep[@]}" -o "$dir/nest" "$SRC/nest.cpp"
    done
}

if have gcc; then c_family gcc gcc g++ 0; else skipped gcc; fi
for version in 14 19; do
    if have "clang-$version"; then
        c_family "clang-$version" "clang-$version" "clang++-$version" $((version >= 19 ? 2 : 1))
    else
        skipped "clang-$version"
    fi
done
if [ -x "$SWIFT_CLANG" ]; then
    c_family clang-swift "$SWIFT_CLANG" "${SWIFT_CLANG}++" 2
    # Other architectures' shared objects: 32-bit Arm (Thumb, 4-byte addresses) and AArch64.
    for target in "armv7a-linux-gnueabihf -mthumb" "aarch64-linux-gnu"; do
        label=$(echo "$target" | cut -d- -f1)
        mkdir -p "$OUT/clang-swift-$label"
        # shellcheck disable=SC2086
        "$SWIFT_CLANG" --target=$target -O2 -g -shared -nostdlib -ffreestanding -fuse-ld=lld -fPIC \
            -Wl,--build-id=sha1 -o "$OUT/clang-swift-$label/libwork.so" "$SRC/work.c" "$SRC/spread.c" "$work/long_names.c"
    done
else
    skipped "$SWIFT_CLANG"
fi

if have swiftc; then
    for variant in "g:-g" "O:-O -g" "line-tables:-gline-tables-only" \
                   "invocation:-g -Xfrontend -debug-info-store-invocation $(printf -- '-DSWIFT_CONDITION_%s ' $(seq 1 300))"; do
        label=${variant%%:*} flags=${variant#*:}
        mkdir -p "$OUT/swiftc-$label"
        # shellcheck disable=SC2086
        (cd "$work" && swiftc $flags -module-name Producers -o "$OUT/swiftc-$label/producers" "$SRC/crash.swift" "$SRC/main.swift")
    done
else
    skipped swiftc
fi

if have rustc; then
    for variant in "debug:-g -C opt-level=0" "release:-g -C opt-level=3"; do
        label=${variant%%:*} flags=${variant#*:}
        mkdir -p "$OUT/rustc-$label"
        # shellcheck disable=SC2086
        rustc $flags -C link-arg=-Wl,--build-id=sha1 -o "$OUT/rustc-$label/work" "$SRC/work.rs"
    done
else
    skipped rustc
fi

# Mach-O, linked and made dSYMs by dsymutil.
if [ -x "$SWIFT_CLANG" ] && have ld64.lld-19 && have dsymutil-19 && have dsymutil-14; then
    for target in "arm64-apple-ios14.0:arm64:ios 14.0 14.0" "x86_64-apple-macos11:x86_64:macos 11.0 11.0"; do
        IFS=: read -r triple arch platform <<<"$target"
        for dwarf in 4 5; do
            dir="$OUT/dsymutil-$arch-dwarf$dwarf"
            mkdir -p "$dir"
            for source in main.c work.c spread.c; do
                "$SWIFT_CLANG" -target "$triple" -O2 -g -gdwarf-$dwarf -grecord-command-line "${DEFINES[@]}" \
                    -c "$SRC/$source" -o "$work/$arch-$dwarf-$source.o"
            done
            "$SWIFT_CLANG" -target "$triple" -O2 -g -gdwarf-$dwarf -c "$work/long_names.c" -o "$work/$arch-$dwarf-long.o"
            # shellcheck disable=SC2086
            ld64.lld-19 -arch "$arch" -platform_version $platform -o "$dir/Work" "$work/$arch-$dwarf-"*.o \
                -undefined dynamic_lookup -e _main
            # dsymutil 14 links DWARF 4; DWARF 5 needs 19's.
            if [ "$dwarf" = 4 ]; then dsymutil-14 "$dir/Work" -o "$dir/Work.dSYM"; else dsymutil-19 "$dir/Work" -o "$dir/Work.dSYM"; fi
        done
    done
else
    skipped "ld64.lld-19, dsymutil-14 or dsymutil-19"
fi

# Mach-O dSYMs that keep a compiler's DWARF byte for byte: C and Swift units for arm64 and
# armv7 in one universal file, every string inline, the Swift units with DW_AT_APPLE_flags of
# the whole command line (the shape of Xcode 8's Swift dSYMs).
if [ -x "$SWIFT_CLANG" ] && have swiftc; then
    dir="$OUT/objects-universal/Work.framework.dSYM/Contents/Resources/DWARF"
    mkdir -p "$dir"
    objects=()
    for triple in arm64-apple-ios10.0 armv7-apple-ios10.0; do
        arch=${triple%%-*}
        "$SWIFT_CLANG" -target "$triple" -O2 -g -gdwarf-4 -grecord-command-line -mllvm -dwarf-inlined-strings=Enable \
            "${DEFINES[@]}" -c "$SRC/work.c" -o "$work/c-$arch.o"
        (cd "$work" && swiftc -target "$triple" -parse-stdlib -g -O -c "$SRC/parsed.swift" -o "$work/swift-$arch.o" \
            -module-name WorkSwift -Xfrontend -disable-legacy-type-info -Xfrontend -debug-info-store-invocation \
            -Xllvm -dwarf-inlined-strings=Enable $(printf -- '-DSWIFT_CONDITION_%s ' $(seq 1 300)))
        objects+=("$work/swift-$arch.o")
        mkdir -p "$OUT/objects-c-$arch/Work.dSYM/Contents/Resources/DWARF"
        python3 dsym_from_objects.py "$OUT/objects-c-$arch/Work.dSYM/Contents/Resources/DWARF/Work" "$work/c-$arch.o"
    done
    python3 dsym_from_objects.py "$dir/Work" "${objects[@]}"
fi

echo "$stamp" > "$OUT/.stamp"
echo "producers: built $(find "$OUT" -type f ! -name .stamp | wc -l) files in $OUT"
