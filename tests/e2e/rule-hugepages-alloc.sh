#!/bin/sh
# missing-hugepages says which kind the region is and gives the fix that
# applies to it: the glibc tunable for a malloc block (aligned_alloc +
# madvise cannot change how malloc maps it), madvise for the program's own
# mapping; a static array's region is named .bss.  64 MiB, every page
# touched, then 2 s of random reads (tests/e2e/progs/alloc_kinds.c).  The
# rule needs more pages covered at random than the TLB holds (3072 without
# a machine profile), a lower bound from the samples that hit a page twice:
# from 1 s of samples (about 230 on 16384 pages) it came out at 3400-24000,
# too near the bound to pass every time; 2 s doubles the samples.
. "$MA_TOP/tests/lib.sh"
need_root
build_prog alloc_kinds
for m in malloc mmap static; do
	"$MA" run -j -o "$MA_TMP/$m.json" -- "$MA_TMP/alloc_kinds" "$m" 2 >/dev/null 2>&1 ||
		fail "memadvise run on alloc_kinds $m exited $?"
done
python3 - "$MA_TMP" <<'PY' || exit 1
import json, sys
tmp = sys.argv[1]
want = {"malloc": "malloc block (mmap)", "mmap": "mmap", "static": "static (.bss)"}
for m, kind in want.items():
    d = json.load(open("%s/%s.json" % (tmp, m)))
    big = max(d["profile"]["regions"], key=lambda r: r["size"])
    if big.get("allocation") != kind:
        print("[Failed: %s: the 64 MiB region is %r, expected %r]" % (m, big.get("allocation"), kind))
        sys.exit(1)
    f = [x for x in d["findings"] if x["id"] == "missing-hugepages" and x["status"] == "fired"]
    if m == "static":
        continue
    if not f:
        print("[Failed: %s: missing-hugepages did not fire]" % m); sys.exit(1)
    fix, msg = f[0]["fix"], f[0]["message"]
    if kind not in msg:
        print("[Failed: %s: the message does not name the kind: %s]" % (m, msg)); sys.exit(1)
    if m == "malloc" and "glibc.malloc.hugetlb" not in fix:
        print("[Failed: malloc: the fix has no glibc tunable: %s]" % fix); sys.exit(1)
    if m == "mmap" and ("GLIBC_TUNABLES" in fix or "MADV_HUGEPAGE" not in fix):
        print("[Failed: mmap: the fix is not madvise on the mapping: %s]" % fix); sys.exit(1)
print("[Success: malloc block -> glibc.malloc.hugetlb, mmap -> madvise, .bss named]")
PY
