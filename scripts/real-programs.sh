#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Fetches real programs from Debian source packages (redis with its
# redis-benchmark, zstd, sqlite3, memcached) and builds them with -g, for
# comparing 'memadvise layout' with pahole and for docs/real-programs.md on code
# nobody here wrote.  Prints the paths of the built binaries, one a line.
# Reuses an earlier build in the cache directory.
#
#   scripts/real-programs.sh [DIR]     (default: ${XDG_CACHE_HOME:-~/.cache}/memadvise/real)
#
# Needs: root (to add a deb-src entry when there is none), apt's network,
# tclsh (sqlite3 generates its amalgamation with it); memcached needs
# libevent-dev.
set -eu
dir=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/memadvise/real}
mkdir -p "$dir"
cd "$dir"
log="$dir/build.log"

have_debsrc() {
	grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null
}

fetch() { # package
	ls -d "$1"-*/ >/dev/null 2>&1 && return 0
	if ! have_debsrc; then
		[ "$(id -u)" -eq 0 ] || { echo "error: no deb-src entry and not root" >&2; exit 1; }
		cat > /etc/apt/sources.list.d/memadvise-debsrc.sources <<EOT
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
		apt-get update -qq >> "$log" 2>&1
	fi
	apt-get source -qq --download-only "$1" >> "$log" 2>&1 ||
		{ apt-get update -qq >> "$log" 2>&1 && apt-get source -qq --download-only "$1" >> "$log" 2>&1; }
	for dsc in "$1"_*.dsc; do
		dpkg-source -x "$dsc" >> "$log" 2>&1
	done
}

# redis-server: libc malloc (no jemalloc build); layout does not depend on -O.
fetch redis
r=$(ls -d redis-*/ | head -n 1)
if [ ! -x "$r/src/redis-server" ]; then
	make -s -C "$r/src" -j2 redis-server MALLOC=libc OPTIMIZATION=-O1 \
		CFLAGS=-g LDFLAGS=-g BUILD_TLS=no USE_SYSTEMD=no >> "$log" 2>&1
fi
echo "$dir/${r%/}/src/redis-server"
if [ ! -x "$r/src/redis-benchmark" ]; then
	make -s -C "$r/src" -j2 redis-benchmark MALLOC=libc OPTIMIZATION=-O1 \
		CFLAGS=-g LDFLAGS=-g BUILD_TLS=no USE_SYSTEMD=no >> "$log" 2>&1
fi
echo "$dir/${r%/}/src/redis-benchmark"

fetch libzstd
z=$(ls -d libzstd-*/ | head -n 1)
if [ ! -x "$z/programs/zstd" ]; then
	make -s -C "$z/programs" -j2 zstd MOREFLAGS="-g -O1" >> "$log" 2>&1
fi
echo "$dir/${z%/}/programs/zstd"

# sqlite3: the shell and the 250k-line amalgamation in one binary (the
# Debian build links a shared library instead), the way most programs embed it.
fetch sqlite3
q=$(ls -d sqlite3-*/ | head -n 1)
if [ ! -x "$q/sqlite3-g" ]; then
	command -v tclsh >/dev/null 2>&1 || { echo "error: sqlite3's amalgamation needs tclsh (apt-get install tcl)" >&2; exit 1; }
	( cd "$q" && { [ -f Makefile ] || ./configure -q --disable-tcl --disable-readline; } &&
		make -s sqlite3.c shell.c &&
		${CC:-cc} -g -O1 -DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_MATH_FUNCTIONS -o sqlite3-g \
			shell.c sqlite3.c -lm -lpthread -ldl ) >> "$log" 2>&1
fi
echo "$dir/${q%/}/sqlite3-g"
# memcached: its own configure, -g -O2 as Debian builds it.
if pkg-config --exists libevent 2>/dev/null; then
	fetch memcached
	m=$(ls -d memcached-*/ | head -n 1)
	if [ ! -x "$m/memcached" ]; then
		(cd "$m" && ./configure -q CFLAGS="-g -O2" >> "$log" 2>&1 && make -s -j2 memcached >> "$log" 2>&1)
	fi
	echo "$dir/${m%/}/memcached"
else
	echo "real-programs: memcached skipped: libevent-dev is not installed" >&2
fi
