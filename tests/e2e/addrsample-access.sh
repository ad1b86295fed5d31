#!/bin/sh
# Sampled addresses carry the evidence of three rules: a column walk with a
# 4096-byte pitch keeps to one L1D set (R7 conflicts), loads at offset 60
# cross cache lines (R6), and a CAS loop is seen at its lock cmpxchg (R13).
. "$MA_TOP/tests/lib.sh"
need_root
build_prog access
# the column walk runs 200 rounds: 50 distinct lines need about 100 samples
# on it, which a guest's 250 Hz tick takes in 0.4 s
for run in conflict:200 split:100 cas:100; do
	mode=${run%:*}
	"$MA" run -j -o "$MA_TMP/$mode.json" -- "$MA_TMP/access" $mode ${run#*:} >/dev/null ||
		fail "memadvise run ($mode) exited $?"
done
python3 - "$MA_TMP" "$MA_TOP/tests/e2e/progs/access.c" <<'PY' || exit 1
import json, sys
tmp, src = sys.argv[1], sys.argv[2]
lines = open(src).read().split("\n")
def hot(tag):
    return [n for n, l in enumerate(lines, 1) if "/* %s" % tag in l][0]
def ips(mode, tag):
    a = json.load(open("%s/%s.json" % (tmp, mode)))["data_addresses"]
    return [i for i in a["ips"] if i.get("line") == hot(tag) and i.get("decoded")]
msg, ok = [], True
c = ips("conflict", "HOT_CONFLICT")
ok &= bool(c) and c[0]["l1d_sets"] <= 2 and c[0]["distinct_lines"] >= 50
msg.append("conflict: %s" % ("%d lines in %d L1D set(s)" % (c[0]["distinct_lines"], c[0]["l1d_sets"]) if c else "no samples"))
s = ips("split", "HOT_SPLIT")
ok &= bool(s) and s[0]["line_splits"] >= 0.9 * (s[0]["decoded"] - s[0]["approximate"])
msg.append("split: %s" % ("%d of %d cross a line" % (s[0]["line_splits"], s[0]["decoded"]) if s else "no samples"))
k = [i for i in ips("cas", "HOT_CAS") if i.get("cas")]
ok &= bool(k) and k[0]["atomic"]
msg.append("cas: %s" % ("%d samples at %s" % (k[0]["samples"], k[0]["instruction"]) if k else "no lock cmpxchg sampled"))
print("[%s: %s]" % ("Success" if ok else "Failed", "; ".join(msg)))
sys.exit(0 if ok else 1)
PY
