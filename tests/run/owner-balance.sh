#!/bin/sh
# --stats' balance of a chunks loop, which runs where its elements are
# (over the part of a vector held in parts, or owner computes): a loop
# over the first half of a loaded vector ran every iteration on the ranks
# holding that half while the others sat idle, and the column said 1.00.  It is now the busiest rank's iterations over
# the mean rank's: 1.00 for the whole vector, 2.00 for the first half on
# 2 and 3 ranks (on 3, rank 0 holds a third, rank 1 the next sixth).
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 1

cat >ob.sap <<'SAP'
dvector<double> X = load("x.txt");
long n = len(X);
dvector<double> Y(n);
async for (long i = 0; i < n; i++)
    Y[i] = 2 * X[i];
for (int r = 0; r < 3; r++)
    async for (long i = 0; i < n / 2; i++)
        Y[i] += X[i];
async for (long i = 0; i < n / 2; i++)
    Y[i] += 1;
double s = 0;
for (long i = 0; i < n; i++)
    s += Y[i];
print("%.1f\n", s);
SAP
$SAPC ob.sap -o ob || fail "sapc failed on ob.sap"
i=0
while test $i -lt 6000; do echo $i; i=$((i + 1)); done >x.txt
for np in 2 3; do
	$MPIEXEC -n $np ./ob --stats >out 2>err </dev/null || { cat err; fail "$np ranks: the run failed"; }
	grep -qx 49492500.0 out || { cat out; fail "$np ranks: wrong sum"; }
	for l in "4 1.00 chunks" "7 2.00 chunks" "9 2.00 chunks (owner computes)"; do
		set -- $l
		line=$1 want=$2
		shift 2
		rows=$(grep "^ *[0-9]* ob.sap:$line .* $*\$" err)
		test "$(echo "$rows" | grep -c .)" = $np || { cat err; fail "$np ranks: loop at line $line not $*"; }
		test "$(echo "$rows" | awk '{ print $11 }' | sort -u)" = "$want" ||
			{ cat err; fail "$np ranks: loop at line $line: balance not $want"; }
	done
done
exit 0
