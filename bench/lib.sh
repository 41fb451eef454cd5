# Helpers shared by the bench scripts (sourced, not run): paths, progress messages, Debian
# packages, Debian source packages and the up-to-date stamps that let a second `make bench`
# skip straight to measuring.

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$BENCH_DIR")"
BUILD="${BENCH_BUILD:-$BENCH_DIR/build}"    # everything heavy lives here (gitignored)
TOOLCHAIN="${TOOLCHAIN:-/opt/swift/usr/bin}" # clang, llvm-objdump and llvm-symbolizer of the Swift toolchain

log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# need_packages PKG...: installs the Debian packages that are missing (apt-get update first,
# once per run). Nothing is run when all are there, so an up-to-date bench needs no network.
need_packages() {
    local missing=() p
    for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
    [[ ${#missing[@]} -eq 0 ]] && return 0
    local sudo=""; [[ "$(id -u)" == 0 ]] || sudo="sudo"
    log "installing ${missing[*]}"
    if [[ -z "${BENCH_APT_UPDATED:-}" ]]; then
        $sudo apt-get update -qq
        export BENCH_APT_UPDATED=1
    fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# ensure_deb_src: `apt-get source` needs a deb-src entry. When no source list has one, add
# one for the system's own suite (the same archive and keyring as its first `deb` entry of
# that suite) to /etc/apt/sources.list.d/, and update the package lists.
ensure_deb_src() {
    local lists=(/etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources)
    if grep -Eqs '^[[:space:]]*(deb-src[[:space:]]|Types:.*deb-src)' "${lists[@]}" 2>/dev/null; then
        return 0
    fi
    local sudo=""; [[ "$(id -u)" == 0 ]] || sudo="sudo"
    log "no deb-src entry in the apt sources: adding one"
    python3 - "$BENCH_DIR" <<'PY' | $sudo tee /etc/apt/sources.list.d/bench-deb-src.sources >/dev/null
import glob, re
codename = re.search(r'^VERSION_CODENAME=(.*)$', open('/etc/os-release').read(), re.M).group(1).strip('"')
# deb822 files: the first stanza of Types deb whose Suites name the release.
for path in sorted(glob.glob('/etc/apt/sources.list.d/*.sources')):
    for stanza in open(path).read().split('\n\n'):
        fields = dict(re.findall(r'^([A-Za-z-]+):[ \t]*(.*)$', stanza, re.M))
        if 'deb' in fields.get('Types', '').split() and codename in fields.get('Suites', '').split():
            print('Types: deb-src')
            print('URIs: ' + fields['URIs'])
            print('Suites: ' + codename)
            print('Components: ' + fields.get('Components', 'main'))
            if 'Signed-By' in fields:
                print('Signed-By: ' + fields['Signed-By'])
            raise SystemExit
# One-line lists: the first `deb URI SUITE COMPONENTS` of the release, as a deb822 stanza.
for path in ['/etc/apt/sources.list'] + sorted(glob.glob('/etc/apt/sources.list.d/*.list')):
    try:
        lines = open(path).read().splitlines()
    except OSError:
        continue
    for line in lines:
        words = line.split('#')[0].split()
        if len(words) >= 4 and words[0] == 'deb' and not words[1].startswith('[') and words[2] == codename:
            print('Types: deb-src\nURIs: %s\nSuites: %s\nComponents: %s' % (words[1], codename, ' '.join(words[3:])))
            raise SystemExit
print('Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main' % codename)
PY
    $sudo apt-get update -qq
    export BENCH_APT_UPDATED=1
}

# fetch_source PKG DIR: the unpacked Debian source package PKG (patches applied) in DIR,
# downloaded with `apt-get source`. Prints nothing; the version goes to DIR.version.
fetch_source() {
    local pkg="$1" dir="$2"
    need_packages dpkg-dev
    ensure_deb_src
    local tmp="$dir.download"
    rm -rf "$tmp" "$dir"
    mkdir -p "$tmp"
    log "apt-get source $pkg"
    # Run as root without the _apt download sandbox (it cannot write into our build folder).
    (cd "$tmp" && apt-get source -qq -o APT::Sandbox::User=root "$pkg" >/dev/null)
    local unpacked
    unpacked="$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)"
    [[ -n "$unpacked" ]] || die "apt-get source $pkg unpacked nothing"
    mv "$unpacked" "$dir"
    ls "$tmp"/*.dsc | sed -E 's/.*_(.*)\.dsc$/\1/' > "$dir.version"
    rm -rf "$tmp"
}

# tool_versions TOOL...: the first line of each tool's --version, for stamps.
tool_versions() {
    local t
    for t in "$@"; do
        printf '%s: ' "$t"
        { "$t" --version 2>&1 || true; } | grep -m1 -i -E 'version|[0-9]+\.[0-9]+' || echo "?"
    done
}

# stamp_of TEXT FILE...: a hash of TEXT (tool versions, options) and of the files' contents.
stamp_of() {
    local text="$1"; shift
    { printf '%s\n' "$text"; sha256sum "$@"; } | sha256sum | cut -d' ' -f1
}

# up_to_date DIR STAMP FILE...: DIR/.stamp holds STAMP and every FILE (relative to DIR) exists
# and is not empty.
up_to_date() {
    local dir="$1" stamp="$2" f; shift 2
    [[ -f "$dir/.stamp" && "$(cat "$dir/.stamp")" == "$stamp" ]] || return 1
    for f in "$@"; do [[ -s "$dir/$f" ]] || return 1; done
}

# build_floor OUT: compiles floor.c (the floor of the issue 24 targets) into OUT when OUT is
# missing or older than the source.
build_floor() {
    local out="$1"
    [[ -x "$out" && "$out" -nt "$BENCH_DIR/floor.c" ]] && return 0
    need_packages gcc
    gcc -O2 -Wall -Wextra -o "$out" "$BENCH_DIR/floor.c" || die "cannot compile floor.c"
}

# symbolic_venv DIR VERSION: a Python venv in DIR holding Sentry's symbolic VERSION, from PyPI
# with pip (the anchor of the issue 24 targets). Prints the venv's python, or nothing (and a
# message) when it cannot be installed: the bench then goes on without the anchor.
symbolic_venv() {
    local dir="$1" version="$2"
    if "$dir/bin/python" -c 'import importlib.metadata as m, sys; sys.exit(m.version("symbolic") != sys.argv[1])' \
            "$version" 2>/dev/null; then
        echo "$dir/bin/python"
        return 0
    fi
    need_packages python3-venv >&2   # standard output is the answer
    log "installing symbolic $version (Sentry's SymCache builder) into $dir with pip"
    rm -rf "$dir"
    if python3 -m venv "$dir" >&2 && "$dir/bin/pip" install -q "symbolic==$version" >&2; then
        echo "$dir/bin/python"
    else
        log "cannot install symbolic $version: the SymCache anchor is left out"
        rm -rf "$dir"
    fi
}
