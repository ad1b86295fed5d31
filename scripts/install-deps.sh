#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install the Debian 12 packages memadvise needs to build and test.
# A no-op when every package is already present; runs 'apt-get update'
# at most once, and only when something is missing.
set -eu

PKGS="make gcc pkg-config clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev
libdw-dev libpfm4-dev libncurses-dev libyaml-dev libjson-c-dev libcapstone-dev
valgrind linux-perf dwarves tmux groff-base python3 python3-yaml libclang-rt-14-dev
g++ dpkg-dev xz-utils strace python3-jsonschema libxml2-utils"

missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	else
		echo "error: missing packages:$missing" >&2
		echo "hint: run 'apt-get install$missing' as root" >&2
		exit 1
	fi
else
	SUDO=
fi

echo "installing:$missing" >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2
