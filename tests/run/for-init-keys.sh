#!/bin/sh
# A DDS read or written in a for loop's init, in a loop the slice need
# not run, is recorded: for (s = v[k]; ;) and for (v[k] += 0; ;) left
# v[k] out of the reconnaissance, and the plan ran iterations writing
# v[k] beside the one reading it (2 x 1 printed no order's result).
# Each run replays its own order on one process.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cd "$tmp" || exit 1
for form in 's = v[i * T + t]' 'v[i * T + t] += 0'; do
	cat >fi.sap <<SAP
param int N = 600;
param int T = 8;
dvector<long> v(N * T + 1);
async for (long i = 0; i < len(v); i++) v[i] = i % 7;
async for (long i = 0; i < N; i++)
    for (int t = 0; t < T; t++) {
        long s = 0;
        for ($form; ; ) {
            s = s + v[i * T + t];
            break;
        }
        v[i * T + t + 1] = (v[i * T + t + 1] * 3 + s + 1) % 1000003;
    }
long q = 0;
for (long k = 0; k < len(v); k++) q = (q * 31 + v[k]) % 1000000007;
print("%ld\\n", q);
SAP
	"$SAPC" -o prog fi.sap || fail "sapc fi.sap ($form)"
	$MPIEXEC -n 1 ./prog --threads=1 >serial 2>err || { cat err; fail "1 x 1 ($form)"; }
	for l in "2 1" "3 1" "2 2"; do
		# shellcheck disable=SC2086
		set -- $l
		$MPIEXEC -n "$1" ./prog --threads="$2" --dump-order=fi.order >out 2>err ||
			{ cat err; fail "$1 x $2 ($form)"; }
		$MPIEXEC -n 1 ./prog --threads=1 --run-order=fi.order >replay 2>err ||
			{ cat err; fail "$1 x $2 replay ($form)"; }
		cmp out replay || fail "$1 x $2 ($form): $(cat out) is not its order's $(cat replay)"
	done
done
exit 0
