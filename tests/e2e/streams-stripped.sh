#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Address streams put a breakpoint only where an instruction surely starts:
# in a program with symbols the hot load is probed; stripped, its start
# comes from a vote over the bytes before a sample, and it is listed as not
# streamed, with the reason, rather than probed (a breakpoint off an
# instruction's start would break the program).
. "$MA_TOP/tests/lib.sh"
need_root
cat > "$MA_TMP/walk.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	size_t n = 64 << 20;
	char *a = malloc(n);
	long s = 0;

	if (!a)
		return 1;
	for (int r = 0; r < 1500; r++)
		for (size_t i = 0; i < n; i += 256)
			s += a[i] += 1;
	printf("%ld\n", s);
	return 0;
}
EOC
cc -O2 -o "$MA_TMP/walk" "$MA_TMP/walk.c" || fail "cannot build the walk"
cp "$MA_TMP/walk" "$MA_TMP/walk-stripped" && strip -s "$MA_TMP/walk-stripped" || skip "no strip"
for p in walk walk-stripped; do
	"$MA" run --stream-budget 25 -j -o "$MA_TMP/$p.json" -- "$MA_TMP/$p" > /dev/null ||
		fail "memadvise run exited $? on $p"
done
python3 - "$MA_TMP" <<'PY'
import json, sys
tmp = sys.argv[1]
def streams(p):
    d = json.load(open("%s/%s.json" % (tmp, p)))
    prov = [x["detail"] for x in d.get("provenance", []) if x["what"] == "uprobe_stream"]
    return (d.get("address_streams") or {}).get("ips", []), prov
ips, prov = streams("walk")
if not any(i.get("status") == "ok" and i.get("accesses") for i in ips):
    if any("BPF" in w or "uprobe" in w for w in prov):
        print("[Skipped: %s]" % prov); sys.exit(2)
    print("[Failed: the walk with symbols was not streamed: %s %s]" % (ips, prov)); sys.exit(1)
ips, prov = streams("walk-stripped")
ok = [i for i in ips if i.get("status") == "ok"]
if ok:
    print("[Failed: a breakpoint was put on a voted start: %s]" % ok); sys.exit(1)
if not any("start not sure" in w for w in prov):
    print("[Failed: the stripped walk does not say why it is not streamed: %s]" % prov); sys.exit(1)
print("[Success: probed with symbols; stripped, listed as not streamed: start not sure]")
PY
