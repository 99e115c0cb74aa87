#!/bin/sh
# A chunks loop cut by the work of its inner loops: a bound from a value
# that differs between ranks (a C function reading the rank) would cut
# the iterations differently on each, running some twice and some never.
# It is an error on every rank instead; on one rank the loop runs.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

cat >st.c <<'C'
#include <stdint.h>
#include <stdlib.h>
int64_t which(void)
{
	const char *r = getenv("OMPI_COMM_WORLD_RANK");
	return r ? atol(r) + 1 : 1;
}
C
cat >rk.sap <<'SAP'
extern long which();
long b = which();
dvector<double> y(1000);
async for (long i = 0; i < 1000; i++) {
    double s = 0;
    for (long j = 0; j < (b - 1) * i; j++)
        s += 1;
    y[i] = s;
}
double t = 0;
for (long i = 0; i < 1000; i++)
    t += y[i];
print("%g\n", t);
SAP
"$SAPC" -o rk rk.sap st.c || fail "sapc rk.sap st.c"
[ "$($MPIEXEC -n 1 ./rk </dev/null)" = 0 ] || fail "1 rank"
if $MPIEXEC -n 2 ./rk >out 2>err </dev/null; then
	fail "2 ranks ran a loop their cuts differ on: $(cat out)"
fi
grep -q "rk.sap:4:1: error: this async for's inner loops run a number of times that differs between ranks" err ||
	{ cat err; fail "no word of the ranks' cuts"; }
exit 0
