#!/usr/bin/env bash
# Builds the dyld shared cache fixtures into Fixtures/build/dyld (make_caches.py says what),
# unless neither the scripts nor the tools changed since the last build.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="$HERE/../build/dyld"
CLANG="${APPLE_CC:-/opt/swift/usr/bin/clang}"
LD="${LD64_19:-ld64.lld-19}"
NM="${LLVM_NM:-llvm-nm-19}"
for tool in "$CLANG" "$LD" "$NM" python3; do
    command -v "$tool" >/dev/null || { echo "dyld fixtures: missing tool: $tool" >&2; exit 1; }
done
stamp=$({ sha256sum "$HERE"/*.py "$HERE"/build.sh; "$CLANG" --version | head -n 1; "$LD" --version | head -n 1; "$NM" --version | head -n 3; } | sha256sum | cut -d' ' -f1)
if [[ "${1:-}" != "--force" && -f "$OUT/.stamp" && "$(cat "$OUT/.stamp")" == "$stamp" ]]; then
    echo "dyld fixtures up to date in $OUT"
    exit 0
fi
rm -rf "$OUT"
mkdir -p "$OUT"
python3 "$HERE/make_caches.py" --out "$OUT" --clang "$CLANG" --ld "$LD" --nm "$NM"
echo "$stamp" > "$OUT/.stamp"
