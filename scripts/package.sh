#!/usr/bin/env bash
# Builds the Debian packages hintfs and hintfs-dev (dpkg-buildpackage -b, the
# rules in debian/) from a copy of the working tree, and leaves the .deb files
# in OUTDIR (default build-deb/). Installs the build dependencies it misses.
#   bash scripts/package.sh [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=$(readlink -m "${1:-$ROOT/build-deb}")
VERSION=$(dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null || sed -n '1s/.*(\(.*\)).*/\1/p' debian/changelog)

missing=$(dpkg-checkbuilddeps 2>&1 | sed -n 's/.*Unmet build dependencies: //p' | sed 's/([^)]*)//g')
if [ -n "$missing" ]; then
  echo "package: installing build dependencies: $missing"
  apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

WORK=$(mktemp -d /tmp/hintfs-package.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
SRC=$WORK/hintfs-$VERSION
mkdir "$SRC"
# The tracked and new files, not build directories or images.
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$SRC"
echo "package: building hintfs $VERSION (a release build without the tests; a few minutes)"
(cd "$SRC" && dpkg-buildpackage -b -us -uc > "$WORK/build.log" 2>&1) || { tail -40 "$WORK/build.log"; exit 1; }
mkdir -p "$OUT"
rm -f "$OUT"/hintfs*.deb
mv "$WORK"/*.deb "$OUT"/
ls "$OUT"/*.deb
