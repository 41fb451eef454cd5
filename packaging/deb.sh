#!/usr/bin/env bash
# `make deb`: builds the Debian package of symbolicate with dpkg-deb, offline.
#
#   packaging/deb.sh BINARY GENERATED OUT
#
# BINARY     the release program (`make build`)
# GENERATED  the folder holding the manual page and completion scripts (`make man completions`)
# OUT        the folder the package is written to: OUT/symbolicate_VERSION_ARCH.deb
#
# The package holds the program (stripped, as Debian ships programs), symbolicate(1) and the
# bash, zsh and fish completions, in the places Debian's packages use. Its version is the
# program's (Sources/symbolicate/Version.swift); its Depends are what dpkg-shlibdeps derives from
# the shared libraries the program links (its Suggests, the libraries it loads only to fetch from
# symbol servers); its description is the program's own abstract and
# overview (--experimental-dump-help). DEB_MAINTAINER names the maintainer (default: git's
# user.name and user.email).
set -euo pipefail

[[ $# -eq 3 ]] || { echo "usage: $0 BINARY GENERATED OUT" >&2; exit 64; }
BINARY="$1" GENERATED="$2"
OUT="$(mkdir -p "$3" && cd "$3" && pwd)"
die() { echo "deb.sh: $*" >&2; exit 1; }
for tool in dpkg-deb dpkg-shlibdeps dpkg-architecture strip gzip python3; do
    command -v "$tool" >/dev/null || die "missing tool: $tool (make setup-deb installs it)"
done
[[ -x "$BINARY" ]] || die "no program at $BINARY: run make build"
for file in symbolicate.1 symbolicate.bash _symbolicate symbolicate.fish; do
    [[ -f "$GENERATED/$file" ]] || die "no $GENERATED/$file: run make man completions"
done

# The version and the commit, as --version says them: "0.1.0 (commit 8002197abc12)".
VERSION_LINE="$("$BINARY" --version)"
VERSION="${VERSION_LINE%% *}"
COMMIT="${VERSION_LINE##*commit }"; COMMIT="${COMMIT%)}"
[[ "$VERSION" =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || die "not a Debian version: '$VERSION' (from '$VERSION_LINE')"
ARCH="$(dpkg-architecture -qDEB_HOST_ARCH)"
MAINTAINER="${DEB_MAINTAINER:-$(git config user.name 2>/dev/null || echo symbolicate) <$(git config user.email 2>/dev/null || echo symbolicate@invalid)>}"

WORK="$OUT/work"
ROOT="$WORK/root"
rm -rf "$WORK"
mkdir -p "$ROOT/DEBIAN"
umask 022

# The files, with the permissions dpkg-deb keeps.
install -D -m 755 "$BINARY" "$ROOT/usr/bin/symbolicate"
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$ROOT/usr/bin/symbolicate"
install -D -m 644 "$GENERATED/symbolicate.1" "$ROOT/usr/share/man/man1/symbolicate.1"
gzip -9n "$ROOT/usr/share/man/man1/symbolicate.1"
install -D -m 644 "$GENERATED/symbolicate.bash" "$ROOT/usr/share/bash-completion/completions/symbolicate"
install -D -m 644 "$GENERATED/_symbolicate" "$ROOT/usr/share/zsh/vendor-completions/_symbolicate"
install -D -m 644 "$GENERATED/symbolicate.fish" "$ROOT/usr/share/fish/vendor_completions.d/symbolicate.fish"

DOC="$ROOT/usr/share/doc/symbolicate"
install -d "$DOC"
# The years of the project's commits (this year outside git).
FIRST_YEAR="$(git log --format=%cd --date=format:%Y 2>/dev/null | tail -n 1 || true)"
LAST_YEAR="$(git log -1 --format=%cd --date=format:%Y 2>/dev/null || date +%Y)"
YEARS="${FIRST_YEAR:-$LAST_YEAR}"; [[ "$YEARS" == "$LAST_YEAR" ]] || YEARS="$YEARS-$LAST_YEAR"
cat > "$DOC/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: symbolicate
Comment: The program has the Swift runtime and standard library, and
 swift-argument-parser, linked in: Copyright Apple Inc. and the Swift project
 authors, licensed under the Apache License, Version 2.0, with the Runtime
 Library Exception (https://swift.org/LICENSE.txt). On Debian systems, the full
 text of the Apache License, Version 2.0 is in
 /usr/share/common-licenses/Apache-2.0.

Files: *
Copyright: $YEARS the symbolicate authors
License: none-stated
 No license has been stated for symbolicate: its authors keep all rights.
EOF
chmod 644 "$DOC/copyright"
# A native package's changelog: this build.
{
    echo "symbolicate ($VERSION) unstable; urgency=medium"
    echo
    echo "  * Built from commit $COMMIT."
    echo
    echo " -- $MAINTAINER  $(date -R -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")"
} > "$DOC/changelog"
gzip -9n "$DOC/changelog"

# Depends: what the program links, as dpkg-shlibdeps finds it in the packages installed here.
# It reads debian/control and the DEBIAN folder of the package tree: both are in $WORK.
mkdir -p "$WORK/debian"
printf 'Source: symbolicate\n\nPackage: symbolicate\nArchitecture: any\n' > "$WORK/debian/control"
DEPENDS="$(cd "$WORK" && dpkg-shlibdeps -O -eroot/usr/bin/symbolicate 2>"$WORK/shlibdeps.log")" \
    || { cat "$WORK/shlibdeps.log" >&2; die "dpkg-shlibdeps failed"; }
DEPENDS="${DEPENDS#shlibs:Depends=}"
[[ -n "$DEPENDS" ]] || die "dpkg-shlibdeps found no dependency"

# The libraries loaded with dlopen only when a symbol or debuginfod server is used
# (Sources/CFetch): dpkg-shlibdeps cannot see them, and the program runs without them.
SUGGESTS="libcurl4 | libcurl3-gnutls, libdebuginfod1"

# Synopsis and description from the program's help: its abstract, and the first paragraph of
# its discussion, wrapped for the control file.
read -r -d '' DESCRIPTION < <("$BINARY" --experimental-dump-help | python3 -c '
import json, sys, textwrap
command = json.load(sys.stdin)["command"]
print(command["abstract"].rstrip("."))
for line in textwrap.wrap(command["discussion"].split("\n\n")[0], 72):
    print(" " + line)
') || true
[[ -n "$DESCRIPTION" ]] || die "no description from --experimental-dump-help"

INSTALLED_SIZE="$(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)"
cat > "$ROOT/DEBIAN/control" <<EOF
Package: symbolicate
Version: $VERSION
Architecture: $ARCH
Maintainer: $MAINTAINER
Installed-Size: $INSTALLED_SIZE
Depends: $DEPENDS
Suggests: $SUGGESTS
Section: devel
Priority: optional
Description: $DESCRIPTION
EOF
(cd "$ROOT" && find usr -type f | LC_ALL=C sort | xargs md5sum) > "$ROOT/DEBIAN/md5sums"
chmod 644 "$ROOT/DEBIAN/control" "$ROOT/DEBIAN/md5sums"

PACKAGE="$OUT/symbolicate_${VERSION}_${ARCH}.deb"
dpkg-deb --root-owner-group --build "$ROOT" "$PACKAGE" >/dev/null
echo "$PACKAGE"
