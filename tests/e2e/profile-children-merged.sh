#!/bin/sh
# A program a shell runs 30 times: the fault tables have one row per
# faulting line over all the runs (JSON sites[].processes), one row for the
# 30 buffers that are the same thing (an anonymous 8 MiB block in each), and
# the huge-page table one row for them, not 30.
. "$MA_TOP/tests/lib.sh"
need_root
build_prog stride
# the text report and the JSON one, of two runs
for how in "-o $MA_TMP/r.txt" "-j -o $MA_TMP/r.json"; do
	# shellcheck disable=SC2086
	"$MA" run $how -- sh -c "for i in \$(seq 30); do '$MA_TMP/stride' 64 8 8; done" \
		>/dev/null || fail "memadvise run $how exited $?"
done
python3 - "$MA_TMP/r.json" "$MA_TMP/r.txt" <<'PY' || exit 1
import json, re, sys
d = json.load(open(sys.argv[1]))
txt = open(sys.argv[2]).read()
pf = d["profile"]["page_faults"]
sites = pf.get("sites", [])
keys = [(s.get("kernel_mode"), s.get("module"), s.get("file"), s.get("line"), s.get("function"))
        for s in sites]
top = sites[0] if sites else {}
thp = txt.split("large anon region", 1)[1].split("\n\n", 1)[0] if "large anon region" in txt else ""
thp_rows = [l for l in thp.splitlines()[1:] if l.strip()]
one_each = re.search(r"^\s+\d+\s+8\.0 MiB\s+anon\s+(\d+) procs, one each", txt, re.M)
# the text row of the top site ends with its count of processes, whole
# (a long name is cut before it: __memset_evex_unaligned_erms)
faults = txt.split("faulting code", 1)[1].split("\n")[1] if "faulting code" in txt else ""
ok = (len(set(keys)) == len(keys) and top.get("processes", 0) >= 24 and one_each
      and int(one_each.group(1)) >= 24 and 1 <= len(thp_rows) <= 3
      and re.search(r"\(\d\d procs\)$", faults))
print("[%s: %d sites, %d distinct; top site %s:%s in %s processes, text %r; buffers row %s; "
      "THP rows %d]" % ("Success" if ok else "Failed", len(keys), len(set(keys)),
                        top.get("function"), top.get("line"), top.get("processes"),
                        faults.strip(), one_each.group(0).strip() if one_each else None,
                        len(thp_rows)))
sys.exit(0 if ok else 1)
PY
pass "a program run 30 times: one fault row per line, one row for its 30 buffers"
