#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The published schemas that the output tests validate memadvise's files
# against, fetched once into tests/schemas/ (not kept in git: they are other
# projects' files under their own terms) and checked by SHA-256:
#   sarif-schema-2.1.0.json  OASIS SARIF 2.1.0 JSON schema (oasis-tcs/sarif-spec)
#   JUnit.xsd                Ant JUnit XML schema, Apache-2.0 (windyroad/JUnit-Schema)
# A no-op when both are there.  Without network it says so and exits 0: the
# tests that need a schema then skip and name this script.
set -u
dest=${1:-$(cd "$(dirname "$0")/.." && pwd)/tests/schemas}
mkdir -p "$dest"

fetch() { # name url sha256
	f="$dest/$1"
	if [ -f "$f" ] && echo "$3  $f" | sha256sum -c --status; then
		return 0
	fi
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL --max-time 60 -o "$f.tmp" "$2"
	else
		wget -q -T 60 -O "$f.tmp" "$2"
	fi || { rm -f "$f.tmp"; echo "warning: cannot download $2; the tests that validate against $1 will skip" >&2; return 0; }
	if ! echo "$3  $f.tmp" | sha256sum -c --status; then
		rm -f "$f.tmp"
		echo "error: $2 does not have the expected SHA-256 $3" >&2
		return 1
	fi
	mv "$f.tmp" "$f"
}

fetch sarif-schema-2.1.0.json \
	https://raw.githubusercontent.com/oasis-tcs/sarif-spec/e0583813964ec43cea53b6b531b402866095ed1f/sarif-2.1/schema/sarif-schema-2.1.0.json \
	c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e &&
fetch JUnit.xsd \
	https://raw.githubusercontent.com/windyroad/JUnit-Schema/cfa434d4b8e102a8f55b8727b552a0063ee9044e/JUnit.xsd \
	147ff89ef34a82f9a1b2951e7cad251b98c9a7a48a0e0c8e44937141791f57a8
