#!/bin/sh
# A loop whose slice reads flags it writes itself (a Lasso's active set,
# act[j] = b != 0) keeps its plan while the flags it wrote are the ones
# the plan was made from: planned twice for five invocations, where it
# re-planned every one (nine times slower on 1 x 2 than on one thread).
# Flags that do change (from pass 2 on) still make it plan again, on every layout, with
# the serial loop's results, and --check-plan finds every access planned.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cat >"$tmp/sb.sap" <<'SAP'
param long n = 20000;
param int flip = -1;
dvector<int> act(n);
dvector<int> to(n);
dvector<double> y(n);
dvector<long> hits(n);
async for (long i = 0; i < n; i++) to[i] = int((i * 7919 + 13) % (n / 4));
dvector<int> sact(n);
dvector<double> sy(n);
dvector<long> shits(n);
for (int p = 0; p < 5; p++) {
    async for (long i = 0; i < n; i++) {
        if (act[i] == 0) {
            int t = to[i];
            y[t] = y[t] * 0.5 + i % 97 + p;
            hits[t] += 1;
        }
        act[i] = i % 3 == 0 || (flip >= 0 && p >= flip && i % 5 == 0) ? 1 : 0;
    }
    for (long i = 0; i < n; i++) {
        if (sact[i] == 0) {
            int t = to[i];
            sy[t] = sy[t] * 0.5 + i % 97 + p;
            shits[t] += 1;
        }
        sact[i] = i % 3 == 0 || (flip >= 0 && p >= flip && i % 5 == 0) ? 1 : 0;
    }
}
long bad = 0;
double s = 0;
for (long i = 0; i < n; i++) {
    if (y[i] != sy[i] || hits[i] != shits[i])
        bad++;
    s += y[i];
}
print("bad %ld sum %.17g\n", bad, s);
SAP
cd "$tmp" || exit 1
"$SAPC" -O2 -o sb sb.sap || fail "sapc sb.sap"
# The recons column of the loop at line 12.
recons() {
	sed -n 's/^ *[0-9]* sb.sap:12 *[0-9]* *\([0-9]*\) .*/\1/p' err | head -n 1
}
for flip in -1 2; do
	$MPIEXEC -n 1 ./sb --threads=1 --flip=$flip >out 2>err || { cat err; fail "1 x 1, flip=$flip"; }
	grep -q '^bad 0 ' out || fail "1 x 1, flip=$flip printed $(cat out)"
	for l in "1 2" "2 1" "3 1"; do
		# shellcheck disable=SC2086
		set -- $l
		$MPIEXEC -n "$1" ./sb --threads="$2" --flip=$flip --stats >"out.$1.$2" 2>err ||
			{ cat err; fail "$1 x $2, flip=$flip"; }
		# Invocations 0 and 1 find new flags; with flip=2, 3 too.
		want=2
		test "$flip" = -1 || want=3
		got=$(recons)
		test "$got" = "$want" || { cat err; fail "$1 x $2, flip=$flip: $got plans, not $want"; }
	done
	cmp out.1.2 out.2.1 || fail "flip=$flip: 1 x 2 and 2 x 1 differ"
	$MPIEXEC -n 1 ./sb --threads=2 --flip=$flip --check-plan >out.check 2>err ||
		{ cat err; fail "1 x 2 --check-plan, flip=$flip"; }
done
exit 0
