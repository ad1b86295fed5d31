#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The corpus scorer (tests/corpus/eval.py) on hand-made reports: a BAD found
# at the right place, one found elsewhere, one found by a line within 3 of
# the label's range, a miss (inconclusive only), a folded finding, a
# tolerated class, an unmapped rule (spurious), GOOD and clean false
# positives; the numbers must be as tests/corpus/README.md defines them.  Then a
# broken label (exit 2, file:line) and --strict on a list (exit 1).
. "$MA_TOP/tests/lib.sh"
need_cmd python3
python3 -c 'import yaml' 2>/dev/null || skip "needs python3-yaml"

C=$MA_TMP/corpus
O=$MA_TMP/out
EVAL=$MA_TOP/tests/corpus/eval.py
mkdir -p "$C" "$O"
cp "$MA_TOP/tests/corpus/classes.yaml" "$C/"

# scenario NAME CLASS WHERE [BAD-TOLERATED] [GOOD-TOLERATED]
scenario() {
	mkdir -p "$C/$1"
	printf 'struct book { long a, b; };\nstruct row { char c; long d; };\n' > "$C/$1/$1.c"
	for i in 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		printf 'void fn_%s(void) { }\n' "$i" >> "$C/$1/$1.c"
	done
	cat > "$C/$1/label.yaml" <<-EOL
	# $1: a hand-made scenario for the scorer's test.
	name: $1
	source: $1.c
	cflags: [-O2, -g]
	ldflags: []
	paper: "6.2.1"
	variants:
	  bad:
	    defines: [BAD]
	    args: []
	    expect:
	      - class: $2
	        where: [$3]
	    tolerated: [${4:-}]
	  good:
	    defines: []
	    args: []
	    expect: []
	    tolerated: [${5:-}]
	EOL
}

# report NAME/VARIANT FINDING...  (each finding: rule status json-location [folded])
report() {
	mkdir -p "$O/$1"
	dst=$O/$1/report.json
	shift
	python3 - "$dst" "$@" <<-'EOP'
	import json, sys
	fs = []
	for spec in sys.argv[2:]:
	    rule, status, loc, *rest = spec.split("|")
	    f = {"id": rule, "status": status, "location": json.loads(loc)}
	    if rest:
	        f["folded"] = True
	    fs.append(f)
	json.dump({"findings": fs}, open(sys.argv[1], "w"))
	EOP
}

scenario s_found "false sharing" '"struct book.a", "func fn_9"'
report s_found/bad 'false-sharing|fired|{"struct": "book", "member": "b, a", "function": "fn_3"}'
report s_found/good
scenario s_line "struct holes" '"s_line.c:10-12"'
report s_line/bad 'struct-holes|fired|{"struct": "row", "file": "/elsewhere/s_line.c", "line": 15}'
report s_line/good
scenario s_miss "atomic contention" '"func fn_4"'
report s_miss/bad 'contended-atomic|inconclusive|{"function": "fn_4"}' \
	'struct-holes|fired|{"struct": "row"}|folded'
report s_miss/good 'contended-atomic|fired|{"function": "fn_4"}'
scenario s_tol "misalignment" '"func fn_5", "s_tol.c:5"' '"line spanning"' '"line spanning"'
report s_tol/bad 'bad-alignment|fired|{"function": "fn_12", "file": "s_tol.c", "line": 9}' \
	'cacheline-spanning|fired|{"struct": "book"}' 'branch-mispredict|fired|{"function": "fn_6"}'
report s_tol/good 'cacheline-spanning|fired|{"struct": "book"}'
mkdir -p "$C/x_clean"
printf 'int main(void) { return 0; }\n' > "$C/x_clean/x_clean.c"
cat > "$C/x_clean/label.yaml" <<EOL
# x_clean: a clean control.
name: x_clean
source: x_clean.c
cflags: [-O2, -g]
variants:
  clean:
    defines: []
    args: []
    expect: []
    tolerated: []
EOL
report x_clean/clean 'struct-holes|fired|{"struct": "row"}'

python3 "$EVAL" --corpus "$C" --out "$O" --no-run --json "$MA_TMP/r.json" > "$MA_TMP/table" ||
	fail "eval.py --no-run exited $?: $(tail -n 3 "$MA_TMP/table")"
cat "$MA_TMP/table"
got=$(json "$MA_TMP/r.json" '" ".join(str(d["totals"][k]) for k in ("expected_pairs", "found_pairs",
	"located_pairs", "recall", "location_accuracy", "quiet_variants", "false_positive_programs",
	"false_positive_share", "spurious_classes"))')
want="4 3 2 0.75 0.667 5 2 0.4 1"
[ "$got" = "$want" ] || fail "totals '$got', expected '$want'"
conf=$(json "$MA_TMP/r.json" '" ".join("%s=%d/%d/%d" % (r, c["fired_expected"], c["missed"], c["fired_unexpected"])
	for r, c in sorted(d["totals"]["confusion"].items()) if any((c["fired_expected"], c["missed"], c["fired_unexpected"])))')
want="bad-alignment=1/0/0 branch-mispredict=0/0/1 contended-atomic=0/1/1 false-sharing=1/0/0 struct-holes=1/0/1"
[ "$conf" = "$want" ] || fail "confusion '$conf', expected '$want'"
grep -q "MISSED atomic contention" "$MA_TMP/table" || fail "the table does not show the miss"
grep -q "misalignment (elsewhere: func fn_12" "$MA_TMP/table" || fail "the table does not show the wrong location"

# --strict on a list: s_found/bad is as labelled, s_tol/bad is not (wrong place)
printf 's_found/bad\ns_found/good # quiet\n' > "$MA_TMP/ok.list"
python3 "$EVAL" --corpus "$C" --out "$O" --no-run --strict --list "$MA_TMP/ok.list" > /dev/null ||
	fail "--strict failed on variants that are as labelled"
printf 's_found/bad\ns_tol/bad\n' > "$MA_TMP/bad.list"
python3 "$EVAL" --corpus "$C" --out "$O" --no-run --strict --list "$MA_TMP/bad.list" > "$MA_TMP/strict"
rc=$?
[ $rc -eq 1 ] || fail "--strict exited $rc on a variant found at the wrong place, expected 1"
grep -q "not as labelled: s_tol/bad" "$MA_TMP/strict" || fail "--strict does not name s_tol/bad"

# a broken label: an unknown class, reported at its line, exit 2
sed -i 's/class: misalignment/class: misaligment/' "$C/s_tol/label.yaml"
python3 "$EVAL" --corpus "$C" --out "$O" --no-run 2> "$MA_TMP/err" > /dev/null
rc=$?
[ $rc -eq 2 ] || fail "a label with an unknown class: exit $rc, expected 2"
grep -q "^error: .*s_tol/label.yaml:12: class 'misaligment' is not in classes.yaml" "$MA_TMP/err" ||
	fail "unexpected message: $(head -n 1 "$MA_TMP/err")"
grep -q "^hint: " "$MA_TMP/err" || fail "no hint line"
pass "scorer: recall, location, false positives, spurious and the confusion table as defined"
