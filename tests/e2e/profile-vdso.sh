#!/bin/sh
# Samples in the vDSO are named through the kernel's vDSO image ([vdso]
# __vdso_clock_gettime), not after a module mapped next to it.
. "$MA_TOP/tests/lib.sh"
need_root
build_prog vdso_clock
"$MA" run -j -o "$MA_TMP/r.json" -- "$MA_TMP/vdso_clock" 1 >/dev/null 2>&1 ||
	fail "memadvise run exited $?"
python3 - "$MA_TMP/r.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
funcs = d["profile"]["functions"]
vdso = [f for f in funcs if f.get("module") == "[vdso]"]
if not vdso:
    print("[Failed: no function in [vdso]: %s]" % [(f.get("module"), f.get("function")) for f in funcs[:5]])
    sys.exit(1)
names = [f["function"] for f in vdso]
if not any(n in ("__vdso_clock_gettime", "__vdso_gettimeofday") for n in names):
    print("[Failed: [vdso] functions %s]" % names); sys.exit(1)
print("[Success: [vdso] %s, %d samples]" % (names[0], sum(f["samples"] for f in vdso)))
PY
