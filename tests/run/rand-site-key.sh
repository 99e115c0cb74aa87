#!/bin/sh
# sap(7): each call of rand(), rand_int() or rand_normal() in a body is a
# site, numbered from 1 in source order, and draws the site's numbers.
# A draw written in the key of a vector the loop writes took site 2 (the
# key was walked as a read and as a write, numbering it twice), so
# V[rand_int(m)] += 1 drew other numbers than long k = rand_int(m);
# V[k] += 1, and than the same loop with accumulate or in a sync for
# without its slice.  The four forms, each loop 1 of its program, must
# give one histogram, on 1 and 2 ranks.
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 1

form() {
	cat >"$1.sap" <<SAP
param int m = 50;
dvector<long> V(m);
dvector<long> D(4000);
$2
long s = 0;
for (int k = 0; k < m; k++)
    s += V[k] * (k + 1);
print("%d\\n", s);
SAP
	"$SAPC" -O2 -o "$1" "$1.sap" || fail "sapc $1.sap"
}
form key 'async for (long i = 0; i < len(D); i++)
    V[rand_int(m)] += 1;'
form local 'async for (long i = 0; i < len(D); i++) {
    long k = rand_int(m);
    V[k] += 1;
}'
form accumulate 'async for (long i = 0; i < len(D); i++) accumulate(+: V)
    V[rand_int(m)] += 1;'
form sync 'sync for (long x : D) with (bsp, batch = 8, merge(V) = sum)
    V[rand_int(m)] += 1;'
for np in 1 2; do
	for f in key local accumulate sync; do
		$MPIEXEC -n $np "./$f" >"$f.$np" 2>err || { cat err; fail "$f on $np ranks"; }
	done
	for f in key accumulate sync; do
		cmp -s local.$np $f.$np || fail "$np ranks: $f draws $(cat $f.$np), local $(cat local.$np)"
	done
done
