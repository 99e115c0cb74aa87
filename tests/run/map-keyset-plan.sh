#!/bin/sh
# A loop that checks a map's keys keeps its plan while the keys stay the
# same, also when the map was rebuilt with them: on several ranks a loop
# over the map's keys runs on its parts, and the map is made whole again
# for the next loop, which used to take the new key version for new keys
# and plan again every invocation.  The loop runs on every rank, on its
# threads: the result is 1 rank's of as many threads.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/k.sap" <<'SAP'
param long n = 4000;
param int epochs = 5;
dvector<int> F(n);
async for (long i = 0; i < n; i++) F[i] = int((i * 7919) % 997);
dmap<int, double> w;
for (long i = 0; i < n; i++) w[F[i]] += 0;
for (int ep = 0; ep < epochs; ep++) {
    async for (long i = 0; i < n; i++) {
        w[F[i]] += 0.5 * (i % 3) - 0.25 * w[F[i]];
    }
    long pos = 0;
    async for (int j : w) reduce(+: pos) {
        if (w[j] > 0) pos++;
    }
    print("%d %ld\n", ep, pos);
}
double s = 0;
dvector<int> ks = keys(w);
for (long q = 0; q < len(ks); q++) s += w[ks[q]] * (ks[q] % 7 + 1);
print("%.17g\n", s);
SAP
"$SAPC" -O2 -o "$tmp/k" "$tmp/k.sap" || fail "sapc k.sap"
(cd "$tmp" && ./k --threads=2 >one.out 2>one.err) || { cat "$tmp/one.err"; fail "1 x 2"; }
for np in 2 3; do
	(cd "$tmp" && $MPIEXEC -n $np ./k --threads=2 --stats >out 2>err) ||
		{ cat "$tmp/err"; fail "$np ranks"; }
	cmp -s "$tmp/out" "$tmp/one.out" ||
		fail "$np ranks: printed other values than 1 rank of 2 threads"
	recons=$(awk '$2 ~ /k\.sap:8$/ { print $4; exit }' "$tmp/err")
	test "$recons" = 1 ||
		{ cat "$tmp/err"; fail "$np ranks: loop 2 ran its slice $recons times, not once"; }
done
exit 0
