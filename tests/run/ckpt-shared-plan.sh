#!/bin/sh
# A loop that writes nothing and sums floating-point numbers (reduce(+))
# must print the same bits after a resume as in the run that was not
# killed (sap-run(1), CHECKPOINTS).  It ran in the plan of the loop before
# it (planned (loop N's plan)) when that plan was at hand, so its sums
# depended on whether that loop had run since the process started: a run
# resumed between the two summed in even chunks and printed other last
# bits (1 x 2 and 2 x 1).  Now such a loop always runs even chunks.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cat >"$tmp/gs.sap" <<'SAP'
struct Entry {
    int col;
    double v;
}
struct Row {
    list<Entry> a;
}
param string data = "rows.txt";
dvector<Row> A = load(data);
long n = len(A);
dvector<double> x(n) = 1.0;
for (int s = 0; s < 4; s++) {
    async for (long i = 0; i < n; i++) {
        double acc = 1;
        for (long k = 0; k < len(A[i].a); k++)
            acc -= 0.3 * A[i].a[k].v * x[A[i].a[k].col];
        x[i] = acc;
    }
    double r = 0;
    async for (long i = 0; i < n; i++) reduce(+: r) {
        for (long k = 0; k < len(A[i].a); k++)
            r += A[i].a[k].v * x[A[i].a[k].col];
    }
    print("sweep %d r %.17g\n", s, r);
}
SAP
cd "$tmp" || exit 1
"$SAPC" -o gs gs.sap || fail "sapc gs.sap"
# 2000 rows of 4 entries at pseudo-random columns.
awk 'BEGIN { s = 1; for (i = 0; i < 2000; i++) { line = "";
	for (k = 0; k < 4; k++) { s = (s * 1103515245 + 12345) % 2147483648; c = s % 2000;
		s = (s * 1103515245 + 12345) % 2147483648; v = (s % 2001 - 1000) / 1000;
		line = line (k ? " " : "") c ":" v }
	print line } }' >rows.txt

for layout in "1 2" "2 1"; do
	set -- $layout
	run="$MPIEXEC -n $1 ./gs --threads=$2"
	$run >full.txt 2>full.err </dev/null || { cat full.err; fail "$1 x $2: the run failed"; }
	rm -rf ck
	# Killed after the first loop of the second pass: the summing loop
	# comes first in the resumed run.
	SAP_TEST_KILL_AFTER=3 $run --checkpoint-dir=ck --checkpoint-every=1 >killed.txt 2>&1 </dev/null
	$run --checkpoint-dir=ck --resume >resumed.txt 2>resumed.err </dev/null ||
		{ cat resumed.err; fail "$1 x $2: the resumed run failed"; }
	grep -q "resuming from checkpoint 3" resumed.err || { cat resumed.err; fail "$1 x $2: not resumed from checkpoint 3"; }
	grep '^sweep' killed.txt >k.txt
	covers full.txt k.txt resumed.txt ||
		{ diff full.txt resumed.txt; fail "$1 x $2: the resumed run printed other sums"; }
done
exit 0
