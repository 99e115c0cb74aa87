#!/bin/sh
# Ranks started differently (mpiexec's "A : B" form): every rank must run
# the same program with the same arguments and the same plan-shaping
# environment, or the ranks go their own ways through the collectives and
# hang or crash.  Each case fails at once, on 2 and 3 ranks, with exit
# status 2 and one message naming the rank and what differs; the same
# start on every rank runs as usual.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/p.sap" <<'SAP'
param long n = 1000;
param int iters = 2;
dvector<double> w(n);
for (int e = 0; e < iters; e++)
    async for (long i = 0; i < n; i++)
        w[i] += i;
double s = 0;
for (long i = 0; i < n; i++)
    s += w[i];
print("sum %g\n", s);
SAP
cd "$tmp" || exit 1
sed 's/param int iters/param int epochs/; s/< iters/< epochs/' p.sap >q.sap
"$SAPC" -O2 -o p p.sap || fail "sapc p.sap"
"$SAPC" -O2 -o q q.sap || fail "sapc q.sap"

check() {
	name=$1
	want=$2
	shift 2
	timeout 120 $MPIEXEC "$@" >out 2>err
	rc=$?
	test $rc = 124 && fail "$name: still running after 120 s"
	test $rc = 2 || { cat err; fail "$name: exit status $rc, expected 2"; }
	grep -qxF "$want" err || { cat err; fail "$name: no '$want'"; }
	test "$(grep -c 'error:' err)" = 1 || { cat err; fail "$name: not exactly one error"; }
	test ! -s out || fail "$name: printed '$(cat out)'"
}

tail="every rank must run the same program with the same arguments"
check "one argument" \
	"p: error: the ranks were started differently: rank 1 has argument 1 '--n=20' where rank 0 has argument 1 '--n=10'; $tail" \
	-n 1 ./p --n=10 : -n 1 ./p --n=20
check "3 ranks, the last differs" \
	"p: error: the ranks were started differently: rank 2 has argument 2 '--iters=3' where rank 0 has argument 2 '--iters=2'; $tail" \
	-n 2 ./p --n=10 --iters=2 : -n 1 ./p --n=10 --iters=3
check "an argument more" \
	"p: error: the ranks were started differently: rank 1 has argument 1 '--n=5' where rank 0 has no more arguments; $tail" \
	-n 1 ./p : -n 2 ./p --n=5
check "another program" \
	"q: error: the ranks were started differently: rank 1 has the program 'q.sap' where rank 0 has the program 'p.sap'; $tail" \
	-n 1 ./p : -n 1 ./q
check "control bytes escaped" \
	"p: error: the ranks were started differently: rank 1 has argument 1 '--n=1\\x1b[2J' where rank 0 has argument 1 '--n=1'; $tail" \
	-n 1 ./p --n=1 : -n 1 ./p "$(printf -- '--n=1\033[2J')"
check "plan-shaping environment" \
	"p: error: the ranks were started differently: rank 1 has SAP_BLOCKS '4' where rank 0 has SAP_BLOCKS '3'; $tail" \
	-n 1 -x SAP_BLOCKS=3 ./p : -n 2 -x SAP_BLOCKS=4 ./p
check "a bad SAP_THREADS on one rank" \
	"p: error: the ranks were started differently: rank 1 has SAP_THREADS unset where rank 0 has SAP_THREADS 'x'; $tail" \
	-n 1 -x SAP_THREADS=x ./p : -n 1 ./p

for np in 2 3; do
	timeout 120 $MPIEXEC -n 1 ./p --n=10 : -n $((np - 1)) ./p --n=10 >out 2>err ||
		{ cat err; fail "the same start on $np ranks: non-zero exit status"; }
	test "$(cat out)" = "sum 90" || fail "the same start on $np ranks: printed '$(cat out)'"
done
exit 0
