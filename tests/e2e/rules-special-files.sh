#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A rules directory holding a FIFO and a link to /dev/zero named *.yaml, an
# oversized file behind a small name, and links to '.' and '..': lint and
# --rules finish at once, name the files they skip, read no file past the
# limit and see no rule twice.
. "$MA_TOP/tests/lib.sh"
d="$MA_TMP/r"
mkdir -p "$d/sub"
cp "$MA_TOP/rules/vm/page-fault-storm.yaml" "$d/sub/"
mkfifo "$d/fifo.yaml" || skip "cannot make a FIFO"
ln -s /dev/zero "$d/zero.yaml"
ln -s . "$d/loop"
ln -s .. "$d/sub/up"
timeout 10 "$MA" rules lint "$d" > /dev/null 2> "$MA_TMP/lint.err"
rc=$?
[ $rc -ne 124 ] || fail "rules lint did not finish in 10 s"
[ $rc -eq 2 ] || fail "rules lint exited $rc, expected 2: $(cat "$MA_TMP/lint.err")"
grep -q 'fifo.yaml: a FIFO, skipped' "$MA_TMP/lint.err" || fail "the FIFO is not reported"
grep -q 'zero.yaml: a character device, skipped' "$MA_TMP/lint.err" || fail "the link to /dev/zero is not reported"
grep -q 'also used by' "$MA_TMP/lint.err" && fail "false duplicate id: $(grep 'also used' "$MA_TMP/lint.err")"
grep -q 'loop: a symbolic link to a directory, not followed' "$MA_TMP/lint.err" ||
	fail "the link to '.' is not reported"
timeout 10 "$MA" --rules "$d" rules list > "$MA_TMP/list" 2> "$MA_TMP/list.err"
rc=$?
[ $rc -eq 0 ] || fail "--rules DIR rules list exited $rc: $(cat "$MA_TMP/list.err")"
grep -q '^warning: .*fifo.yaml: a FIFO, skipped' "$MA_TMP/list.err" || fail "--rules: the FIFO skip is not said"
# A file past the limit behind a rule's name is refused, whatever its size.
rm "$d/fifo.yaml" "$d/zero.yaml"
head -c 100000 /dev/zero | tr '\0' '#' > "$MA_TMP/big"
ln -s "$MA_TMP/big" "$d/big.yaml"
timeout 10 "$MA" rules lint "$d" > /dev/null 2> "$MA_TMP/big.err"
grep -q 'big.yaml:1: file is larger than 64 KiB' "$MA_TMP/big.err" || fail "the oversized file: $(cat "$MA_TMP/big.err")"
pass "special files in a rules directory are skipped and named; links to directories are not followed"
