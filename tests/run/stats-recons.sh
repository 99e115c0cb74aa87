#!/bin/sh
# --stats counts reconnaissance runs, the passes of a loop's slice: none
# for a loop whose keys are all static (its plan comes from the affine
# subscripts, as --explain says), one for a loop whose slice records
# keys that then stay, on one rank of two threads and on two ranks.  The static loop's plan
# was counted as a reconnaissance run.
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 1

cat >r.sap <<'SAP'
param long n = 4000;
dvector<double> c(n) = 1.0;
dvector<long> K(n);
async for (long i = 0; i < n; i++)
    K[i] = i * 7919 % n;
for (int it = 0; it < 3; it++) {
    async for (long i = 1; i < n; i++)
        c[i] = c[i - 1] * 0.5 + 1;
    async for (long i = 0; i < n; i++)
        c[K[i]] += 1;
}
print("%.3f\n", c[n - 1]);
SAP
"$SAPC" -O2 -o r r.sap || fail "sapc"
for w in "1 2" "2 1"; do
	set -- $w
	np=$1
	$MPIEXEC -n "$np" ./r --threads="$2" --stats >out 2>stats || { cat stats; fail "$np ranks"; }
	# loop 2 is the static one, loop 3 the sliced one: invocations 3,
	# then recons.
	awk '$1 == 2 && $3 == 3 { s = $4 } $1 == 3 && $3 == 3 { d = $4 }
	     END { exit !(s == "0" && d == "1") }' stats ||
		{ cat stats; fail "$np ranks: recons of the static and the sliced loop not 0 and 1"; }
done
